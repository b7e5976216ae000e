// The paper's NSC-DP workloads end to end, against the paper's reported CPU times.
//
// Each benchmark iteration runs one whole search from nothing: the per-layer psi tables
// (closed-form psi_MP of every matrix of every layer option; nothing is cached across
// iterations), the knapsack(s) and outer enumeration, and the reconstruction of the answer:
//
//   Transformer-XL        search_transformer_xl(): 28 (d, L), per-layer d_inner, band 38.4M +- 5%
//                         (branch and bound: DPs only for configurations that can still win);
//                         "+merged front": every configuration's DP and the merged front
//   LoNAS LLaMA-7B        search_lonas(lonas_llama7b_space(), 5.7e9): the whole 129-point front
//                         (one pass of solve_mck; "identical": solve_mmck_classes, one multiset
//                         table of the 32 identical layers; "lazy": the front's values only,
//                         candidates on request, the best one built)
//   LoNAS from config     lonas_space_from_spec(llama-7b spec) + search (make_block + score)
//   AutoFormer-T/S/B      search_autoformer(space): factored (default) and joint (the paper's
//                         single knapsack of (mlp_ratio, num_heads) options), both with branch
//                         and bound over (embed_dim, depth); "joint +front": every (embed_dim,
//                         depth) DP and the merged front, i.e. the paper's full enumeration
//   NATS-SSS              search_nats_sss(): per-layer tables, all 32,768 scored, top-10, and
//                         the exact chain DP (checked to agree)
//
// After the Google Benchmark report, a table: our median wall and CPU time (5 repetitions; on a
// shared machine wall time includes waiting for a core), the paper's time
// (TXL 2.0 s, LoNAS 0.46 s, AutoFormer-Tiny 0.03 s / Small 0.345 s / Base 0.600 s, NATS-SSS
// 0.54 s; Python on one CPU core, their machine), the speed-up, and the DP work: cell updates
// = sum over DPs of G * W * J (groups x reduced cells x options, the O(G B J) bound evaluated
// on the instance after the gcd / minimum-shift reductions) and that work per CPU second.
//
// Memory: glibc returns freed memory to the kernel when more than 128 KiB is free at the top of
// the heap, so a loop that allocates a few hundred KiB per run pays page faults every run
// (~10 us each in some sandboxes, 100x a normal kernel). main() raises M_TRIM_THRESHOLD and
// M_MMAP_THRESHOLD (as a long-running process effectively has) unless --nsc_default_malloc is
// given.
#include <nsc/io/hf_config.hpp>
#include <nsc/search/autoformer.hpp>
#include <nsc/search/lonas.hpp>
#include <nsc/search/nats_sss.hpp>
#include <nsc/search/transformer_xl.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

namespace ns = nsc::search;

struct workload {
  std::string name;
  double paper_seconds; ///< 0: no paper figure
  std::function<ns::search_stats()> run;
};

nsc::presets::transformer_xl_search_space np_txl() {
  return nsc::presets::transformer_xl_reference_search_space();
}

nsc::transformer_spec llama7b_spec() {
  return nsc::read_hf_config_file(std::string(NSC_SOURCE_DIR) + "/examples/configs/llama-7b.json").spec;
}

std::vector<workload> workloads() {
  auto af = [](const char* space, ns::autoformer_method m, bool front = false) {
    return [space, m, front] {
      const auto r = ns::search_autoformer(ns::autoformer_space(space),
                                           {.param_limit = {}, .front = front, .method = m, .mck = {}});
      if (!r.best) throw std::runtime_error("AutoFormer: no answer");
      benchmark::DoNotOptimize(r.best->nsc);
      return r.stats;
    };
  };
  static const nsc::transformer_spec llama = llama7b_spec();
  return {
      {"Transformer-XL 38.4M+-5%", 2.0,
       [] {
         const auto r = ns::search_transformer_xl();
         if (!r.best || r.best->params != 40'211'712) throw std::runtime_error("TXL: wrong answer");
         benchmark::DoNotOptimize(r.best->nsc);
         return r.stats;
       }},
      {"Transformer-XL +merged front", 2.0,
       [] {
         const auto r = ns::search_transformer_xl(np_txl(), {.front = true, .mck = {}});
         if (!r.best || r.best->params != 40'211'712) throw std::runtime_error("TXL: wrong answer");
         benchmark::DoNotOptimize(r.front.data());
         return r.stats;
       }},
      {"LoNAS LLaMA-7B 5.7B +front", 0.46,
       [] {
         const auto r = ns::search_lonas(ns::lonas_llama7b_space(),
                                         {.budget = 5.7e9, .cost = ns::lonas_cost::params, .mck = {}});
         if (!r.best || r.best->params != 5'690'097'664) throw std::runtime_error("LoNAS: wrong answer");
         benchmark::DoNotOptimize(r.front.data());
         return r.stats;
       }},
      {"LoNAS LLaMA-7B 5.7B +front, identical", 0.46,
       [] {
         ns::lonas_search_settings s{.budget = 5.7e9, .cost = ns::lonas_cost::params, .mck = {}};
         s.identical_groups = true;  // solve_mmck_classes: one multiset table (issue 8)
         const auto r = ns::search_lonas(ns::lonas_llama7b_space(), s);
         if (!r.best || r.best->params != 5'690'097'664) throw std::runtime_error("LoNAS: wrong answer");
         benchmark::DoNotOptimize(r.front.data());
         return r.stats;
       }},
      {"LoNAS LLaMA-7B 5.7B +front, identical lazy", 0.46,
       [] {
         ns::lonas_search_settings s{.budget = 5.7e9, .cost = ns::lonas_cost::params, .mck = {}};
         s.identical_groups = true;
         s.lazy_front = true;  // the front's values; candidates on request
         const auto r = ns::search_lonas(ns::lonas_llama7b_space(), s);
         if (!r.best || r.best->params != 5'690'097'664 || r.front_points.size() != 129)
           throw std::runtime_error("LoNAS: wrong answer");
         benchmark::DoNotOptimize(r.front_points.data());
         return r.stats;
       }},
      {"LoNAS from llama-7b.json", 0.46,
       [] {
         const auto r = ns::search_lonas(ns::lonas_space_from_spec(llama),
                                         {.budget = 5.7e9, .cost = ns::lonas_cost::params, .mck = {}});
         if (!r.best || r.best->params != 5'690'097'664) throw std::runtime_error("LoNAS: wrong answer");
         benchmark::DoNotOptimize(r.front.data());
         return r.stats;
       }},
      {"AutoFormer-Tiny", 0.03, af("tiny", ns::autoformer_method::factored)},
      {"AutoFormer-Small", 0.345, af("small", ns::autoformer_method::factored)},
      {"AutoFormer-Base", 0.600, af("base", ns::autoformer_method::factored)},
      {"AutoFormer-Tiny joint", 0.03, af("tiny", ns::autoformer_method::joint)},
      {"AutoFormer-Small joint", 0.345, af("small", ns::autoformer_method::joint)},
      {"AutoFormer-Base joint", 0.600, af("base", ns::autoformer_method::joint)},
      {"AutoFormer-Tiny joint +front", 0.03, af("tiny", ns::autoformer_method::joint, true)},
      {"AutoFormer-Small joint +front", 0.345, af("small", ns::autoformer_method::joint, true)},
      {"AutoFormer-Base joint +front", 0.600, af("base", ns::autoformer_method::joint, true)},
      {"NATS-SSS 32768 + chain DP", 0.54,
       [] {
         const auto r = ns::search_nats_sss();
         if (!r.best || !r.agree) throw std::runtime_error("NATS: exhaustive and DP disagree");
         benchmark::DoNotOptimize(r.best->nsc);
         return r.stats;
       }},
  };
}

/// Console output plus the median / min real time of every benchmark (seconds).
class table_reporter : public benchmark::ConsoleReporter {
public:
  std::map<std::string, double> median, minimum, cpu;
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Aggregate) continue;
      const double s = r.GetAdjustedRealTime() * 1e-6; // microseconds
      if (r.aggregate_name == "median") {
        median[r.run_name.function_name] = s;
        cpu[r.run_name.function_name] = r.GetAdjustedCPUTime() * 1e-6;
      }
      if (r.aggregate_name == "min") minimum[r.run_name.function_name] = s;
    }
  }
};

std::string time_text(double s) {
  char buf[64];
  if (s < 1e-3)
    std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  else if (s < 1)
    std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.3f s", s);
  return buf;
}

} // namespace

int main(int argc, char** argv) {
  bool default_malloc = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--nsc_default_malloc") == 0)
      default_malloc = true;
    else
      args.push_back(argv[i]);
  }
#if defined(__GLIBC__)
  if (!default_malloc) {
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
  }
#endif
  int n = int(args.size());
  benchmark::Initialize(&n, args.data());

  const std::vector<workload> all = workloads();
  std::map<std::string, ns::search_stats> stats;
  for (const workload& w : all) {
    stats[w.name] = w.run(); // also checks the answer once
    const ns::search_stats s = stats[w.name];
    benchmark::RegisterBenchmark(w.name.c_str(),
                                 [run = w.run, s](benchmark::State& state) {
                                   for (auto _ : state) benchmark::DoNotOptimize(run());
                                   state.counters["cell_updates"] = double(s.cell_updates);
                                   state.counters["updates_per_s"] = benchmark::Counter(
                                       double(s.cell_updates), benchmark::Counter::kIsIterationInvariantRate);
                                 })
        ->Unit(benchmark::kMicrosecond)
        ->Repetitions(5)
        ->ReportAggregatesOnly(true)
        ->ComputeStatistics("min", [](const std::vector<double>& v) {
          return *std::min_element(v.begin(), v.end());
        });
  }
  table_reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  std::printf("\nNSC-DP workloads end to end (psi tables + DP + answer); median of 5 repetitions%s\n",
              default_malloc ? " (default malloc)" : "");
  std::printf("%-29s %10s %10s %10s %8s %9s %9s %13s %11s\n", "workload", "wall", "(min)", "CPU",
              "paper", "x (wall)", "x (CPU)", "cell updates", "updates/s");
  for (const workload& w : all) {
    if (!reporter.median.count(w.name)) continue;
    const double t = reporter.median[w.name], tmin = reporter.minimum[w.name],
                 tc = reporter.cpu[w.name];
    const ns::search_stats& s = stats[w.name];
    char speed[32] = "-", speed_cpu[32] = "-";
    if (w.paper_seconds > 0) {
      std::snprintf(speed, sizeof speed, "%.0fx", w.paper_seconds / t);
      std::snprintf(speed_cpu, sizeof speed_cpu, "%.0fx", w.paper_seconds / tc);
    }
    std::printf("%-29s %10s %10s %10s %7gs %9s %9s %13llu %11.3g\n", w.name.c_str(),
                time_text(t).c_str(), time_text(tmin).c_str(), time_text(tc).c_str(),
                w.paper_seconds, speed, speed_cpu, static_cast<unsigned long long>(s.cell_updates),
                double(s.cell_updates) / tc);
  }
  std::printf("cell updates: sum over DPs of G * W * J after the gcd / minimum-shift reductions "
              "(NATS-SSS: chain-DP transitions; AutoFormer factored: + front-pair combinations).\n");
  return 0;
}
