// Benchmarks of nsc/eval/ranking.hpp.
//  * every statistic on n = 32,768 architectures shaped like NATS-Bench (continuous score,
//    accuracy with two decimals, #Params with many ties, #FLOPs tied to #Params);
//  * tau-b from n = 2^10 to 2^20, fitted to O(n log n);
//  * both windowed-tau algorithms against n (their crossover sets window_algorithm::automatic).
#include <nsc/eval/ranking.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

namespace {

struct nats_like {
  std::vector<double> score, truth, params, flops;
};

/// #Params log-uniform in [0.07, 1.5] M rounded to 0.01 M (about 140 distinct values, like the
/// NATS topology space), #FLOPs a multiple of it, accuracy rounded to 0.01 %.
nats_like make_data(std::size_t n, unsigned seed = 42) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> logp(std::log(0.07), std::log(1.5));
  std::normal_distribution<double> noise;
  std::uniform_int_distribution<int> mult(0, 2);
  nats_like d;
  d.score.resize(n);
  d.truth.resize(n);
  d.params.resize(n);
  d.flops.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double p = std::round(100.0 * std::exp(logp(rng))) / 100.0;
    d.params[i] = p;
    d.flops[i] = std::round(10.0 * p * (8.0 + 4.0 * mult(rng))) / 10.0;
    d.truth[i] = std::round(100.0 * (80.0 + 5.0 * std::log(p) + 2.0 * noise(rng))) / 100.0;
    d.score[i] = std::log(p) + 0.5 * noise(rng);
  }
  return d;
}

constexpr std::size_t nats_n = 32768;

const nats_like& nats() {
  static const nats_like d = make_data(nats_n);
  return d;
}

void BM_KendallTauB_Nats(benchmark::State& state) {
  const auto& d = nats();
  for (auto _ : state) benchmark::DoNotOptimize(nsc::eval::kendall_tau_b(d.score, d.truth));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * nats_n));
}
BENCHMARK(BM_KendallTauB_Nats)->Unit(benchmark::kMillisecond);

void BM_SpearmanRho_Nats(benchmark::State& state) {
  const auto& d = nats();
  for (auto _ : state) benchmark::DoNotOptimize(nsc::eval::spearman_rho(d.score, d.truth));
}
BENCHMARK(BM_SpearmanRho_Nats)->Unit(benchmark::kMillisecond);

void BM_PairwiseAccuracy_Nats(benchmark::State& state) {
  const auto& d = nats();
  for (auto _ : state) benchmark::DoNotOptimize(nsc::eval::pairwise_accuracy(d.score, d.truth));
}
BENCHMARK(BM_PairwiseAccuracy_Nats)->Unit(benchmark::kMillisecond);

void BM_WindowedTau_Nats(benchmark::State& state) {
  const auto& d = nats();
  const auto alg = static_cast<nsc::eval::window_algorithm>(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(nsc::eval::windowed_kendall_tau(d.score, d.truth, d.params, 0.10, alg));
  }
  state.counters["pairs"] = static_cast<double>(nsc::eval::detail::plan_windows(d.params, 0.10).pairs);
}
BENCHMARK(BM_WindowedTau_Nats)
    ->ArgName("alg")  // 0 automatic, 1 enumerate_pairs, 2 divide_and_conquer
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond);

void BM_PartialTau_Nats(benchmark::State& state) {
  const auto& d = nats();
  for (auto _ : state) {
    benchmark::DoNotOptimize(nsc::eval::partial_kendall_tau(d.score, d.truth, {d.params, d.flops}));
  }
}
BENCHMARK(BM_PartialTau_Nats)->Unit(benchmark::kMillisecond);

void BM_Summarize_Nats(benchmark::State& state) {
  const auto& d = nats();
  for (auto _ : state) {
    benchmark::DoNotOptimize(nsc::eval::summarize(d.score, d.truth, d.params, d.flops));
  }
}
BENCHMARK(BM_Summarize_Nats)->Unit(benchmark::kMillisecond);

void BM_KendallTauB_Scaling(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const nats_like d = make_data(n, 7);
  for (auto _ : state) benchmark::DoNotOptimize(nsc::eval::kendall_tau_b(d.score, d.truth));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_KendallTauB_Scaling)
    ->RangeMultiplier(2)
    ->Range(1 << 10, 1 << 20)
    ->Complexity(benchmark::oNLogN)
    ->Unit(benchmark::kMillisecond);

/// Windowed tau with the NATS-like #Params window (|P| ~ 6.5 % of all pairs): enumeration
/// grows like n^2, divide and conquer like n log^2 n.
void BM_WindowedTau_Enumerate_Scaling(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const nats_like d = make_data(n, 7);
  for (auto _ : state) {
    benchmark::DoNotOptimize(nsc::eval::windowed_kendall_tau(
        d.score, d.truth, d.params, 0.10, nsc::eval::window_algorithm::enumerate_pairs));
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_WindowedTau_Enumerate_Scaling)
    ->RangeMultiplier(4)
    ->Range(1 << 10, 1 << 16)
    ->Complexity(benchmark::oNSquared)
    ->Unit(benchmark::kMillisecond);

void BM_WindowedTau_DivideAndConquer_Scaling(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const nats_like d = make_data(n, 7);
  for (auto _ : state) {
    benchmark::DoNotOptimize(nsc::eval::windowed_kendall_tau(
        d.score, d.truth, d.params, 0.10, nsc::eval::window_algorithm::divide_and_conquer));
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_WindowedTau_DivideAndConquer_Scaling)
    ->RangeMultiplier(4)
    ->Range(1 << 10, 1 << 18)
    ->Complexity([](benchmark::IterationCount n) {
      const double lg = std::log2(static_cast<double>(n));
      return static_cast<double>(n) * lg * lg;
    })
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
