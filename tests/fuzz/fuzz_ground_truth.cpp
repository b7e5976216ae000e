// libFuzzer harness for the ground-truth CSV readers (nsc/io/ground_truth.hpp): bytes ->
// parse_csv, parse_lts_csv, parse_flexibert_csv, parse_autoformer_tiny_csv -> the family
// adapters (make_gpt2_data, make_txl_data, make_flexibert_data, make_autoformer_tiny_data) on
// what parses. Every std::exception is a normal outcome; only crashes, UB, leaks and timeouts
// are findings. Build: clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude
// tests/fuzz/fuzz_ground_truth.cpp; seed corpus tests/fuzz/corpus/ground_truth/.
#include <nsc/eval/families.hpp>
#include <nsc/io/ground_truth.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>

namespace {
template <class F>
void quietly(F f) {
  try {
    f();
  } catch (const std::exception&) {
  }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  nsc::io::table_limits lim;
  lim.max_columns = 512;
  lim.max_rows = 512;
  quietly([&] { (void)nsc::io::parse_csv(text, "fuzz", lim); });
  quietly([&] {
    const auto rows = nsc::io::parse_lts_csv(text);
    if (rows.size() > 64) return;
    quietly([&] { (void)nsc::eval::make_gpt2_data(rows); });
    quietly([&] { (void)nsc::eval::make_txl_data(rows); });
  });
  quietly([&] {
    const auto rows = nsc::io::parse_flexibert_csv(text);
    if (rows.size() <= 64) (void)nsc::eval::make_flexibert_data(rows);
  });
  quietly([&] {
    const auto rows = nsc::io::parse_autoformer_tiny_csv(text);
    if (rows.size() <= 64) (void)nsc::eval::make_autoformer_tiny_data(rows);
  });
  return 0;
}
