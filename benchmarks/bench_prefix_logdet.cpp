// The two routes of nsc/spectral/prefix_logdet.hpp on one matrix, in one run: the n-space Gram
// and its Cholesky (prefix_psi_ordered, every width) against the d-space QR update
// (prefix_psi_ordered_qr, LAPACK xTPQRT, the widths on a grid), float32, one OpenBLAS thread
// (as nsc/io/prune_weights.hpp runs it), and both against the QR route in double.
//
//   bench_prefix_logdet [n d step]     default 14336 4096 256: one FFN matrix of Llama-3-8B,
//                                      N(0, 0.02^2) entries, widths every 256 channels
//
// Prints the seconds of each route, their ratio, and |psi_W(float) - psi_W(double)| of the
// whole matrix with the stated bounds (prefix_psi_route_error). Needs nsc::eigen_blas.
#include <nsc/spectral/prefix_logdet.hpp>

#include <Eigen/Core>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

extern "C" void openblas_set_num_threads(int);

int main(int argc, char** argv) {
#if defined(NSC_HAVE_OPENBLAS)
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 14336, d = argc > 2 ? std::atoll(argv[2]) : 4096,
                     step = argc > 3 ? std::atoll(argv[3]) : 256;
  if (n < 1 || d < 1 || step < 1) return std::fprintf(stderr, "usage: bench_prefix_logdet [n d step]\n"), 2;
  openblas_set_num_threads(1);
  std::mt19937_64 rng(19);
  std::normal_distribution<double> g(0.0, 0.02);
  Eigen::MatrixXd X(n, d);
  for (Eigen::Index j = 0; j < X.cols(); ++j)
    for (Eigen::Index i = 0; i < X.rows(); ++i) X(i, j) = g(rng);
  std::vector<std::int64_t> order(static_cast<std::size_t>(n)), sizes;
  std::iota(order.begin(), order.end(), 0);
  for (std::int64_t k = step; k < n; k += step) sizes.push_back(k);
  sizes.push_back(n);
  auto time = [](auto f) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = f();
    return std::pair{r, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
  };
  double lam = 0;
  const auto [qr, t_qr] = time([&] { return nsc::prefix_psi_ordered_qr<float>(X, order, 1, sizes, &lam); });
  const auto [gram, t_gram] = time([&] { return nsc::prefix_psi_ordered<float>(X, order, 1); });
  const auto [ref, t_ref] = time([&] { return nsc::prefix_psi_ordered_qr<double>(X, order, 1, sizes); });
  const double e_qr = std::abs(qr.back() - ref.back()), e_gram = std::abs(gram.back() - ref.back());
  std::printf("%lld x %lld, widths every %lld (float32, 1 OpenBLAS thread)\n", static_cast<long long>(n),
              static_cast<long long>(d), static_cast<long long>(step));
  std::printf("qr route   %8.2f s   |psi - psi(double)| = %.2e  (bound %.3g)\n", t_qr, e_qr,
              nsc::prefix_psi_route_error<float>(nsc::prefix_psi_route::qr, n, d, lam));
  std::printf("gram route %8.2f s   |psi - psi(double)| = %.2e  (bound %.3g)\n", t_gram, e_gram,
              nsc::prefix_psi_route_error<float>(nsc::prefix_psi_route::gram, n, d, lam));
  std::printf("gram / qr  %8.2f x   psi_W = %.6f, lambda_max = %.4g; double qr route %.2f s\n", t_gram / t_qr, ref.back(),
              lam, t_ref);
  return 0;
#else
  (void)argc, (void)argv;
  std::fprintf(stderr, "bench_prefix_logdet needs nsc::eigen_blas (OpenBLAS's LAPACK)\n");
  return 2;
#endif
}
