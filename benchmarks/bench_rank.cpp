// Benchmarks of nsc/eval/families.hpp, the work behind `nsc rank`, on the real shared data.
//  * BM_Rank/<family>: end to end without file reading, i.e. scoring every architecture under the
//    reference convention (psi_MP) plus every statistic of NSC, #Params and #FLOPs (rank_family).
//    The records are parsed once outside the loop; a fresh psi cache per iteration, as in the CLI.
//  * BM_Score/<family>: the scoring part alone (make_*_data).
//  * BM_Read/<family>: parsing the family's CSV.
//  * BM_Statistics_Nats*: the statistics alone on the 32,768 NATS-SSS rows: all of rank_family,
//    then each statistic of NSC once.
//  * BM_Table*: `nsc rank --table` on 10,000 GPT-style architectures written as nsc's
//    architecture JSON (a CSV built in memory, seeded; 2-12 layers, MHA/GQA/MQA, varied widths):
//    BM_TableLoad parses the CSV and scores every row (rank_table_rows), BM_TableStatistics the
//    statistics of NSC, #Params and #FLOPs, BM_TableBootstrap/<threads> the paired bootstrap
//    with 1000 resamples (rank_scores with bootstrap_settings; 0 = every hardware thread),
//    BM_TableTotal all three, as the CLI does. The target: <= 2 s in total.
#include <nsc/eval/families.hpp>
#include <nsc/eval/ranking.hpp>
#include <nsc/io/ground_truth.hpp>
#include <nsc/io/nats_sss.hpp>
#include <nsc/io/rank_table.hpp>
#include <nsc/io/table.hpp>

#include <random>

#include <benchmark/benchmark.h>

#include <cmath>
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

/// A CSV of `rows` GPT-style architectures in nsc's architecture JSON with a target column.
std::string gpt_table(std::size_t rows) {
  std::mt19937_64 g(2026);
  auto pick = [&](std::uint64_t n) { return nsc::eval::uniform_below(g, n); };
  const std::int64_t widths[] = {256, 384, 512, 768, 1024};
  std::string t = "id,arch,perplexity\n";
  for (std::size_t i = 0; i < rows; ++i) {
    const std::int64_t d = widths[pick(5)];
    const std::size_t L = 2 + pick(11);
    std::string a = "\"{\"\"d_model\"\":" + std::to_string(d) + ",\"\"layers\"\":[";
    double params = 0;
    for (std::size_t l = 0; l < L; ++l) {
      std::vector<std::int64_t> hs;
      for (std::int64_t h : {4, 8, 16}) if (d % h == 0) hs.push_back(h);
      const std::int64_t h = hs[pick(hs.size())];
      const std::int64_t kv = std::int64_t(1) << pick(std::uint64_t(std::log2(double(h))) + 1);
      const std::int64_t ff = d + std::int64_t(pick(std::uint64_t(3 * d)));
      params += double(4 * d * d + 2 * d * ff);
      if (l) a += ',';
      a += std::string("[{\"\"d_ff\"\":") + std::to_string(ff) + ",\"\"n_heads\"\":" +
           std::to_string(h) + ",\"\"n_kv_heads\"\":" + std::to_string(kv) + "}]";
    }
    a += "]}\"";
    const double ppl = std::exp(5.0 - 0.2 * std::log(params / 1e6) + 0.05 * double(pick(1000)) / 1000);
    t += "g" + std::to_string(i) + "," + a + "," + std::to_string(ppl) + "\n";
  }
  return t;
}

const nsc::io::table& table10k() {
  static const nsc::io::table t = nsc::io::parse_table(gpt_table(10000), "gpt10k.csv");
  return t;
}

nsc::io::table_rank_options table_options() {
  nsc::io::table_rank_options o;
  o.target = "perplexity";
  o.lower_is_better = true;
  o.id_column = "id";
  return o;
}

const nsc::io::rank_table_data& table10k_rows() {
  static const nsc::io::rank_table_data d = nsc::io::rank_table_rows(table10k(), ".", table_options());
  return d;
}

void BM_TableLoad(benchmark::State& state) {
  const std::string text = gpt_table(10000);
  for (auto _ : state) {
    const nsc::io::table t = nsc::io::parse_table(text, "gpt10k.csv");
    benchmark::DoNotOptimize(nsc::io::rank_table_rows(t, ".", table_options()));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 10000));
}
BENCHMARK(BM_TableLoad)->Unit(benchmark::kMillisecond);

void BM_TableStatistics(benchmark::State& state) {
  const auto& d = table10k_rows();
  for (auto _ : state) benchmark::DoNotOptimize(ev::rank_scores(d.input));
}
BENCHMARK(BM_TableStatistics)->Unit(benchmark::kMillisecond);

void BM_TableBootstrap(benchmark::State& state) {
  const auto& d = table10k_rows();
  ev::bootstrap_settings s;
  s.resamples = 1000;
  s.threads = static_cast<unsigned>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(ev::rank_scores(d.input, s));
}
BENCHMARK(BM_TableBootstrap)->Arg(1)->Arg(2)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_TableTotal(benchmark::State& state) {
  const std::string text = gpt_table(10000);
  ev::bootstrap_settings s;
  for (auto _ : state) {
    const nsc::io::table t = nsc::io::parse_table(text, "gpt10k.csv");
    const auto d = nsc::io::rank_table_rows(t, ".", table_options());
    benchmark::DoNotOptimize(ev::rank_scores(d.input));
    benchmark::DoNotOptimize(ev::rank_scores(d.input, s));
  }
}
BENCHMARK(BM_TableTotal)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
