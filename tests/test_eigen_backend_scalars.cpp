// Tests for nsc/spectral/eigen_backend.hpp: psi_W from real matrices, its gradient, and the
// Monte Carlo estimator checked against psi_FS.
//
// Reference values: matrices with a known spectrum, W = U diag(s) V^T with U, V orthogonal
// from Eigen's QR of a Gaussian matrix, against sum log1p(s_i^2) evaluated in long double;
// the gradient against the SVD formula (JacobiSVD, not the BDCSVD the library uses) and
// against central finite differences.
//
// Run with NSC_VERBOSE=1 in the environment to print every Monte Carlo z-score.
//
// This part: float, long double and complex scalars (the only translation unit that instantiates
// Eigen's decompositions for them; the other two parts are double only).
#include "support/eigen_test_helpers.hpp"

TEST_CASE("psi_w in float, long double and complex", "[eigen][psi_w]") {
  boost::random::mt19937_64 rng(11);
  SECTION("float") {
    const vector<float> s = geometric_spectrum<float>(20, 0.05, 4.0);
    const matrix<float> w = with_spectrum<float>(30, 20, s, rng);
    const long double want = exact_psi(s);
    // float: eps = 1.2e-7. Rounding W alone moves psi by ~1e-7 relative.
    CHECK(rel(nsc::psi_w(w, psi_w_method::svd), want) < 2e-6);
    CHECK(rel(nsc::psi_w(w, psi_w_method::gram), want) < 2e-6);
    const auto d = nsc::psi_w_detailed(w);
    static_assert(std::is_same_v<decltype(d.value), float>);
    CHECK(rel(d.value, want) < 2e-6);
    CHECK(nsc::psi_w_gram_tolerance<float>() == Approx(std::pow(1.1920929e-7, 2.0 / 3)).epsilon(1e-5));
  }
  SECTION("long double") {
    using ld = long double;
    const vector<ld> s = geometric_spectrum<ld>(12, 0.05, 4.0);
    const matrix<ld> w = with_spectrum<ld>(15, 12, s, rng);
    const long double want = exact_psi(s);
    const double eps = static_cast<double>(std::numeric_limits<ld>::epsilon());
    static_assert(std::is_same_v<decltype(nsc::psi_w(w)), ld>);
    CHECK(rel(nsc::psi_w(w, psi_w_method::svd), want) < 50 * eps);
    CHECK(rel(nsc::psi_w(w, psi_w_method::gram), want) < 50 * eps);
    CHECK(rel(nsc::psi_w(w), want) < 50 * eps);
  }
  SECTION("complex<double>: ln det(I + W^H W)") {
    using cd = std::complex<double>;
    const vector<double> s = geometric_spectrum<double>(8, 0.1, 3.0);
    const matrix<cd> w = with_spectrum<cd>(12, 8, s, rng);
    static_assert(std::is_same_v<decltype(nsc::psi_w(w)), double>);
    CHECK(rel(nsc::psi_w(w), exact_psi(s)) < 1e-13);
    CHECK(rel(nsc::psi_w(w, psi_w_method::svd), exact_psi(s)) < 1e-13);
    CHECK(rel(nsc::psi_w(w.adjoint()), exact_psi(s)) < 1e-13);
    CHECK(rel(nsc::psi_w_top_r(w, 3), exact_psi(s, 3)) < 1e-13);
  }
}

TEST_CASE("psi_w_gradient in float and long double", "[eigen][gradient]") {
  boost::random::mt19937_64 rng(29);
  const matrix<double> w = gaussian<double>(7, 5, rng) * 0.5;
  const matrix<double> want = gradient_by_jacobi(w);
  const matrix<float> gf = nsc::psi_w_gradient(w.cast<float>().eval());
  CHECK((gf.cast<double>() - want).norm() <= 1e-5 * want.norm());
  const matrix<long double> gl = nsc::psi_w_gradient(w.cast<long double>().eval());
  CHECK((gl.cast<double>() - want).norm() <= 1e-14 * want.norm());
}

// ---- random_weight -----------------------------------------------------------------------------


TEST_CASE("float and complex: empty and non-finite matrices, the Cholesky route", "[eigen][psi_w]") {
  CHECK(nsc::psi_w(matrix<float>(3, 0)) == 0.0f);
  const matrix<float> wf = matrix<float>::Constant(2, 2, std::numeric_limits<float>::infinity());
  CHECK_THROWS_AS(nsc::psi_w(wf), std::domain_error);
  CHECK_THROWS_WITH(nsc::psi_w(wf), Contains("nsc::psi_w<float>"));
  boost::random::mt19937_64 rng(2026);
  const vector<double> s = geometric_spectrum<double>(20, 0.1, 2.0);
  const matrix<double> w = with_spectrum<double>(30, 20, s, rng);
  const matrix<float> w32 = w.cast<float>();
  CHECK(rel(nsc::psi_w(w32, psi_w_method::cholesky), exact_psi(s)) < 2e-6);
  const matrix<std::complex<double>> wc = w.cast<std::complex<double>>();
  CHECK(rel(nsc::psi_w(wc, psi_w_method::cholesky), exact_psi(s)) < 1e-13);
}

TEST_CASE("random_weight and psi_w_monte_carlo in float: the double draws rounded",
          "[eigen][random][mc]") {
  boost::random::mt19937_64 a(42), c(42);
  const matrix<double> wa = nsc::random_weight(2, 3, init::normal(1.0), a);
  const matrix<float> wf = nsc::random_weight<float>(2, 3, init::normal(1.0), c);
  CHECK(wf == wa.cast<float>());
  // The double estimate of the same draws is pinned in test_eigen_backend_gradient_mc.cpp.
  const auto f = nsc::psi_w_monte_carlo<float>(6, 4, init::xavier_normal(), 10, 2024);
  CHECK(f.trials == 10);
  CHECK(f.mean == Approx(2.7434744195397185).epsilon(1e-5));
}
