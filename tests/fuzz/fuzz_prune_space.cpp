// libFuzzer harness: Hugging Face config text -> nsc::read_hf_config -> make_prune_space (every
// format, MoE experts and widths) -> search_prune under a params budget -> prune_emit_config ->
// prune_verify_config. Every std::exception is a normal outcome (bad input, a format that cannot
// express the model, an oversized space must be refused with a clear error); crashes, UB, leaks,
// hangs and huge allocations are findings.
//
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -Iinclude \
//       tests/fuzz/fuzz_prune_space.cpp -o fuzz_prune_space
//   ./fuzz_prune_space tests/fuzz/corpus/prune_space -max_len=8192
#include <nsc/io/hf_config.hpp>
#include <nsc/io/input_file.hpp>
#include <nsc/io/prune_config.hpp>
#include <nsc/search/prune_space.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const nlohmann::json j = nsc::io::parse_json(text, "fuzz_prune_space", "<input>");
    const nsc::hf_model m = nsc::read_hf_config(j);
    if (m.spec.blocks.size() > 8 || m.spec.d_model > 4096) return 0; // keep each run short
    for (nsc::search::prune_format f :
         {nsc::search::prune_format::decilm, nsc::search::prune_format::per_layer, nsc::search::prune_format::nsc}) {
      nsc::search::prune_space_settings ss;
      ss.format = f;
      ss.ffn_multiple = 64;
      ss.load.seq_len = 16;
      const nsc::search::prune_space sp = nsc::search::make_prune_space(m.spec, ss);
      if (sp.options() > 4096) continue;
      nsc::search::prune_search_settings s;
      s.budgets = {{nsc::search::prune_cost::params, sp.fixed[0] + (sp.fixed[0] >> 1)}};
      s.mmck.max_table_bytes = std::size_t(1) << 26;
      const nsc::search::prune_search_result r = nsc::search::search_prune(sp, s);
      if (!r.best) continue;
      try {
        nsc::prune_verify_config(nsc::prune_emit_config(j, sp, *r.best), sp, *r.best);
      } catch (const std::invalid_argument&) { // a format that cannot express the model: refused, named
      }
    }
  } catch (const std::exception&) {
  }
  return 0;
}
