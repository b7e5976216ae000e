/// \file nsc/spectral/eigen_backend.hpp
/// psi_W: the spectral capacity of an actual matrix, with Eigen (the only nsc header that
/// includes Eigen; link nsc::eigen). math.md section 1; the paper's "psi_W" (sections 3.2, G.2).
///
/// Synopsis
///
///     psi_w(W, method)               sum_i ln(1 + s_i^2) = ln det(I + W^T W)
///     psi_w_detailed(W, method)      the same, with the route taken and its error estimate
///     psi_w_top_r(W, r, method)      the same over the r largest singular values only
///     psi_w_gradient(W, method)      dpsi/dW = U diag(2 s / (1 + s^2)) V^T = 2 W (I + W^T W)^-1
///     random_weight(m, n, init, engine, dist)          one draw of an initialised weight
///     psi_w_monte_carlo(m, n, init, trials, seed, dist) mean of psi_W over seeded draws, with
///                                                      its standard error
///
/// W is any dense Eigen expression with a floating-point scalar: float, double, long double
/// (and std::complex of them for psi_w / psi_w_top_r, where W^T becomes W^H). psi_w,
/// psi_w_detailed, psi_w_top_r and psi_w_gradient also take a Boost.Math policy last; the
/// default policy throws std::domain_error naming the function for non-finite entries or a
/// negative rank. The Monte Carlo functions throw (std::domain_error for out-of-range sizes or
/// trial counts, std::invalid_argument for contradictory options).
///
/// Accuracy (double), tests/test_eigen_backend.cpp: against a known spectrum
/// (W = U diag(s) V^T), < 1e-13 relative for well-scaled matrices up to 200 x 3 and 130 x 90 by
/// either route; for an ill-scaled one (s_max = 1e6 over a bulk in [1e-3, 1]) the automatic
/// method switches to SVD and stays within 1e-9, the limit set by rounding W's entries
/// (eps s_max on every s_i), where the Gram route alone is off by orders of magnitude more.
/// psi_w_monte_carlo's mean agrees with psi_fs within 4 standard errors on every shape and
/// initialisation tested, from 1 x 9 to 100 x 50.
#ifndef NSC_SPECTRAL_EIGEN_BACKEND_HPP
#define NSC_SPECTRAL_EIGEN_BACKEND_HPP

#include <nsc/error_handling.hpp>
#include <nsc/spectral/init.hpp>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SVD>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/fpclassify.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <type_traits>

namespace nsc {

/// How psi_w obtains the spectrum.
enum class psi_w_method {
  /// The cheapest accurate route (default): for the full psi, cholesky when its error estimate
  /// is within psi_w_gram_tolerance, else gram when its estimate is, else svd; for a rank-r
  /// truncation (r < min(m, n)) gram, else svd.
  automatic,
  /// Eigenvalues of the smaller Gram matrix (W^T W or W W^T): they are s_i^2 directly.
  /// Cost ~ p^2 q (the symmetric product) + ~(4/3) p^3 (tridiagonalisation), p = min(m, n),
  /// q = max(m, n). Absolute error of each s_i^2 ~ eps * s_max^2: poor for the small singular
  /// values of an ill-scaled matrix. Falls back to SVD only if the Gram matrix overflows or
  /// the eigensolver does not converge.
  gram,
  /// Singular values by Eigen's BDCSVD (divide and conquer; Jacobi below 16 columns).
  /// Cost ~ 4 p^2 q - (4/3) p^3 (bidiagonalisation, the dominant part), about 3-4x the Gram
  /// route. Absolute error of each s_i ~ eps * s_max.
  svd,
  /// psi = ln det(I + G) = 2 sum_i ln L_ii from the Cholesky factor L of I + G, G the smaller
  /// Gram matrix. Cost ~ p^2 q (the symmetric product, Eigen's rankUpdate) + p^3 / 3: the
  /// cheapest exact route, and the one BLAS (dsyrk + dpotrf) speeds up most. Full psi only
  /// (psi_w_top_r with this method uses gram). Falls back to SVD if G overflows.
  cholesky
};

constexpr std::string_view to_string(psi_w_method m) noexcept {
  switch (m) {
  case psi_w_method::automatic: return "automatic";
  case psi_w_method::gram: return "gram";
  case psi_w_method::svd: return "svd";
  case psi_w_method::cholesky: return "cholesky";
  }
  return "?";
}

/// The relative accuracy the automatic method demands of the Gram route: eps^(2/3), i.e. at
/// most a third of the significant digits may be lost (3.7e-11 in double, 2.4e-5 in float,
/// 2.3e-13 for x87 long double).
template <class Real>
Real psi_w_gram_tolerance() {
  using std::cbrt;
  const Real e = cbrt(std::numeric_limits<Real>::epsilon());
  return e * e;
}

/// psi_w's answer with how it was obtained.
template <class Real>
struct psi_w_details {
  Real value;                 ///< psi (of the top r singular values for psi_w_top_r)
  psi_w_method used;          ///< gram or svd: the route that produced `value`
  Real gram_error_estimate;   ///< the Gram route's estimated relative error (0 if not taken)
};

namespace detail {

template <class Scalar>
using dynamic_matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;

/// Every function takes its matrix through this: no copy for a plain column-major matrix, a
/// Map or a block of one; other expressions (row-major, transposes, products) are evaluated
/// once.
template <class Scalar>
using matrix_ref = Eigen::Ref<const dynamic_matrix<Scalar>, 0, Eigen::OuterStride<>>;

template <class Scalar>
constexpr void require_floating_scalar() {
  using real = typename Eigen::NumTraits<Scalar>::Real;
  static_assert(std::is_floating_point_v<real>,
                "nsc::psi_w and friends need a floating-point (or complex floating-point) "
                "scalar; cast an integer matrix first (W.cast<double>())");
}

/// ln(1 + s^2) without overflow of s^2: log1p(s^2) for s <= 1, 2 ln s + log1p(1/s^2) above
/// (a sum of two non-negative terms, so no cancellation).
template <class Real>
Real log1p_square(const Real& s) {
  using std::log;
  using std::log1p;
  if (s <= 1) return log1p(s * s);
  return 2 * log(s) + log1p(1 / (s * s));
}

/// Raises the domain error for the first non-finite entry of W; returns true (with `result`
/// set by the policy) when the caller must stop.
template <class Scalar, class Real, class Policy>
bool check_finite(const matrix_ref<Scalar>& W, const char* function, Real& result,
                  const Policy& pol) {
  if (W.allFinite()) return false;
  for (Eigen::Index j = 0; j < W.cols(); ++j)
    for (Eigen::Index i = 0; i < W.rows(); ++i) {
      Real a;
      if constexpr (Eigen::NumTraits<Scalar>::IsComplex) {
        using std::abs;
        a = abs(W(i, j)); // |z| is NaN or Inf exactly when z is
      } else {
        a = W(i, j);
      }
      if (!(boost::math::isfinite)(a))
        return check_domain(false, function, "matrix entries must be finite (got %1%)", a,
                            result, pol);
    }
  return false; // not reached
}

/// The lower triangle of the smaller Gram matrix: W^H W (n x n) if m >= n, else W W^H, formed
/// in Scalar by Eigen's symmetric rank update (half the flops of a general product; dsyrk when
/// Eigen dispatches to BLAS). When Eigen runs several threads (OpenMP) and does not use BLAS,
/// the lower triangle is formed in tiles instead: each off-diagonal tile is a general product
/// (which Eigen parallelises), each diagonal tile a rank update, so the flop count stays ~p^2 q
/// and both cores work. Same values either way up to the order of summation.
template <class Scalar>
dynamic_matrix<Scalar> lower_gram_tiled(const matrix_ref<Scalar>& W, Eigen::Index tile) {
  const bool tall = W.rows() >= W.cols();
  const Eigen::Index p = tall ? W.cols() : W.rows();
  dynamic_matrix<Scalar> g = dynamic_matrix<Scalar>::Zero(p, p);
  for (Eigen::Index i0 = 0; i0 < p; i0 += tile) {
    const Eigen::Index b = i0 + tile <= p ? tile : p - i0;
    if (tall) {
      if (i0 > 0) g.block(i0, 0, b, i0).noalias() = W.middleCols(i0, b).adjoint() * W.leftCols(i0);
      g.block(i0, i0, b, b).template selfadjointView<Eigen::Lower>().rankUpdate(
          W.middleCols(i0, b).adjoint());
    } else {
      if (i0 > 0) g.block(i0, 0, b, i0).noalias() = W.middleRows(i0, b) * W.topRows(i0).adjoint();
      g.block(i0, i0, b, b).template selfadjointView<Eigen::Lower>().rankUpdate(W.middleRows(i0, b));
    }
  }
  return g;
}

template <class Scalar>
dynamic_matrix<Scalar> lower_gram(const matrix_ref<Scalar>& W) {
  const bool tall = W.rows() >= W.cols();
  const Eigen::Index p = tall ? W.cols() : W.rows();
#if !defined(EIGEN_USE_BLAS)
  if (Eigen::nbThreads() > 1 && p >= 1024) return lower_gram_tiled<Scalar>(W, 512);
#endif
  dynamic_matrix<Scalar> g = dynamic_matrix<Scalar>::Zero(p, p);
  if (tall)
    g.template selfadjointView<Eigen::Lower>().rankUpdate(W.adjoint());
  else
    g.template selfadjointView<Eigen::Lower>().rankUpdate(W);
  return g;
}

/// The error model of the Gram route (see psi_w_detailed): each computed eigenvalue of the Gram
/// matrix is off by about c * eps * lambda_max with c = p + q.
template <class Real>
Real gram_error_constant(Eigen::Index rows, Eigen::Index cols) {
  return static_cast<Real>(rows + cols);
}

/// psi over the top r singular values by SVD.
template <class Scalar, class Real>
Real psi_by_svd(const matrix_ref<Scalar>& W, Eigen::Index r) {
  const Eigen::BDCSVD<dynamic_matrix<Scalar>> svd(W); // singular values only (descending)
  const auto& s = svd.singularValues();
  Real sum = 0;
  for (Eigen::Index i = 0; i < r; ++i) sum += log1p_square<Real>(s(i));
  return sum;
}

/// The largest eigenvalue of the symmetric positive semi-definite matrix whose lower triangle is
/// `g`, estimated by power iteration (a lower bound, typically within a few per cent after the
/// 12 steps; enough for an error model). The start vector has fixed pseudo-random signs and
/// magnitudes in [0.5, 1.5] (a constant vector is orthogonal to the top eigenvector of, e.g.,
/// a matrix whose rows sum to zero).
template <class Scalar, class Real>
Real largest_eigenvalue_estimate(const dynamic_matrix<Scalar>& g) {
  using vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
  vector v(g.rows());
  std::uint64_t state = 0x9E3779B97F4A7C15ULL;
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = double(state >> 11) * 0x1.0p-53; // [0, 1)
    v(i) = Scalar((state >> 10) & 1 ? 0.5 + u : -0.5 - u);
  }
  if (v.size() > 0) v /= v.norm();
  Real lambda = 0;
  for (int k = 0; k < 12; ++k) {
    vector w = g.template selfadjointView<Eigen::Lower>() * v;
    lambda = Eigen::numext::real(v.dot(w));
    const Real norm = w.norm();
    if (norm == 0) return Real(0);
    if (!(boost::math::isfinite)(norm)) return std::numeric_limits<Real>::infinity(); // overflow
    v = w / norm;
  }
  return lambda;
}

/// The Cholesky route's error model (see psi_w_detailed): E = sqrt(p + q) eps (1 + lambda_max) p.
template <class Real>
Real cholesky_error_bound(Eigen::Index rows, Eigen::Index cols, Real lambda_max) {
  using std::sqrt;
  const Eigen::Index p = rows < cols ? rows : cols;
  return sqrt(static_cast<Real>(rows + cols)) * std::numeric_limits<Real>::epsilon() *
         (1 + lambda_max) * static_cast<Real>(p);
}

template <class Scalar, class Real, class Policy>
psi_w_details<Real> psi_w_impl(const matrix_ref<Scalar>& W, Eigen::Index r,
                               psi_w_method method, const char* function, const Policy& pol) {
  using std::log;
  using std::log1p;
  const Eigen::Index p = W.rows() < W.cols() ? W.rows() : W.cols();
  Real bad = std::numeric_limits<Real>::quiet_NaN();
  if (check_finite<Scalar, Real>(W, function, bad, pol)) return {bad, method, Real(0)};
  if (r > p) r = p;
  const bool full = r == p;
  if (method == psi_w_method::cholesky && !full) method = psi_w_method::gram;
  if (r == 0)
    return {Real(0),
            method == psi_w_method::svd ? method
            : (full && method != psi_w_method::gram) ? psi_w_method::cholesky
                                                     : psi_w_method::gram,
            Real(0)};
  if (method != psi_w_method::svd) {
    dynamic_matrix<Scalar> g = lower_gram(W);
    if (!g.allFinite()) return {psi_by_svd<Scalar, Real>(W, r), psi_w_method::svd, Real(0)};
    if (full && method != psi_w_method::gram) {
      const Real lambda_hat = largest_eigenvalue_estimate<Scalar, Real>(g);
      g.diagonal().array() += Scalar(1);
      // In place: no second p x p matrix.
      const Eigen::LLT<Eigen::Ref<dynamic_matrix<Scalar>>, Eigen::Lower> llt(g);
      if (llt.info() == Eigen::Success) {
        Real sum = 0;
        for (Eigen::Index i = 0; i < p; ++i) sum += log(Real(Eigen::numext::real(g(i, i))));
        sum *= 2;
        const Real bound = cholesky_error_bound<Real>(W.rows(), W.cols(), lambda_hat);
        const Real estimate = sum > 0 ? bound / sum : Real(0);
        if (method == psi_w_method::cholesky || bound <= psi_w_gram_tolerance<Real>() * sum)
          return {sum, psi_w_method::cholesky, estimate};
      } else if (method == psi_w_method::cholesky) {
        return {psi_by_svd<Scalar, Real>(W, r), psi_w_method::svd, Real(0)};
      }
      g = lower_gram(W); // the factorisation overwrote it; the eigenvalue route needs G
    }
    const Eigen::SelfAdjointEigenSolver<dynamic_matrix<Scalar>> es(g, Eigen::EigenvaluesOnly);
    const auto& lambda = es.eigenvalues(); // ascending
    if (es.info() == Eigen::Success && lambda.allFinite()) {
      const Real lambda_max = lambda(p - 1) > 0 ? Real(lambda(p - 1)) : Real(0);
      Real sum = 0, sensitivity = 0;
      for (Eigen::Index i = p - r; i < p; ++i) {
        const Real l = lambda(i) > 0 ? Real(lambda(i)) : Real(0); // clamp rounding below 0
        sum += log1p(l);
        sensitivity += 1 / (1 + l);
      }
      const Real estimate_abs = gram_error_constant<Real>(W.rows(), W.cols()) *
                                std::numeric_limits<Real>::epsilon() * lambda_max *
                                sensitivity;
      // The relative estimate; a zero psi (W = 0) has a zero estimate and is exact.
      const Real estimate = sum > 0 ? estimate_abs / sum : Real(0);
      if (method == psi_w_method::gram || estimate_abs <= psi_w_gram_tolerance<Real>() * sum)
        return {sum, psi_w_method::gram, estimate};
    }
  }
  return {psi_by_svd<Scalar, Real>(W, r), psi_w_method::svd, Real(0)};
}

} // namespace detail

/// psi_W(W) = sum_{i=1}^{min(m,n)} ln(1 + s_i^2) = ln det(I + W^T W) (math.md section 1), with
/// how it was computed.
///
/// Choice of route (method = automatic). G, the smaller Gram matrix (p x p, p = min(m, n),
/// q = max(m, n)), is always formed in Scalar (double for double W: forming it in float would
/// cost ~sqrt(q) 6e-8 lambda_max on every entry, i.e. ~1e-3 relative on psi of a 4096 x 11008
/// matrix; a float checkpoint is converted to double first).
///
/// 1. Cholesky (the default for the full psi): psi = ln det(I + G) = 2 sum ln L_ii,
///    LL^T = I + G. I + G >= I, so the factorisation is stable whatever W; the error is that of
///    G itself plus the factorisation's backward error, both ~eps lambda_max in norm, and
///    d psi = tr((I + G)^-1 Delta G) <= ||Delta G|| sum_i 1 / (1 + lambda_i) <= ||Delta G|| p.
///    With the probabilistic rounding model of inner products (Higham & Mary 2019: length-q
///    sums err by ~sqrt(q) u with high probability, not q u) the bound used is
///
///        E_chol = sqrt(p + q) eps (1 + lambda_max) p,
///
///    lambda_max estimated by 12 power iterations on G (O(p^2) each); the route is kept when
///    E_chol <= tol * psi, tol = psi_w_gram_tolerance<Real>() = eps^(2/3) (3.7e-11 in double).
///    For an initialised 4096 x 11008 weight E_chol / psi ~ 1e-12; one with s_max = 30 over a
///    unit bulk still passes (~2e-11); a matrix with s_max / s_bulk ~ 1e6 does not. Callers
///    with a looser accuracy target (nsc weights: 1e-9) force cholesky and check
///    gram_error_estimate themselves. Against
///    exact spectra (tests/test_eigen_backend.cpp) the route is within 1e-13 wherever it is
///    chosen.
/// 2. Eigenvalues of G (also the automatic route of psi_w_top_r): every eigenvalue of the
///    computed G is off by at most ||Delta G|| (Weyl); we model ||Delta G|| as
///    c eps lambda_max with c = p + q (the dimension-linear growth of the classical bounds,
///    gamma_q for the q-term inner products of G and O(p) for the Householder
///    tridiagonalisation). Measured on Gaussian matrices from 16 x 16 to 1000 x 300 against a
///    long double SVD, the worst single eigenvalue is off by 0.15 - 0.45 (p + q) eps lambda_max,
///    while the errors largely cancel in the sum. Since d psi / d lambda_i = 1 / (1 + lambda_i),
///    to first order |psi_gram - psi| <~ E = c eps lambda_max sum_i 1 / (1 + lambda_i), and the
///    route is kept when E <= tol * psi. It rescues tiny matrices (psi << p eps, where the
///    Cholesky route's absolute error ~p eps is too large) and rank truncation.
/// 3. Otherwise the SVD recomputes psi. The SVD's singular values are accurate to ~eps s_max
///    each, i.e. d(s_i^2) ~ eps s_max s_i instead of eps s_max^2: a factor s_max / s_i better
///    on the small ones, which is what matters for an ill-scaled matrix.
/// `gram_error_estimate` is the relative estimate of the route taken (0 for svd).
///
/// Cost: Cholesky ~ p^2 q + p^3 / 3 flops (+ 12 p^2); Gram ~ p^2 q + (4/3) p^3 (the
/// tridiagonalisation is memory-bound and far slower per flop); SVD ~ 4 p^2 q - (4/3) p^3.
/// With EIGEN_USE_BLAS (CMake NSC_USE_BLAS) the product and the factorisation run in BLAS
/// (dsyrk, dpotrf when LAPACKE is present).
/// Domain: entries must be finite (domain error naming the function otherwise). A matrix with
/// no rows or no columns gives 0.
template <class Derived, class Policy>
psi_w_details<typename Eigen::NumTraits<typename Derived::Scalar>::Real>
psi_w_detailed(const Eigen::MatrixBase<Derived>& W, psi_w_method method, const Policy& pol) {
  using Scalar = typename Derived::Scalar;
  using Real = typename Eigen::NumTraits<Scalar>::Real;
  detail::require_floating_scalar<Scalar>();
  const detail::matrix_ref<Scalar> ref(W.derived());
  return detail::psi_w_impl<Scalar, Real>(
      ref, ref.rows() < ref.cols() ? ref.rows() : ref.cols(), method,
      "nsc::psi_w<%1%>(const Eigen::MatrixBase<Derived>&, psi_w_method)", pol);
}

template <class Derived>
psi_w_details<typename Eigen::NumTraits<typename Derived::Scalar>::Real>
psi_w_detailed(const Eigen::MatrixBase<Derived>& W,
               psi_w_method method = psi_w_method::automatic) {
  return psi_w_detailed(W, method, default_policy());
}

/// psi_W(W) = sum_i ln(1 + s_i^2) = ln det(I + W^T W) (W^H W for complex W). See
/// psi_w_detailed for the method, cost, accuracy and domain.
template <class Derived, class Policy>
typename Eigen::NumTraits<typename Derived::Scalar>::Real
psi_w(const Eigen::MatrixBase<Derived>& W, psi_w_method method, const Policy& pol) {
  return psi_w_detailed(W, method, pol).value;
}

template <class Derived>
typename Eigen::NumTraits<typename Derived::Scalar>::Real
psi_w(const Eigen::MatrixBase<Derived>& W, psi_w_method method = psi_w_method::automatic) {
  return psi_w_detailed(W, method, default_policy()).value;
}

/// psi of the rank-r truncation of W: sum over the r largest singular values of
/// ln(1 + s_i^2). r >= min(m, n) gives psi_w(W); r = 0 gives 0; r < 0 is a domain error.
/// The automatic route's error estimate sums 1 / (1 + lambda_i) over the kept values only, so
/// small r favours the Gram route (the large eigenvalues are the accurate ones).
/// Compare with psi_mp_top_r (the same quantity under the Marchenko-Pastur law).
template <class Derived, class Policy>
typename Eigen::NumTraits<typename Derived::Scalar>::Real
psi_w_top_r(const Eigen::MatrixBase<Derived>& W, Eigen::Index r, psi_w_method method,
            const Policy& pol) {
  using Scalar = typename Derived::Scalar;
  using Real = typename Eigen::NumTraits<Scalar>::Real;
  detail::require_floating_scalar<Scalar>();
  static const char* function =
      "nsc::psi_w_top_r<%1%>(const Eigen::MatrixBase<Derived>&, Eigen::Index, psi_w_method)";
  Real result;
  if (detail::check_domain(r >= 0, function, "rank must be >= 0 (got %1%)",
                           static_cast<Real>(r), result, pol))
    return result;
  const detail::matrix_ref<Scalar> ref(W.derived());
  return detail::psi_w_impl<Scalar, Real>(ref, r, method, function, pol).value;
}

template <class Derived>
typename Eigen::NumTraits<typename Derived::Scalar>::Real
psi_w_top_r(const Eigen::MatrixBase<Derived>& W, Eigen::Index r,
            psi_w_method method = psi_w_method::automatic) {
  return psi_w_top_r(W, r, method, default_policy());
}

/// Gradient of psi_W (math.md section 1, paper D.2):
///
///     dpsi/dW = U diag(2 s_i / (1 + s_i^2)) V^T = 2 W (I + W^T W)^-1 = 2 (I + W W^T)^-1 W
///
/// Gram route: one Cholesky (LLT) factorisation of I + G on the smaller side and a solve,
/// ~ p^2 q + p^3 / 3 + 2 p^2 q flops. Since I + G >= I, a perturbation Delta of I + G moves the
/// result by at most ||Delta|| relative (normwise), and ||Delta|| ~ c eps (1 + lambda_max) as
/// for psi_w (c = p + q), so the automatic method takes this route when
/// c eps (1 + lambda_max) <= psi_w_gram_tolerance (lambda_max estimated by 12 power
/// iterations on G, O(p^2) each) and otherwise the SVD formula (BDCSVD with thin U, V).
/// The error bound is normwise: components along tiny singular values (gradient ~ 2 s_i) are
/// only accurate relative to the largest component.
/// Real scalars only. Domain: finite entries (domain error naming the function; with a
/// non-throwing policy the result is filled with the policy's value). Empty W: empty result.
template <class Derived, class Policy>
detail::dynamic_matrix<typename Derived::Scalar>
psi_w_gradient(const Eigen::MatrixBase<Derived>& W, psi_w_method method, const Policy& pol) {
  using Scalar = typename Derived::Scalar;
  using Real = Scalar;
  using matrix = detail::dynamic_matrix<Scalar>;
  detail::require_floating_scalar<Scalar>();
  static_assert(!Eigen::NumTraits<Scalar>::IsComplex,
                "nsc::psi_w_gradient is defined for real matrices only");
  static const char* function =
      "nsc::psi_w_gradient<%1%>(const Eigen::MatrixBase<Derived>&, psi_w_method)";
  const detail::matrix_ref<Scalar> ref(W.derived());
  const Eigen::Index m = ref.rows(), n = ref.cols();
  Real bad = std::numeric_limits<Real>::quiet_NaN();
  if (detail::check_finite<Scalar, Real>(ref, function, bad, pol))
    return matrix::Constant(m, n, bad);
  if (m == 0 || n == 0) return matrix(m, n);
  if (method != psi_w_method::svd) {
    const bool tall = m >= n;
    matrix a = detail::lower_gram(ref);
    bool ok = true;
    if (method == psi_w_method::automatic) {
      const Real lambda_max = detail::largest_eigenvalue_estimate<Scalar, Real>(a);
      const Real estimate = detail::gram_error_constant<Real>(m, n) *
                            std::numeric_limits<Real>::epsilon() * (1 + lambda_max);
      ok = estimate <= psi_w_gram_tolerance<Real>();
    }
    if (ok) {
      a.diagonal().array() += Real(1);
      const Eigen::LLT<matrix, Eigen::Lower> llt(a);
      if (llt.info() == Eigen::Success) {
        matrix g;
        if (tall) {
          const matrix x = llt.solve(ref.transpose()); // (I + W^T W)^-1 W^T
          g = x.transpose();
        } else {
          g = llt.solve(ref); // (I + W W^T)^-1 W
        }
        g *= Real(2);
        if (g.allFinite()) return g;
      }
    }
  }
  const Eigen::BDCSVD<matrix> svd(ref, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const auto& s = svd.singularValues();
  Eigen::Matrix<Real, Eigen::Dynamic, 1> weight(s.size());
  for (Eigen::Index i = 0; i < s.size(); ++i)
    weight(i) = s(i) > 0 ? 2 / (s(i) + 1 / s(i)) : Real(0); // 2 s / (1 + s^2), no overflow
  return svd.matrixU() * weight.asDiagonal() * svd.matrixV().transpose();
}

template <class Derived>
detail::dynamic_matrix<typename Derived::Scalar>
psi_w_gradient(const Eigen::MatrixBase<Derived>& W,
               psi_w_method method = psi_w_method::automatic) {
  return psi_w_gradient(W, method, default_policy());
}

// ---- Monte Carlo ------------------------------------------------------------------------------

/// The law of the entries of a random weight.
enum class entry_distribution {
  /// As the initialisation draws them: normal for xavier_normal, kaiming_normal and normal;
  /// uniform for xavier_uniform, kaiming_uniform and torch_default; N(0,1) truncated to
  /// [lower, upper] times std for truncated_normal; a Haar (semi-)orthogonal matrix times the
  /// gain for orthogonal.
  from_init,
  /// N(0, v).
  normal,
  /// U(-sqrt(3 v), sqrt(3 v)) (variance v, excess kurtosis -1.2).
  uniform
};

constexpr std::string_view to_string(entry_distribution d) noexcept {
  switch (d) {
  case entry_distribution::from_init: return "from_init";
  case entry_distribution::normal: return "normal";
  case entry_distribution::uniform: return "uniform";
  }
  return "?";
}

/// Mean of psi_W over independent draws.
struct psi_w_monte_carlo_result {
  double mean;               ///< sample mean of psi_W
  double standard_error;     ///< standard_deviation / sqrt(trials)
  double standard_deviation; ///< sample standard deviation (divisor trials - 1)
  std::size_t trials;
  /// The law the entries were drawn from: variance and excess kurtosis (or orthogonal with
  /// its gain), ready for nsc::psi(rows, cols, entries, estimator::fs, pol) or psi_fs.
  entry_moments<double> entries;
};

namespace detail {

inline const char* monte_carlo_function() {
  return "nsc::psi_w_monte_carlo<%1%>(Eigen::Index, Eigen::Index, ..., Eigen::Index, "
         "std::uint64_t, entry_distribution)";
}

/// What random_weight draws: a kind and its parameters.
struct weight_law {
  enum kind_t { normal, uniform, truncated_normal, orthogonal } kind;
  double scale;        ///< std (normal, truncated_normal), half-width (uniform), gain (orth.)
  double lower, upper; ///< truncated_normal bounds in units of std
  entry_moments<double> moments;
};

inline weight_law make_weight_law(Eigen::Index rows, Eigen::Index cols, const init& ini,
                                  entry_distribution dist, const char* function) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  double r = std::numeric_limits<double>::quiet_NaN();
  if (check_domain(rows >= 1, function, "number of rows must be >= 1 (got %1%)",
                   static_cast<double>(rows), r, default_policy()) ||
      check_domain(cols >= 1, function, "number of columns must be >= 1 (got %1%)",
                   static_cast<double>(cols), r, default_policy()))
    return {weight_law::normal, nan, nan, nan, {nan, nan}};
  const auto mom =
      moments(ini, linear_fans(static_cast<double>(rows), static_cast<double>(cols)));
  using std::sqrt;
  if (mom.orthogonal) {
    if (dist != entry_distribution::from_init)
      throw_invalid_argument("nsc::psi_w_monte_carlo",
                             "an orthogonal initialisation has no i.i.d. entry law; use "
                             "entry_distribution::from_init",
                             to_string(dist));
    return {weight_law::orthogonal, mom.gain, 0, 0, mom};
  }
  const double v = mom.variance;
  const double uniform_kappa = -1.2;
  switch (dist) {
  case entry_distribution::normal: return {weight_law::normal, sqrt(v), 0, 0, {v, 0.0}};
  case entry_distribution::uniform:
    return {weight_law::uniform, sqrt(3 * v), 0, 0, {v, uniform_kappa}};
  case entry_distribution::from_init: break;
  }
  switch (ini.kind) {
  case init_kind::xavier_uniform:
  case init_kind::kaiming_uniform:
  case init_kind::torch_default: return {weight_law::uniform, sqrt(3 * v), 0, 0, mom};
  case init_kind::truncated_normal:
    return {weight_law::truncated_normal, ini.std, ini.lower, ini.upper, mom};
  default: return {weight_law::normal, sqrt(v), 0, 0, mom};
  }
}

template <class Scalar, class Engine>
dynamic_matrix<Scalar> draw(Eigen::Index rows, Eigen::Index cols, const weight_law& law,
                            Engine& eng) {
  dynamic_matrix<Scalar> w(rows, cols);
  switch (law.kind) {
  case weight_law::normal: {
    boost::random::normal_distribution<double> d(0.0, law.scale);
    for (Eigen::Index k = 0; k < w.size(); ++k) w.data()[k] = static_cast<Scalar>(d(eng));
    return w;
  }
  case weight_law::uniform: {
    boost::random::uniform_real_distribution<double> d(-law.scale, law.scale);
    for (Eigen::Index k = 0; k < w.size(); ++k) w.data()[k] = static_cast<Scalar>(d(eng));
    return w;
  }
  case weight_law::truncated_normal: {
    // Inverse transform: a uniform draw between the bounds' probabilities, mapped back through
    // the normal quantile; the upper tail is used when both bounds are positive (accuracy).
    const boost::math::normal_distribution<double> nd;
    const bool upper_tail = law.lower >= 0;
    auto tail = [&](double t) {
      if ((boost::math::isinf)(t)) return (t > 0) == upper_tail ? 0.0 : 1.0;
      return upper_tail ? boost::math::cdf(boost::math::complement(nd, t))
                        : boost::math::cdf(nd, t);
    };
    const double pa = tail(law.lower), pb = tail(law.upper);
    boost::random::uniform_real_distribution<double> d(pa < pb ? pa : pb, pa < pb ? pb : pa);
    for (Eigen::Index k = 0; k < w.size(); ++k) {
      double u = d(eng);
      if (!(u > 0)) u = std::numeric_limits<double>::min(); // the quantile's domain is (0, 1)
      const double z = upper_tail ? boost::math::quantile(boost::math::complement(nd, u))
                                  : boost::math::quantile(nd, u);
      w.data()[k] = static_cast<Scalar>(law.scale * z);
    }
    return w;
  }
  case weight_law::orthogonal: {
    // Haar measure on the Stiefel manifold: Q of the QR of a q x p Gaussian matrix, each
    // column multiplied by the sign of R's diagonal entry (otherwise Q is not Haar).
    const bool tall = rows >= cols;
    const Eigen::Index q = tall ? rows : cols, p = tall ? cols : rows;
    boost::random::normal_distribution<double> d;
    dynamic_matrix<double> gauss(q, p);
    for (Eigen::Index k = 0; k < gauss.size(); ++k) gauss.data()[k] = d(eng);
    const Eigen::HouseholderQR<dynamic_matrix<double>> qr(gauss);
    dynamic_matrix<double> qm = qr.householderQ() * dynamic_matrix<double>::Identity(q, p);
    for (Eigen::Index j = 0; j < p; ++j)
      if (qr.matrixQR()(j, j) < 0) qm.col(j) = -qm.col(j);
    qm *= law.scale;
    if (tall)
      w = qm.cast<Scalar>();
    else
      w = qm.transpose().cast<Scalar>();
    return w;
  }
  }
  return w;
}

} // namespace detail

/// One draw of a rows x cols (= out x in, Linear fans) weight initialised by `ini`, entries
/// drawn in column-major order from `eng` in double and rounded to Scalar. `dist` overrides
/// the entry law (normal or uniform with the init's variance), see entry_distribution.
/// Boost.Random's distributions are used because their algorithms are fixed: a given engine
/// state gives the same matrix with every compiler and standard library (std::
/// distributions differ between them).
/// Errors: rows, cols >= 1 (domain error); the init's own checks (nsc::moments);
/// std::invalid_argument for a normal/uniform override of an orthogonal init.
template <class Scalar = double, class Engine>
detail::dynamic_matrix<Scalar> random_weight(Eigen::Index rows, Eigen::Index cols,
                                             const init& ini, Engine& eng,
                                             entry_distribution dist =
                                                 entry_distribution::from_init) {
  detail::require_floating_scalar<Scalar>();
  const auto law = detail::make_weight_law(rows, cols, ini, dist,
                                           "nsc::random_weight<%1%>(Eigen::Index, Eigen::Index, "
                                           "const init&, Engine&, entry_distribution)");
  return detail::draw<Scalar>(rows, cols, law, eng);
}

namespace detail {

template <class Scalar>
psi_w_monte_carlo_result monte_carlo(Eigen::Index rows, Eigen::Index cols, const weight_law& law,
                                     Eigen::Index trials, std::uint64_t seed) {
  double r = std::numeric_limits<double>::quiet_NaN();
  if (check_domain(trials >= 2, monte_carlo_function(), "trials must be >= 2 (got %1%)",
                   static_cast<double>(trials), r, default_policy()))
    return {r, r, r, 0, law.moments};
  boost::random::mt19937_64 eng(seed);
  // Welford's update: stable for any number of trials.
  double mean = 0, m2 = 0;
  for (Eigen::Index t = 0; t < trials; ++t) {
    const dynamic_matrix<Scalar> w = draw<Scalar>(rows, cols, law, eng);
    const double x = static_cast<double>(psi_w(w));
    const double delta = x - mean;
    mean += delta / static_cast<double>(t + 1);
    m2 += delta * (x - mean);
  }
  using std::sqrt;
  const double sd = sqrt(m2 / static_cast<double>(trials - 1));
  return {mean, sd / sqrt(static_cast<double>(trials)), sd, static_cast<std::size_t>(trials),
          law.moments};
}

} // namespace detail

/// Monte Carlo estimate of E[psi_W] for a rows x cols (= out x in) weight initialised by
/// `ini` (variance from nsc::moments(ini, linear_fans(rows, cols))): `trials` independent
/// draws (random_weight) from boost::random::mt19937_64 seeded with `seed`, psi_w (automatic)
/// of each, evaluated in Scalar. Same arguments -> same numbers on every platform (to the
/// rounding of Eigen's kernels). Standard error = sample standard deviation / sqrt(trials).
/// Compare the mean with psi_fs(rows, cols, result.entries.variance,
/// result.entries.kurtosis_excess), or nsc::psi(..., result.entries, estimator::fs, ...).
/// Cost: trials x (rows cols draws + one psi_w).
/// Errors: rows, cols >= 1 and trials >= 2 (std::domain_error naming the function); the
/// init's checks; std::invalid_argument as random_weight.
template <class Scalar = double>
psi_w_monte_carlo_result psi_w_monte_carlo(Eigen::Index rows, Eigen::Index cols, const init& ini,
                                           Eigen::Index trials, std::uint64_t seed,
                                           entry_distribution dist =
                                               entry_distribution::from_init) {
  detail::require_floating_scalar<Scalar>();
  const auto law = detail::make_weight_law(rows, cols, ini, dist, detail::monte_carlo_function());
  return detail::monte_carlo<Scalar>(rows, cols, law, trials, seed);
}

/// The same for i.i.d. entries of variance `variance` drawn from `dist` (normal or uniform;
/// from_init is std::invalid_argument here). variance must be finite and >= 0.
template <class Scalar = double>
psi_w_monte_carlo_result psi_w_monte_carlo(Eigen::Index rows, Eigen::Index cols, double variance,
                                           Eigen::Index trials, std::uint64_t seed,
                                           entry_distribution dist = entry_distribution::normal) {
  detail::require_floating_scalar<Scalar>();
  double r = std::numeric_limits<double>::quiet_NaN();
  if (detail::check_domain((boost::math::isfinite)(variance) && variance >= 0,
                           detail::monte_carlo_function(),
                           "entry variance must be finite and >= 0 (got %1%)", variance, r,
                           default_policy()))
    return {r, r, r, 0, {r, r}};
  if (dist == entry_distribution::from_init)
    throw_invalid_argument("nsc::psi_w_monte_carlo",
                           "entry_distribution::from_init needs an initialisation; pass "
                           "normal or uniform with a variance",
                           to_string(dist));
  // normal(std) checks the shape; the law is then set from the variance itself.
  auto law = detail::make_weight_law(rows, cols, init::normal(1), entry_distribution::normal,
                                     detail::monte_carlo_function());
  using std::sqrt;
  if (dist == entry_distribution::normal)
    law = {detail::weight_law::normal, sqrt(variance), 0, 0, {variance, 0.0}};
  else
    law = {detail::weight_law::uniform, sqrt(3 * variance), 0, 0, {variance, -1.2}};
  return detail::monte_carlo<Scalar>(rows, cols, law, trials, seed);
}

} // namespace nsc

#endif // NSC_SPECTRAL_EIGEN_BACKEND_HPP
