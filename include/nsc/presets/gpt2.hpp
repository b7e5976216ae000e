/// \file nsc/presets/gpt2.hpp
/// GPT-2 "flex" preset of the LiteTransformerSearch tabular set (random_GPT2_wt103.csv).
///
/// Reference convention (reference-conventions.md, "GPT-2 (LTS tabular set)"), per layer with
/// h heads of width floor(d / h) and FFN width d_inner:
///
///     3 h psi_.02(d, d/h)    per-head Q, K, V blocks of c_attn
///   + psi_.02(d, d)          attention c_proj
///   + psi_.02(d_inner, d)    c_fc
///   + psi_.02(d, d_inner)    MLP c_proj
///
/// psi_.02 = psi_MP with i.i.d. N(0, 0.02^2) entries (HF initializer_range; no truncation
/// correction). Ground truth is perplexity (lower is better).
///
/// Parameter count (archai `GPT2LMHeadModelFlex`, lts-archai/SOURCE.md), equal to the CSV's
/// params_nonembedding on every row (tested):
///
///     params_Attn         = L (4 d^2 + 4 d)                  c_attn (3d, d) + c_proj (d, d), biases
///     params_FFN          = sum_l (2 d d_inner_l + d_inner_l + d)
///     params_nonembedding = Attn + FFN + L 4 d + 2 d          two LayerNorms per layer, final LayerNorm
///
/// The network: per layer c_attn, c_proj, c_fc, mlp.c_proj (all with bias), norm_params 4d; a
/// last layer "ln_f" with norm_params 2d. The position table and the adaptive embedding /
/// softmax are embedding parameters and are left out. If h does not divide d (archai's
/// baseline yaml has 1024 / 12), c_attn is split into the scored per-head rows (3 h floor(d/h))
/// and an unscored remainder, so the count stays 3 d^2 + 3 d.
#ifndef NSC_PRESETS_GPT2_HPP
#define NSC_PRESETS_GPT2_HPP

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

/// GPT-2's initialisation std (HF initializer_range), the reference's psi_.02.
inline constexpr double gpt2_init_std = 0.02;

/// A GPT-2 flex architecture: width and per layer a head count and an FFN width.
struct gpt2_flex_arch {
  std::int64_t d_model = 0;
  std::vector<std::int64_t> n_head;
  std::vector<std::int64_t> d_inner;
  std::size_t n_layer() const noexcept { return d_inner.size(); }
};

/// LTS's params_Attn, params_FFN and params_nonembedding.
struct gpt2_flex_param_counts {
  std::int64_t attn = 0;
  std::int64_t ffn = 0;
  std::int64_t nonembedding = 0;
};

namespace detail {
inline void check_gpt2_layer(std::int64_t d, std::int64_t h, std::int64_t di, std::string_view fn) {
  require(d >= 1, fn, "d_model must be >= 1", d);
  require(h >= 1 && h <= d, fn, "n_head must be in [1, d_model]", h);
  require(di >= 1, fn, "d_inner must be >= 1", di);
}
inline void check_gpt2(const gpt2_flex_arch& a, std::string_view fn) {
  require(!a.d_inner.empty(), fn, "the architecture needs at least one layer", a.d_inner.size());
  require(a.n_head.size() == a.d_inner.size(), fn,
          "n_head and d_inner need one value per layer (sizes differ)",
          std::to_string(a.n_head.size()) + " and " + std::to_string(a.d_inner.size()));
  for (std::size_t i = 0; i < a.d_inner.size(); ++i)
    check_gpt2_layer(a.d_model, a.n_head[i], a.d_inner[i], fn);
}
} // namespace detail

/// LTS's parameter counts for a GPT-2 flex model (exactly params_summary.yaml's).
inline gpt2_flex_param_counts gpt2_flex_param_breakdown(const gpt2_flex_arch& a) {
  detail::check_gpt2(a, "nsc::presets::gpt2_flex_param_breakdown");
  gpt2_flex_param_counts c;
  const std::int64_t d = a.d_model;
  const auto L = static_cast<std::int64_t>(a.d_inner.size());
  c.attn = L * (4 * d * d + 4 * d);
  for (std::int64_t di : a.d_inner) c.ffn += 2 * d * di + di + d;
  c.nonembedding = c.attn + c.ffn + L * 4 * d + 2 * d;
  return c;
}

/// LTS's params_nonembedding for a GPT-2 flex model.
inline std::int64_t gpt2_flex_params(const gpt2_flex_arch& a) {
  return gpt2_flex_param_breakdown(a).nonembedding;
}

/// One layer's reference score: 3 h psi(d, floor(d/h)) + psi(d, d) + psi(d_inner, d) +
/// psi(d, d_inner), entries N(0, std_dev^2) (default 0.02), summed in the network's order.
inline double gpt2_flex_layer_score(std::int64_t d_model, std::int64_t n_head, std::int64_t d_inner,
                                    double std_dev = gpt2_init_std) {
  detail::check_gpt2_layer(d_model, n_head, d_inner, "nsc::presets::gpt2_flex_layer_score");
  const double d = double(d_model), f = double(d_inner);
  const double hd = double(d_model / n_head);
  double v = double(3 * n_head) * psi_normal(hd, d, std_dev);
  v += psi_normal(d, d, std_dev);
  v += psi_normal(f, d, std_dev);
  v += psi_normal(d, f, std_dev);
  return v;
}

/// One GPT-2 flex block as an nsc::layer (see the file comment).
inline layer gpt2_flex_layer(std::int64_t d_model, std::int64_t n_head, std::int64_t d_inner,
                             std::string name = "layer") {
  detail::check_gpt2_layer(d_model, n_head, d_inner, "nsc::presets::gpt2_flex_layer");
  const std::int64_t hd = d_model / n_head;
  const std::int64_t rows = 3 * n_head * hd;
  layer l;
  l.name = std::move(name);
  weight qkv = linear("attn.c_attn", part::attention, rows, d_model, true);
  qkv.split_out = 3 * n_head;
  l.weights.push_back(qkv);
  if (rows < 3 * d_model) {
    weight rest = linear("attn.c_attn.unscored_rows", part::attention, 3 * d_model - rows, d_model,
                         true);
    rest.scored = false;
    l.weights.push_back(rest);
  }
  l.weights.push_back(linear("attn.c_proj", part::attention, d_model, d_model, true));
  l.weights.push_back(linear("mlp.c_fc", part::ffn, d_inner, d_model, true));
  l.weights.push_back(linear("mlp.c_proj", part::ffn, d_model, d_inner, true));
  l.norm_params = 4 * d_model;
  return l;
}

/// A GPT-2 flex row as a preset: score(net, rule).nsc is the reference NSC (std 0.02; set
/// `rule` to another scoring, e.g. xavier_block_scoring(), for the robustness variants) and
/// count(net).total() == count(net).non_embedding() == the CSV's params_nonembedding.
inline preset gpt2_flex(const gpt2_flex_arch& a) {
  detail::check_gpt2(a, "nsc::presets::gpt2_flex");
  preset p;
  p.net.name = "gpt2_flex(d_model=" + std::to_string(a.d_model) +
               ", n_layer=" + std::to_string(a.d_inner.size()) + ")";
  for (std::size_t i = 0; i < a.d_inner.size(); ++i)
    p.net.layers.push_back(
        gpt2_flex_layer(a.d_model, a.n_head[i], a.d_inner[i], "layer" + std::to_string(i)));
  layer ln_f;
  ln_f.name = "ln_f";
  ln_f.norm_params = 2 * a.d_model;
  p.net.layers.push_back(std::move(ln_f));
  p.rule = normal_scoring(gpt2_init_std);
  return p;
}

/// NSC of a GPT-2 flex model in the reference convention, layer by layer.
inline double gpt2_flex_nsc(const gpt2_flex_arch& a, double std_dev = gpt2_init_std) {
  detail::check_gpt2(a, "nsc::presets::gpt2_flex_nsc");
  double v = 0;
  for (std::size_t i = 0; i < a.d_inner.size(); ++i)
    v += gpt2_flex_layer_score(a.d_model, a.n_head[i], a.d_inner[i], std_dev);
  return v;
}

} // namespace nsc::presets

#endif // NSC_PRESETS_GPT2_HPP
