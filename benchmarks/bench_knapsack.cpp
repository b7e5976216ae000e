// Benchmarks for nsc/search/multiple_choice_knapsack.hpp: solve_mck time against G (groups),
// B (budget cells) and J (options per group), one sweep per parameter with the other two
// fixed, each fitted with ->Complexity(oN) where N = G * B * J.
//
// K budgets (solve_mmck, issue 8): the K = 1 path against solve_mck on the same instances (the
// engine's dense_1d is solve_mck with dominance pruning), a dense 2-D table, and the
// Llama-3-70B-shaped instance of benchmarks/llama70b_instance.hpp: one query under all three
// budgets (params, FLOPs, KV bytes) at several budget vectors and over a grid of 125, split and
// unsplit, and the whole (params, KV) front (lattice path against the sparse doubling).
//
// Counters:
//   cell_updates  relaxations actually performed (sum over groups and options of the
//                 cells c >= cost), as a rate: updates per second;
//   GBJ           the nominal bound G * (B + 1) * J the complexity is fitted against;
//   table_MiB     bytes of the DP tables (back-pointers + rows).
#include <nsc/search/multi_knapsack.hpp>
#include <nsc/search/multiple_choice_knapsack.hpp>

#include "llama70b_instance.hpp"

#include <benchmark/benchmark.h>
#include <boost/multiprecision/cpp_bin_float.hpp>

#include <chrono>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using nsc::search::mck_groups;
using nsc::search::mck_option;

// G groups of J options; option 0 costs 0 and option 1 costs 1 in every group, so no
// reduction (min shift, gcd) shrinks the table: it has exactly B + 1 cells when the
// other costs (uniform in [0, 2B/G]) can reach B.
template <class Value>
mck_groups<Value> make_instance(std::int64_t groups, std::int64_t budget, std::int64_t options) {
  std::mt19937_64 rng(12345);
  const std::int64_t max_cost = std::max<std::int64_t>(1, 2 * budget / groups);
  std::uniform_int_distribution<std::int64_t> cost(0, max_cost);
  std::uniform_real_distribution<double> value(0.0, 100.0);
  mck_groups<Value> out(static_cast<std::size_t>(groups));
  for (auto& g : out) {
    for (std::int64_t j = 0; j < options; ++j) {
      const std::int64_t c = j == 0 ? 0 : j == 1 ? 1 : cost(rng);
      g.push_back(mck_option<Value>{static_cast<Value>(value(rng)), c});
    }
  }
  return out;
}

template <class Value>
void bm_solve_mck(benchmark::State& state) {
  const std::int64_t groups = state.range(0);
  const std::int64_t budget = state.range(1);
  const std::int64_t options = state.range(2);
  const auto inst = make_instance<Value>(groups, budget, options);
  std::size_t cells = 0;
  std::size_t bytes = 0;
  for (auto _ : state) {
    const auto r = nsc::search::solve_mck(inst, budget);
    cells = r.cells();
    bytes = r.table_bytes();
    benchmark::DoNotOptimize(cells);
  }
  double updates = 0;
  for (const auto& g : inst) {
    for (const auto& o : g) {
      if (static_cast<std::size_t>(o.cost) < cells) {
        updates += static_cast<double>(cells - static_cast<std::size_t>(o.cost));
      }
    }
  }
  const double bound = static_cast<double>(groups) * static_cast<double>(budget + 1) *
                       static_cast<double>(options);
  state.counters["cell_updates"] =
      benchmark::Counter(updates, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["GBJ"] = benchmark::Counter(bound);
  state.counters["table_MiB"] = benchmark::Counter(static_cast<double>(bytes) / (1 << 20));
  state.SetComplexityN(groups * (budget + 1) * options);
}

using bf50 = boost::multiprecision::cpp_bin_float_50;

// Sweeps: {G, B, J}.
void sweep_budget(benchmark::internal::Benchmark* b) {
  for (std::int64_t budget = 1024; budget <= 65536; budget *= 4) b->Args({32, budget, 16});
}
void sweep_groups(benchmark::internal::Benchmark* b) {
  for (std::int64_t groups = 8; groups <= 128; groups *= 2) b->Args({groups, 8192, 16});
}
void sweep_options(benchmark::internal::Benchmark* b) {
  for (std::int64_t options = 4; options <= 64; options *= 2) b->Args({32, 8192, options});
}

// ---- K budgets --------------------------------------------------------------------------

// solve_mmck with one budget on bm_solve_mck's instance (dense_1d: must be no slower).
void bm_solve_mmck_k1(benchmark::State& state) {
  const auto inst = make_instance<double>(state.range(0), state.range(1), state.range(2));
  nsc::search::mmck_groups<double> g(inst.size());
  for (std::size_t i = 0; i < inst.size(); ++i)
    for (const auto& o : inst[i]) g[i].push_back({o.value, {o.cost}});
  for (auto _ : state) {
    const auto r = nsc::search::solve_mmck(g, {state.range(1)});
    benchmark::DoNotOptimize(r.front().size());
  }
}

// A dense 2-D instance: G groups of J options, costs in [0, C] per dimension, budget vector
// (G C / 2, G C / 2); cells per second.
void bm_mmck_dense2d(benchmark::State& state) {
  const std::int64_t G = state.range(0), J = state.range(1), C = state.range(2);
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> cost(0, C);
  std::uniform_real_distribution<double> value(0.0, 100.0);
  nsc::search::mmck_groups<double> g(static_cast<std::size_t>(G));
  for (auto& grp : g)
    for (std::int64_t j = 0; j < J; ++j) grp.push_back({value(rng), {j == 0 ? 0 : cost(rng), j == 1 ? 1 : cost(rng)}});
  nsc::search::mmck_settings s;
  s.method = nsc::search::mmck_method::dense;
  s.identical_groups = false;
  nsc::search::mmck_info info;
  for (auto _ : state) {
    const auto r = nsc::search::solve_mmck(g, {G * C / 2, G * C / 2}, s);
    info = r.info();
    benchmark::DoNotOptimize(r.front().size());
  }
  state.counters["cells"] = benchmark::Counter(double(info.cells));
  state.counters["cell_updates"] = benchmark::Counter(double(info.work), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_MiB"] = benchmark::Counter(double(info.peak_bytes) / (1 << 20));
}

// The Llama-3-70B-shaped instance: one query under (params, FLOPs, KV) at fractions of the full
// model. range(0): index into the table below; range(1): 1 = automatic (the lattice path: the
// 1,017-option layer split into its 9 attention x 113 FFN factors, one multiset table each, the
// K-D tree range maximum), 0 = split_products off (the unsplit layer: its lattice box does not fit,
// so the sparse path with the Lagrangian bound runs, as before this change).
constexpr double llama_fractions[][3] = {{0.5, 0.6, 0.25},  {0.7, 0.65, 0.9}, {0.613, 0.59, 0.5},
                                         {0.9, 0.95, 0.1},  {0.37, 0.41, 0.33}, {0.23, 0.3, 0.77}};
std::vector<std::int64_t> llama_budget(const double* f) {
  const auto full = nsc_bench::llama70b_full(3);
  return {std::int64_t(double(full[0]) * f[0]), std::int64_t(double(full[1]) * f[1]),
          std::int64_t(double(full[2]) * f[2])};
}
void llama_counters(benchmark::State& state, const nsc::search::mmck_info& info, double best) {
  state.counters["cells"] = benchmark::Counter(double(info.cells));
  state.counters["states"] = benchmark::Counter(double(info.states));
  state.counters["work/s"] = benchmark::Counter(double(info.work), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_KiB"] = benchmark::Counter(double(info.peak_bytes) / 1024);
  state.counters["nsc"] = benchmark::Counter(best);
}
void bm_llama70b_query(benchmark::State& state) {
  const auto g = nsc_bench::llama70b_groups(3);
  const double* f = llama_fractions[state.range(0)];
  const auto B = llama_budget(f);
  nsc::search::mmck_settings s;
  s.single_budget = true;
  s.split_products = state.range(1) == 1;
  nsc::search::mmck_info info;
  double best = 0;
  for (auto _ : state) {
    try {
      const auto r = nsc::search::solve_mmck(g, B, s);
      info = r.info();
      best = *r.best(B);
    } catch (const std::invalid_argument& e) {
      state.SkipWithError(e.what());
      break;
    }
  }
  state.SetLabel(info.describe() + "; params " + std::to_string(f[0]).substr(0, 5) + ", flops " +
                 std::to_string(f[1]).substr(0, 5) + ", kv " + std::to_string(f[2]).substr(0, 5) + " of full");
  llama_counters(state, info, best);
}

// Every budget vector of the grid {0.1, 0.3, 0.5, 0.7, 0.9}^3 (fractions of the full model's
// params, FLOPs, KV bytes): 125 one-query solves; counters: the slowest and the mean solve.
void bm_llama70b_grid(benchmark::State& state) {
  const auto g = nsc_bench::llama70b_groups(3);
  nsc::search::mmck_settings s;
  s.single_budget = true;
  double slowest = 0, total = 0, feasible = 0;
  std::size_t peak = 0;
  for (auto _ : state) {
    for (double fp : {0.1, 0.3, 0.5, 0.7, 0.9})
      for (double ff : {0.1, 0.3, 0.5, 0.7, 0.9})
        for (double fk : {0.1, 0.3, 0.5, 0.7, 0.9}) {
          const double f[3] = {fp, ff, fk};
          const auto B = llama_budget(f);
          const auto t0 = std::chrono::steady_clock::now();
          const auto r = nsc::search::solve_mmck(g, B, s);
          const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          slowest = std::max(slowest, t);
          total += t;
          feasible += r.best(B).has_value();
          peak = std::max(peak, r.info().peak_bytes);
        }
  }
  state.counters["vectors"] = benchmark::Counter(125);
  state.counters["feasible"] = benchmark::Counter(feasible);
  state.counters["slowest_s"] = benchmark::Counter(slowest);
  state.counters["mean_s"] = benchmark::Counter(total / 125);
  state.counters["peak_KiB"] = benchmark::Counter(double(peak) / 1024);
}

// The whole two-budget (params, KV bytes) front of the first `layers` layers (80: the model).
// range(1): 1 = the lattice path (multiset tables, the last merge on a dense grid), 0 = the
// sparse Pareto-state DP with doubling (before this change; quadratic merges, 2 and 4 layers only).
void bm_llama70b_front(benchmark::State& state) {
  auto g = nsc_bench::llama70b_groups(3);
  g.resize(static_cast<std::size_t>(state.range(0)));
  for (auto& grp : g)
    for (auto& o : grp) o.cost = {o.cost[0], o.cost[2]};
  std::vector<std::int64_t> B{0, 0};
  for (const auto& grp : g) B[0] += grp.back().cost[0], B[1] += grp.back().cost[1];
  nsc::search::mmck_settings s;
  s.method = state.range(1) == 1 ? nsc::search::mmck_method::lattice : nsc::search::mmck_method::sparse;
  nsc::search::mmck_info info;
  std::size_t points = 0;
  for (auto _ : state) {
    try {
      const auto r = nsc::search::solve_mmck(g, B, s);
      info = r.info();
      points = r.front().size();
    } catch (const std::invalid_argument& e) {
      state.SkipWithError(e.what());
      break;
    }
  }
  state.SetLabel(info.describe());
  state.counters["front_points"] = benchmark::Counter(double(points));
  state.counters["states"] = benchmark::Counter(double(info.states));
  state.counters["work/s"] = benchmark::Counter(double(info.work), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_MiB"] = benchmark::Counter(double(info.peak_bytes) / (1 << 20));
}

} // namespace

BENCHMARK(bm_solve_mmck_k1)->Name("solve_mmck<double>/K=1/sweep_B")->Apply(sweep_budget)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_mmck_dense2d)->Name("solve_mmck<double>/dense2d")->Args({16, 8, 16})->Args({32, 8, 32})->Args({64, 8, 32})->Unit(benchmark::kMillisecond);
BENCHMARK(bm_llama70b_query)
    ->Name("llama70b/3-budget query")
    ->ArgsProduct({{0, 1, 2, 3, 4, 5}, {1}})
    ->Args({0, 0})
    ->Args({2, 0})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(bm_llama70b_grid)->Name("llama70b/3-budget grid of 125")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(bm_llama70b_front)
    ->Name("llama70b/(params,kv) front")
    ->Args({2, 0})
    ->Args({4, 0})
    ->Args({2, 1})
    ->Args({4, 1})
    ->Args({8, 1})
    ->Args({80, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

BENCHMARK_TEMPLATE(bm_solve_mck, double)
    ->Name("solve_mck<double>/sweep_B")
    ->Apply(sweep_budget)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);
BENCHMARK_TEMPLATE(bm_solve_mck, double)
    ->Name("solve_mck<double>/sweep_G")
    ->Apply(sweep_groups)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);
BENCHMARK_TEMPLATE(bm_solve_mck, double)
    ->Name("solve_mck<double>/sweep_J")
    ->Apply(sweep_options)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);
BENCHMARK_TEMPLATE(bm_solve_mck, std::int64_t)
    ->Name("solve_mck<int64>/sweep_B")
    ->Apply(sweep_budget)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);
BENCHMARK_TEMPLATE(bm_solve_mck, bf50)
    ->Name("solve_mck<cpp_bin_float_50>/sweep_B")
    ->Args({8, 1024, 8})
    ->Args({8, 4096, 8})
    ->Args({8, 16384, 8})
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

BENCHMARK_MAIN();
