// libFuzzer harness: Hugging Face config text -> nsc::read_hf_config -> network -> score, count
// and deploy. Every std::exception is a normal outcome (bad input must be refused with a clear
// error); crashes, UB, leaks, hangs and huge allocations are findings.
//
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -Iinclude \
//       tests/fuzz/fuzz_hf_config.cpp -o fuzz_hf_config
//   ./fuzz_hf_config tests/fuzz/corpus/hf_config -max_len=65536
#include <nsc/io/hf_config.hpp>
#include <nsc/io/input_file.hpp>
#include <nsc/model/deployment.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const nlohmann::json j = nsc::io::parse_json(text, "fuzz_hf_config", "<input>");
    const nsc::hf_model m = nsc::read_hf_config(j);
    const nsc::network net = nsc::hf_network(m, 256);
    (void)nsc::count(net).total();
    nsc::psi_cache cache;
    (void)nsc::score(net, nsc::scoring{}, &cache);
    nsc::workload w;
    w.context = 4096;
    w.batch = 2;
    w.attention = nsc::attention_convention::causal;
    w.weights = nsc::dtype::int4;
    (void)nsc::deploy(m.spec, w);
    if (m.stored) { // the checkpoint's own format (quantization_config, torch_dtype)
      w.stored = m.stored;
      (void)nsc::deploy(m.spec, w);
    }
    (void)nsc::count(nsc::hf_mtp_network(m, 256)).total(); // MTP modules (num_nextn_predict_layers)
    (void)nsc::hf_deploy_mtp(m, w);
  } catch (const std::exception&) {
    // a clear refusal is a correct answer
  }
  return 0;
}
