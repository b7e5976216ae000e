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
// This part: psi_w in double (routes, shapes, scales), rank truncation, errors. Every other
// scalar type lives in test_eigen_backend_scalars.cpp only (each scalar type instantiates Eigen's
// decompositions once, in one translation unit).
#include "support/eigen_test_helpers.hpp"

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
    CHECK(d.used == psi_w_method::cholesky); // well scaled: the cheapest route is accurate
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
  // float: test_eigen_backend_scalars.cpp.
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
  // float: test_eigen_backend_scalars.cpp.
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


TEST_CASE("the Cholesky route: ln det(I + G), its error estimate and when automatic leaves it",
          "[eigen][psi_w][cholesky]") {
  boost::random::mt19937_64 rng(2026);
  // Well scaled, tall and wide: cholesky agrees with the exact spectrum.
  for (const auto& [m, n] : {std::pair<Eigen::Index, Eigen::Index>{90, 60}, {60, 90}, {64, 64}}) {
    const vector<double> s = geometric_spectrum<double>(std::min(m, n), 0.05, 4.0);
    const matrix<double> w = with_spectrum<double>(m, n, s, rng);
    const auto d = nsc::psi_w_detailed(w, psi_w_method::cholesky);
    CHECK(d.used == psi_w_method::cholesky);
    CHECK(rel(d.value, exact_psi(s)) < 1e-13);
    CHECK(d.gram_error_estimate > 0);
    CHECK(d.gram_error_estimate < nsc::psi_w_gram_tolerance<double>());
  }
  // A trained-like spike (s_max = 30 over a bulk in [0.1, 1]): automatic stays on cholesky and
  // is accurate.
  {
    vector<double> s = geometric_spectrum<double>(40, 0.1, 1.0);
    s(0) = 30;
    const matrix<double> w = with_spectrum<double>(64, 40, s, rng);
    const auto d = nsc::psi_w_detailed(w);
    CHECK(d.used == psi_w_method::cholesky);
    CHECK(rel(d.value, exact_psi(s)) < 1e-13);
  }
  // Ill-scaled: forced cholesky reports an estimate above the tolerance; automatic goes to SVD.
  {
    vector<double> s = geometric_spectrum<double>(40, 1e-3, 1.0);
    s(0) = 1e6;
    const matrix<double> w = with_spectrum<double>(60, 40, s, rng);
    const auto c = nsc::psi_w_detailed(w, psi_w_method::cholesky);
    CHECK(c.used == psi_w_method::cholesky);
    CHECK(c.gram_error_estimate > nsc::psi_w_gram_tolerance<double>());
    CHECK(nsc::psi_w_detailed(w).used == psi_w_method::svd);
  }
  // Tiny entries: psi ~ 1e-200 is far below the Cholesky route's absolute error ~p eps, so
  // automatic takes the eigenvalue route, which is relative to lambda_max.
  {
    const vector<double> s = geometric_spectrum<double>(6, 0.5, 2.0) * 1e-100;
    const matrix<double> t = with_spectrum<double>(9, 6, s, rng);
    const auto d = nsc::psi_w_detailed(t);
    CHECK(d.used == psi_w_method::gram);
    CHECK(d.value == Approx(s.squaredNorm()).epsilon(1e-13));
  }
  // Rank truncation with method cholesky uses the eigenvalues; the full rank is cholesky.
  {
    const vector<double> s = geometric_spectrum<double>(10, 0.2, 5.0);
    const matrix<double> w = with_spectrum<double>(14, 10, s, rng);
    CHECK(rel(nsc::psi_w_top_r(w, 3, psi_w_method::cholesky), exact_psi(s, 3)) < 1e-13);
    CHECK(rel(nsc::psi_w_top_r(w, 10, psi_w_method::cholesky), exact_psi(s)) < 1e-13);
  }
  // Overflowing Gram matrix: falls back to SVD.
  {
    const vector<double> big = geometric_spectrum<double>(6, 0.5, 2.0) * 1e200;
    const matrix<double> w = with_spectrum<double>(9, 6, big, rng);
    CHECK(nsc::psi_w_detailed(w, psi_w_method::cholesky).used == psi_w_method::svd);
  }
  // Float and complex scalars: test_eigen_backend_scalars.cpp.
  CHECK(nsc::to_string(psi_w_method::cholesky) == "cholesky");
}

TEST_CASE("the tiled Gram product (used with several Eigen threads) equals the rank update",
          "[eigen][psi_w][cholesky]") {
  boost::random::mt19937_64 rng(11);
  for (const auto& [m, n] : {std::pair<Eigen::Index, Eigen::Index>{100, 70}, {70, 100}, {33, 33}}) {
    const vector<double> s = geometric_spectrum<double>(std::min(m, n), 0.1, 3.0);
    const matrix<double> w = with_spectrum<double>(m, n, s, rng);
    const nsc::detail::matrix_ref<double> ref(w);
    const matrix<double> a = nsc::detail::lower_gram<double>(ref);
    for (Eigen::Index tile : {1, 16, 32, 200}) {
      const matrix<double> b = nsc::detail::lower_gram_tiled<double>(ref, tile);
      const matrix<double> la = a.triangularView<Eigen::Lower>();
      const matrix<double> lb = b.triangularView<Eigen::Lower>();
      INFO(m << " x " << n << ", tile " << tile);
      CHECK((la - lb).norm() <= 1e-14 * la.norm());
      CHECK(b.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().norm() == 0);
    }
  }
}
