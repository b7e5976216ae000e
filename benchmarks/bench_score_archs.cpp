// Benchmarks: scoring whole architecture spaces.
//
// NATS-Bench SSS (32,768 architectures, nsc/presets/nats_sss.hpp). Every "PerArch" benchmark
// scores ONE architecture per iteration, cycling through the space in NATS order, so the reported
// time is the time per architecture:
//   * BM_NatsSss_BuildOnly_PerArch            nats_sss_network(c) (the lowering alone)
//   * BM_NatsSss_BuildScore_Uncached_PerArch  build + nsc::score(net, nats_sss_scoring())
//   * BM_NatsSss_BuildScore_Cached_PerArch    the same with one nsc::psi_cache shared by all
//   * BM_NatsSss_BuildScoreCount_Cached_PerArch  + nsc::count(net) (#Params, MACs)
// and the fast path (nats_sss_table: per-layer scores as functions of (c_in, c_out)):
//   * BM_NatsSss_TableBuild                   tabulating 7 x 8 x 8 layers
//   * BM_NatsSss_TableScoreAll                score_all(): all 32,768 (per_arch counter)
// MobileNetV3 (OFA space, nsc/presets/mobilenetv3.hpp):
//   * BM_MobileNetV3_Reference_PerArch        build + score one random architecture
// Layers with a multiplicity (Llama-3.1-70B's config, examples/configs/llama-3.1-70b.json):
//   * BM_Llama70B_ReadScoreCount_Runs         read_hf_config (80 layers: one run) + network +
//                                             score + count + deploy
//   * BM_Llama70B_ReadScoreCount_Expanded     the same with the spec expanded to 80 blocks
//                                             (what the reader built before runs)
//   Both parse the config once outside the loop; each iteration reads the parsed JSON, builds,
//   scores (fresh psi_cache) and counts. Report the ratio of the two within one run.
#include <nsc/io/hf_config.hpp>
#include <nsc/model/deployment.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/presets/mobilenetv3.hpp>
#include <nsc/presets/nats_sss.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

namespace pr = nsc::presets;

const std::vector<pr::nats_channels>& nats_space() {
  static const std::vector<pr::nats_channels> all = [] {
    std::vector<pr::nats_channels> v(pr::nats_sss_size);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = pr::nats_sss_channels(i);
    return v;
  }();
  return all;
}

void BM_NatsSss_BuildOnly_PerArch(benchmark::State& state) {
  const auto& space = nats_space();
  std::size_t i = 0;
  for (auto _ : state) {
    nsc::network net = pr::nats_sss_network(space[i]);
    benchmark::DoNotOptimize(net.layers.data());
    i = (i + 1) % space.size();
  }
}
BENCHMARK(BM_NatsSss_BuildOnly_PerArch);

void BM_NatsSss_BuildScore_Uncached_PerArch(benchmark::State& state) {
  const auto& space = nats_space();
  const nsc::scoring s = pr::nats_sss_scoring();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(nsc::score(pr::nats_sss_network(space[i]), s).nsc);
    i = (i + 1) % space.size();
  }
}
BENCHMARK(BM_NatsSss_BuildScore_Uncached_PerArch);

void BM_NatsSss_BuildScore_Cached_PerArch(benchmark::State& state) {
  const auto& space = nats_space();
  const nsc::scoring s = pr::nats_sss_scoring();
  nsc::psi_cache cache; // shared by every architecture (warm after the first few)
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(nsc::score(pr::nats_sss_network(space[i]), s, &cache).nsc);
    i = (i + 1) % space.size();
  }
  state.counters["cache_entries"] = double(cache.size());
}
BENCHMARK(BM_NatsSss_BuildScore_Cached_PerArch);

void BM_NatsSss_BuildScoreCount_Cached_PerArch(benchmark::State& state) {
  const auto& space = nats_space();
  const nsc::scoring s = pr::nats_sss_scoring();
  nsc::psi_cache cache;
  std::size_t i = 0;
  for (auto _ : state) {
    const nsc::network net = pr::nats_sss_network(space[i]);
    benchmark::DoNotOptimize(nsc::score(net, s, &cache).nsc);
    benchmark::DoNotOptimize(nsc::count(net).total());
    i = (i + 1) % space.size();
  }
}
BENCHMARK(BM_NatsSss_BuildScoreCount_Cached_PerArch);

void BM_NatsSss_TableBuild(benchmark::State& state) {
  for (auto _ : state) {
    const pr::nats_sss_table table;
    benchmark::DoNotOptimize(table.score({64, 64, 64, 64, 64}));
  }
}
BENCHMARK(BM_NatsSss_TableBuild)->Unit(benchmark::kMicrosecond);

void BM_NatsSss_TableScoreAll(benchmark::State& state) {
  const pr::nats_sss_table table;
  for (auto _ : state) {
    std::vector<double> all = table.score_all();
    benchmark::DoNotOptimize(all.data());
  }
  state.counters["per_arch"] =
      benchmark::Counter(double(pr::nats_sss_size), benchmark::Counter::kIsIterationInvariantRate |
                                                        benchmark::Counter::kInvert);
}
BENCHMARK(BM_NatsSss_TableScoreAll)->Unit(benchmark::kMicrosecond);

void BM_MobileNetV3_Reference_PerArch(benchmark::State& state) {
  std::mt19937_64 rng(7);
  std::vector<pr::ofa_mbv3_arch> archs(1024);
  const std::int64_t d[] = {2, 3, 4}, k[] = {3, 5, 7}, e[] = {3, 4, 6};
  std::uniform_int_distribution<int> pick(0, 2);
  for (auto& a : archs) {
    for (auto& x : a.depths) x = d[pick(rng)];
    for (auto& x : a.kernels) x = k[pick(rng)];
    for (auto& x : a.expand_ratios) x = e[pick(rng)];
  }
  const nsc::scoring s = pr::mobilenetv3_reference_scoring();
  nsc::psi_cache cache;
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(nsc::score(pr::mobilenetv3_network(archs[i]), s, &cache).nsc);
    i = (i + 1) % archs.size();
  }
}
BENCHMARK(BM_MobileNetV3_Reference_PerArch);

// ---- FlexiBERT (shared/data/flexibert-nas-bench-bert) ------------------------------------------
// Reserved: scoring the FlexiBERT / NAS-Bench-BERT architectures (nsc/presets/flexibert.hpp) is
// added here by the FlexiBERT work; no numbers are produced by this file for it.

} // namespace

const nlohmann::json& llama70b_config() {
  static const nlohmann::json j =
      nlohmann::json::parse(std::ifstream(std::string(NSC_SOURCE_DIR) + "/examples/configs/llama-3.1-70b.json"));
  return j;
}

void llama70b(benchmark::State& state, bool expanded) {
  const nlohmann::json& c = llama70b_config();
  std::size_t entries = 0;
  for (auto _ : state) {
    nsc::hf_model m = nsc::read_hf_config(c);
    if (expanded) m.spec = nsc::expand(m.spec);
    const nsc::network net = nsc::hf_network(m, 256);
    nsc::psi_cache cache;
    benchmark::DoNotOptimize(nsc::score(net, nsc::scoring{}, &cache).nsc);
    benchmark::DoNotOptimize(nsc::count(net).total());
    benchmark::DoNotOptimize(nsc::deploy(m.spec, nsc::workload{}).kv_cache_bytes);
    entries = net.layers.size();
  }
  state.counters["layer_entries"] = double(entries);
}
void BM_Llama70B_ReadScoreCount_Runs(benchmark::State& state) { llama70b(state, false); }
BENCHMARK(BM_Llama70B_ReadScoreCount_Runs)->Unit(benchmark::kMicrosecond);
void BM_Llama70B_ReadScoreCount_Expanded(benchmark::State& state) { llama70b(state, true); }
BENCHMARK(BM_Llama70B_ReadScoreCount_Expanded)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
