// psi_W of checkpoint matrices by nsc's routes, timed: one JSON object per line on stdout.
// Built three ways from this file (benchmarks/CMakeLists.txt): bench_psi_w (header-only Eigen,
// one thread), bench_psi_w_omp (header-only Eigen + OpenMP: tiled Gram product on every core)
// and bench_psi_w_blas (nsc::eigen_blas: EIGEN_USE_BLAS with OpenBLAS). scripts/bench_numpy_psi_w.py
// runs them and numpy on the same stored values and prints the README table.
//
//   bench_psi_w FILE.safetensors [--route cholesky|gram|svd|automatic]... [--report]
//
// For every 2-D floating tensor of FILE (read by nsc/io/safetensors.hpp into double): the
// wall time and value of nsc::psi_w_detailed by each --route given (default cholesky), as
//   {"variant":..., "tensor":..., "rows":..., "cols":..., "route":..., "seconds":..., "psi_w":...}
// --report instead times nsc::io::psi_w_report over the whole file (every matrix whole, no
// config): {"variant":..., "report":FILE, "matrices":..., "seconds":..., "psi_w":...}.
#include <nsc/io/checkpoint_psi.hpp>
#include <nsc/io/safetensors.hpp>
#include <nsc/spectral/eigen_backend.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#ifndef NSC_BENCH_VARIANT
#define NSC_BENCH_VARIANT "header-only"
#endif

int main(int argc, char** argv) {
  using clock = std::chrono::steady_clock;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.safetensors [--route cholesky|gram|svd|automatic]... [--report]\n", argv[0]);
    return 2;
  }
  try {
    std::vector<nsc::psi_w_method> routes;
    bool report = false;
    for (int i = 2; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--report") {
        report = true;
      } else if (a == "--route" && i + 1 < argc) {
        const std::string r = argv[++i];
        routes.push_back(r == "gram" ? nsc::psi_w_method::gram
                         : r == "svd" ? nsc::psi_w_method::svd
                         : r == "automatic" ? nsc::psi_w_method::automatic
                                            : nsc::psi_w_method::cholesky);
      } else {
        std::fprintf(stderr, "unknown argument %s\n", a.c_str());
        return 2;
      }
    }
    if (routes.empty()) routes.push_back(nsc::psi_w_method::cholesky);
    const nsc::io::checkpoint ck = nsc::io::open_checkpoint(argv[1]);
    if (report) {
      const auto t0 = clock::now();
      const nsc::io::weights_report r = nsc::io::psi_w_report(ck, nullptr, {});
      const double s = std::chrono::duration<double>(clock::now() - t0).count();
      std::printf("{\"variant\":\"%s\",\"report\":\"%s\",\"matrices\":%zu,\"seconds\":%.6f,\"psi_w\":%.17g}\n",
                  NSC_BENCH_VARIANT, argv[1], r.matrices.size(), s, r.psi_w);
      return 0;
    }
    for (const nsc::io::tensor_entry& t : ck.tensors) {
      if (t.shape.size() != 2 || !nsc::io::safetensors_dtype_is_float(t.dtype)) continue;
      const std::vector<double> data = nsc::io::read_tensor(t);
      const Eigen::Map<const Eigen::MatrixXd> w(data.data(), Eigen::Index(t.shape[1]), Eigen::Index(t.shape[0]));
      for (nsc::psi_w_method m : routes) {
        const auto t0 = clock::now();
        const auto d = nsc::psi_w_detailed(w, m);
        const double s = std::chrono::duration<double>(clock::now() - t0).count();
        std::printf("{\"variant\":\"%s\",\"tensor\":\"%s\",\"rows\":%lld,\"cols\":%lld,\"route\":\"%s\","
                    "\"used\":\"%s\",\"seconds\":%.6f,\"psi_w\":%.17g,\"error_estimate\":%.3g}\n",
                    NSC_BENCH_VARIANT, t.name.c_str(), static_cast<long long>(t.shape[0]),
                    static_cast<long long>(t.shape[1]), std::string(nsc::to_string(m)).c_str(),
                    std::string(nsc::to_string(d.used)).c_str(), s, d.value, d.gram_error_estimate);
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_psi_w: %s\n", e.what());
    return 2;
  }
  return 0;
}
