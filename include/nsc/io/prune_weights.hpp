/// \file nsc/io/prune_weights.hpp
/// The trained spectra in a prune space: psi_W of the kept sub-matrices of every option of
/// every layer (`nsc prune --score weights`), and the spectral criterion's orders of heads,
/// channels and experts (`--criterion spectral`). Needs Eigen (nsc::eigen; nsc::eigen_blas for
/// OpenBLAS's products, factorisations and threads) and nlohmann-json.
///
/// Synopsis
///
///     auto v = prune_weight_values(checkpoint, space, {.criterion = channel_criterion::spectral});
///     apply_weight_scores(space, v);       // every option's value: psi_W of what it keeps
///     auto orders = weight_orders(v);      // channel_orders for write_pruned_checkpoint
///
/// What is kept follows the criterion's nested orders (nsc/io/prune_checkpoint.hpp: the kept
/// set of size n is the first n), so one order per matrix gives every option:
///  * magnitude: the orders of magnitude_orders (||Q_i|| ||O_i|| per query head, ||gate_c||
///    ||up_c|| ||down_c|| per channel, the product of Frobenius norms per expert);
///  * spectral: the greedy orders of largest psi_W. FFN channels: the next channel c maximises
///    psi_W(gate_S) + psi_W(up_S) + psi_W(down_S) over S = the channels taken plus c (rows of
///    gate / up, columns of down): one pivoted Cholesky of I + G for the three Grams at once
///    (nsc/spectral/prefix_logdet.hpp). Query heads for k KV heads: round-robin over the k
///    KV groups (every group keeps h / k), the next head of a group maximising psi_W(Q_i) +
///    psi_W(O_S) (O_S: the o_proj columns of the heads taken plus i; Q is scored per head, so
///    psi_W(Q_i) adds). Experts for a width w: the E' largest psi_W of an expert's three kept
///    sub-matrices at width w (its own channel order); the router's rows follow. KV heads are
///    mean-pooled in contiguous groups under both criteria (the GQA conversion).
///
/// The value of an option is psi_W of the sub-matrices it keeps, scored as nsc score scores a
/// model (Q per head, K and V per KV head, o_proj and FFN matrices whole, one per expert, the
/// router): attention (h, k): sum of psi_W(Q_i) over the first h heads of k's order + psi_W of
/// each pooled K and V head + psi_W(o_proj's columns of those heads); FFN width w: psi_W of the
/// first w channels' gate rows, up rows and down columns; MoE (E', w): the E' experts' values
/// at w + psi_W of their router rows; a removed sublayer 0. Embeddings and the LM head are not
/// valued (the same in every option): space.fixed_nsc becomes 0.
///
/// Cost: per matrix of n channel (or head) vectors of length d, the cheaper route of
/// nsc/spectral/prefix_logdet.hpp: the n-space Gram n^2 d plus its factorisation n^3 / 3 (every
/// width), or with LAPACK (nsc::eigen_blas) the d-space QR update 2 n d^2 (the widths offered):
/// Llama-3-8B's FFN matrices (n = 14336, d = 4096) take the latter, 3.8x fewer flops. Per
/// attention layer one o_proj Gram and its factorisation in the head order of each KV head count
/// offered with fewer query heads (prefix_psi_ordered_gram); per-head Q, K and V blocks
/// (head_dim^2 d).
/// Precision: double, except matrices with n^2 d >= 2^30 flops, which are computed in float32
/// when the route's bound (prefix_psi_route_error<float>: sqrt(n + d) 2^-24 (1 + lambda_max) n
/// for the Gram, sqrt(n + d) 2^-23 (1 + lambda_max) d for the QR update; lambda_max by 20 power
/// iterations on the factor) is at most float_tolerance (default 1e-3) of the matrix's psi_W;
/// otherwise in double. Threads and memory (magnitude criterion): a layer's FFN matrices on
/// three threads and its attention matrices on a fourth, OpenBLAS held to one thread each; an
/// FFN matrix (BF16, F16 or F32) is read straight into a float32 buffer kept from layer to
/// layer (no double or transposed copy; Llama-3-8B: 235 MB each) and its route gathers the
/// channel rows from it, plus the route's d x d factor (67 MB) or n x n Gram; attention
/// matrices, F64 tensors and the spectral orders are read in double, one tensor at a time (the
/// spectral FFN order holds its three n x n Grams at once). Fused 3-D experts (gpt_oss,
/// granitemoe; MXFP4 decoded) are read one expert at a time, each of its gate, up and down
/// matrices in double (gpt-oss-20b: 66 MB each, its whole gate_up read once for each of gate and up).
#ifndef NSC_IO_PRUNE_WEIGHTS_HPP
#define NSC_IO_PRUNE_WEIGHTS_HPP

#include <nsc/io/checkpoint_psi.hpp>
#include <nsc/io/prune_checkpoint.hpp>
#include <nsc/io/safetensors.hpp>
#include <nsc/spectral/prefix_logdet.hpp>

#include <Eigen/Core>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace nsc::io {

/// Options of prune_weight_values.
struct prune_weight_settings {
  channel_criterion criterion = channel_criterion::magnitude;
  /// float32 for a large matrix when its error bound is at most this share of its psi_W.
  double float_tolerance = 1e-3;
  bool values = true; ///< false: the orders only (what --criterion spectral needs without --score weights)
  /// The checkpoint's family (its tensor names: nsc/io/prune_checkpoint.hpp's layouts()).
  std::string model_type = "llama";
  /// Called after each layer with (layers done, layers).
  std::function<void(std::size_t, std::size_t)> progress;
};

/// One layer's orders and prefix values.
struct layer_weight_values {
  std::vector<double> q_psi;                        ///< psi_W(Q_i) per query head
  std::map<std::int64_t, std::vector<std::int64_t>> head_order; ///< per KV head count k (h < H offered)
  std::map<std::int64_t, std::vector<double>> o_prefix;         ///< per k: psi_W(O of the first h heads), h = 0..H
  std::map<std::int64_t, double> kv_value;          ///< per k: sum of psi_W of the pooled K and V heads
  double o_full = 0;                                ///< psi_W(o_proj)
  std::vector<std::int64_t> channel_order;          ///< dense FFN
  std::vector<double> ffn_prefix;                   ///< dense FFN: value of the first w channels, w = 0..F
  std::vector<std::vector<std::int64_t>> expert_channel_order; ///< MoE, per expert
  std::vector<std::vector<double>> expert_prefix;   ///< MoE, per expert, w = 0..F
  std::vector<std::int64_t> expert_magnitude_order; ///< MoE, magnitude criterion
  Eigen::MatrixXd router;                           ///< MoE: router rows as columns (d x E)
  double shared = 0; ///< MoE with a shared expert (qwen2_moe): psi_W of its three matrices and its gate row
};

/// prune_weight_values's answer.
struct prune_weight_values_t {
  channel_criterion criterion = channel_criterion::magnitude;
  std::vector<layer_weight_values> layers;
  std::size_t matrices = 0, float_matrices = 0; ///< Grams factored, in float32
  double seconds = 0;
};

namespace detail::pw {

inline constexpr std::string_view fn = "nsc::prune_weight_values";

using mat = Eigen::MatrixXd;
using cmap = Eigen::Map<const Eigen::MatrixXd>;

/// ln det(I + X X^T) of a small block (double).
template <class D>
double psi_rows(const Eigen::MatrixBase<D>& X) {
  mat g = identity_plus_gram<double>(X);
  Eigen::LLT<mat> l(g);
  if (l.info() != Eigen::Success) throw_invalid_argument(fn, "a Cholesky factorisation failed (non-finite weights?)");
  double s = 0;
  for (Eigen::Index i = 0; i < g.rows(); ++i) s += 2 * std::log(l.matrixLLT()(i, i));
  return s;
}

/// lambda_max of X X^T by 20 power iterations (a lower estimate; enough for an error bound).
inline double lambda_max(const mat& X) {
  Eigen::VectorXd v = Eigen::VectorXd::Ones(X.rows());
  for (Eigen::Index i = 0; i < v.size(); ++i) v[i] = 0.5 + double((i * 7919) % 1000) / 1000.0;
  double lam = 0;
  for (int it = 0; it < 20; ++it) {
    Eigen::VectorXd w = X * (X.transpose() * v);
    lam = w.norm() / std::max(v.norm(), 1e-300);
    if (!(lam > 0)) return 0;
    v = w / w.norm();
  }
  return lam;
}

struct tally {
  std::size_t matrices = 0, floats = 0;
};

inline bool big(std::int64_t n, std::int64_t d) { return double(n) * double(n) * double(d) >= double(1 << 30); }
inline bool big(const mat& X) { return big(X.rows(), X.cols()); }

/// An n x d matrix of unit vectors (channels or heads) as rows, read from memory in Src:
/// X(i, j) = x[i rs + j cs] (a row-major tensor's rows: rs = its columns, cs = 1; its columns:
/// rs = 1, cs = its columns).
template <class Src>
struct strided {
  const Src* x = nullptr;
  std::int64_t n = 0, d = 0, rs = 1, cs = 1;
};
inline strided<double> rows_of(const mat& X) { return {X.data(), X.rows(), X.cols(), 1, X.rows()}; }

/// Prefix psi of X's rows in `order` (units of `unit` rows) at the prefix sizes `sizes` (units,
/// increasing, the last = all units; other entries NaN or computed), by the cheaper route
/// (prefix_psi_best_route), in float32 where its error bound allows.
template <class Src>
std::vector<double> ordered(const strided<Src>& X, const std::vector<std::int64_t>& order, std::int64_t unit,
                            const std::vector<std::int64_t>& sizes, double tol, tally& t) {
  ++t.matrices;
  const prefix_psi_route route = prefix_psi_best_route(X.n, X.d);
  auto run = [&](auto real, double* lam) {
    using Real = decltype(real);
    if (route == prefix_psi_route::qr) return prefix_psi_ordered_qr<Real, Src>(X.x, X.n, X.d, X.rs, X.cs, order, unit, sizes, lam);
    using S = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;
    const Eigen::Map<const Eigen::Matrix<Src, Eigen::Dynamic, Eigen::Dynamic>, 0, S> m(X.x, X.n, X.d, S(X.cs, X.rs));
    return prefix_psi_ordered<Real>(m, order, unit, lam);
  };
  if (big(X.n, X.d)) {
    double lam = 0;
    std::vector<double> p = run(float(0), &lam);
    if (prefix_psi_route_error<float>(route, X.n, X.d, lam) <= tol * p.back()) {
      ++t.floats;
      return p;
    }
  }
  return run(double(0), nullptr);
}
inline std::vector<double> ordered(const mat& X, const std::vector<std::int64_t>& order, std::int64_t unit,
                                   const std::vector<std::int64_t>& sizes, double tol, tally& t) {
  return ordered(rows_of(X), order, unit, sizes, tol, t);
}

/// Every prefix of X's rows in each of `orders` (units of `unit` rows): from one Gram I + X
/// X^T, formed once and factored in each order (prefix_psi_ordered_gram: n^2 d + K n^3 / 3 for
/// K orders), unless K qr updates (2 K n d^2) are cheaper; float32 where the route's bound
/// allows (lambda_max is the same in every order).
inline std::vector<std::vector<double>> ordered_many(const mat& X, const std::vector<std::vector<std::int64_t>>& orders,
                                                     std::int64_t unit, const std::vector<std::vector<std::int64_t>>& sizes,
                                                     double tol, tally& t) {
  const double n = double(X.rows()), d = double(X.cols()), K = double(orders.size());
  std::vector<std::vector<double>> out;
  if (orders.empty()) return out;
  if (prefix_psi_best_route(X.rows(), X.cols()) == prefix_psi_route::qr && 2 * K * n * d * d < n * n * d + K * n * n * n / 3) {
    for (std::size_t i = 0; i < orders.size(); ++i) out.push_back(ordered(X, orders[i], unit, sizes[i], tol, t));
    return out;
  }
  t.matrices += orders.size();
  auto run = [&](auto real, double* lam) {
    using Real = decltype(real);
    Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic> g = identity_plus_gram<Real>(X);
    g.template triangularView<Eigen::StrictlyUpper>() = g.transpose();
    std::vector<std::vector<double>> r;
    for (const auto& o : orders) r.push_back(prefix_psi_ordered_gram<Real>(g, o, unit, r.empty() ? lam : nullptr));
    return r;
  };
  if (big(X)) {
    double lam = 0;
    out = run(float(0), &lam);
    double least = out[0].back();
    for (const auto& p : out) least = std::min(least, p.back());
    if (prefix_psi_route_error<float>(prefix_psi_route::gram, X.rows(), X.cols(), lam) <= tol * least) {
      t.floats += orders.size();
      return out;
    }
  }
  return run(double(0), nullptr);
}

/// The prefix sizes an option set asks for: `wanted` (sizes in units, any order, 0 ignored)
/// plus all units, increasing and unique.
inline std::vector<std::int64_t> size_list(std::vector<std::int64_t> wanted, std::int64_t all) {
  wanted.push_back(all);
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  wanted.erase(std::remove_if(wanted.begin(), wanted.end(), [all](std::int64_t k) { return k < 1 || k > all; }), wanted.end());
  return wanted;
}

/// Produces one matrix (its rows: the units' vectors) when called: matrices are loaded one at a
/// time and freed after their Gram is formed (memory: one tensor and the Grams).
using rows_loader = std::function<mat()>;

/// The greedy order and prefix of the matrices' rows (shared pivots), float32 where allowed.
inline prefix_psi_greedy_result greedy(const std::vector<rows_loader>& loads, std::int64_t unit, const std::vector<double>& bonus,
                                       const std::function<bool(std::int64_t, std::int64_t)>& allowed, double tol, tally& t) {
  t.matrices += loads.size();
  double bound = 0;
  bool use_float = true;
  {
    std::vector<Eigen::MatrixXf> a;
    for (const rows_loader& load : loads) {
      const mat X = load();
      if (!big(X)) {
        use_float = false;
        break;
      }
      bound += prefix_psi_error<float>(X.rows(), X.cols(), lambda_max(X), X.rows());
      a.push_back(identity_plus_gram<float>(X));
    }
    if (use_float) {
      prefix_psi_greedy_result r = prefix_psi_greedy<float>(a, unit, bonus, allowed);
      if (bound <= tol * r.prefix.back()) {
        t.floats += loads.size();
        return r;
      }
    }
  }
  std::vector<mat> a;
  for (const rows_loader& load : loads) a.push_back(identity_plus_gram<double>(load()));
  return prefix_psi_greedy<double>(a, unit, bonus, allowed);
}

/// A tensor as a column-major matrix of its transpose (stored (r, c) row-major: c x r).
struct tensor_matrix {
  std::vector<double> data;
  std::int64_t rows = 0, cols = 0; ///< as stored
  cmap t() const { return cmap(data.data(), Eigen::Index(cols), Eigen::Index(rows)); }
};

inline tensor_matrix load(const std::map<std::string, const tensor_entry*>& by_name, const std::string& name) {
  const auto it = by_name.find(name);
  if (it == by_name.end()) throw_invalid_argument(fn, "tensor '" + name + "' is missing from the checkpoint");
  tensor_matrix m;
  m.data = read_tensor(*it->second);
  m.rows = it->second->shape.at(0);
  m.cols = it->second->shape.size() > 1 ? it->second->shape[1] : 1;
  for (double x : m.data)
    if (!std::isfinite(x)) throw_invalid_argument(fn, "tensor '" + it->second->name + "' has non-finite entries; psi_W needs finite weights");
  return m;
}

inline const tensor_entry& entry(const std::map<std::string, const tensor_entry*>& by_name, const std::string& name) {
  const auto it = by_name.find(name);
  if (it == by_name.end()) throw_invalid_argument(fn, "tensor '" + name + "' is missing from the checkpoint");
  return *it->second;
}

/// A buffer of float32 values kept from tensor to tensor (grown when needed, never zero-filled:
/// every entry is written before it is read).
struct float_buffer {
  std::unique_ptr<float[]> data;
  std::size_t capacity = 0;
};

/// Whether load_float reads the dtype exactly (BF16, F16, F32; F64 tensors take load()).
inline bool float_exact(const tensor_entry& t) { return t.dtype == "BF16" || t.dtype == "F16" || t.dtype == "F32"; }

/// The tensor's values in float32, row-major as stored, into `buf` (read about 1 MiB at a time
/// and converted in place of a double copy). Errors as load()'s: non-finite entries.
inline const float* load_float(const tensor_entry& t, float_buffer& buf) {
  detail::pc::tensor_reader rd(t);
  const std::int64_t rows = rd.rows(), cols = rd.cols();
  const std::size_t count = std::size_t(rows) * std::size_t(cols);
  if (count > buf.capacity) {
    buf.data.reset();
    buf.data = std::make_unique_for_overwrite<float[]>(count);
    buf.capacity = count;
  }
  const std::int64_t step = std::max<std::int64_t>(1, std::int64_t((1u << 20) / (std::uint64_t(cols) * rd.esize() + 1)));
  std::vector<unsigned char> raw;
  bool finite = true;
  for (std::int64_t r = 0; r < rows; r += step) {
    const std::int64_t n = std::min(step, rows - r);
    rd.read_rows(r, n, raw);
    float* o = buf.data.get() + std::size_t(r) * std::size_t(cols);
    const unsigned char* b = raw.data();
    const std::size_t k = std::size_t(n) * std::size_t(cols);
    if (t.dtype == "BF16") {
      for (std::size_t e = 0; e < k; ++e) o[e] = std::bit_cast<float>(std::uint32_t(b[2 * e] | (b[2 * e + 1] << 8)) << 16);
    } else if (t.dtype == "F16") {
      for (std::size_t e = 0; e < k; ++e) o[e] = float(nsc::io::detail::st::half_to_double(std::uint16_t(b[2 * e] | (b[2 * e + 1] << 8))));
    } else if (t.dtype == "F32") {
      for (std::size_t e = 0; e < k; ++e)
        o[e] = std::bit_cast<float>(std::uint32_t(b[4 * e]) | std::uint32_t(b[4 * e + 1]) << 8 | std::uint32_t(b[4 * e + 2]) << 16 |
                                    std::uint32_t(b[4 * e + 3]) << 24);
    } else {
      throw_invalid_argument(fn, "tensor '" + t.name + "' has dtype " + t.dtype + ", not read as float32 (BF16, F16, F32)");
    }
    for (std::size_t e = 0; e < k; ++e) finite = finite && std::isfinite(o[e]);
  }
  if (!finite) throw_invalid_argument(fn, "tensor '" + t.name + "' has non-finite entries; psi_W needs finite weights");
  return buf.data.get();
}

/// One FFN matrix's channel vectors: rows [row0, row0 + n) of tensor t (gate, up: channels =
/// rows) or its n columns (down), n the channels; `load` gives them in double as rows (the
/// spectral order's Grams, and F64 tensors).
struct channel_matrix {
  const tensor_entry* t = nullptr;
  std::int64_t row0 = 0;
  bool columns = false;
  rows_loader load;
};

/// The matrix's channel vectors in `buf` (float32) as a strided view of n rows; its shape checked.
inline strided<float> channel_rows(const channel_matrix& c, std::int64_t n, float_buffer& buf) {
  const tensor_entry& t = *c.t;
  if (t.shape.size() != 2 || (c.columns ? t.shape[1] != n : c.row0 + n > t.shape[0]))
    throw_invalid_argument(fn, "tensor '" + t.name + "' has shape " + detail::pc::shape_text(t.shape) + ", not " +
                                   std::to_string(n) + (c.columns ? " columns" : " rows") + " of FFN channels");
  const float* x = load_float(t, buf);
  const std::int64_t R = t.shape[0], C = t.shape[1];
  return c.columns ? strided<float>{x, n, R, 1, C} : strided<float>{x + c.row0 * C, n, C, C, 1};
}

/// An FFN's matrices as channel rows (gate rows, up rows, down columns): the spectral order
/// from their double Grams (loaded one at a time); the magnitude order's prefixes with each
/// matrix on its own thread, read as float32 into its buffer in `bufs` (one per matrix, kept
/// from layer to layer) when its dtype allows.
inline void ffn_values(const std::vector<channel_matrix>& mats, channel_criterion crit, std::vector<std::int64_t> order,
                       const std::vector<std::int64_t>& sizes, double tol, tally& t, std::vector<float_buffer>& bufs,
                       std::vector<std::int64_t>& order_out, std::vector<double>& prefix) {
  if (crit == channel_criterion::spectral) {
    std::vector<rows_loader> loads;
    for (const channel_matrix& c : mats) loads.push_back(c.load);
    prefix_psi_greedy_result r = greedy(loads, 1, {}, [](std::int64_t, std::int64_t) { return true; }, tol, t);
    order_out = std::move(r.order);
    prefix = std::move(r.prefix);
    return;
  }
  // The matrices at once, each on its own thread with OpenBLAS held to one: xTPQRT's many
  // small products do not pay for OpenBLAS's threads (on this loaded 2-core machine a 4096 x
  // 2048 update took 33 s wall with 2 OpenBLAS threads, 2.6 s with 1), the matrices do.
  prefix.assign(order.size() + 1, 0.0);
  if (bufs.size() < mats.size()) bufs.resize(mats.size());
  const std::int64_t n = std::int64_t(order.size());
  const detail::cp::small_work_single_thread one_blas_thread(true);
  std::vector<tally> tallies(mats.size());
  std::vector<std::future<std::vector<double>>> runs;
  for (std::size_t m = 0; m < mats.size(); ++m)
    runs.push_back(std::async(std::launch::async, [&, m] {
      if (!mats[m].t || !float_exact(*mats[m].t)) return ordered(mats[m].load(), order, 1, sizes, tol, tallies[m]);
      return ordered(channel_rows(mats[m], n, bufs[m]), order, 1, sizes, tol, tallies[m]);
    }));
  for (std::size_t m = 0; m < runs.size(); ++m) {
    const std::vector<double> p = runs[m].get();
    for (std::size_t i = 0; i < p.size(); ++i) prefix[i] += p[i];
    t.matrices += tallies[m].matrices;
    t.floats += tallies[m].floats;
  }
  order_out = std::move(order);
}

/// Fused 3-D expert x's gate, up and down as channel matrices (F rows of length d), each
/// loaded in double when asked (nsc/io/prune_checkpoint.hpp's fused_channel_rows).
inline std::vector<channel_matrix> fused_channel_matrices(const detail::pc::fused_layer& f, std::int64_t x) {
  std::vector<channel_matrix> mats(3);
  for (int m = 0; m < 3; ++m)
    mats[std::size_t(m)].load = [f, x, m] {
      const std::vector<double> r = detail::pc::fused_channel_rows(f, x, m);
      const Eigen::Index n = Eigen::Index(f.F), d = Eigen::Index(r.size()) / std::max<Eigen::Index>(1, n);
      return mat(Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(r.data(), n, d));
    };
  return mats;
}

} // namespace detail::pw

/// The orders (and with settings.values the option values) of every layer of `space` from the
/// checkpoint `in` (the layouts of nsc/io/prune_checkpoint.hpp's layouts(); check tensor names and shapes first with write_pruned_checkpoint's checks, which
/// the CLI runs before the search). Errors: std::invalid_argument "nsc::prune_weight_values:
/// ..." for a missing tensor, non-finite weights, a failed factorisation; the readers'.
inline prune_weight_values_t prune_weight_values(const checkpoint& in, const search::prune_space& space,
                                                 const prune_weight_settings& settings = {}) {
  namespace pw = detail::pw;
  using pw::mat;
  const auto t0 = std::chrono::steady_clock::now();
  const detail::pc::family fam = detail::pc::find_layout(settings.model_type);
  std::map<std::string, const tensor_entry*> by_name; // by canonical name (detail::pc::family::canonical)
  for (const tensor_entry& t : in.tensors) by_name[fam.canonical(t.name, space)] = &t;
  if (fam.transposed)
    throw_invalid_argument(detail::pw::fn, "the " + settings.model_type + " checkpoint stores its weights transposed (Conv1D), which "
                           "--score weights and --criterion spectral do not read yet: use --score shapes and --criterion "
                           "magnitude");
  const channel_orders mag = magnitude_orders(in, space, settings.model_type);
  const bool spectral = settings.criterion == channel_criterion::spectral;
  const double tol = settings.float_tolerance;
  pw::tally tl;
  std::vector<pw::float_buffer> bufs; // the FFN matrices' float32 values, reused layer to layer
  // magnitude: the matrices of a layer on their own threads, each with one OpenBLAS thread
  const detail::cp::small_work_single_thread one_blas_thread(!spectral);
  prune_weight_values_t out;
  out.criterion = settings.criterion;
  out.layers.resize(space.layers.size());
  for (std::size_t l = 0; l < space.layers.size(); ++l) {
    const search::prune_layer_space& ls = space.layers[l];
    const block_spec& b = ls.base;
    layer_weight_values& v = out.layers[l];
    const std::string p = "model.layers." + std::to_string(l) + ".";
    auto load = [&](const std::string& rest) { return pw::load(by_name, p + rest); };
    // a part's rows as the columns of a d x rows matrix (q, k, v of a fused qkv_proj: their rows)
    auto load_part = [&](std::string_view role) {
      const detail::pc::matrix_part m = detail::pc::part_of(fam, b, role);
      if (!m.index.empty()) { // a grouped q/k/v's rows of one role
        const pw::tensor_matrix x = load(m.rest);
        mat part(x.t().rows(), Eigen::Index(m.index.size()));
        for (std::size_t i = 0; i < m.index.size(); ++i) part.col(Eigen::Index(i)) = x.t().col(Eigen::Index(m.index[i]));
        return part;
      }
      return mat(load(m.rest).t().middleCols(m.row0, m.rows));
    };
    // Attention (on its own thread beside the FFN's under the magnitude criterion: both hold
    // OpenBLAS to one thread), then the FFN.
    pw::tally at;
    auto attention = [&] {
      // Attention: which KV head counts, and whether any option drops query heads.
      const std::int64_t H = b.attention.n_heads, K = b.attention.kv_heads(), hd = b.attention.head_size();
      std::map<std::int64_t, bool> ks; // k -> some option with h < H
      std::map<std::int64_t, std::vector<std::int64_t>> heads_of; // k -> the head counts offered
      for (const auto& o : ls.attention)
        if (!o.none && o.heads > 0) ks[o.kv_heads] = ks[o.kv_heads] || o.heads < H, heads_of[o.kv_heads].push_back(o.heads);
      if (!ks.empty() && b.attention.kind == attention_kind::standard) {
        const mat O = load("self_attn.o_proj.weight").t(); // (H hd) x d: head i = rows [i hd, (i + 1) hd)
        if (settings.values || spectral) {
          const mat Q = load_part("q"); // d x (H hd)
          for (std::int64_t i = 0; i < H; ++i) v.q_psi.push_back(pw::psi_rows(Q.middleCols(i * hd, hd).transpose()));
        }
        if (settings.values) {
          const mat Kt = load_part("k"); // d x (K hd)
          const mat Vt = b.attention.k_eq_v ? Kt : load_part("v"); // gemma4's k_eq_v: the values are the keys' projection
          for (const auto& [k, drop] : ks) {
            double s = 0;
            for (const auto& g : detail::pc::kv_groups(K, k)) {
              mat km = mat::Zero(hd, Kt.rows()), vm = mat::Zero(hd, Vt.rows());
              for (std::int64_t x : g) {
                km += Kt.middleCols(x * hd, hd).transpose();
                vm += Vt.middleCols(x * hd, hd).transpose();
              }
              km /= double(g.size());
              vm /= double(g.size());
              s += pw::psi_rows(km) + pw::psi_rows(vm);
            }
            v.kv_value[k] = s;
          }
        }
        std::vector<std::int64_t> natural(static_cast<std::size_t>(H));
        std::iota(natural.begin(), natural.end(), 0);
        bool full_done = false;
        for (const auto& [k, drop] : ks) {
          if (!drop) continue;
          if (spectral) {
            // round-robin over the groups: the group of each step, as detail::pc::round_robin orders them
            std::vector<std::vector<std::int64_t>> cands;
            for (const auto& g : detail::pc::kv_groups(K, k)) cands.push_back(detail::pc::group_candidates(g, H / K));
            std::vector<std::vector<std::int64_t>> marks;
            for (std::size_t j = 0; j < cands.size(); ++j) marks.push_back(std::vector<std::int64_t>(cands[j].size(), std::int64_t(j)));
            const std::vector<std::int64_t> group_of_step = detail::pc::round_robin(marks);
            std::vector<std::int64_t> group_of_head(static_cast<std::size_t>(H), -1);
            for (std::size_t j = 0; j < cands.size(); ++j)
              for (std::int64_t i : cands[j]) group_of_head[std::size_t(i)] = std::int64_t(j);
            auto allowed = [&](std::int64_t u, std::int64_t step) {
              return step < std::int64_t(group_of_step.size()) && group_of_head[std::size_t(u)] == group_of_step[std::size_t(step)];
            };
            prefix_psi_greedy_result r = pw::greedy({[&O] { return O; }}, hd, v.q_psi, allowed, tol, at);
            // the prefix includes the bonuses (psi_W(Q_i)); keep psi_W(O_S) alone
            std::vector<double> op(r.prefix.size(), 0.0);
            double qs = 0;
            for (std::size_t s = 1; s < r.prefix.size(); ++s) {
              qs += v.q_psi[std::size_t(r.order[s - 1])];
              op[s] = r.prefix[s] - qs;
            }
            v.head_order[k] = std::move(r.order);
            v.o_prefix[k] = std::move(op);
          } else {
            v.head_order[k] = mag.heads(l, k);
          }
        }
        if (!spectral && settings.values) { // o_proj in every magnitude order: one Gram
          std::vector<std::vector<std::int64_t>> orders, sizes;
          for (const auto& [k, drop] : ks)
            if (drop) orders.push_back(v.head_order[k]), sizes.push_back(pw::size_list(heads_of[k], H));
          std::vector<std::vector<double>> ps = pw::ordered_many(O, orders, hd, sizes, tol, at);
          std::size_t i = 0;
          for (const auto& [k, drop] : ks)
            if (drop) v.o_prefix[k] = std::move(ps[i++]);
        }
        for (const auto& [k, drop] : ks)
          if (drop && settings.values && !full_done) v.o_full = v.o_prefix[k].back(), full_done = true;
        if (settings.values && !full_done) v.o_full = pw::ordered(O, natural, hd, {H}, tol, at).back();
      }
    };
    std::future<void> attention_run;
    if (spectral) attention();
    else attention_run = std::async(std::launch::async, attention);
    // FFN
    bool ffn_cut = false, ffn_any = false, experts_cut = false;
    std::vector<std::int64_t> widths; // the widths offered
    for (const auto& o : ls.ffn)
      if (!o.none && o.width > 0) {
        ffn_any = true;
        widths.push_back(o.width);
        ffn_cut = ffn_cut || o.width < b.ffn.d_ff;
        experts_cut = experts_cut || (o.experts > 0 && o.experts < b.ffn.n_experts);
      }
    if (ffn_any && b.ffn.kind == ffn_kind::standard && (settings.values || ffn_cut || experts_cut)) {
      const std::int64_t F = b.ffn.d_ff;
      std::vector<std::int64_t> natural(static_cast<std::size_t>(F));
      std::iota(natural.begin(), natural.end(), 0);
      // gate / up: a whole tensor (rest) or a dense layer's part (role "gate" / "up"); down: columns
      auto rows_of = [&](const std::string& name) {
        if (name == "gate" || name == "up") return mat(load_part(name).transpose());
        return mat(load(name).t().transpose()); // F x d
      };
      auto matrix = [&](const std::string& name, bool columns) {
        pw::channel_matrix c;
        std::string rest = name;
        if (name == "gate" || name == "up") {
          const detail::pc::matrix_part m = detail::pc::part_of(fam, b, name);
          rest = m.rest, c.row0 = m.row0;
        }
        c.t = &pw::entry(by_name, p + rest);
        c.columns = columns;
        if (columns) c.load = [&, name] { return mat(load(name).t()); };
        else c.load = [&, name] { return rows_of(name); };
        return c;
      };
      auto one = [&](const std::string& g, const std::string& u, const std::string& d, std::vector<std::int64_t> mag_order,
                     std::vector<std::int64_t>& order, std::vector<double>& prefix) {
        std::vector<pw::channel_matrix> mats;
        if (b.ffn.gated) mats.push_back(matrix(g, false));
        mats.push_back(matrix(u, false));
        mats.push_back(matrix(d, true));
        pw::ffn_values(mats, settings.criterion, std::move(mag_order), pw::size_list(widths, F), tol, tl, bufs, order, prefix);
      };
      if (b.ffn.n_experts > 0) {
        const std::int64_t E = b.ffn.n_experts;
        v.expert_channel_order.resize(std::size_t(E));
        v.expert_prefix.resize(std::size_t(E));
        for (std::int64_t x = 0; x < E && fam.fused_experts(); ++x) // fused 3-D experts: one expert's matrix at a time
          pw::ffn_values(pw::fused_channel_matrices(detail::pc::fused_experts_of(fam, b, by_name, p), x), settings.criterion,
                         !spectral && ffn_cut ? mag.expert_channels(l, x) : natural, pw::size_list(widths, F), tol, tl, bufs,
                         v.expert_channel_order[std::size_t(x)], v.expert_prefix[std::size_t(x)]);
        for (std::int64_t x = 0; x < E && !fam.fused_experts(); ++x)
          one(fam.expert(x, fam.w_gate), fam.expert(x, fam.w_up), fam.expert(x, fam.w_down),
              !spectral && ffn_cut ? mag.expert_channels(l, x) : natural, v.expert_channel_order[std::size_t(x)],
              v.expert_prefix[std::size_t(x)]);
        if (!spectral && (experts_cut || settings.values)) v.expert_magnitude_order = mag.experts(l, F);
        v.router = load(fam.router()).t(); // d x E
        if (settings.values && b.ffn.shared_d_ff > 0) { // kept whole in every option with the FFN
          const std::int64_t S = b.ffn.shared_d_ff;
          std::vector<std::int64_t> all(static_cast<std::size_t>(S));
          std::iota(all.begin(), all.end(), 0);
          if (fam.shared_fused) { // [gate; up] rows (granitemoehybrid's shared_mlp)
            const mat gu = mat(load(std::string(fam.shared) + "gate_up_proj.weight").t().transpose());
            v.shared += pw::ordered(mat(gu.topRows(S)), all, 1, {S}, tol, tl).back() +
                        pw::ordered(mat(gu.bottomRows(S)), all, 1, {S}, tol, tl).back();
          }
          for (const char* m : {"gate_proj", "up_proj"})
            if (!fam.shared_fused)
              v.shared += pw::ordered(mat(load(std::string(fam.shared) + m + ".weight").t().transpose()), all, 1, {S}, tol, tl).back();
          v.shared += pw::ordered(mat(load(std::string(fam.shared) + "down_proj.weight").t()), all, 1, {S}, tol, tl).back();
          if (b.ffn.shared_gate) v.shared += pw::psi_rows(load(std::string(fam.shared_gate)).t().transpose());
        }
      } else {
        one(b.ffn.gated ? "gate" : "", "up", "mlp.down_proj.weight",
            spectral ? natural : (ffn_cut ? mag.channels(l) : natural), v.channel_order, v.ffn_prefix);
      }
    }
    if (attention_run.valid()) attention_run.get();
    tl.matrices += at.matrices;
    tl.floats += at.floats;
    if (settings.progress) settings.progress(l + 1, space.layers.size());
  }
  out.matrices = tl.matrices;
  out.float_matrices = tl.floats;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

/// The expert order of a MoE layer for experts of width w: magnitude's, or (spectral) the
/// largest values at w first (ties: the lower index).
inline std::vector<std::int64_t> weight_expert_order(const prune_weight_values_t& v, std::size_t l, std::int64_t w) {
  const layer_weight_values& x = v.layers.at(l);
  if (v.criterion == channel_criterion::magnitude) return x.expert_magnitude_order;
  std::vector<double> s;
  for (const auto& p : x.expert_prefix) s.push_back(p.at(std::size_t(w)));
  return detail::pc::ranking(s);
}

/// Every option's value (nsc) in `space` := psi_W of what it keeps (the file comment);
/// space.fixed_nsc := 0. `v` must come from prune_weight_values(..., space, {values = true}).
inline void apply_weight_scores(search::prune_space& space, const prune_weight_values_t& v) {
  constexpr std::string_view fn = "nsc::apply_weight_scores";
  if (v.layers.size() != space.layers.size()) throw_invalid_argument(fn, "the values are of another space (layer count)", v.layers.size());
  space.fixed_nsc = 0;
  for (std::size_t l = 0; l < space.layers.size(); ++l) {
    search::prune_layer_space& ls = space.layers[l];
    const layer_weight_values& x = v.layers[l];
    const std::int64_t H = ls.base.attention.n_heads;
    for (auto& o : ls.attention) {
      if (o.none) {
        o.nsc = 0;
        continue;
      }
      if (o.heads == 0) continue; // not standard attention: kept as scored
      double s = x.kv_value.at(o.kv_heads);
      if (o.heads < H) {
        const std::vector<std::int64_t>& ord = x.head_order.at(o.kv_heads);
        for (std::int64_t i = 0; i < o.heads; ++i) s += x.q_psi.at(std::size_t(ord[std::size_t(i)]));
        s += x.o_prefix.at(o.kv_heads).at(std::size_t(o.heads));
      } else {
        for (double q : x.q_psi) s += q;
        s += x.o_full;
      }
      o.nsc = s;
    }
    std::map<std::int64_t, std::vector<double>> router_prefix; // per width (spectral) or one (magnitude)
    for (auto& o : ls.ffn) {
      if (o.none) {
        o.nsc = 0;
        continue;
      }
      if (ls.base.ffn.kind != ffn_kind::standard) continue;
      if (o.experts == 0) {
        o.nsc = x.ffn_prefix.at(std::size_t(o.width));
        continue;
      }
      const std::vector<std::int64_t> ord = weight_expert_order(v, l, o.width);
      const std::int64_t key = v.criterion == channel_criterion::magnitude ? 0 : o.width;
      if (!router_prefix.count(key)) router_prefix[key] = prefix_psi_ordered<double>(x.router.transpose(), ord, 1);
      double s = router_prefix[key].at(std::size_t(o.experts)) + x.shared;
      for (std::int64_t i = 0; i < o.experts; ++i) s += x.expert_prefix.at(std::size_t(ord[std::size_t(i)])).at(std::size_t(o.width));
      o.nsc = s;
    }
  }
}

/// The orders of `v` as channel_orders (write_pruned_checkpoint's settings.orders).
inline std::shared_ptr<const channel_orders> weight_orders(std::shared_ptr<const prune_weight_values_t> v) {
  auto o = std::make_shared<channel_orders>();
  o->heads = [v](std::size_t l, std::int64_t k) { return v->layers.at(l).head_order.at(k); };
  o->channels = [v](std::size_t l) { return v->layers.at(l).channel_order; };
  o->experts = [v](std::size_t l, std::int64_t w) { return weight_expert_order(*v, l, w); };
  o->expert_channels = [v](std::size_t l, std::int64_t x) { return v->layers.at(l).expert_channel_order.at(std::size_t(x)); };
  return o;
}

} // namespace nsc::io

#endif // NSC_IO_PRUNE_WEIGHTS_HPP
