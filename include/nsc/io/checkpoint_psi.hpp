/// \file nsc/io/checkpoint_psi.hpp
/// psi_W of every weight matrix of a safetensors checkpoint, per matrix and per scored block,
/// next to psi at initialisation; and the NSC of a network with psi_W in place of psi_MP.
/// Needs nsc::eigen (through nsc/spectral/eigen_backend.hpp) and nlohmann-json.
///
/// Synopsis
///
///     scoring        scoring_for_init(name, initializer_range, estimator)   (nsc/model/score.hpp)
///     weights_report psi_w_report(checkpoint, family, geometry, options)
///     network_score  score_with_weights(network, scoring, report)
///
/// Memory: one tensor at a time, converted to double (its size in double), plus the Gram
/// matrix of the largest block (min(m, n)^2 doubles): for a 4096 x 11008 matrix 361 MB +
/// 134 MB, well under twice the tensor in double.
/// Parallelism: one tensor at a time, in checkpoint order (memory). With OpenBLAS
/// (EIGEN_USE_BLAS, target nsc::eigen_blas) the products and the factorisation use OpenBLAS's
/// threads and blocks run one after the other. Header-only with OpenMP (nsc::eigen_openmp) the
/// blocks of one tensor (per-head Q/K/V, fused parts) run in parallel, Eigen's own products
/// staying single-threaded inside the parallel region (Eigen checks omp_in_parallel), and a
/// whole matrix uses Eigen's OpenMP products (the tiled Gram product): never more threads than
/// cores. OpenMP is not combined with OpenBLAS: OpenMP's spinning workers and OpenBLAS's
/// threads fight for the cores (nsc weights ran 18x slower so on a loaded 2-core machine).
#ifndef NSC_IO_CHECKPOINT_PSI_HPP
#define NSC_IO_CHECKPOINT_PSI_HPP

#include <nsc/io/safetensors.hpp>
#include <nsc/io/weight_map.hpp>
#include <nsc/model/network.hpp>
#include <nsc/model/score.hpp>
#include <nsc/spectral/eigen_backend.hpp>
#include <nsc/spectral/init.hpp>
#include <nsc/spectral/psi.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>


#if defined(NSC_HAVE_OPENBLAS)
extern "C" {
void openblas_set_num_threads(int);
int openblas_get_num_threads(void);
}
#endif

namespace nsc::io {

/// Options of psi_w_report.
struct psi_w_report_options {
  /// Initialisation convention for psi at init (the scoring nsc score uses by default:
  /// Xavier-normal of each block, psi_MP).
  scoring init_scoring{};
  /// Force the SVD for every block (slow; the reference route).
  bool svd = false;
  /// Relative accuracy demanded of the Cholesky route (its error estimate, see
  /// nsc::psi_w_detailed); a block above it is recomputed by the automatic route (eigenvalues
  /// of G or SVD).
  double accuracy = 1e-9;
  /// Called after each matrix with (matrices done, matrices total, bytes done, bytes total).
  std::function<void(std::size_t, std::size_t, std::uint64_t, std::uint64_t)> progress;
};

/// psi of one scored block.
struct block_psi {
  matrix_block block;
  double psi_w = 0;
  double psi_init = 0;
  psi_w_method route = psi_w_method::cholesky;
  double error_estimate = 0; ///< the route's relative error estimate (0 for svd)
};

/// psi of one checkpoint matrix (the sum over its scored blocks).
struct matrix_psi {
  mapped_matrix matrix;
  std::string dtype;
  std::string file;
  std::vector<std::int64_t> shape; ///< as stored
  double psi_w = 0;
  double psi_init = 0;
  double seconds = 0; ///< wall time of reading, converting and psi_W
  std::vector<block_psi> blocks;
};

/// psi_w_report's answer.
struct weights_report {
  std::string model_type;          ///< "" without a config
  std::string family;              ///< the name table used ("" if none)
  std::vector<matrix_psi> matrices; ///< checkpoint order
  std::vector<std::string> skipped; ///< tensors not reported (not 2-D or not floating), "name (reason)"
  double psi_w = 0, psi_init = 0, seconds = 0;
};

namespace detail::cp {

inline constexpr std::string_view fn = "nsc::psi_w_report";

/// RAII: OpenBLAS held to one thread for a tensor whose blocks are all small (p^2 q below
/// 2^28 flops, e.g. a 128 x 4096 head or a 256 x 688 matrix): OpenBLAS's threads cost more than
/// they save there, and on a loaded machine they spin (a 56-matrix checkpoint took 16 s with 2
/// threads, 0.3 s with 1). A no-op unless NSC_HAVE_OPENBLAS (set by nsc::eigen_blas).
struct small_work_single_thread {
#if defined(NSC_HAVE_OPENBLAS)
  int saved = 0;
  explicit small_work_single_thread(bool small) {
    if (small) {
      saved = openblas_get_num_threads();
      openblas_set_num_threads(1);
    }
  }
  ~small_work_single_thread() {
    if (saved > 0) openblas_set_num_threads(saved);
  }
#else
  explicit small_work_single_thread(bool) {}
#endif
  small_work_single_thread(const small_work_single_thread&) = delete;
  small_work_single_thread& operator=(const small_work_single_thread&) = delete;
};

inline double init_psi(const matrix_block& b, const mapped_matrix& m, const scoring& s) {
  const init& ini = s.initialisation;
  const fans<double> f = s.source == variance_source::block
                             ? linear_fans(double(b.rows), double(b.cols))
                             : linear_fans(double(m.out), double(m.in));
  return psi(double(b.rows), double(b.cols), moments(ini, f, default_policy()), s.est,
             default_policy());
}

/// The first non-finite entry of a row-major (rows x cols) buffer: refuses it by name.
inline void check_finite_tensor(const std::vector<double>& v, const tensor_entry& t) {
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]) && bad++ == 0) first = i;
  if (bad == 0) return;
  const std::int64_t cols = t.shape.size() == 2 ? t.shape[1] : 1;
  throw_input_error(fn, t.file.string(),
                    "tensor '" + excerpt(t.name, 100) + "': " + std::to_string(bad) +
                        " non-finite entries (first at row " + std::to_string(first / std::size_t(cols)) +
                        ", column " + std::to_string(first % std::size_t(cols)) + ": " +
                        (std::isnan(v[first]) ? "nan" : v[first] > 0 ? "inf" : "-inf") +
                        "); psi_W is defined for finite matrices only");
}

} // namespace detail::cp

/// psi_W of every 2-D floating tensor of `ck`, mapped by `family` (nullptr: every matrix whole
/// by name) with the head geometry `g`, each block's psi at initialisation under
/// options.init_scoring, and the totals. psi_W of a block: nsc::psi_w_detailed by Cholesky
/// (svd with options.svd), recomputed by the automatic route when the Cholesky estimate exceeds
/// options.accuracy; accumulated in double. Non-2-D tensors and integer / FP8 tensors are
/// listed in `skipped`. Errors (std::invalid_argument naming the file and tensor): the reader's
/// (nsc/io/safetensors.hpp), a tensor with non-finite entries, a split layout that does not fit
/// (map_tensor).
inline weights_report psi_w_report(const checkpoint& ck, const family_rules* family,
                                   const weight_geometry& g,
                                   const psi_w_report_options& options = {}) {
  namespace cp = detail::cp;
  using clock = std::chrono::steady_clock;
  weights_report rep;
  rep.model_type = g.model_type;
  rep.family = family ? std::string(family->name) : std::string();
  std::vector<std::pair<const tensor_entry*, mapped_matrix>> todo;
  std::uint64_t total_bytes = 0;
  for (const tensor_entry& t : ck.tensors) {
    if (!safetensors_dtype_is_float(t.dtype)) {
      rep.skipped.push_back(t.name + " (dtype " + t.dtype + ")");
      continue;
    }
    auto m = map_tensor(t.name, t.shape, family, g);
    if (!m) {
      rep.skipped.push_back(t.name + " (" + std::to_string(t.shape.size()) + "-D)");
      continue;
    }
    total_bytes += t.end - t.begin;
    todo.emplace_back(&t, std::move(*m));
  }
  const auto start_all = clock::now();
  std::uint64_t done_bytes = 0;
  for (std::size_t k = 0; k < todo.size(); ++k) {
    const tensor_entry& t = *todo[k].first;
    const auto start = clock::now();
    matrix_psi r;
    r.matrix = std::move(todo[k].second);
    r.dtype = t.dtype;
    r.file = t.file.string();
    r.shape = t.shape;
    const std::vector<double> data = read_tensor(t);
    cp::check_finite_tensor(data, t);
    // Row-major (R, C) storage seen column-major is its transpose: (C, R). For a tensor stored
    // (out, in) that is W^T; for a transposed (Conv1D, stored (in, out)) one it is W.
    const Eigen::Map<const Eigen::MatrixXd> stored(data.data(), Eigen::Index(t.shape[1]),
                                                   Eigen::Index(t.shape[0]));
    const mapped_matrix& m = r.matrix;
    r.blocks.resize(m.blocks.size());
    double largest = 0; // flops of the largest block's Gram product, p^2 q
    for (const matrix_block& b : m.blocks) {
      const double p = double(std::min(b.rows, b.cols)), q = double(std::max(b.rows, b.cols));
      largest = std::max(largest, p * p * q);
    }
    const cp::small_work_single_thread threads(largest < double(1 << 28));
    auto one = [&](std::size_t i) {
      const matrix_block& b = m.blocks[i];
      const auto block = m.transposed ? stored.block(b.row0, b.col0, b.rows, b.cols)
                                      : stored.block(b.col0, b.row0, b.cols, b.rows);
      auto d = psi_w_detailed(block, options.svd ? psi_w_method::svd : psi_w_method::cholesky);
      if (!options.svd && d.used == psi_w_method::cholesky && d.gram_error_estimate > options.accuracy)
        d = psi_w_detailed(block, psi_w_method::automatic);
      r.blocks[i] = {b, d.value, cp::init_psi(b, m, options.init_scoring), d.used,
                     d.gram_error_estimate};
    };
#if defined(_OPENMP) && !defined(EIGEN_USE_BLAS)
    if (m.blocks.size() > 1) {
      std::exception_ptr error;
#pragma omp parallel for schedule(dynamic)
      for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(m.blocks.size()); ++i) {
        try {
          one(std::size_t(i));
        } catch (...) {
#pragma omp critical(nsc_psi_w_report_error)
          if (!error) error = std::current_exception();
        }
      }
      if (error) std::rethrow_exception(error);
    } else {
      one(0);
    }
#else
    for (std::size_t i = 0; i < m.blocks.size(); ++i) one(i);
#endif
    for (const block_psi& b : r.blocks) {
      r.psi_w += b.psi_w;
      r.psi_init += b.psi_init;
    }
    r.seconds = std::chrono::duration<double>(clock::now() - start).count();
    rep.psi_w += r.psi_w;
    rep.psi_init += r.psi_init;
    rep.matrices.push_back(std::move(r));
    done_bytes += t.end - t.begin;
    if (options.progress) options.progress(k + 1, todo.size(), done_bytes, total_bytes);
  }
  rep.seconds = std::chrono::duration<double>(clock::now() - start_all).count();
  return rep;
}

/// NSC of `net` with psi_W from `report` in place of psi at initialisation: every scored
/// weight of a layer named "layers.<i>" takes the sum of psi_W over the report's blocks of
/// layer i whose kind is the weight's name (q_proj, k_proj, v_proj, o_proj, gate_proj,
/// up_proj, down_proj, router; fused checkpoint tensors contribute their parts), and the
/// number of those blocks must equal the weight's scored blocks (per-head Q/K/V, whole o_proj,
/// one per expert). Weights that are not scored under `s` stay 0. Throws std::invalid_argument
/// "nsc::score_with_weights: layer <name>: <weight>: ..." when the checkpoint has no such
/// matrix or a different number of blocks (e.g. --qkv merged against per-head blocks).
/// A run of identical layers (layer::repeat) is expanded first (expand(): a checkpoint holds
/// every layer's tensors, so psi_W differs per layer): the result has one entry per layer.
inline network_score score_with_weights(const network& net_in, const scoring& s,
                                        const weights_report& report) {
  constexpr std::string_view fn = "nsc::score_with_weights";
  struct acc {
    double psi = 0;
    std::int64_t blocks = 0;
  };
  std::map<std::pair<std::int64_t, std::string>, acc> by_kind;
  for (const matrix_psi& m : report.matrices)
    for (const block_psi& b : m.blocks) {
      acc& a = by_kind[{m.matrix.layer, b.block.kind}];
      a.psi += b.psi_w;
      ++a.blocks;
    }
  validate(net_in);
  const network net = expand(net_in);
  network_score ns;
  for (const layer& l : net.layers) {
    layer_score ls;
    ls.name = l.name;
    std::int64_t index = -1;
    if (l.name.rfind("layers.", 0) == 0) index = std::stoll(l.name.substr(7));
    for (const weight& w : l.weights) {
      if (!is_scored(w, s)) continue;
      const auto it = by_kind.find({index, w.name});
      if (index < 0 || it == by_kind.end())
        throw_invalid_argument(fn, "layer " + l.name + ": " + w.name +
                                       ": the checkpoint has no matrix for this scored weight");
      if (double(it->second.blocks) != w.blocks())
        throw_invalid_argument(fn, "layer " + l.name + ": " + w.name + ": the checkpoint gives " +
                                       std::to_string(it->second.blocks) +
                                       " blocks but the scoring splits it into " +
                                       std::to_string(std::int64_t(w.blocks())) +
                                       " (psi_W is split per head for Q/K/V, whole for o_proj "
                                       "and the FFN, one per expert)");
      ls.by_part[static_cast<std::size_t>(w.kind)] += it->second.psi;
      ls.nsc += it->second.psi;
    }
    for (std::size_t i = 0; i < part_count; ++i) ns.by_part[i] += ls.by_part[i];
    ns.nsc += ls.nsc;
    ns.layers.push_back(std::move(ls));
  }
  return ns;
}

/// score_with_weights of the checkpoint at `checkpoint_path` (open_checkpoint) mapped with the
/// config at `config_path` (read_weight_geometry, find_family): what `nsc score CONFIG
/// --weights PATH` prints. psi_W by psi_w_report's default options. Errors as open_checkpoint,
/// psi_w_report and score_with_weights; a model_type without a name table is refused.
inline network_score score_with_checkpoint(const network& net, const scoring& s,
                                           const std::filesystem::path& config_path,
                                           const std::filesystem::path& checkpoint_path) {
  const weight_geometry g = read_weight_geometry(read_json_file(config_path, "nsc::score_with_checkpoint"));
  const family_rules* family = find_family(g.model_type);
  if (!family)
    throw_invalid_argument("nsc::score_with_checkpoint",
                           config_path.string() + ": model_type has no tensor name table",
                           g.model_type);
  return score_with_weights(net, s, psi_w_report(open_checkpoint(checkpoint_path), family, g));
}

} // namespace nsc::io

#endif // NSC_IO_CHECKPOINT_PSI_HPP
