// Benchmarks for nsc/search/multiple_choice_knapsack.hpp: solve_mck time against G (groups),
// B (budget cells) and J (options per group), one sweep per parameter with the other two
// fixed, each fitted with ->Complexity(oN) where N = G * B * J.
//
// Counters:
//   cell_updates  relaxations actually performed (sum over groups and options of the
//                 cells c >= cost), as a rate: updates per second;
//   GBJ           the nominal bound G * (B + 1) * J the complexity is fitted against;
//   table_MiB     bytes of the DP tables (back-pointers + rows).
#include <nsc/search/multiple_choice_knapsack.hpp>

#include <benchmark/benchmark.h>
#include <boost/multiprecision/cpp_bin_float.hpp>

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

} // namespace

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
