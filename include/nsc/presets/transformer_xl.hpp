/// \file nsc/presets/transformer_xl.hpp
/// Transformer-XL presets: the NSC-DP search convention of the paper's reference code, and the
/// LiteTransformerSearch (LTS) tabular convention of `shared/data/lts-archai`.
///
/// Both score with psi_.02 (psi_MP of i.i.d. N(0, 0.02^2) entries, no truncation correction),
/// Transformer-XL's own initialisation std. Head counts never change a matrix shape here when
/// they divide d_model. Embeddings and the adaptive softmax are never scored or counted.
///
/// (a) Search convention (reference-conventions.md, "Transformer-XL (search)"):
///
///     per layer   psi_.02(3d, d)  merged Q, K, V
///               + psi_.02(d, d)   output projection
///               + 2 psi_.02(d_inner, d)   FFN up and down
///     #Params     L (4 d^2 + 9 d) + sum_l d_inner_l (2 d + 1)      (the search's own count)
///
///   transformer_xl_search(arch) builds a network whose count(net).total() is exactly this:
///   weights 3d^2 (qkv) + d^2 (o) + 2 d d_inner (FFN); biases 3d (qkv) + d (o) + d_inner + d
///   (FFN); norm_params 4d (two LayerNorms). Nothing goes to other_params. (This is a GPT-2-like
///   split of the search's formula: it leaves out LTS's r_net and r_w/r_r biases, see (b).)
///   Known answers (tests): d = 512, L = 18, d_inner = 1152 -> NSC 12391.756, 40,211,712 params;
///   human baseline d = 410, L = 16, d_inner = 2100 -> NSC 11184.19, 38,403,040 params.
///
/// (b) LTS tabular convention (lts-archai/SOURCE.md; archai `MemTransformerLM`, attn_type 0):
///   per layer i with h_i heads of e_i = d / h_i (floor):
///
///     params_Attn         = sum_i (5 d h_i e_i + 2 d)        qkv_net, r_net, o_net; attention LayerNorm
///     params_FFN          = sum_i (2 d d_inner_i + d_inner_i + d)
///     params_nonembedding = Attn + FFN + sum_i 2 d (FFN LayerNorm) + sum_i 2 h_i e_i (r_w, r_r biases)
///
///   equal to the CSV's params_nonembedding on every row of both TransXL CSVs (tested).
///   transformer_xl_lts(arch) builds the network: qkv_net (3 h e, d), r_net (h e, d), o_net
///   (d, h e), all without bias; FFN (d_inner, d) and (d, d_inner) with bias; norm_params 4d;
///   other_params 2 h e (r_w_bias, r_r_bias).
///
///   NSC of an LTS row: which matrices are scored is a choice (the reference has no TXL-LTS
///   convention). Default `transformer_xl_lts_attention::merged` = the search convention
///   above: psi_.02(3 h e, d) + psi_.02(d, h e) + psi_.02(d_inner, d) + psi_.02(d, d_inner);
///   r_net is NOT scored (it projects the sinusoidal relative-position embeddings, not the
///   token stream, and the search convention leaves it out). `per_head` scores Q, K, V per
///   head instead, like the reference's GPT-2 convention: 3 h psi_.02(e, d) + psi_.02(d, h e) + FFN.
#ifndef NSC_PRESETS_TRANSFORMER_XL_HPP
#define NSC_PRESETS_TRANSFORMER_XL_HPP

#include <nsc/error_handling.hpp>
#include <nsc/presets/preset.hpp>
#include <nsc/model/network.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/spectral/psi.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>


namespace nsc::presets {

/// Transformer-XL's initialisation std (NVIDIA / archai `init_std`), used by both conventions.
inline constexpr double transformer_xl_init_std = 0.02;

// =============================================================================================
// (a) the NSC-DP search convention
// =============================================================================================

/// A Transformer-XL of the search: model width and one FFN width per layer (L = d_inner.size()).
/// Head count plays no part in this convention.
struct transformer_xl_search_arch {
  std::int64_t d_model = 0;
  std::vector<std::int64_t> d_inner;
  std::size_t n_layer() const noexcept { return d_inner.size(); }
};

/// d_model, n_layer layers of width d_inner.
inline transformer_xl_search_arch transformer_xl_search_uniform(std::int64_t d_model,
                                                                std::int64_t n_layer,
                                                                std::int64_t d_inner) {
  detail::require(n_layer >= 1, "nsc::presets::transformer_xl_search_uniform",
                  "n_layer must be >= 1", n_layer);
  return {d_model, std::vector<std::int64_t>(static_cast<std::size_t>(n_layer), d_inner)};
}

/// The architecture NSC-DP finds at 38.4M +- 5%: d = 512, L = 18, d_inner = 1152 everywhere.
inline transformer_xl_search_arch transformer_xl_nsc_dp_answer() {
  return transformer_xl_search_uniform(512, 18, 1152);
}

/// The human-designed baseline of the search: d = 410, L = 16, d_inner = 2100.
inline transformer_xl_search_arch transformer_xl_human_baseline() {
  return transformer_xl_search_uniform(410, 16, 2100);
}

namespace detail {
inline void check_txl_search_layer(std::int64_t d_model, std::int64_t d_inner, std::string_view fn) {
  require(d_model >= 1, fn, "d_model must be >= 1", d_model);
  require(d_inner >= 1, fn, "d_inner must be >= 1", d_inner);
}
inline void check_txl_search(const transformer_xl_search_arch& a, std::string_view fn) {
  require(!a.d_inner.empty(), fn, "the architecture needs at least one layer", a.d_inner.size());
  for (std::int64_t di : a.d_inner) check_txl_search_layer(a.d_model, di, fn);
}
} // namespace detail

/// One layer's score in the search convention:
/// psi_.02(3d, d) + psi_.02(d, d) + psi_.02(d_inner, d) + psi_.02(d, d_inner)
/// (the last two are equal: "2 psi_.02(d_inner, d)"). Summed in the network's weight order.
inline double transformer_xl_search_layer_score(std::int64_t d_model, std::int64_t d_inner) {
  detail::check_txl_search_layer(d_model, d_inner, "nsc::presets::transformer_xl_search_layer_score");
  const double d = double(d_model), f = double(d_inner), s = transformer_xl_init_std;
  double v = psi_normal(3 * d, d, s);
  v += psi_normal(d, d, s);
  v += psi_normal(f, d, s);
  v += psi_normal(d, f, s);
  return v;
}

/// One layer's parameters in the search's count: 4 d^2 + 9 d + d_inner (2 d + 1).
inline std::int64_t transformer_xl_search_layer_params(std::int64_t d_model, std::int64_t d_inner) {
  detail::check_txl_search_layer(d_model, d_inner, "nsc::presets::transformer_xl_search_layer_params");
  return 4 * d_model * d_model + 9 * d_model + d_inner * (2 * d_model + 1);
}

/// The search's non-embedding count: L (4 d^2 + 9 d) + sum_l d_inner_l (2 d + 1).
inline std::int64_t transformer_xl_search_params(const transformer_xl_search_arch& a) {
  detail::check_txl_search(a, "nsc::presets::transformer_xl_search_params");
  std::int64_t p = 0;
  for (std::int64_t di : a.d_inner) p += transformer_xl_search_layer_params(a.d_model, di);
  return p;
}

/// NSC in the search convention, summed layer by layer (equals transformer_xl_search(a)'s score).
inline double transformer_xl_search_nsc(const transformer_xl_search_arch& a) {
  detail::check_txl_search(a, "nsc::presets::transformer_xl_search_nsc");
  double v = 0;
  for (std::int64_t di : a.d_inner) v += transformer_xl_search_layer_score(a.d_model, di);
  return v;
}

/// One layer of the search convention as an nsc::layer (see the file comment for the split of
/// the count into weights, biases and norms). MACs per token: the four weights; add attention
/// score/value products yourself (extra_macs) if you need them.
inline layer transformer_xl_search_layer(std::int64_t d_model, std::int64_t d_inner,
                                         std::string name = "layer") {
  detail::check_txl_search_layer(d_model, d_inner, "nsc::presets::transformer_xl_search_layer");
  layer l;
  l.name = std::move(name);
  l.weights.push_back(linear("attn.qkv", part::attention, 3 * d_model, d_model, true));
  l.weights.push_back(linear("attn.o", part::attention, d_model, d_model, true));
  l.weights.push_back(linear("ff.up", part::ffn, d_inner, d_model, true));
  l.weights.push_back(linear("ff.down", part::ffn, d_model, d_inner, true));
  l.norm_params = 4 * d_model;
  return l;
}

/// The search convention as a preset: score(net, rule).nsc is the reference NSC and
/// count(net).total() == count(net).non_embedding() == transformer_xl_search_params(a).
inline preset transformer_xl_search(const transformer_xl_search_arch& a) {
  detail::check_txl_search(a, "nsc::presets::transformer_xl_search");
  preset p;
  p.net.name = "transformer_xl_search(d_model=" + std::to_string(a.d_model) +
               ", n_layer=" + std::to_string(a.d_inner.size()) + ")";
  for (std::size_t i = 0; i < a.d_inner.size(); ++i)
    p.net.layers.push_back(
        transformer_xl_search_layer(a.d_model, a.d_inner[i], "layer" + std::to_string(i)));
  p.rule = normal_scoring(transformer_xl_init_std);
  return p;
}

/// The search space of the reference's Transformer-XL NSC-DP (reference-conventions.md).
struct transformer_xl_search_space {
  std::vector<std::int64_t> d_model;  ///< enumerated outside the DP
  std::vector<std::int64_t> n_layer;  ///< enumerated outside the DP
  std::vector<std::int64_t> d_inner;  ///< per layer (the DP's options)
  double budget = 38.4e6;             ///< centre of the parameter band
  double tolerance = 0.05;            ///< the band is budget * (1 -+ tolerance)
  double min_params() const noexcept { return budget * (1 - tolerance); }
  double max_params() const noexcept { return budget * (1 + tolerance); }
};

/// d in {128, 256, 384, 512, 640, 768, 1024}, L in {12, 14, 16, 18}, d_inner in
/// {512..2048 step 128} U {2304..4096 step 256} (21 values), band 38.4M +- 5% on
/// transformer_xl_search_params.
inline transformer_xl_search_space transformer_xl_reference_search_space() {
  transformer_xl_search_space s;
  s.d_model = {128, 256, 384, 512, 640, 768, 1024};
  s.n_layer = {12, 14, 16, 18};
  for (std::int64_t v = 512; v <= 2048; v += 128) s.d_inner.push_back(v);
  for (std::int64_t v = 2304; v <= 4096; v += 256) s.d_inner.push_back(v);
  return s;
}

// =============================================================================================
// (b) the LTS tabular convention (random_TransXL_wt103*.csv)
// =============================================================================================

/// A Transformer-XL of the LTS tabular sets: width, and per layer a head count and FFN width.
/// Head width e_i = d_model / n_head_i (integer division, archai's d_head = -1 rule).
struct transformer_xl_lts_arch {
  std::int64_t d_model = 0;
  std::vector<std::int64_t> n_head;
  std::vector<std::int64_t> d_inner;
  std::size_t n_layer() const noexcept { return d_inner.size(); }
};

/// Which attention matrices an LTS Transformer-XL row scores (see the file comment).
enum class transformer_xl_lts_attention {
  merged,  ///< search convention: psi(3 h e, d) + psi(d, h e); r_net not scored (default)
  per_head ///< GPT-2-like: 3 h psi(e, d) + psi(d, h e); r_net not scored
};

constexpr std::string_view to_string(transformer_xl_lts_attention a) noexcept {
  return a == transformer_xl_lts_attention::merged ? "merged" : "per_head";
}

/// LTS's params_Attn, params_FFN and params_nonembedding (params_summary.yaml).
struct transformer_xl_lts_param_counts {
  std::int64_t attn = 0;
  std::int64_t ffn = 0;
  std::int64_t nonembedding = 0;
};

namespace detail {
inline void check_txl_lts_layer(std::int64_t d, std::int64_t h, std::int64_t di, std::string_view fn) {
  require(d >= 1, fn, "d_model must be >= 1", d);
  require(h >= 1 && h <= d, fn, "n_head must be in [1, d_model]", h);
  require(di >= 1, fn, "d_inner must be >= 1", di);
}
inline void check_txl_lts(const transformer_xl_lts_arch& a, std::string_view fn) {
  require(!a.d_inner.empty(), fn, "the architecture needs at least one layer", a.d_inner.size());
  require(a.n_head.size() == a.d_inner.size(), fn,
          "n_head and d_inner need one value per layer (sizes differ)",
          std::to_string(a.n_head.size()) + " and " + std::to_string(a.d_inner.size()));
  for (std::size_t i = 0; i < a.d_inner.size(); ++i)
    check_txl_lts_layer(a.d_model, a.n_head[i], a.d_inner[i], fn);
}
} // namespace detail

/// LTS's parameter counts, exactly as params_summary.yaml has them.
inline transformer_xl_lts_param_counts transformer_xl_lts_param_breakdown(
    const transformer_xl_lts_arch& a) {
  detail::check_txl_lts(a, "nsc::presets::transformer_xl_lts_param_breakdown");
  transformer_xl_lts_param_counts c;
  const std::int64_t d = a.d_model;
  std::int64_t extra = 0;
  for (std::size_t i = 0; i < a.d_inner.size(); ++i) {
    const std::int64_t he = a.n_head[i] * (d / a.n_head[i]);
    const std::int64_t di = a.d_inner[i];
    c.attn += 5 * d * he + 2 * d;
    c.ffn += 2 * d * di + di + d;
    extra += 2 * d + 2 * he;
  }
  c.nonembedding = c.attn + c.ffn + extra;
  return c;
}

/// LTS's params_nonembedding ("decoder parameters").
inline std::int64_t transformer_xl_lts_params(const transformer_xl_lts_arch& a) {
  return transformer_xl_lts_param_breakdown(a).nonembedding;
}

/// One LTS Transformer-XL layer (shapes and counts in the file comment). r_net is counted but
/// not scored.
inline layer transformer_xl_lts_layer(std::int64_t d_model, std::int64_t n_head,
                                      std::int64_t d_inner,
                                      transformer_xl_lts_attention attention =
                                          transformer_xl_lts_attention::merged,
                                      std::string name = "layer") {
  detail::check_txl_lts_layer(d_model, n_head, d_inner, "nsc::presets::transformer_xl_lts_layer");
  const std::int64_t he = n_head * (d_model / n_head);
  layer l;
  l.name = std::move(name);
  weight qkv = linear("attn.qkv_net", part::attention, 3 * he, d_model);
  if (attention == transformer_xl_lts_attention::per_head) qkv.split_out = 3 * n_head;
  l.weights.push_back(qkv);
  weight r = linear("attn.r_net", part::attention, he, d_model);
  r.scored = false;
  l.weights.push_back(r);
  l.weights.push_back(linear("attn.o_net", part::attention, d_model, he));
  l.weights.push_back(linear("ff.up", part::ffn, d_inner, d_model, true));
  l.weights.push_back(linear("ff.down", part::ffn, d_model, d_inner, true));
  l.norm_params = 4 * d_model;
  l.other_params = 2 * he;
  return l;
}

/// One LTS layer's score, summed in the network's weight order.
inline double transformer_xl_lts_layer_score(std::int64_t d_model, std::int64_t n_head,
                                             std::int64_t d_inner,
                                             transformer_xl_lts_attention attention =
                                                 transformer_xl_lts_attention::merged) {
  detail::check_txl_lts_layer(d_model, n_head, d_inner,
                              "nsc::presets::transformer_xl_lts_layer_score");
  const double s = transformer_xl_init_std;
  const std::int64_t e = d_model / n_head;
  const double d = double(d_model), he = double(n_head * e), f = double(d_inner);
  double v = attention == transformer_xl_lts_attention::merged
                 ? psi_normal(3 * he, d, s)
                 : double(3 * n_head) * psi_normal(double(e), d, s);
  v += psi_normal(d, he, s);
  v += psi_normal(f, d, s);
  v += psi_normal(d, f, s);
  return v;
}

/// An LTS Transformer-XL row as a preset: score(net, rule).nsc is its NSC under `attention`;
/// count(net).total() == count(net).non_embedding() == the CSV's params_nonembedding.
inline preset transformer_xl_lts(const transformer_xl_lts_arch& a,
                                 transformer_xl_lts_attention attention =
                                     transformer_xl_lts_attention::merged) {
  detail::check_txl_lts(a, "nsc::presets::transformer_xl_lts");
  preset p;
  p.net.name = "transformer_xl_lts(d_model=" + std::to_string(a.d_model) +
               ", n_layer=" + std::to_string(a.d_inner.size()) + ", " +
               std::string(to_string(attention)) + ")";
  for (std::size_t i = 0; i < a.d_inner.size(); ++i)
    p.net.layers.push_back(transformer_xl_lts_layer(a.d_model, a.n_head[i], a.d_inner[i],
                                                    attention, "layer" + std::to_string(i)));
  p.rule = normal_scoring(transformer_xl_init_std);
  return p;
}

} // namespace nsc::presets

#endif // NSC_PRESETS_TRANSFORMER_XL_HPP
