// libFuzzer harness for nsc/io/search_space.hpp: bytes -> JSON (nsc::io::parse_json: depth
// limit) -> SPACE.json (read_search_space) -> solve (search_groups_budgets or
// search_transformer_space_budgets, with the front and the k best on some inputs). Solving is
// bounded: tables and state sets are capped at 16 MiB (a refusal is a normal outcome), and spaces
// larger than 256 groups x 64 options (groups) or 64 layers x 16 options with d_model <= 4096
// (transformer) are parsed but not solved. Every std::exception is a normal outcome; only
// crashes, UB, leaks and timeouts are findings. Build: clang++ -std=c++20 -g -O1
// -fsanitize=fuzzer,address,undefined -Iinclude tests/fuzz/fuzz_search_space.cpp; seed corpus
// tests/fuzz/corpus/search_space/ (examples/spaces/* and the issue-13 reproducers).
#include <nsc/io/input_file.hpp>
#include <nsc/io/search_space.hpp>
#include <nsc/search/budget_search.hpp>
#include <nsc/search/groups.hpp>
#include <nsc/search/transformer_space.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const nlohmann::json j = nsc::io::parse_json(text, "nsc::read_search_space", "fuzz");
    const nsc::io::search_space_file f = nsc::io::read_search_space(j, "fuzz");
    nsc::search::budget_search_settings bs;
    bs.mmck.max_table_bytes = std::size_t(16) << 20;
    bs.front = size % 2 == 1;
    bs.top = size % 3 == 0 ? 3 : 0;
    bs.min_distance = size % 5 == 0 ? 2 : 0;
    if (f.type == nsc::io::search_space_file::kind::groups) {
      if (f.groups.size() > 256) return 0;
      for (const auto& g : f.groups)
        if (g.options.size() > 64) return 0;
      nsc::search::groups_budgets_settings s;
      s.cost_names = f.cost_names;
      s.budgets = f.budgets;
      s.resolution = f.resolution;
      s.search = bs;
      (void)nsc::search::search_groups_budgets(f.groups, s);
    } else {
      const auto& t = f.transformer;
      if (t.layers.size() > 64 || t.d_model > 4096 || t.seq_len > 65536) return 0;
      for (const auto& l : t.layers) {
        if (l.size() > 16) return 0;
        for (const auto& c : l)
          if (c.d_ff > 65536 || c.n_heads > 256 || c.head_dim > 1024) return 0;
      }
      (void)nsc::search::search_transformer_space_budgets(t, f.budgets, bs);
    }
  } catch (const std::exception&) {
  }
  return 0;
}
