// libFuzzer harness for nsc/io/nats_sss.hpp (the NATS-Bench SSS CSV reader): the input bytes are
// the file. Every std::exception is a normal outcome (malformed input); crashes, UB, leaks,
// timeouts and over-limit memory are findings. Accepted rows are checked against the reader's
// own documented rules, so silently wrong answers are findings too.
#include <nsc/io/nats_sss.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  // small limits, so that the fuzzer reaches them with short inputs
  nsc::io::nats_sss_limits limits;
  limits.max_line_bytes = 4096;
  limits.max_columns = 64;
  limits.max_rows = 256;
  try {
    const auto rows = nsc::io::read_nats_sss(in, "fuzz.csv", limits);
    if (rows.size() > limits.max_rows) std::abort();
    for (const auto& r : rows) {
      std::string expect;
      for (std::size_t k = 0; k < 5; ++k) {
        if (r.c[k] < 1) std::abort();
        if (k) expect += ':';
        expect += std::to_string(r.c[k]);
      }
      if (r.channels != expect || r.index < 0) std::abort();
      for (double acc : {r.cifar10_acc, r.cifar100_acc, r.imagenet16_120_acc})
        if (!std::isfinite(acc) || acc < 0 || acc > 100) std::abort();
      if (r.params_cifar10 < 1 || r.params_cifar100 < 1 || r.params_imagenet16_120 < 1) std::abort();
    }
  } catch (const std::exception& e) {
    // a malformed file: the message must name the reader and stay short (values truncated)
    const std::string m = e.what();
    if (m.rfind("nsc::io::read_nats_sss: ", 0) != 0 || m.size() > 1024) std::abort();
  }
  return 0;
}
