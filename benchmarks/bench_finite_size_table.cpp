// Finite-size convergence of psi_MP and psi_FS against Monte Carlo means of psi_W, in the layout
// of the paper's appendix G.1 (Figure 6, Table 18): min(m, n) from 8 to 1024, aspect ratios
// m / n in {1, 2, 4} (m = rows = fan_out, n = cols = fan_in), initialisations xavier_normal,
// kaiming_normal (gain sqrt 2, fan_in) and torch_default (uniform entries, kappa = -1.2).
//
// A plain program (no Google Benchmark): prints a markdown table and the time it took.
//
//   bench_finite_size_table            all sizes 8 .. 1024 (~4 minutes of CPU, one core)
//   bench_finite_size_table --quick    sizes 8 .. 128, a tenth of the trials (seconds)
//
// Columns: the Monte Carlo mean of psi_W with its standard error (sd / sqrt(trials)); the
// relative error of each closed form, (closed - mean) / mean, and its z-score
// (closed - mean) / SE. psi_W's standard deviation is O(1) while psi is O(min(m, n)), so a few
// trials pin the mean to ~1e-4 relative at 1024; but psi_MP's own error is also O(1) in
// absolute terms (~0.1 - 0.2 standard deviations of psi_W for normal entries), so at large sizes
// no affordable trial count resolves it: read the relative errors together with the relative
// standard error column.
#include <nsc/spectral/eigen_backend.hpp>
#include <nsc/spectral/finite_size.hpp>
#include <nsc/spectral/marchenko_pastur.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct named_init {
  const char* name;
  nsc::init ini;
};

Eigen::Index trials_for(Eigen::Index p, bool quick) {
  Eigen::Index t = 20000;
  switch (p) {
  case 8: t = 40000; break;
  case 16: t = 20000; break;
  case 32: t = 8000; break;
  case 64: t = 4000; break;
  case 128: t = 2000; break;
  case 256: t = 400; break;
  case 512: t = 60; break;
  default: t = 10; break;
  }
  return quick ? std::max<Eigen::Index>(t / 10, 20) : t;
}

} // namespace

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else {
      std::fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
      return 2;
    }
  }
  const std::vector<Eigen::Index> sizes =
      quick ? std::vector<Eigen::Index>{8, 16, 32, 64, 128}
            : std::vector<Eigen::Index>{8, 16, 32, 64, 128, 256, 512, 1024};
  const Eigen::Index ratios[] = {1, 2, 4};
  const named_init inits[] = {{"xavier_normal", nsc::init::xavier_normal()},
                              {"kaiming_normal", nsc::init::kaiming_normal()},
                              {"torch_default", nsc::init::torch_default()}};

  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const std::clock_t cpu_start = std::clock();
  std::printf("| min(m,n) | m x n | init | trials | mean psi_W | SE | SE / mean | "
              "psi_MP rel. err | z_MP | psi_FS rel. err | z_FS |\n");
  std::printf("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  struct summary {
    Eigen::Index p;
    double max_mp, max_fs, max_se, seconds, cpu_seconds;
  };
  std::vector<summary> summaries;
  std::uint64_t seed = 20260101;
  for (const Eigen::Index p : sizes) {
    const auto t0 = clock::now();
    const std::clock_t c0 = std::clock();
    summary s{p, 0, 0, 0, 0, 0};
    for (const Eigen::Index ratio : ratios)
      for (const auto& ni : inits) {
        const Eigen::Index n = p, m = ratio * p; // rows = out = m, cols = in = n
        const Eigen::Index trials = trials_for(p, quick);
        const auto r = nsc::psi_w_monte_carlo(m, n, ni.ini, trials, seed++);
        const double v = r.entries.variance;
        const double mp = nsc::psi_mp(double(m), double(n), v);
        const double fs = nsc::psi_fs(double(m), double(n), v, r.entries.kurtosis_excess);
        const double rel_mp = (mp - r.mean) / r.mean, rel_fs = (fs - r.mean) / r.mean;
        s.max_mp = std::max(s.max_mp, std::fabs(rel_mp));
        s.max_fs = std::max(s.max_fs, std::fabs(rel_fs));
        s.max_se = std::max(s.max_se, r.standard_error / r.mean);
        std::printf("| %ld | %ld x %ld | %s | %zu | %.6g | %.2e | %.1e | %+.2e | %+.1f | %+.2e | "
                    "%+.1f |\n",
                    static_cast<long>(p), static_cast<long>(m), static_cast<long>(n), ni.name,
                    r.trials, r.mean, r.standard_error, r.standard_error / r.mean, rel_mp,
                    (mp - r.mean) / r.standard_error, rel_fs, (fs - r.mean) / r.standard_error);
        std::fflush(stdout);
      }
    s.seconds = std::chrono::duration<double>(clock::now() - t0).count();
    s.cpu_seconds = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    summaries.push_back(s);
  }
  std::printf("\n| min(m,n) | max abs psi_MP rel. err | max abs psi_FS rel. err | "
              "max SE / mean | wall s | CPU s |\n|---:|---:|---:|---:|---:|---:|\n");
  for (const auto& s : summaries)
    std::printf("| %ld | %.2e | %.2e | %.1e | %.1f | %.1f |\n", static_cast<long>(s.p), s.max_mp,
                s.max_fs, s.max_se, s.seconds, s.cpu_seconds);
  // CPU time as well: on a shared machine the wall clock also measures the other jobs.
  std::printf("\nTotal: %.1f s wall clock, %.1f s CPU%s.\n",
              std::chrono::duration<double>(clock::now() - start).count(),
              static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC,
              quick ? " (--quick)" : "");
  return 0;
}
