/// \file nsc/model/score.hpp
/// NSC of a network: psi per scored block under a scoring convention, summed per layer, with a
/// per-layer and per-part breakdown and the comparison aggregations (math.md section 5).
///
///     scoring        initialisation, where the variance comes from, estimator, embeddings
///     psi_of(w, s)   psi of one weight (all its blocks)
///     score(net, s)  network_score { nsc, layers[], by_part[] }
///     aggregate      sum (default; the only additive rule, the one NSC-DP needs),
///                    bottleneck (min over layers), product, harmonic mean (for comparison)
///     psi_cache      memoises psi by (block shape, moments, estimator)
#ifndef NSC_MODEL_SCORE_HPP
#define NSC_MODEL_SCORE_HPP

#include <nsc/model/network.hpp>
#include <nsc/spectral/psi.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace nsc {

/// Where a block's entry variance comes from.
///  * block:  the scored block's own fans, as if it were a Linear(block_cols -> block_rows).
///            This is what the paper's reference code does ("psi_X of that very block").
///  * tensor: the fans PyTorch uses for the whole weight tensor (framework-faithful: a per-head
///            block of a (H d_h, d) q_proj initialised by xavier has the variance of the
///            whole matrix, and a depthwise kernel has fan_in = k^2, fan_out = c_out k^2).
enum class variance_source { block, tensor };

constexpr std::string_view to_string(variance_source s) noexcept {
  return s == variance_source::block ? "block" : "tensor";
}

/// A scoring convention. The default reproduces the paper's main setting: Xavier-normal of each
/// scored block, psi_MP, embeddings and LM heads not scored.
struct scoring {
  init initialisation = init::xavier_normal();
  variance_source source = variance_source::block;
  estimator est = estimator::mp;
  bool score_embeddings = false; ///< score weights of part::embedding and part::head
};

/// Memoises psi by (block rows, block cols, variance, excess kurtosis, orthogonal gain,
/// estimator). Not thread-safe; one per thread.
class psi_cache {
public:
  template <class F>
  double get(double rows, double cols, const entry_moments<double>& m, estimator e, F compute) {
    const key k{rows, cols, m.variance, m.kurtosis_excess, m.orthogonal ? m.gain : -1.0, e};
    auto it = map_.find(k);
    if (it != map_.end()) return it->second;
    const double v = compute();
    map_.emplace(k, v);
    return v;
  }
  std::size_t size() const noexcept { return map_.size(); }
  void clear() noexcept { map_.clear(); }

private:
  struct key {
    double rows, cols, variance, kappa, gain;
    estimator est;
    bool operator==(const key&) const = default;
  };
  struct key_hash {
    std::size_t operator()(const key& k) const noexcept {
      std::size_t h = std::hash<double>{}(k.rows);
      for (double d : {k.cols, k.variance, k.kappa, k.gain})
        h = h * 0x9E3779B97F4A7C15ULL + std::hash<double>{}(d);
      return h * 31 + static_cast<std::size_t>(k.est);
    }
  };
  std::unordered_map<key, double, key_hash> map_;
};

/// Is this weight scored under `s`?
inline bool is_scored(const weight& w, const scoring& s) {
  if (!w.scored) return false;
  if (!s.score_embeddings && (w.kind == part::embedding || w.kind == part::head)) return false;
  return true;
}

/// The scoring convention named as `nsc score --init` names it: "hf" is Hugging Face's own
/// normal(0, initializer_range^2) with the variance of the whole tensor (nsc::hf_scoring);
/// any torch.nn.init name (nsc::parse_init_kind) is that initialisation with each block's own
/// fans (variance_source::block, the paper's), normal and truncated_normal with std =
/// initializer_range. Default "xavier_normal": the scoring nsc score uses by default.
/// Throws std::invalid_argument for an unknown name (parse_init_kind's message).
inline scoring scoring_for_init(std::string_view name, double initializer_range,
                                estimator est = estimator::mp) {
  scoring s;
  s.est = est;
  if (name == "hf") {
    s.initialisation = init::normal(initializer_range);
    s.source = variance_source::tensor;
    return s;
  }
  s.source = variance_source::block;
  switch (parse_init_kind(name)) {
  case init_kind::xavier_normal: s.initialisation = init::xavier_normal(); break;
  case init_kind::xavier_uniform: s.initialisation = init::xavier_uniform(); break;
  case init_kind::kaiming_normal: s.initialisation = init::kaiming_normal(); break;
  case init_kind::kaiming_uniform: s.initialisation = init::kaiming_uniform(); break;
  case init_kind::torch_default: s.initialisation = init::torch_default(); break;
  case init_kind::normal: s.initialisation = init::normal(initializer_range); break;
  case init_kind::truncated_normal: s.initialisation = init::truncated_normal(initializer_range); break;
  case init_kind::orthogonal: s.initialisation = init::orthogonal(); break;
  }
  return s;
}

/// psi of ONE block of `w` (0 if it is not scored): psi(block_rows, block_cols) with the
/// variance of the weight's own initialisation if it has one, else the convention's, and fans
/// per `s.source`. Domain errors from the spectral layer propagate (std::domain_error).
inline double block_psi(const weight& w, const scoring& s, psi_cache* cache = nullptr) {
  if (!is_scored(w, s)) return 0;
  const init& ini = w.initialisation ? *w.initialisation : s.initialisation;
  const fans<double> f = s.source == variance_source::block ? w.block_fans() : w.tensor_fans();
  const entry_moments<double> m = moments(ini, f, default_policy());
  const double r = w.block_rows(), c = w.block_cols();
  auto compute = [&] { return psi(r, c, m, s.est, default_policy()); };
  return cache ? cache->get(r, c, m, s.est, compute) : compute();
}

/// psi of all blocks of `w` (0 if it is not scored): blocks * block_psi(w, s).
inline double psi_of(const weight& w, const scoring& s, psi_cache* cache = nullptr) {
  return w.blocks() * block_psi(w, s, cache);
}

constexpr std::size_t part_count = 7;

/// Score of one layer with its per-part breakdown (indexed by static_cast<size_t>(part)). For a
/// layer entry with repeat r (a run of r identical layers) nsc and by_part are those of ONE of
/// its layers and `repeat` = r: the run contributes repeat * nsc to the network's NSC.
struct layer_score {
  std::string name;
  double nsc = 0;
  std::array<double, part_count> by_part{};
  std::int64_t repeat = 1; ///< layers of the entry (layer::repeat)
};

/// Aggregation rules across layers.
enum class aggregation { sum, bottleneck, product, harmonic };

constexpr std::string_view to_string(aggregation a) noexcept {
  switch (a) {
  case aggregation::sum: return "sum";
  case aggregation::bottleneck: return "bottleneck";
  case aggregation::product: return "product";
  case aggregation::harmonic: return "harmonic";
  }
  return "?";
}

/// NSC of a network with its breakdowns.
struct network_score {
  double nsc = 0; ///< sum over layers (repeat x each entry's score)
  std::vector<layer_score> layers;
  std::array<double, part_count> by_part{};
  double part_total(part p) const { return by_part[static_cast<std::size_t>(p)]; }
};

/// Score of one layer: the sum of psi_of over its weights, of ONE layer of the entry (repeat is
/// copied into the result, not multiplied in).
inline layer_score score(const layer& l, const scoring& s = {}, psi_cache* cache = nullptr) {
  layer_score ls;
  ls.name = l.name;
  ls.repeat = l.repeat;
  for (const weight& w : l.weights) {
    const double v = psi_of(w, s, cache);
    ls.by_part[static_cast<std::size_t>(w.kind)] += v;
    ls.nsc += v;
  }
  return ls;
}

/// NSC(net) = sum over layers of the sum of psi over the layer's scored blocks; an entry with
/// repeat r contributes r times its layer's score (one entry of ns.layers per entry of net; runs
/// up to repeat_sum_max layers added layer by layer, bitwise equal to the expanded network).
/// Validates the network first (std::invalid_argument naming the layer and the rule).
inline network_score score(const network& net, const scoring& s = {},
                           psi_cache* cache = nullptr) {
  validate(net);
  network_score ns;
  ns.layers.reserve(net.layers.size());
  for (const layer& l : net.layers) {
    layer_score ls = score(l, s, cache);
    if (l.repeat <= repeat_sum_max) { // layer by layer: bitwise what the expanded network gives
      for (std::int64_t k = 0; k < l.repeat; ++k) {
        for (std::size_t i = 0; i < part_count; ++i) ns.by_part[i] += ls.by_part[i];
        ns.nsc += ls.nsc;
      }
    } else {
      const double r = double(l.repeat);
      for (std::size_t i = 0; i < part_count; ++i) ns.by_part[i] += r * ls.by_part[i];
      ns.nsc += r * ls.nsc;
    }
    ns.layers.push_back(std::move(ls));
  }
  return ns;
}

/// Aggregates the layer scores of `ns` over the layers whose score is > 0 (layers with nothing
/// scored, e.g. an unscored embedding, are skipped); an entry with repeat r counts as r layers:
///   sum         sum_l s_l (equals ns.nsc)
///   bottleneck  min_l s_l
///   product     prod_l s_l (a run: s^r; may overflow to +inf for very deep networks: compare
///               logs then)
///   harmonic    L / sum_l (1 / s_l)
/// A network with no scored layer gives 0 for every rule.
inline double aggregate(const network_score& ns, aggregation a) {
  double acc = a == aggregation::product ? 1.0 : 0.0;
  double mn = 0;
  double n = 0;
  double inv = 0;
  for (const layer_score& l : ns.layers) {
    if (!(l.nsc > 0)) continue;
    const bool first = n == 0;
    if (l.repeat <= repeat_sum_max) { // layer by layer, as the expanded network
      for (std::int64_t k = 0; k < l.repeat; ++k) {
        n += 1;
        switch (a) {
        case aggregation::sum: acc += l.nsc; break;
        case aggregation::product: acc *= l.nsc; break;
        case aggregation::bottleneck: break;
        case aggregation::harmonic: inv += 1 / l.nsc; break;
        }
      }
    } else {
      const double r = double(l.repeat);
      n += r;
      switch (a) {
      case aggregation::sum: acc += r * l.nsc; break;
      case aggregation::product: acc *= std::pow(l.nsc, r); break;
      case aggregation::bottleneck: break;
      case aggregation::harmonic: inv += r / l.nsc; break;
      }
    }
    if (a == aggregation::bottleneck) mn = first ? l.nsc : std::min(mn, l.nsc);
  }
  if (n == 0) return 0;
  switch (a) {
  case aggregation::bottleneck: return mn;
  case aggregation::harmonic: return n / inv;
  default: return acc;
  }
}

} // namespace nsc

#endif // NSC_MODEL_SCORE_HPP
