// Tests for nsc/spectral/eigen_backend.hpp: psi_W from real matrices, its gradient, and the
// Monte Carlo estimator checked against psi_FS.
//
// Reference values: matrices with a known spectrum, W = U diag(s) V^T with U, V orthogonal
// from Eigen's QR of a Gaussian matrix, against sum log1p(s_i^2) evaluated in long double;
// the gradient against the SVD formula (JacobiSVD, not the BDCSVD the library uses) and
// against central finite differences.
//
// Run with NSC_VERBOSE=1 in the environment to print every Monte Carlo z-score.
#include <nsc/spectral/eigen_backend.hpp>
#include <nsc/spectral/finite_size.hpp>
#include <nsc/spectral/marchenko_pastur.hpp>
#include <nsc/spectral/psi.hpp>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using Catch::Contains;
using nsc::entry_distribution;
using nsc::init;
using nsc::psi_w_method;

namespace {

template <class Scalar>
using matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
template <class Real>
using vector = Eigen::Matrix<Real, Eigen::Dynamic, 1>;

bool verbose() {
  static const bool v = std::getenv("NSC_VERBOSE") != nullptr;
  return v;
}

// A Gaussian matrix (the test's own draws, independent of random_weight).
template <class Scalar>
matrix<Scalar> gaussian(Eigen::Index rows, Eigen::Index cols, boost::random::mt19937_64& rng) {
  boost::random::normal_distribution<double> d;
  matrix<Scalar> g(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) {
      if constexpr (Eigen::NumTraits<Scalar>::IsComplex) {
        const double re = d(rng), im = d(rng);
        g(i, j) = Scalar(static_cast<typename Scalar::value_type>(re),
                         static_cast<typename Scalar::value_type>(im));
      } else {
        g(i, j) = static_cast<Scalar>(d(rng));
      }
    }
  return g;
}

// n x k with orthonormal columns (k <= n).
template <class Scalar>
matrix<Scalar> orthonormal_columns(Eigen::Index n, Eigen::Index k, boost::random::mt19937_64& rng) {
  const Eigen::HouseholderQR<matrix<Scalar>> qr(gaussian<Scalar>(n, k, rng));
  return qr.householderQ() * matrix<Scalar>::Identity(n, k);
}

// m x n matrix with singular values s (size min(m, n)).
template <class Scalar, class Real>
matrix<Scalar> with_spectrum(Eigen::Index m, Eigen::Index n, const vector<Real>& s,
                             boost::random::mt19937_64& rng) {
  const Eigen::Index p = s.size();
  const matrix<Scalar> u = orthonormal_columns<Scalar>(m, p, rng);
  const matrix<Scalar> v = orthonormal_columns<Scalar>(n, p, rng);
  return u * s.template cast<Scalar>().asDiagonal() * v.adjoint();
}

template <class Real>
long double exact_psi(const vector<Real>& s, Eigen::Index r = -1) {
  std::vector<long double> v(s.data(), s.data() + s.size());
  std::sort(v.begin(), v.end(), [](long double a, long double b) { return a > b; });
  if (r < 0 || r > static_cast<Eigen::Index>(v.size())) r = static_cast<Eigen::Index>(v.size());
  long double sum = 0;
  for (Eigen::Index i = 0; i < r; ++i) sum += std::log1p(v[static_cast<std::size_t>(i)] * v[static_cast<std::size_t>(i)]);
  return sum;
}

// Singular values spread over [lo, hi] geometrically.
template <class Real>
vector<Real> geometric_spectrum(Eigen::Index p, double lo, double hi) {
  vector<Real> s(p);
  for (Eigen::Index i = 0; i < p; ++i)
    s(i) = static_cast<Real>(p == 1 ? hi : lo * std::pow(hi / lo, double(i) / double(p - 1)));
  return s;
}

double rel(long double got, long double want) {
  return static_cast<double>(std::fabs((got - want) / want));
}

// The SVD formula U diag(2 s / (1 + s^2)) V^T by JacobiSVD (independent of the library's route).
matrix<double> gradient_by_jacobi(const matrix<double>& w) {
  const Eigen::JacobiSVD<matrix<double>> svd(w, Eigen::ComputeThinU | Eigen::ComputeThinV);
  vector<double> g = svd.singularValues();
  for (Eigen::Index i = 0; i < g.size(); ++i) g(i) = 2 * g(i) / (1 + g(i) * g(i));
  return svd.matrixU() * g.asDiagonal() * svd.matrixV().transpose();
}

} // namespace

// ---- psi_w on known spectra --------------------------------------------------------------------

TEST_CASE("psi_w of a diagonal matrix is sum log1p(s^2)", "[eigen][psi_w]") {
  matrix<double> w = matrix<double>::Zero(5, 3);
  w(0, 0) = 0.5;
  w(1, 1) = -2; // the sign of a singular direction does not matter
  w(2, 2) = 3;
  const double want = std::log1p(0.25) + std::log1p(4.0) + std::log1p(9.0);
  for (auto m : {psi_w_method::automatic, psi_w_method::gram, psi_w_method::svd}) {
    CHECK(nsc::psi_w(w, m) == Approx(want).epsilon(1e-15));
    CHECK(nsc::psi_w(w.transpose(), m) == Approx(want).epsilon(1e-15));
  }
  // The identity: n ln 2. The zero matrix: exactly 0.
  CHECK(nsc::psi_w(matrix<double>::Identity(7, 7)) == Approx(7 * std::log(2.0)).epsilon(1e-15));
  CHECK(nsc::psi_w(matrix<double>::Zero(4, 6)) == 0);
  CHECK(nsc::psi_w(matrix<double>::Zero(4, 6), psi_w_method::svd) == 0);
}

TEST_CASE("psi_w matches a known spectrum: tall, wide, square, all methods", "[eigen][psi_w]") {
  boost::random::mt19937_64 rng(20240601);
  struct shape { Eigen::Index m, n; };
  for (const shape sh : {shape{40, 40}, shape{60, 25}, shape{25, 60}, shape{200, 3},
                         shape{3, 200}, shape{1, 17}, shape{17, 1}, shape{130, 90}}) {
    const Eigen::Index p = std::min(sh.m, sh.n);
    const vector<double> s = geometric_spectrum<double>(p, 0.05, 4.0);
    const matrix<double> w = with_spectrum<double>(sh.m, sh.n, s, rng);
    const long double want = exact_psi(s);
    INFO(sh.m << " x " << sh.n);
    // Constructing W rounds its entries: ~eps relative on every singular value; psi is then
    // within a few eps of want. 1e-13 leaves room for p up to 130.
    CHECK(rel(nsc::psi_w(w, psi_w_method::gram), want) < 1e-13);
    CHECK(rel(nsc::psi_w(w, psi_w_method::svd), want) < 1e-13);
    const auto d = nsc::psi_w_detailed(w);
    CHECK(d.used == psi_w_method::gram); // well scaled: the cheap route is accurate
    CHECK(d.gram_error_estimate < nsc::psi_w_gram_tolerance<double>());
    CHECK(rel(d.value, want) < 1e-13);
    // psi(W) = psi(W^T), whatever the expression type.
    const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> row_major = w;
    CHECK(rel(nsc::psi_w(w.transpose()), want) < 1e-13);
    CHECK(rel(nsc::psi_w(row_major), want) < 1e-13);
    CHECK(rel(nsc::psi_w(Eigen::Map<const matrix<double>>(w.data(), w.rows(), w.cols())), want) <
          1e-13);
  }
}

TEST_CASE("psi_w of blocks and scaled expressions", "[eigen][psi_w]") {
  boost::random::mt19937_64 rng(7);
  const vector<double> s = geometric_spectrum<double>(10, 0.1, 3.0);
  matrix<double> big = matrix<double>::Zero(30, 30);
  big.block(5, 7, 12, 10) = with_spectrum<double>(12, 10, s, rng);
  CHECK(rel(nsc::psi_w(big.block(5, 7, 12, 10)), exact_psi(s)) < 1e-13);
  CHECK(rel(nsc::psi_w(big), exact_psi(s)) < 1e-13); // zero rows/columns add nothing
  const vector<double> s2 = 2 * s;
  CHECK(rel(nsc::psi_w(2 * big.block(5, 7, 12, 10)), exact_psi(s2)) < 1e-13);
}

TEST_CASE("psi_w of an empty matrix is 0", "[eigen][psi_w]") {
  for (auto m : {psi_w_method::automatic, psi_w_method::gram, psi_w_method::svd}) {
    CHECK(nsc::psi_w(matrix<double>(0, 0), m) == 0);
    CHECK(nsc::psi_w(matrix<double>(0, 5), m) == 0);
    CHECK(nsc::psi_w(matrix<double>(5, 0), m) == 0);
    CHECK(nsc::psi_w_top_r(matrix<double>(5, 0), 3, m) == 0);
  }
  const matrix<double> g = nsc::psi_w_gradient(matrix<double>(0, 5));
  CHECK(g.rows() == 0);
  CHECK(g.cols() == 5);
  CHECK(nsc::psi_w(matrix<float>(3, 0)) == 0.0f);
}

TEST_CASE("automatic switches to SVD on an ill-scaled matrix and stays accurate",
          "[eigen][psi_w]") {
  boost::random::mt19937_64 rng(99);
  // One singular value of 1e6 over a bulk in [1e-3, 1]: lambda_max = 1e12, so the Gram
  // route's eigenvalues carry absolute errors ~ eps * 1e12 * (p + q) ~ 2e-2, ruinous for the
  // bulk whose lambda_i are 1e-6 .. 1.
  for (const auto& [m, n] : {std::pair<Eigen::Index, Eigen::Index>{60, 40}, {40, 60}, {50, 50}}) {
    const Eigen::Index p = std::min(m, n);
    vector<double> s = geometric_spectrum<double>(p, 1e-3, 1.0);
    s(0) = 1e6;
    const matrix<double> w = with_spectrum<double>(m, n, s, rng);
    const long double want = exact_psi(s);
    const auto d = nsc::psi_w_detailed(w);
    INFO(m << " x " << n << ": gram estimate " << d.gram_error_estimate);
    CHECK(d.used == psi_w_method::svd);
    // The SVD itself is limited by the rounding of W's entries, eps * s_max = 2e-10 absolute
    // on every s_i: sum 2 s_i 2e-10 / (1 + s_i^2) / psi ~ 1e-10.
    CHECK(rel(d.value, want) < 1e-9);
    const auto g = nsc::psi_w_detailed(w, psi_w_method::gram);
    CHECK(g.used == psi_w_method::gram);
    CHECK(g.gram_error_estimate > nsc::psi_w_gram_tolerance<double>());
    // The Gram route really is worse here (the estimate is not a false alarm).
    CHECK(rel(g.value, want) > 100 * rel(d.value, want));
    CHECK(rel(nsc::psi_w(w, psi_w_method::svd), want) < 1e-9);
  }
}

TEST_CASE("psi_w handles huge and tiny scales without overflow", "[eigen][psi_w]") {
  boost::random::mt19937_64 rng(5);
  vector<double> s = geometric_spectrum<double>(6, 0.5, 2.0);
  // s^2 overflows double at 1e200: W^T W is not representable, the SVD route still works.
  const vector<double> big = s * 1e200;
  const matrix<double> w = with_spectrum<double>(9, 6, big, rng);
  long double want = 0;
  for (Eigen::Index i = 0; i < big.size(); ++i)
    want += 2 * std::log(static_cast<long double>(big(i))) + std::log1p(1 / ((long double)big(i) * big(i)));
  CHECK(rel(nsc::psi_w(w), want) < 1e-14);
  CHECK(rel(nsc::psi_w(w, psi_w_method::gram), want) < 1e-14); // falls back on overflow
  CHECK(nsc::psi_w_detailed(w, psi_w_method::gram).used == psi_w_method::svd);
  // Tiny: psi ~ sum s^2.
  const vector<double> tiny = s * 1e-100;
  const matrix<double> t = with_spectrum<double>(9, 6, tiny, rng);
  CHECK(nsc::psi_w(t) == Approx(1e-200 * s.squaredNorm()).epsilon(1e-13));
}

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

TEST_CASE("psi_w_top_r keeps the r largest singular values", "[eigen][psi_w]") {
  boost::random::mt19937_64 rng(3);
  const vector<double> s = geometric_spectrum<double>(10, 0.2, 5.0);
  for (const auto& [m, n] : {std::pair<Eigen::Index, Eigen::Index>{14, 10}, {10, 14}}) {
    const matrix<double> w = with_spectrum<double>(m, n, s, rng);
    for (Eigen::Index r : {0, 1, 3, 9, 10, 11, 1000}) {
      INFO(m << " x " << n << ", r = " << r);
      for (auto method : {psi_w_method::automatic, psi_w_method::gram, psi_w_method::svd}) {
        if (r == 0)
          CHECK(nsc::psi_w_top_r(w, r, method) == 0);
        else
          CHECK(rel(nsc::psi_w_top_r(w, r, method), exact_psi(s, r)) < 1e-13);
      }
    }
    CHECK(nsc::psi_w_top_r(w, 1000) == Approx(nsc::psi_w(w)).epsilon(1e-15));
    CHECK_THROWS_AS(nsc::psi_w_top_r(w, -1), std::domain_error);
    CHECK_THROWS_WITH(nsc::psi_w_top_r(w, -2),
                      Contains("nsc::psi_w_top_r") && Contains("rank must be >= 0") &&
                          Contains("-2"));
  }
  // Ill-scaled: a small r keeps only the well-determined large eigenvalues, so the Gram route
  // is acceptable again (its error estimate sums 1 / (1 + lambda_i) over the kept ones).
  vector<double> s2 = geometric_spectrum<double>(10, 1e-3, 1.0);
  s2(0) = 1e6;
  const matrix<double> w2 = with_spectrum<double>(12, 10, s2, rng);
  CHECK(rel(nsc::psi_w_top_r(w2, 1), exact_psi(s2, 1)) < 1e-13);
  CHECK(rel(nsc::psi_w_top_r(w2, 10), exact_psi(s2)) < 1e-9);
}

// ---- errors ------------------------------------------------------------------------------------

TEST_CASE("non-finite entries are domain errors naming the function", "[eigen][errors]") {
  matrix<double> w = matrix<double>::Identity(4, 3);
  w(2, 1) = std::numeric_limits<double>::quiet_NaN();
  for (auto m : {psi_w_method::automatic, psi_w_method::gram, psi_w_method::svd}) {
    CHECK_THROWS_AS(nsc::psi_w(w, m), std::domain_error);
    CHECK_THROWS_WITH(nsc::psi_w(w, m), Contains("nsc::psi_w<double>") &&
                                            Contains("matrix entries must be finite") &&
                                            Contains("nan"));
    CHECK_THROWS_WITH(nsc::psi_w_top_r(w, 2, m), Contains("nsc::psi_w_top_r<double>"));
    CHECK_THROWS_WITH(nsc::psi_w_gradient(w, m), Contains("nsc::psi_w_gradient<double>") &&
                                                     Contains("finite"));
  }
  w(2, 1) = -std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(nsc::psi_w(w), Contains("nsc::psi_w") && Contains("-inf"));
  const matrix<float> wf = matrix<float>::Constant(2, 2, std::numeric_limits<float>::infinity());
  CHECK_THROWS_WITH(nsc::psi_w(wf), Contains("nsc::psi_w<float>"));
  // Expressions are checked too.
  CHECK_THROWS_AS(nsc::psi_w(w.transpose() * 2), std::domain_error);
}

TEST_CASE("a non-throwing policy returns NaN", "[eigen][errors]") {
  using quiet = boost::math::policies::policy<
      boost::math::policies::domain_error<boost::math::policies::ignore_error>>;
  matrix<double> w = matrix<double>::Identity(3, 3);
  w(0, 0) = std::numeric_limits<double>::quiet_NaN();
  CHECK(std::isnan(nsc::psi_w(w, psi_w_method::automatic, quiet())));
  CHECK(std::isnan(nsc::psi_w_top_r(matrix<double>::Identity(3, 3), -1, psi_w_method::gram,
                                    quiet())));
  const matrix<double> g = nsc::psi_w_gradient(w, psi_w_method::automatic, quiet());
  CHECK(g.rows() == 3);
  CHECK(g.array().isNaN().all());
}

// ---- gradient ----------------------------------------------------------------------------------

TEST_CASE("psi_w_gradient = U diag(2s/(1+s^2)) V^T = central finite differences",
          "[eigen][gradient]") {
  boost::random::mt19937_64 rng(17);
  struct shape { Eigen::Index m, n; };
  for (const shape sh : {shape{6, 4}, shape{4, 6}, shape{5, 5}, shape{1, 7}, shape{7, 1},
                         shape{40, 25}}) {
    const matrix<double> w = gaussian<double>(sh.m, sh.n, rng) * 0.6;
    const matrix<double> want = gradient_by_jacobi(w);
    INFO(sh.m << " x " << sh.n);
    for (auto method : {psi_w_method::automatic, psi_w_method::gram, psi_w_method::svd}) {
      const matrix<double> g = nsc::psi_w_gradient(w, method);
      REQUIRE(g.rows() == sh.m);
      REQUIRE(g.cols() == sh.n);
      CHECK((g - want).norm() <= 1e-13 * want.norm());
    }
    // Central differences, step h: truncation O(h^2 psi''') ~ 1e-10, rounding ~ eps psi / h.
    if (sh.m * sh.n > 64) continue;
    const matrix<double> g = nsc::psi_w_gradient(w);
    const double h = 1e-5;
    double worst = 0;
    for (Eigen::Index j = 0; j < sh.n; ++j)
      for (Eigen::Index i = 0; i < sh.m; ++i) {
        matrix<double> plus = w, minus = w;
        plus(i, j) += h;
        minus(i, j) -= h;
        const double fd = (nsc::psi_w(plus) - nsc::psi_w(minus)) / (2 * h);
        worst = std::max(worst, std::fabs(fd - g(i, j)));
      }
    CHECK(worst < 1e-8);
  }
}

TEST_CASE("psi_w_gradient on an ill-scaled matrix uses the SVD formula", "[eigen][gradient]") {
  boost::random::mt19937_64 rng(23);
  vector<double> s = geometric_spectrum<double>(8, 1e-2, 1.0);
  s(0) = 1e6;
  const matrix<double> w = with_spectrum<double>(12, 8, s, rng);
  const matrix<double> want = gradient_by_jacobi(w);
  const matrix<double> automatic = nsc::psi_w_gradient(w);
  const matrix<double> gram = nsc::psi_w_gradient(w, psi_w_method::gram);
  const double err_auto = (automatic - want).norm() / want.norm();
  const double err_gram = (gram - want).norm() / want.norm();
  INFO("automatic " << err_auto << ", gram " << err_gram);
  CHECK(err_auto < 1e-9);
  CHECK(err_gram > 100 * err_auto); // the switch was worth it
  // The gradient of a large singular direction is ~2 / s: no overflow for huge s either.
  const matrix<double> huge = with_spectrum<double>(5, 3, vector<double>(vector<double>::Constant(3, 1e200)), rng);
  const matrix<double> gh = nsc::psi_w_gradient(huge);
  CHECK(gh.allFinite());
  // U (2/s) I V^T: three singular values 2/s, Frobenius norm sqrt(3) 2/s (stableNorm: the
  // squares underflow).
  CHECK(gh.stableNorm() == Approx(std::sqrt(3.0) * 2e-200).epsilon(1e-12));
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

TEST_CASE("random_weight is reproducible, pinned, and draws the initialisation's law",
          "[eigen][random]") {
  SECTION("same engine state, same matrix; pinned values") {
    boost::random::mt19937_64 a(42), b(42);
    const matrix<double> wa = nsc::random_weight(2, 3, init::normal(1.0), a);
    const matrix<double> wb = nsc::random_weight(2, 3, init::normal(1.0), b);
    CHECK(wa == wb);
    // boost::random::normal_distribution (ziggurat) and uniform_real_distribution are fixed
    // algorithms: these values hold with every compiler and standard library. A change here
    // means every seeded Monte Carlo result of nsc changed.
    const double pinned[] = {-0.69018591622748071, -0.80723593464514476, -2.1769669541929053,
                             -0.25912177929071034, 1.6733640317460059,   -0.14678205102057515};
    for (int k = 0; k < 6; ++k) CHECK(wa.data()[k] == Approx(pinned[k]).epsilon(1e-15));
    const matrix<double> u =
        nsc::random_weight(2, 2, init::normal(1.0), a, entry_distribution::uniform);
    const double pinned_u[] = {0.25831911090275095, -0.44032992561770579, -0.78332308939674211,
                               -0.38011281692038779};
    for (int k = 0; k < 4; ++k) CHECK(u.data()[k] == Approx(pinned_u[k]).epsilon(1e-15));
    // float draws are the double draws rounded.
    boost::random::mt19937_64 c(42);
    const matrix<float> wf = nsc::random_weight<float>(2, 3, init::normal(1.0), c);
    CHECK(wf == wa.cast<float>());
  }
  // Sample moments over 60,000 entries: SE of the variance v sqrt((kappa + 2) / N), of the
  // excess kurtosis ~ sqrt(24 / N) = 0.02 for normal entries (less for uniform).
  boost::random::mt19937_64 rng(2718);
  auto sample_moments = [](const matrix<double>& w) {
    const double n = static_cast<double>(w.size());
    const double mean = w.mean();
    const double var = (w.array() - mean).square().sum() / n;
    const double m4 = (w.array() - mean).pow(4).sum() / n;
    return std::pair<double, double>{var, m4 / (var * var) - 3};
  };
  SECTION("normal (kaiming_normal)") {
    const matrix<double> w = nsc::random_weight(300, 200, init::kaiming_normal(), rng);
    const double v = 2.0 / 200; // gain^2 / fan_in
    const auto [var, kurt] = sample_moments(w);
    CHECK(std::fabs(var - v) < 4 * v * std::sqrt(2.0 / 60000));
    CHECK(std::fabs(kurt) < 4 * 0.02);
  }
  SECTION("uniform (torch_default): U(-1/sqrt(fan_in), 1/sqrt(fan_in))") {
    const matrix<double> w = nsc::random_weight(300, 200, init::torch_default(), rng);
    const double v = 1.0 / (3 * 200), bound = 1 / std::sqrt(200.0);
    CHECK(w.cwiseAbs().maxCoeff() <= bound);
    CHECK(w.cwiseAbs().maxCoeff() > 0.999 * bound);
    const auto [var, kurt] = sample_moments(w);
    CHECK(std::fabs(var - v) < 4 * v * std::sqrt(0.8 / 60000));
    CHECK(std::fabs(kurt + 1.2) < 0.03);
  }
  SECTION("uniform override of a normal init keeps the variance") {
    const matrix<double> w =
        nsc::random_weight(300, 200, init::xavier_normal(), rng, entry_distribution::uniform);
    const double v = 2.0 / 500;
    CHECK(w.cwiseAbs().maxCoeff() <= std::sqrt(3 * v));
    const auto [var, kurt] = sample_moments(w);
    CHECK(std::fabs(var - v) < 4 * v * std::sqrt(0.8 / 60000));
    CHECK(std::fabs(kurt + 1.2) < 0.03);
  }
  SECTION("truncated normal") {
    const auto ini = init::truncated_normal(0.02, -2, 2);
    const matrix<double> w = nsc::random_weight(300, 200, ini, rng);
    CHECK(w.cwiseAbs().maxCoeff() <= 0.04);
    const auto mom = nsc::moments(ini, nsc::linear_fans(300.0, 200.0));
    const auto [var, kurt] = sample_moments(w);
    CHECK(std::fabs(var - mom.variance) < 4 * mom.variance * std::sqrt((mom.kurtosis_excess + 2) / 60000));
    CHECK(std::fabs(kurt - mom.kurtosis_excess) < 0.05);
    // One-sided bounds use the upper tail: draws stay inside [1, 3] std.
    const matrix<double> one_sided = nsc::random_weight(50, 40, init::truncated_normal(1.0, 1, 3), rng);
    CHECK(one_sided.minCoeff() >= 1.0);
    CHECK(one_sided.maxCoeff() <= 3.0);
  }
  SECTION("orthogonal: Haar semi-orthogonal times the gain") {
    const matrix<double> tall = nsc::random_weight(30, 12, init::orthogonal(1.5), rng);
    CHECK((tall.transpose() * tall - 2.25 * matrix<double>::Identity(12, 12)).norm() < 1e-13);
    const matrix<double> wide = nsc::random_weight(12, 30, init::orthogonal(0.5), rng);
    CHECK((wide * wide.transpose() - 0.25 * matrix<double>::Identity(12, 12)).norm() < 1e-13);
  }
}

// ---- psi_w_monte_carlo: reproducibility and arguments -------------------------------------------

TEST_CASE("psi_w_monte_carlo is reproducible and validates its arguments", "[eigen][mc]") {
  const auto a = nsc::psi_w_monte_carlo(6, 4, init::xavier_normal(), 10, 2024);
  const auto b = nsc::psi_w_monte_carlo(6, 4, init::xavier_normal(), 10, 2024);
  CHECK(a.mean == b.mean);
  CHECK(a.standard_error == b.standard_error);
  CHECK(a.trials == 10);
  CHECK(a.standard_error == Approx(a.standard_deviation / std::sqrt(10.0)).epsilon(1e-15));
  // Pinned (draws fixed by Boost.Random; psi to the rounding of Eigen's kernels).
  CHECK(a.mean == Approx(2.7434744195397185).epsilon(1e-13));
  CHECK(a.standard_deviation == Approx(0.48144393803253333).epsilon(1e-11));
  CHECK(nsc::psi_w_monte_carlo(6, 4, init::xavier_normal(), 10, 2025).mean != a.mean);
  // The moments reported are those of the law drawn.
  CHECK(a.entries.variance == Approx(0.2).epsilon(1e-15));
  CHECK(a.entries.kurtosis_excess == 0);
  const auto u = nsc::psi_w_monte_carlo(6, 4, init::xavier_normal(), 10, 2024,
                                        entry_distribution::uniform);
  CHECK(u.entries.kurtosis_excess == Approx(-1.2));
  const auto t = nsc::psi_w_monte_carlo(6, 4, init::torch_default(), 10, 2024);
  CHECK(t.entries.kurtosis_excess == Approx(-1.2));
  CHECK(t.entries.variance == Approx(1.0 / 12));
  // float: the same draws rounded to float.
  const auto f = nsc::psi_w_monte_carlo<float>(6, 4, init::xavier_normal(), 10, 2024);
  CHECK(f.mean == Approx(a.mean).epsilon(1e-5));
  // Variance overload.
  const auto v = nsc::psi_w_monte_carlo(6, 4, 0.2, 10, 2024);
  CHECK(v.mean == Approx(a.mean).epsilon(1e-14));
  CHECK(nsc::psi_w_monte_carlo(6, 4, 0.0, 3, 1).mean == 0);
  // Orthogonal: every draw has psi = p ln(1 + g^2).
  const auto o = nsc::psi_w_monte_carlo(9, 5, init::orthogonal(2.0), 5, 1);
  CHECK(o.entries.orthogonal);
  CHECK(o.mean == Approx(5 * std::log1p(4.0)).epsilon(1e-13));
  CHECK(o.standard_deviation < 1e-12);
  CHECK(o.mean == Approx(nsc::psi(9.0, 5.0, o.entries, nsc::estimator::fs, nsc::default_policy()))
                      .epsilon(1e-13));

  using Catch::Contains;
  CHECK_THROWS_AS(nsc::psi_w_monte_carlo(6, 4, init::xavier_normal(), 1, 0), std::domain_error);
  CHECK_THROWS_WITH(nsc::psi_w_monte_carlo(6, 4, init::xavier_normal(), 1, 0),
                    Contains("nsc::psi_w_monte_carlo") && Contains("trials must be >= 2"));
  CHECK_THROWS_WITH(nsc::psi_w_monte_carlo(0, 4, init::xavier_normal(), 10, 0),
                    Contains("nsc::psi_w_monte_carlo") && Contains("rows must be >= 1"));
  CHECK_THROWS_WITH(nsc::psi_w_monte_carlo(4, -3, 1.0, 10, 0),
                    Contains("nsc::psi_w_monte_carlo") && Contains("columns must be >= 1") &&
                        Contains("-3"));
  CHECK_THROWS_WITH(nsc::psi_w_monte_carlo(4, 4, -1.0, 10, 0),
                    Contains("nsc::psi_w_monte_carlo") && Contains("variance"));
  CHECK_THROWS_AS(nsc::psi_w_monte_carlo(4, 4, std::nan(""), 10, 0), std::domain_error);
  CHECK_THROWS_AS(nsc::psi_w_monte_carlo(4, 4, 1.0, 10, 0, entry_distribution::from_init),
                  std::invalid_argument);
  CHECK_THROWS_WITH(nsc::psi_w_monte_carlo(4, 4, init::orthogonal(), 10, 0,
                                           entry_distribution::normal),
                    Contains("nsc::psi_w_monte_carlo") && Contains("orthogonal"));
  CHECK_THROWS_WITH(nsc::psi_w_monte_carlo(4, 4, init::xavier_normal(
                                                     std::numeric_limits<double>::infinity()),
                                           10, 0),
                    Contains("nsc::moments"));
  boost::random::mt19937_64 rng(1);
  CHECK_THROWS_WITH(nsc::random_weight(3, 0, init::xavier_normal(), rng),
                    Contains("nsc::random_weight"));
}

// ---- psi_w_monte_carlo against psi_FS: the statistical test --------------------------------------

namespace {

// Trial counts. Release: decisive (the standard errors below are ~1% of psi at 16 x 16 and
// resolve psi_MP's O(1) bias). Without NDEBUG (Debug, sanitizers) Eigen runs ~50x slower, so the
// broad sweep uses 1/8 of the trials: the 4-standard-error criterion is the same, only its power
// drops.
constexpr Eigen::Index sweep_trials() {
#ifdef NDEBUG
  return 2000;
#else
  return 250;
#endif
}

struct mc_case {
  Eigen::Index m, n;
  const char* name;
  init ini;
  entry_distribution dist;
};

struct mc_outcome {
  nsc::psi_w_monte_carlo_result r;
  double fs, mp, z_fs, z_mp;
};

mc_outcome run_case(const mc_case& c, Eigen::Index trials, std::uint64_t seed) {
  const auto r = nsc::psi_w_monte_carlo(c.m, c.n, c.ini, trials, seed, c.dist);
  // kappa from the law actually drawn: 0 for normal entries, -1.2 for uniform.
  const double fs = nsc::psi_fs(double(c.m), double(c.n), r.entries.variance,
                                r.entries.kurtosis_excess);
  const double mp = nsc::psi_mp(double(c.m), double(c.n), r.entries.variance);
  // z = (closed form - Monte Carlo mean) / standard error, as in bench_finite_size_table.
  const mc_outcome o{r, fs, mp, (fs - r.mean) / r.standard_error,
                     (mp - r.mean) / r.standard_error};
  if (verbose())
    std::printf("%4ld x %-4ld %-16s %-9s trials %5zu  mean %.6f +- %.2e  z_FS %+6.2f  "
                "z_MP %+7.2f\n",
                static_cast<long>(c.m), static_cast<long>(c.n), c.name,
                std::string(nsc::to_string(c.dist)).c_str(), r.trials, r.mean,
                r.standard_error, o.z_fs, o.z_mp);
  return o;
}

} // namespace

TEST_CASE("Monte Carlo mean of psi_W agrees with psi_FS within 4 standard errors",
          "[eigen][mc][statistical]") {
  // Shapes from a vector to a 100 x 50 matrix, both orientations; the initialisations of the
  // paper (Xavier, Kaiming, TruncNorm-0.02) plus PyTorch's default (uniform entries) and
  // explicit overrides of the entry law.
  const std::vector<std::pair<Eigen::Index, Eigen::Index>> shapes = {
      {16, 16}, {32, 64}, {64, 16}, {100, 50}, {9, 1}, {1, 9}, {2, 18}};
  struct named_init { const char* name; init ini; entry_distribution dist; };
  const std::vector<named_init> inits = {
      {"xavier_normal", init::xavier_normal(), entry_distribution::from_init},
      {"kaiming_normal", init::kaiming_normal(), entry_distribution::from_init},
      {"torch_default", init::torch_default(), entry_distribution::from_init}, // uniform
      {"normal(0.02)", init::normal(0.02), entry_distribution::from_init},
      {"xavier_uniform", init::xavier_uniform(), entry_distribution::from_init},
      {"xavier_normal", init::xavier_normal(), entry_distribution::uniform},  // override
      {"torch_default", init::torch_default(), entry_distribution::normal},   // override
  };
  std::uint64_t seed = 1000;
  for (const auto& [m, n] : shapes)
    for (const auto& ni : inits) {
      const mc_case c{m, n, ni.name, ni.ini, ni.dist};
      const auto o = run_case(c, sweep_trials(), seed);
      seed += 7919; // a different stream per case: the cases are independent
      INFO(m << " x " << n << " " << ni.name << " (" << nsc::to_string(ni.dist) << "): mean "
             << o.r.mean << " +- " << o.r.standard_error << ", psi_FS " << o.fs << ", z "
             << o.z_fs);
      CHECK(std::fabs(o.z_fs) < 4);
    }
  // Truncated normal (HF initializer_range 0.02, bounds +-2 std): its own kappa (~ -0.8).
  for (const auto& [m, n] : std::vector<std::pair<Eigen::Index, Eigen::Index>>{{16, 16}, {64, 16}}) {
    const mc_case c{m, n, "trunc_normal", init::truncated_normal(0.02), entry_distribution::from_init};
    const auto o = run_case(c, sweep_trials() / 2, seed);
    seed += 7919;
    INFO(m << " x " << n << " truncated_normal: z " << o.z_fs);
    CHECK(std::fabs(o.z_fs) < 4);
  }
}

TEST_CASE("vectors: Monte Carlo agrees with the exact E[ln(1 + v chi^2_q)]", "[eigen][mc][statistical]") {
  for (const auto& [m, n] : std::vector<std::pair<Eigen::Index, Eigen::Index>>{{9, 1}, {1, 25}}) {
    const auto r = nsc::psi_w_monte_carlo(m, n, init::xavier_normal(), 4000, 31337);
    const double exact = nsc::psi_vector_normal(double(std::max(m, n)), r.entries.variance);
    INFO(m << " x " << n << ": mean " << r.mean << " +- " << r.standard_error << ", exact "
           << exact);
    CHECK(std::fabs(r.mean - exact) < 4 * r.standard_error);
  }
}

// psi_MP is the large-matrix limit: for normal entries its O(1) bias is ~0.13-0.19 standard
// deviations of psi_W at every size (z grows like sqrt(trials)), so with 4000 trials it fails
// the same test decisively at 8 x 8 and 16 x 16, where psi_FS passes. Seen (seeds below,
// Release and Debug alike since the trial count is the same):
//     8 x 8  xavier_normal   z_FS -1.91  z_MP  +7.21
//     8 x 8  kaiming_normal  z_FS +0.64  z_MP +12.77
//    16 x 16 xavier_normal   z_FS -0.72  z_MP  +8.18
//    16 x 16 kaiming_normal  z_FS -0.39  z_MP +11.75
// with z = (closed form - mean) / SE. In the 2000-trial sweep above, psi_MP's z for
// xavier_normal and kaiming_normal is +3.5 to +8.6 on every shape except 2 x 18 (+2.1); with
// normal(0.02) (x = v q ~ 0.01 - 0.04) psi_MP and psi_FS nearly coincide. psi_FS's largest |z|
// over the 51 cases is 2.5 (Release; 2.3 with the 250 Debug trials).
// (For uniform entries, kappa = -1.2, the two O(1) terms of psi_FS nearly cancel near x = 1 and
// psi_MP's bias is only ~0.03 standard deviations: it needs ~20,000 trials to be seen.)
TEST_CASE("psi_MP fails the same test at 8 x 8 and 16 x 16 (normal entries)",
          "[eigen][mc][statistical]") {
  std::uint64_t seed = 424242;
  for (const Eigen::Index p : {8, 16})
    for (const auto& [name, ini] : std::vector<std::pair<const char*, init>>{
             {"xavier_normal", init::xavier_normal()}, {"kaiming_normal", init::kaiming_normal()}}) {
      const auto o = run_case({p, p, name, ini, entry_distribution::from_init}, 4000, seed++);
      INFO(p << " x " << p << " " << name << ": z_FS " << o.z_fs << ", z_MP " << o.z_mp);
      CHECK(std::fabs(o.z_fs) < 4);
      CHECK(std::fabs(o.z_mp) > 4);
      CHECK(o.mp > o.r.mean); // psi_MP overestimates (the -log1p(...)/2 term is negative)
    }
}
