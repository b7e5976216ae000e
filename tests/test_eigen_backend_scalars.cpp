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
// This part: float, long double and complex scalars.
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

