// Benchmarks of nsc/eval/families.hpp, the work behind `nsc rank`, on the real shared data.
//  * BM_Rank/<family>: end to end without file reading, i.e. scoring every architecture under the
//    reference convention (psi_MP) plus every statistic of NSC, #Params and #FLOPs (rank_family).
//    The records are parsed once outside the loop; a fresh psi cache per iteration, as in the CLI.
//  * BM_Score/<family>: the scoring part alone (make_*_data).
//  * BM_Read/<family>: parsing the family's CSV.
//  * BM_Statistics_Nats*: the statistics alone on the 32,768 NATS-SSS rows: all of rank_family,
//    then each statistic of NSC once.
#include <nsc/eval/families.hpp>
#include <nsc/eval/ranking.hpp>
#include <nsc/io/ground_truth.hpp>
#include <nsc/io/nats_sss.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <string>
#include <vector>

namespace {

namespace ev = nsc::eval;

std::string path(ev::family f) {
  return std::string(NSC_SHARED_DATA_DIR) + "/" + std::string(ev::default_data_file(f));
}

const std::vector<nsc::io::flexibert_record>& flexibert_rows() {
  static const auto r = nsc::io::read_flexibert_csv(path(ev::family::flexibert));
  return r;
}
const std::vector<nsc::io::lts_record>& lts_rows(ev::family f) {
  static const auto g = nsc::io::read_lts_csv(path(ev::family::gpt2));
  static const auto t = nsc::io::read_lts_csv(path(ev::family::txl));
  return f == ev::family::gpt2 ? g : t;
}
const std::vector<nsc::io::nats_sss_record>& nats_rows() {
  static const auto r = nsc::io::read_nats_sss(path(ev::family::nats_sss));
  return r;
}
const std::vector<nsc::io::autoformer_record>& autoformer_rows() {
  static const auto r = nsc::io::read_autoformer_tiny_csv(path(ev::family::autoformer_tiny));
  return r;
}

ev::family_data make(ev::family f) {
  switch (f) {
  case ev::family::flexibert: return ev::make_flexibert_data(flexibert_rows());
  case ev::family::gpt2: return ev::make_gpt2_data(lts_rows(f));
  case ev::family::txl: return ev::make_txl_data(lts_rows(f));
  case ev::family::nats_sss: return ev::make_nats_sss_data(nats_rows());
  case ev::family::autoformer_tiny: return ev::make_autoformer_tiny_data(autoformer_rows());
  }
  return {};
}

void BM_Rank(benchmark::State& state) {
  const auto f = ev::all_families[static_cast<std::size_t>(state.range(0))];
  state.SetLabel(std::string(ev::to_string(f)));
  std::size_t n = 0;
  for (auto _ : state) {
    const ev::family_data d = make(f);
    benchmark::DoNotOptimize(ev::rank_family(d));
    n = d.size();
  }
  state.counters["architectures"] = static_cast<double>(n);
}
BENCHMARK(BM_Rank)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);

void BM_Score(benchmark::State& state) {
  const auto f = ev::all_families[static_cast<std::size_t>(state.range(0))];
  state.SetLabel(std::string(ev::to_string(f)));
  for (auto _ : state) benchmark::DoNotOptimize(make(f));
}
BENCHMARK(BM_Score)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);

void BM_Read(benchmark::State& state) {
  const auto f = ev::all_families[static_cast<std::size_t>(state.range(0))];
  state.SetLabel(std::string(ev::to_string(f)));
  for (auto _ : state) {
    switch (f) {
    case ev::family::flexibert:
      benchmark::DoNotOptimize(nsc::io::read_flexibert_csv(path(f)));
      break;
    case ev::family::gpt2:
    case ev::family::txl: benchmark::DoNotOptimize(nsc::io::read_lts_csv(path(f))); break;
    case ev::family::nats_sss: benchmark::DoNotOptimize(nsc::io::read_nats_sss(path(f))); break;
    case ev::family::autoformer_tiny:
      benchmark::DoNotOptimize(nsc::io::read_autoformer_tiny_csv(path(f)));
      break;
    }
  }
}
BENCHMARK(BM_Read)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);

const ev::family_data& nats_data() {
  static const ev::family_data d = make(ev::family::nats_sss);
  return d;
}

void BM_Statistics_Nats(benchmark::State& state) {
  const auto& d = nats_data();
  for (auto _ : state) benchmark::DoNotOptimize(ev::rank_family(d));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * d.size()));
}
BENCHMARK(BM_Statistics_Nats)->Unit(benchmark::kMillisecond);

void BM_Statistics_Nats_TauB(benchmark::State& state) {
  const auto& d = nats_data();
  for (auto _ : state) benchmark::DoNotOptimize(ev::kendall_tau_b(d.score, d.truth));
}
BENCHMARK(BM_Statistics_Nats_TauB)->Unit(benchmark::kMillisecond);

void BM_Statistics_Nats_Rho(benchmark::State& state) {
  const auto& d = nats_data();
  for (auto _ : state) benchmark::DoNotOptimize(ev::spearman_rho(d.score, d.truth));
}
BENCHMARK(BM_Statistics_Nats_Rho)->Unit(benchmark::kMillisecond);

void BM_Statistics_Nats_PW10(benchmark::State& state) {
  const auto& d = nats_data();
  for (auto _ : state)
    benchmark::DoNotOptimize(ev::windowed_kendall_tau(d.score, d.truth, d.params));
}
BENCHMARK(BM_Statistics_Nats_PW10)->Unit(benchmark::kMillisecond);

void BM_Statistics_Nats_Partial(benchmark::State& state) {
  const auto& d = nats_data();
  const std::span<const double> P(d.params), F(d.flops);
  for (auto _ : state) benchmark::DoNotOptimize(ev::partial_kendall_tau(d.score, d.truth, {P, F}));
}
BENCHMARK(BM_Statistics_Nats_Partial)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
