// libFuzzer harness for nsc/io/table.hpp and nsc/io/rank_table.hpp: bytes -> CSV / JSON Lines
// table -> every inline architecture cell scored (paths are not followed: the fuzzer must not
// read the file system) -> the generic ranking of the rows. Every std::exception is a normal
// outcome (bad input is refused with a message); only crashes, UB, leaks and timeouts are
// findings. Build: clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude
// tests/fuzz/fuzz_table.cpp; seed corpus tests/fuzz/corpus/table/.
#include <nsc/eval/rank_scores.hpp>
#include <nsc/io/rank_table.hpp>
#include <nsc/io/table.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  nsc::io::table_limits lim;
  lim.max_columns = 256;
  lim.max_rows = 256;
  lim.max_field_bytes = 1 << 16;
  for (const auto format : {nsc::io::table_format::automatic, nsc::io::table_format::csv,
                            nsc::io::table_format::jsonl}) {
    try {
      const nsc::io::table t = nsc::io::parse_table(text, "fuzz", format, lim);
      if (t.columns.size() < 2) continue;
      nsc::io::table_rank_options o;
      o.arch_column = t.columns[0];
      o.target = t.columns[1];
      // score the inline cells of the first rows (never a path)
      nsc::eval::ranking_input in;
      for (std::size_t r = 0; r < t.size() && r < 8; ++r) {
        for (std::size_t c = 0; c < t.columns.size() && c < 4; ++c) {
          const std::string& cell = t.cell(r, c);
          if (nsc::io::classify_architecture(cell) == nsc::io::architecture_kind::config_path) continue;
          try {
            const auto a = nsc::io::score_architecture(cell, "/nonexistent", o, "fuzz");
            in.score.push_back(a.nsc);
            in.truth.push_back(double(r % 3));
            in.params.push_back(double(a.params));
            in.flops.push_back(a.flops);
          } catch (const std::exception&) {
          }
        }
      }
      if (in.score.size() >= 2) {
        in.baselines = {{"params", in.params}};
        nsc::eval::bootstrap_settings s;
        s.resamples = 20;
        s.threads = 1;
        (void)nsc::eval::rank_scores(in, s);
      }
    } catch (const std::exception&) {
    }
  }
  return 0;
}
