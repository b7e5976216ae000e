// Cost of the closed forms against one log1p, and of psi_W (Gram route, SVD) against psi_MP.
//
//   (a) psi_mp and psi_fs per call, as a multiple of one std::log1p in the same run;
//   (b) psi_W of initialised weights by the Gram route and by SVD, from 128 x 512 up to a
//       LLaMA-7B FFN matrix (4096 x 11008, the shape of the paper's G.2 ablation), against
//       psi_MP of the same shape.
// The ratios are printed after the Google Benchmark table. The 4096 x 11008 runs take tens of
// seconds each (one iteration); skip them with --benchmark_filter=-llama or select others
// with --benchmark_filter=<regex>.
#include <nsc/spectral/eigen_backend.hpp>
#include <nsc/spectral/finite_size.hpp>
#include <nsc/spectral/marchenko_pastur.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace {

// 1024 varied inputs, cycled, so no call sees a constant argument.
struct shape_inputs {
  std::vector<double> m, n, v, kappa, x;
};

const shape_inputs& inputs() {
  static const shape_inputs in = [] {
    shape_inputs s;
    boost::random::mt19937_64 rng(1);
    boost::random::uniform_real_distribution<double> u(0, 1);
    for (int i = 0; i < 1024; ++i) {
      const double m = std::round(std::exp2(3 + 10 * u(rng))); // 8 .. 8192
      const double n = std::round(std::exp2(3 + 10 * u(rng)));
      s.m.push_back(m);
      s.n.push_back(n);
      s.v.push_back(2 / (m + n) * std::exp2(4 * u(rng) - 2)); // Xavier-like, x in ~[0.1, 8]
      s.kappa.push_back(u(rng) < 0.5 ? 0.0 : -1.2);
      s.x.push_back(std::exp2(20 * u(rng) - 10)); // log1p arguments over 1e-3 .. 1e3
    }
    return s;
  }();
  return in;
}

void bm_log1p(benchmark::State& state) {
  const auto& in = inputs();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(std::log1p(in.x[i & 1023]));
    ++i;
  }
}

void bm_psi_mp(benchmark::State& state) {
  const auto& in = inputs();
  std::size_t i = 0;
  for (auto _ : state) {
    const std::size_t k = i & 1023;
    benchmark::DoNotOptimize(nsc::psi_mp(in.m[k], in.n[k], in.v[k]));
    ++i;
  }
}

void bm_psi_fs(benchmark::State& state) {
  const auto& in = inputs();
  std::size_t i = 0;
  for (auto _ : state) {
    const std::size_t k = i & 1023;
    benchmark::DoNotOptimize(nsc::psi_fs(in.m[k], in.n[k], in.v[k], in.kappa[k]));
    ++i;
  }
}

// psi_MP of one fixed shape (the comparison partner of psi_W below).
void bm_psi_mp_shape(benchmark::State& state, double m, double n) {
  double v = 2 / (m + n);
  for (auto _ : state) {
    benchmark::DoNotOptimize(v);
    benchmark::DoNotOptimize(nsc::psi_mp(m, n, v));
  }
}

// psi_W of a Xavier-normal weight of shape rows x cols by `method`. The draw is not timed.
void bm_psi_w(benchmark::State& state, Eigen::Index rows, Eigen::Index cols,
              nsc::psi_w_method method) {
  boost::random::mt19937_64 rng(7);
  const Eigen::MatrixXd w = nsc::random_weight(rows, cols, nsc::init::xavier_normal(), rng);
  double psi = 0;
  for (auto _ : state) {
    psi = nsc::psi_w(w, method);
    benchmark::DoNotOptimize(psi);
  }
  state.counters["psi"] = psi;
  state.counters["psi_mp"] = nsc::psi_mp(double(rows), double(cols), 2.0 / double(rows + cols));
}

void bm_psi_w_gradient(benchmark::State& state, Eigen::Index rows, Eigen::Index cols,
                       nsc::psi_w_method method) {
  boost::random::mt19937_64 rng(7);
  const Eigen::MatrixXd w = nsc::random_weight(rows, cols, nsc::init::xavier_normal(), rng);
  for (auto _ : state) {
    Eigen::MatrixXd g = nsc::psi_w_gradient(w, method);
    benchmark::DoNotOptimize(g.data());
    benchmark::ClobberMemory();
  }
}

// Records the CPU time per iteration (seconds) of every run it prints. CPU rather than wall
// time: everything here is single-threaded, and CPU time is what stays meaningful when other
// jobs share the machine.
class recording_reporter : public benchmark::ConsoleReporter {
public:
  std::map<std::string, double> seconds;

  void ReportRuns(const std::vector<Run>& reports) override {
    for (const auto& r : reports)
      if (r.run_type == Run::RT_Iteration && !r.error_occurred && r.iterations > 0)
        seconds[r.run_name.function_name] = r.cpu_accumulated_time / static_cast<double>(r.iterations);
    ConsoleReporter::ReportRuns(reports);
  }
};

struct shape {
  const char* tag;
  Eigen::Index rows, cols;
};

const shape shapes[] = {{"128x512", 512, 128},
                        {"512x2048", 2048, 512},
                        {"llama_ffn_4096x11008", 11008, 4096}};

} // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("log1p", bm_log1p);
  benchmark::RegisterBenchmark("psi_mp", bm_psi_mp);
  benchmark::RegisterBenchmark("psi_fs", bm_psi_fs);
  for (const auto& s : shapes) {
    const bool huge = s.rows * s.cols > 10'000'000;
    const std::string tag = s.tag;
    benchmark::RegisterBenchmark(("psi_mp/" + tag).c_str(), bm_psi_mp_shape, double(s.rows),
                                 double(s.cols));
    for (auto method : {nsc::psi_w_method::gram, nsc::psi_w_method::svd}) {
      auto* b = benchmark::RegisterBenchmark(
          ("psi_w_" + std::string(nsc::to_string(method)) + "/" + tag).c_str(), bm_psi_w, s.rows,
          s.cols, method);
      b->Unit(benchmark::kMillisecond);
      if (huge) b->Iterations(1);
    }
    if (!huge)
      for (auto method : {nsc::psi_w_method::automatic, nsc::psi_w_method::svd})
        benchmark::RegisterBenchmark(("psi_w_gradient_" +
                                      std::string(method == nsc::psi_w_method::svd ? "svd"
                                                                                    : "llt") +
                                      "/" + tag)
                                         .c_str(),
                                     bm_psi_w_gradient, s.rows, s.cols, method)
            ->Unit(benchmark::kMillisecond);
  }

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  recording_reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  // The ratios, from the timings of this run.
  const auto& t = reporter.seconds;
  auto get = [&](const std::string& name) {
    const auto it = t.find(name);
    return it == t.end() ? -1.0 : it->second;
  };
  std::printf("\nRatios (CPU time per call, this run)\n");
  const double log1p_s = get("log1p");
  for (const char* name : {"psi_mp", "psi_fs"}) {
    const double s = get(name);
    if (s > 0 && log1p_s > 0)
      std::printf("  %-8s = %6.1f x one std::log1p  (%.1f ns vs %.2f ns)\n", name, s / log1p_s,
                  s * 1e9, log1p_s * 1e9);
  }
  for (const auto& s : shapes) {
    const double mp = get(std::string("psi_mp/") + s.tag);
    for (const char* method : {"gram", "svd"}) {
      const double w = get(std::string("psi_w_") + method + "/" + s.tag);
      if (w > 0 && mp > 0)
        std::printf("  psi_W by %-4s / psi_MP on %-22s = %.3g  (%.4g s vs %.1f ns)\n", method,
                    s.tag, w / mp, w, mp * 1e9);
    }
    const double g = get(std::string("psi_w_gram/") + s.tag);
    const double v = get(std::string("psi_w_svd/") + s.tag);
    if (g > 0 && v > 0)
      std::printf("  SVD / Gram on %-22s = %.2f\n", s.tag, v / g);
  }
  std::printf("  (paper, G.2: building the psi_MP cache took 0.5 s of CPU, psi_W ~6 min on an "
              "RTX 5090: ~720x for a whole LoNAS search space; the per-matrix ratios above "
              "compare one closed-form call with one dense factorisation on this CPU.)\n");
  return 0;
}
