/// \file nsc/spectral/prefix_logdet.hpp
/// psi_W of every nested column subset at once: for a matrix W whose columns (or blocks of
/// `unit` columns: attention heads) are taken in some order, psi_W(W_S) = ln det(I + W_S^T W_S)
/// for every prefix S of the order, from one Gram matrix and one Cholesky factorisation.
/// Needs Eigen (link nsc::eigen; nsc::eigen_blas puts the Gram product and the factorisation
/// in OpenBLAS, with its threads).
///
/// Synopsis
///
///     auto p = prefix_psi_ordered<float>(X, order, unit);   // X: n x d, row r = column r of W
///     p[k]  = ln det(I + W_S^T W_S), S = the first k units of `order`         (p[0] = 0)
///     auto q = prefix_psi_ordered_qr<float>(X, order, unit, {k1, k2, ...}); // the same at the
///              sizes asked for, in d-space (2 n d^2 flops instead of n^2 d + n^3 / 3; LAPACK)
///     auto r = prefix_psi_ordered_qr<float, float>(x, n, d, row_stride, col_stride, order, unit,
///              sizes);            // the same from memory: X(i, j) = x[i row_stride + j col_stride]
///     auto s = prefix_psi_ordered_gram<float>(gram, order, unit); // every prefix from a formed
///              I + X X^T (one Gram for several orders: n^3 / 3 per order)
///     auto g = prefix_psi_greedy<double>(grams, unit, bonus, allowed);       // the greedy order
///     g.order[t]   the unit taken at step t: the allowed unit with the largest
///                  bonus[u] + sum_m ln det(Schur complement of unit u in I + G_m given g.order[0..t))
///     g.prefix[k]  sum_m ln det(I + G_m[S_k, S_k]) + sum of the bonuses of S_k
///
/// Why one factorisation gives every prefix: with L L^T = P (I + G) P^T (P the order), the
/// leading k x k block of L is the Cholesky factor of the leading k x k block of P (I + G) P^T,
/// so ln det(I + G[S_k, S_k]) = 2 sum_{i < k} ln L_ii. The greedy variant is a pivoted Cholesky
/// whose pivot maximises the gain in log-determinant: the Schur complement of a candidate given
/// the units taken is what its diagonal block of the partially factored matrix holds, and
/// ln det of that block is exactly the increase of ln det when the unit is added (the
/// determinant of a block matrix). Several matrices on the same index set (an FFN's gate rows,
/// up rows and down columns) share one pivot order: the gain is the sum over the matrices.
///
/// Accuracy. I + G >= I, so every pivot is >= 1 and the factorisation is backward stable
/// (nsc/spectral/eigen_backend.hpp's Cholesky route). In Real = float, forming G in float and
/// factoring it errs on every prefix by at most about
///     E_k = sqrt(n + d) eps_f (1 + lambda_max) k,    eps_f = 2^-24,
/// (eigen_backend.hpp's bound for the Cholesky route, with k the prefix size); prefix_psi_error
/// gives it. Callers compare it with their tolerance and redo the matrix in double when it is
/// exceeded (nsc/io/prune_weights.hpp does: tolerance 1e-3 of the full psi). The qr route
/// (prefix_psi_route) has its own bound, prefix_psi_route_error.
/// Cost: the Gram n^2 d, the factorisation n^3 / 3 (ordered: Eigen's blocked LLT; greedy: a
/// panel-blocked right-looking pivoted Cholesky, n^3 / 3 in rank-128 updates plus n^2 x 64
/// in matrix-vector products), memory n^2 Reals per matrix (the Gram, factored in place).
#ifndef NSC_SPECTRAL_PREFIX_LOGDET_HPP
#define NSC_SPECTRAL_PREFIX_LOGDET_HPP

#include <nsc/error_handling.hpp>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace nsc {

/// The lower triangle of I + X X^T (n x n, X: n x d) in Real.
template <class Real, class Derived>
Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic> identity_plus_gram(const Eigen::MatrixBase<Derived>& X) {
  using M = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>;
  M g = M::Identity(X.rows(), X.rows());
  g.template selfadjointView<Eigen::Lower>().rankUpdate(X.template cast<Real>());
  return g;
}

/// The error bound of the Real route for a prefix of k units (see the file comment):
/// sqrt(n + d) eps (1 + lambda_max) k unit, lambda_max the largest eigenvalue of X X^T.
template <class Real>
double prefix_psi_error(std::int64_t n, std::int64_t d, double lambda_max, std::int64_t k_rows) {
  return std::sqrt(double(n + d)) * double(std::numeric_limits<Real>::epsilon()) / 2 * (1 + lambda_max) * double(k_rows);
}

/// How the prefixes of an n x d matrix X are computed.
///  * gram: in n-space, I + X X^T (n x n) and its Cholesky factorisation (prefix_psi_ordered):
///    n^2 d + n^3 / 3 flops, every prefix;
///  * qr: in d-space, ln det(I_k + X_S X_S^T) = ln det(I_d + X_S^T X_S) = 2 sum_i ln |R_ii| with
///    R the triangular factor of the QR factorisation of [I_d; X_S], updated block by block of
///    rows (LAPACK's xTPQRT: the QR of a triangle on top of a rectangle): 2 n d^2 flops, the
///    prefixes asked for (prefix_psi_ordered_qr). Needs LAPACK (NSC_HAVE_OPENBLAS: OpenBLAS's).
enum class prefix_psi_route { gram, qr };

/// The cheaper available route for an n x d matrix: qr when LAPACK is linked and 2 n d^2 <
/// n^2 d + n^3 / 3 (Llama-3-8B's FFN, n = 14336 channels, d = 4096: 3.8x fewer flops), else gram.
inline prefix_psi_route prefix_psi_best_route(std::int64_t n, std::int64_t d) {
#if defined(NSC_HAVE_OPENBLAS)
  const double nn = double(n), dd = double(d);
  return 2 * nn * dd * dd < nn * nn * dd + nn * nn * nn / 3 ? prefix_psi_route::qr : prefix_psi_route::gram;
#else
  (void)n, (void)d;
  return prefix_psi_route::gram;
#endif
}

/// The error bound of `route` in Real on every prefix of an n x d matrix, lambda_max the
/// largest eigenvalue of X X^T. gram: prefix_psi_error<Real>(n, d, lambda_max, n). qr: in the
/// rounding model of the gram bound (length-m sums and Householder products err by ~sqrt(m) u,
/// u = eps / 2, Higham & Mary 2019), the computed R is the exact factor of [I; X_S] + Delta
/// with ||Delta|| <~ sqrt(n + d) u ||[I; X_S]||, so R^T R = I + X_S^T X_S + E with ||E|| <~
/// 2 sqrt(n + d) u (1 + lambda_max), and |ln det error| = |tr((I + X_S^T X_S)^-1 E)| <= d ||E||:
///     E_qr = sqrt(n + d) eps (1 + lambda_max) d.
template <class Real>
double prefix_psi_route_error(prefix_psi_route route, std::int64_t n, std::int64_t d, double lambda_max) {
  if (route == prefix_psi_route::gram) return prefix_psi_error<Real>(n, d, lambda_max, n);
  return std::sqrt(double(n + d)) * double(std::numeric_limits<Real>::epsilon()) * (1 + lambda_max) * double(d);
}

namespace detail::pl {

#if defined(NSC_HAVE_OPENBLAS)
extern "C" {
// LAPACK (in OpenBLAS): QR of [A; B], A n x n upper triangular, B m x n (l = 0: rectangular).
void stpqrt_(int* m, int* n, int* l, int* nb, float* a, int* lda, float* b, int* ldb, float* t, int* ldt, float* work,
             int* info);
void dtpqrt_(int* m, int* n, int* l, int* nb, double* a, int* lda, double* b, int* ldb, double* t, int* ldt,
             double* work, int* info);
}
inline void tpqrt(int m, int n, int nb, float* a, float* b, float* t, float* work, int& info) {
  int l = 0, lda = n, ldb = m, ldt = nb;
  stpqrt_(&m, &n, &l, &nb, a, &lda, b, &ldb, t, &ldt, work, &info);
}
inline void tpqrt(int m, int n, int nb, double* a, double* b, double* t, double* work, int& info) {
  int l = 0, lda = n, ldb = m, ldt = nb;
  dtpqrt_(&m, &n, &l, &nb, a, &lda, b, &ldb, t, &ldt, work, &info);
}
#endif

/// lambda_max(F F^T) - 1 for a triangular factor F (F F^T or F^T F = I + G: the same nonzero
/// spectrum up to the identity) by 20 power iterations on F^T F (a lower estimate).
template <class M>
double lambda_from_factor(const M& f, bool upper) {
  using V = Eigen::Matrix<typename M::Scalar, Eigen::Dynamic, 1>;
  if (f.rows() == 0) return 0;
  V v(f.rows());
  for (Eigen::Index i = 0; i < v.size(); ++i) v[i] = typename M::Scalar(0.5 + double((i * 7919) % 1000) / 1000.0);
  double lam = 1;
  for (int it = 0; it < 20; ++it) {
    V w = upper ? V(f.template triangularView<Eigen::Upper>() * v) : V(f.template triangularView<Eigen::Lower>().transpose() * v);
    w = upper ? V(f.template triangularView<Eigen::Upper>().transpose() * w) : V(f.template triangularView<Eigen::Lower>() * w);
    const double nw = double(w.norm()), nv = double(v.norm());
    if (!(nw > 0) || !(nv > 0)) return 0;
    lam = nw / nv;
    v = w / typename M::Scalar(nw);
  }
  return std::max(0.0, lam - 1);
}

/// Checks `order`: a permutation of the n / unit units of n rows.
inline void check_order(std::string_view fn, std::int64_t n, const std::vector<std::int64_t>& order, std::int64_t unit) {
  if (unit < 1 || n % unit != 0) throw_invalid_argument(fn, "unit must divide the rows", unit);
  const std::int64_t U = n / unit;
  if (std::int64_t(order.size()) != U) throw_invalid_argument(fn, "order must list every unit once", order.size());
  std::vector<char> seen(std::size_t(U), 0);
  for (std::int64_t u : order)
    if (u < 0 || u >= U || seen[std::size_t(u)]++) throw_invalid_argument(fn, "order must be a permutation of the units", u);
}

} // namespace detail::pl

namespace detail::pl {

/// The prefix values of a factored I + G (lower Cholesky factor in g, units of `unit` rows),
/// and *lambda_max from the factor when asked.
template <class Real>
std::vector<double> factored_prefixes(const Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>& g, std::int64_t unit,
                                      double* lambda_max) {
  const std::int64_t U = g.rows() / unit;
  std::vector<double> p(std::size_t(U) + 1, 0.0);
  for (std::int64_t t = 0; t < U; ++t) {
    double s = 0;
    for (std::int64_t i = t * unit; i < (t + 1) * unit; ++i) s += 2 * std::log(double(g(i, i)));
    p[std::size_t(t) + 1] = p[std::size_t(t)] + s;
  }
  if (lambda_max) *lambda_max = lambda_from_factor(g, false);
  return p;
}

template <class Real>
void factor_in_place(std::string_view fn, Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>& g) {
  Eigen::LLT<Eigen::Ref<Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>>, Eigen::Lower> llt(g);
  if (llt.info() != Eigen::Success) throw_invalid_argument(fn, "the Cholesky factorisation of I + G failed (non-finite entries?)");
}

} // namespace detail::pl

/// Prefix psi in a fixed order: p[k] = ln det(I + X_S X_S^T), S = rows of the first k units
/// (unit consecutive rows each) of `order` (a permutation of 0 .. n / unit - 1), k = 0 .. n /
/// unit. Rows of X are the columns of W. Errors: std::invalid_argument "nsc::prefix_psi_ordered:
/// ..." for a unit not dividing n, an order that is not a permutation, a factorisation that
/// fails (non-finite input).
/// With lambda_max non-null, *lambda_max := the largest eigenvalue of X X^T (20 power
/// iterations on the factor; for prefix_psi_route_error).
template <class Real, class Derived>
std::vector<double> prefix_psi_ordered(const Eigen::MatrixBase<Derived>& X, const std::vector<std::int64_t>& order,
                                       std::int64_t unit = 1, double* lambda_max = nullptr) {
  constexpr std::string_view fn = "nsc::prefix_psi_ordered";
  const std::int64_t n = X.rows();
  detail::pl::check_order(fn, n, order, unit);
  Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic> P(n, X.cols());
  for (std::int64_t t = 0; t < std::int64_t(order.size()); ++t)
    P.middleRows(t * unit, unit) = X.middleRows(order[std::size_t(t)] * unit, unit).template cast<Real>();
  Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic> g = identity_plus_gram<Real>(P);
  P.resize(0, 0);
  detail::pl::factor_in_place(fn, g);
  return detail::pl::factored_prefixes(g, unit, lambda_max);
}

/// The same for several orders of one matrix from its Gram, formed once: `gram` = I + X X^T (n
/// x n, both triangles: identity_plus_gram's lower triangle mirrored), each order's permuted
/// copy factored (n^3 / 3 per order instead of n^2 d + n^3 / 3: o_proj's heads in one order per
/// KV head count). Errors as prefix_psi_ordered's, named "nsc::prefix_psi_ordered_gram".
template <class Real>
std::vector<double> prefix_psi_ordered_gram(const Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>& gram,
                                            const std::vector<std::int64_t>& order, std::int64_t unit = 1,
                                            double* lambda_max = nullptr) {
  constexpr std::string_view fn = "nsc::prefix_psi_ordered_gram";
  const std::int64_t n = gram.rows();
  if (gram.cols() != n) throw_invalid_argument(fn, "the Gram matrix must be square", gram.cols());
  detail::pl::check_order(fn, n, order, unit);
  std::vector<std::int64_t> src(static_cast<std::size_t>(n));
  for (std::int64_t r = 0; r < n; ++r) src[std::size_t(r)] = order[std::size_t(r / unit)] * unit + r % unit;
  Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic> g(n, n);
  for (std::int64_t c = 0; c < n; ++c) {
    const Real* col = gram.data() + src[std::size_t(c)] * n;
    for (std::int64_t r = c; r < n; ++r) g(r, c) = col[src[std::size_t(r)]];
  }
  detail::pl::factor_in_place(fn, g);
  return detail::pl::factored_prefixes(g, unit, lambda_max);
}

/// Prefix psi in a fixed order by the qr route (prefix_psi_route) from a strided array:
/// X(i, j) = x[i row_stride + j col_stride] (n x d; a row-major (n, d) tensor whose rows are
/// the units' vectors: row_stride d, col_stride 1; a row-major (d, n) tensor whose columns are:
/// row_stride 1, col_stride n), read in Src and computed in Real. p[k] = ln det(I + X_S X_S^T),
/// S = the rows of the first k units of `order`, for every k in `sizes` (and k = 0); the other
/// entries are NaN (p has n / unit + 1 entries, as prefix_psi_ordered's). Rows are added in
/// blocks of at most 256 (and at every size asked for), gathered straight from x in the
/// order its memory runs (no transposed copy); memory d^2 Reals (R) and 256 rows. With
/// lambda_max non-null, *lambda_max := the largest eigenvalue of X X^T (20 power iterations on
/// R; for prefix_psi_route_error). Needs NSC_HAVE_OPENBLAS. Errors: std::invalid_argument
/// "nsc::prefix_psi_ordered_qr: ..." for a unit not dividing n, an order that is not a
/// permutation, sizes not increasing within 1 .. n / unit, a failed factorisation (non-finite
/// input), no LAPACK.
template <class Real, class Src>
std::vector<double> prefix_psi_ordered_qr(const Src* x, std::int64_t n, std::int64_t d, std::int64_t row_stride,
                                          std::int64_t col_stride, const std::vector<std::int64_t>& order,
                                          std::int64_t unit, const std::vector<std::int64_t>& sizes,
                                          double* lambda_max = nullptr) {
  constexpr std::string_view fn = "nsc::prefix_psi_ordered_qr";
  if (n < 0 || d < 0) throw_invalid_argument(fn, "the shape must be non-negative", n < 0 ? n : d);
  detail::pl::check_order(fn, n, order, unit);
  const std::int64_t U = n / unit;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] < 1 || sizes[i] > U || (i > 0 && sizes[i] <= sizes[i - 1]))
      throw_invalid_argument(fn, "sizes must increase within 1 .. the units", sizes[i]);
  std::vector<double> p(std::size_t(U) + 1, std::numeric_limits<double>::quiet_NaN());
  p[0] = 0;
#if defined(NSC_HAVE_OPENBLAS)
  using M = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>;
  if (d > std::numeric_limits<int>::max() / 256 || n > std::numeric_limits<int>::max())
    throw_invalid_argument(fn, "the matrix is too large for LAPACK's int dimensions", d);
  M R = M::Identity(d, d);
  const std::int64_t per_block = std::max<std::int64_t>(1, 256 / unit), nb = std::max<std::int64_t>(1, std::min<std::int64_t>(64, d));
  std::vector<Real> T(std::size_t(nb * d)), work(std::size_t(nb * d));
  M B(per_block * unit, d);
  std::vector<std::int64_t> src; // the source row of each row of the block
  std::int64_t done = 0;
  for (std::int64_t s : sizes) {
    while (done < s && d > 0) {
      const std::int64_t take = std::min(s - done, per_block), m = take * unit;
      src.clear();
      for (std::int64_t t = 0; t < take; ++t)
        for (std::int64_t r = 0; r < unit; ++r) src.push_back(order[std::size_t(done + t)] * unit + r);
      Real* b = B.data(); // column-major m x d (leading dimension m)
      if (col_stride <= row_stride) { // a source row runs along memory: copy rows, 256 columns at a time
        for (std::int64_t j0 = 0; j0 < d; j0 += 256)
          for (std::int64_t i = 0; i < m; ++i) {
            const Src* xr = x + src[std::size_t(i)] * row_stride;
            for (std::int64_t j = j0; j < std::min(d, j0 + 256); ++j) b[i + j * m] = Real(xr[j * col_stride]);
          }
      } else { // a source column does: gather each column's block rows
        for (std::int64_t j = 0; j < d; ++j) {
          const Src* xc = x + j * col_stride;
          for (std::int64_t i = 0; i < m; ++i) b[i + j * m] = Real(xc[src[std::size_t(i)] * row_stride]);
        }
      }
      int info = 0;
      detail::pl::tpqrt(int(m), int(d), int(nb), R.data(), b, T.data(), work.data(), info);
      if (info != 0) throw_invalid_argument(fn, "LAPACK's xTPQRT failed", info);
      done += take;
    }
    double v = 0;
    for (std::int64_t i = 0; i < d; ++i) v += 2 * std::log(std::abs(double(R(i, i))));
    if (!std::isfinite(v)) throw_invalid_argument(fn, "the factorisation of [I; X_S] failed (non-finite entries?)", s);
    p[std::size_t(s)] = v;
  }
  if (lambda_max) *lambda_max = detail::pl::lambda_from_factor(R, true);
  return p;
#else
  (void)lambda_max, (void)d, (void)x, (void)row_stride, (void)col_stride;
  throw_invalid_argument(fn, "needs LAPACK (build with nsc::eigen_blas: NSC_HAVE_OPENBLAS)", U);
#endif
}

/// The same from an Eigen matrix X (n x d, row r = column r of W; an expression is evaluated
/// once into a plain matrix of its scalar type).
template <class Real, class Derived>
std::vector<double> prefix_psi_ordered_qr(const Eigen::MatrixBase<Derived>& X, const std::vector<std::int64_t>& order,
                                          std::int64_t unit, const std::vector<std::int64_t>& sizes,
                                          double* lambda_max = nullptr) {
  using S = typename Derived::Scalar;
  const Eigen::Ref<const Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>, 0, Eigen::OuterStride<>> x(X);
  return prefix_psi_ordered_qr<Real, S>(x.data(), x.rows(), x.cols(), 1, x.outerStride(), order, unit, sizes, lambda_max);
}

/// The greedy order's result.
struct prefix_psi_greedy_result {
  std::vector<std::int64_t> order; ///< units in the order taken
  std::vector<double> prefix;      ///< prefix[k]: the value of the first k (prefix[0] = 0)
};

/// The greedy nested order over units of `unit` consecutive indices of the matrices `a` (each
/// n x n, I + G_m, only the lower triangle read; destroyed): at step t the unit u with
/// allowed(u, t) maximising bonus[u] + sum_m ln det(S_m(u)), S_m(u) the Schur complement of u's
/// block in a_m given the units taken (ties: the lower unit). Stops when no unit is allowed.
/// Errors: std::invalid_argument "nsc::prefix_psi_greedy: ..." for matrices of different or
/// non-square shapes, a unit not dividing n, a bonus of the wrong length, a pivot that is not
/// positive definite (non-finite input).
template <class Real>
prefix_psi_greedy_result prefix_psi_greedy(std::vector<Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>>& a,
                                           std::int64_t unit, const std::vector<double>& bonus,
                                           const std::function<bool(std::int64_t, std::int64_t)>& allowed) {
  using M = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>;
  constexpr std::string_view fn = "nsc::prefix_psi_greedy";
  if (a.empty()) throw_invalid_argument(fn, "needs at least one matrix");
  const std::int64_t n = a[0].rows();
  for (const M& m : a)
    if (m.rows() != n || m.cols() != n) throw_invalid_argument(fn, "every matrix must be n x n with one n", m.rows());
  if (unit < 1 || n % unit != 0) throw_invalid_argument(fn, "unit must divide n", unit);
  const std::int64_t U = n / unit;
  if (!bonus.empty() && std::int64_t(bonus.size()) != U) throw_invalid_argument(fn, "bonus needs one value per unit", bonus.size());
  const std::size_t nm = a.size();
  const std::int64_t panel = std::max<std::int64_t>(1, 128 / unit); // units per panel
  std::vector<std::int64_t> rem(static_cast<std::size_t>(U)); // remaining units, ascending; a_m holds their rows
  for (std::int64_t u = 0; u < U; ++u) rem[std::size_t(u)] = u;
  std::int64_t nr = n; // current dimension of the compacted matrices
  prefix_psi_greedy_result out;
  out.prefix.push_back(0.0);
  // The symmetric n x unit column block of unit position c (rows of every remaining unit).
  auto column = [&](const M& owner, std::int64_t c, M& col) {
    const Eigen::Map<const M> m(owner.data(), nr, nr); // the compacted nr x nr data at stride nr
    const std::int64_t r0 = c * unit;
    col.resize(nr, unit);
    col.topRows(r0) = m.block(r0, 0, unit, r0).transpose();
    col.bottomRows(nr - r0) = m.block(r0, r0, nr - r0, unit);
    for (std::int64_t i = 0; i < unit; ++i)
      for (std::int64_t j = i + 1; j < unit; ++j) col(r0 + i, j) = m(r0 + j, r0 + i);
  };
  auto logdet = [&](const M& s, bool& ok) {
    if (unit == 1) {
      ok = s(0, 0) > 0;
      return ok ? std::log(double(s(0, 0))) : 0.0;
    }
    Eigen::LLT<M> l(s);
    ok = l.info() == Eigen::Success;
    double v = 0;
    if (ok)
      for (std::int64_t i = 0; i < unit; ++i) v += 2 * std::log(double(l.matrixLLT()(i, i)));
    return v;
  };
  std::int64_t step = 0;
  std::vector<M> lp(nm), diag(nm); // panel columns; residual diagonal blocks (unit x unit each, stacked)
  M col, lnew;
  while (!rem.empty()) {
    const std::int64_t R = std::int64_t(rem.size());
    for (std::size_t m = 0; m < nm; ++m) {
      lp[m].resize(nr, panel * unit);
      diag[m].resize(nr, unit);
      const Eigen::Map<const M> x(a[m].data(), nr, nr);
      for (std::int64_t c = 0; c < R; ++c) // the diagonal blocks (lower triangle mirrored)
        diag[m].middleRows(c * unit, unit) =
            x.block(c * unit, c * unit, unit, unit).template selfadjointView<Eigen::Lower>();
    }
    std::vector<char> taken(static_cast<std::size_t>(R), 0);
    std::int64_t t = 0;
    bool stop = false;
    for (; t < panel; ++t) {
      std::int64_t best = -1;
      double best_gain = -std::numeric_limits<double>::infinity();
      for (std::int64_t c = 0; c < R; ++c) {
        if (taken[std::size_t(c)] || !allowed(rem[std::size_t(c)], step)) continue;
        double g = bonus.empty() ? 0.0 : bonus[std::size_t(rem[std::size_t(c)])];
        for (std::size_t m = 0; m < nm; ++m) {
          bool ok = true;
          g += logdet(diag[m].middleRows(c * unit, unit), ok);
          if (!ok) throw_invalid_argument(fn, "a Schur complement is not positive definite (non-finite or non-PSD input)", rem[std::size_t(c)]);
        }
        if (g > best_gain) best_gain = g, best = c;
      }
      if (best < 0) {
        stop = true;
        break;
      }
      taken[std::size_t(best)] = 1;
      double gain = bonus.empty() ? 0.0 : bonus[std::size_t(rem[std::size_t(best)])];
      for (std::size_t m = 0; m < nm; ++m) {
        column(a[m], best, col);
        if (t > 0) col.noalias() -= lp[m].leftCols(t * unit) * lp[m].block(best * unit, 0, unit, t * unit).transpose();
        Eigen::LLT<M> l(M(col.middleRows(best * unit, unit)));
        if (l.info() != Eigen::Success) throw_invalid_argument(fn, "a pivot block is not positive definite (non-finite input)", rem[std::size_t(best)]);
        for (std::int64_t i = 0; i < unit; ++i) gain += 2 * std::log(double(l.matrixLLT()(i, i)));
        lnew = col.transpose();
        l.matrixL().solveInPlace(lnew); // L^-1 col^T: the new columns of the factor, transposed
        lp[m].middleCols(t * unit, unit) = lnew.transpose();
        for (std::int64_t c = 0; c < R; ++c)
          if (!taken[std::size_t(c)])
            diag[m].middleRows(c * unit, unit).noalias() -=
                lp[m].block(c * unit, t * unit, unit, unit) * lp[m].block(c * unit, t * unit, unit, unit).transpose();
      }
      out.order.push_back(rem[std::size_t(best)]);
      out.prefix.push_back(out.prefix.back() + gain);
      ++step;
    }
    // Compact every matrix to the units not taken and apply the panel's update (lower triangle).
    std::vector<std::int64_t> keep;
    for (std::int64_t c = 0; c < R; ++c)
      if (!taken[std::size_t(c)]) keep.push_back(c);
    const std::int64_t nk = std::int64_t(keep.size()) * unit;
    if (stop || keep.empty()) break;
    // Runs of kept units (contiguous rows in the compacted layout) for a memmove per column.
    std::vector<std::pair<std::int64_t, std::int64_t>> runs; // (first kept position, count)
    for (std::size_t q = 0; q < keep.size(); ++q)
      if (q > 0 && keep[q] == keep[q - 1] + 1) ++runs.back().second;
      else runs.push_back({std::int64_t(q), 1});
    for (std::size_t m = 0; m < nm; ++m) {
      Real* p = a[m].data();
      for (std::int64_t jb = 0; jb < std::int64_t(keep.size()); ++jb) // in place: destinations never pass sources
        for (std::int64_t jj = 0; jj < unit; ++jj) {
          const std::int64_t j = jb * unit + jj, sj = keep[std::size_t(jb)] * unit + jj;
          for (const auto& [q0, cnt] : runs) {
            const std::int64_t q1 = q0 + cnt; // kept positions [q0, q1), rows >= j only (lower triangle)
            if (q1 <= jb) continue;
            const std::int64_t qs = std::max(q0, jb);
            const std::int64_t i = qs * unit, si = keep[std::size_t(qs)] * unit, len = (q1 - qs) * unit;
            std::memmove(p + j * nk + i, p + sj * nr + si, std::size_t(len) * sizeof(Real));
          }
        }
      M rows(nk, t * unit);
      for (std::int64_t jb = 0; jb < std::int64_t(keep.size()); ++jb)
        rows.middleRows(jb * unit, unit) = lp[m].block(keep[std::size_t(jb)] * unit, 0, unit, t * unit);
      Eigen::Map<M> y(p, nk, nk);
      y.template selfadjointView<Eigen::Lower>().rankUpdate(rows, Real(-1));
    }
    std::vector<std::int64_t> r2;
    for (std::int64_t c : keep) r2.push_back(rem[std::size_t(c)]);
    rem = std::move(r2);
    nr = nk;
  }
  return out;
}

} // namespace nsc

#endif // NSC_SPECTRAL_PREFIX_LOGDET_HPP
