// The generic pruning space of Llama-3.1-70B (examples/configs/llama-3.1-70b.json, 80 layers) at
// 8k context, batch 8, bf16: building the space (options scored and costed), and the exact
// search under one budget (memory 80 GB) and three (params 40e9, FLOPs 60e9 per token, KV 2e9
// bytes), decilm format. Target (issue 10): the three-budget search <= 1 s.
//
//   build/benchmarks/bench_prune --benchmark_min_time=0.5
#include <nsc/io/hf_config.hpp>
#include <nsc/search/prune_space.hpp>

#include <benchmark/benchmark.h>

#include <string>

namespace {

using namespace nsc::search;

const nsc::hf_model& model() {
  static const nsc::hf_model m =
      nsc::read_hf_config_file(std::string(NSC_SOURCE_DIR) + "/examples/configs/llama-3.1-70b.json");
  return m;
}

prune_space_settings settings(prune_format f) {
  prune_space_settings s;
  s.format = f;
  s.load.seq_len = 8192;
  s.load.context = 8192;
  s.load.batch = 8;
  return s;
}

void bm_space(benchmark::State& st) {
  for (auto _ : st) benchmark::DoNotOptimize(make_prune_space(model().spec, settings(prune_format::decilm)));
}
BENCHMARK(bm_space)->Unit(benchmark::kMillisecond);

void bm_search(benchmark::State& st, std::vector<prune_budget> budgets) {
  const prune_space sp = make_prune_space(model().spec, settings(prune_format::decilm));
  prune_search_settings s;
  s.budgets = std::move(budgets);
  for (auto _ : st) {
    const prune_search_result r = search_prune(sp, s);
    if (!r.best) st.SkipWithError("infeasible");
    benchmark::DoNotOptimize(r.best->totals.nsc);
  }
}
BENCHMARK_CAPTURE(bm_search, memory_80GB, {{prune_cost::memory, 80000000000}})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_search, params_flops_kv, {{prune_cost::params, 40000000000},
                                               {prune_cost::prefill_flops, 60000000000LL * 8192},
                                               {prune_cost::kv_bytes, 2000000000}})
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
