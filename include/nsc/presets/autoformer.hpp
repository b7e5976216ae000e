/// \file nsc/presets/autoformer.hpp
/// AutoFormer (vision Transformer) presets: the reference's ranking and search conventions,
/// the official AutoFormer network (parameter count and FLOPs), and the Tiny / Small / Base
/// search spaces. psi_X = psi_MP with Xavier-normal variance of the scored block itself.
/// An architecture: embed dim e, and per layer an MLP ratio r_l and a head count h_l;
/// f_l = int(e r_l) (Python's truncation).
///
/// Ranking convention (reference-conventions.md, "AutoFormer (ranking)"), head dim floor(e/h):
///
///     3 h psi_X(e/h, e) + psi_X(e, e) + psi_X(int(e r), e) + psi_X(e, int(e r))   per layer
///
///   autoformer_ranking(arch) builds the standalone AutoFormerSub network that the Auto-Prox
///   *_base_acc / *_kd_acc targets trained (autoformer-tiny-autoprox/SOURCE.md (b)): patch
///   conv (not scored), cls token and 197 position rows, per layer qkv (3e, e) scored per head,
///   proj (e, e), fc1, fc2 (all with bias), two LayerNorms; final LayerNorm; a `classes`-way
///   head (part::head, not scored). No distillation token.
///
/// Search convention ("AutoFormer (search)", run with --change_qk): head dim 64, q = 64 h,
///
///     psi_X(3q, e) + psi_X(e, q) + psi_X(f, e) + psi_X(e, f)   per layer
///     + psi_X(e, 768)                                         16 x 16 x 3 patch embedding
///     params per layer = 3qe + 3q + qe + e + 2e + 2ef + f + e + 2e; fixed part 969 e
///     (patch conv 768 e + e, cls e, 197 e position rows, final LayerNorm 2e); head not counted
///
///   autoformer_search(arch): count(net).total() is exactly this count.
///
/// Official network (microsoft/Cream AutoFormer, --change_qk --relative_position --gp;
/// SOURCE.md (a)): the search network plus 2-D relative-position tables for k and v (two
/// 30 x 64 tables each, 7680 parameters per layer, other_params) and the 1000-way head
/// (part::head). AutoFormer-T counts 5,867,944 (README: 5.8M), S 22,891,432, B 53,691,688.
/// Its NSC equals the search convention's (the tables and the head are not scored).
///
/// FLOPs per image: 2 x multiply-accumulates with 197 tokens: every block weight applied to
/// 197 tokens, attention products 2 x 197^2 x (attention width) per layer, the patch conv at
/// 196 positions, the head once. LayerNorms, GELU, softmax and the relative-position terms
/// are not counted. (This is not the official `get_complexity` figure, which counts more.)
#ifndef NSC_PRESETS_AUTOFORMER_HPP
#define NSC_PRESETS_AUTOFORMER_HPP

#include <nsc/error_handling.hpp>
#include <nsc/presets/preset.hpp>
#include <nsc/model/network.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/spectral/psi.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>


namespace nsc::presets {

/// An AutoFormer subnet: embed dim, and per layer an MLP ratio and a head count
/// (depth = mlp_ratio.size()).
struct autoformer_arch {
  std::int64_t embed_dim = 0;
  std::vector<double> mlp_ratio;
  std::vector<std::int64_t> num_heads;
  std::size_t depth() const noexcept { return mlp_ratio.size(); }
};

inline constexpr std::int64_t autoformer_patch_size = 16;
inline constexpr std::int64_t autoformer_patch_inputs = 3 * 16 * 16; ///< 768
inline constexpr std::int64_t autoformer_patches = 196;              ///< (224 / 16)^2
inline constexpr std::int64_t autoformer_tokens = 197;               ///< patches + cls
inline constexpr std::int64_t autoformer_search_head_dim = 64;       ///< --change_qk
inline constexpr std::int64_t autoformer_rel_pos_params = 2 * 2 * 30 * 64; ///< per layer, k and v
inline constexpr std::int64_t autoformer_imagenet_classes = 1000;

namespace detail {
inline void check_af_layer(std::int64_t e, double r, std::int64_t h, std::string_view fn) {
  require(e >= 1, fn, "embed_dim must be >= 1", e);
  require(std::isfinite(r) && r > 0, fn, "mlp_ratio must be finite and > 0", r);
  require(h >= 1, fn, "num_heads must be >= 1", h);
  require(static_cast<std::int64_t>(double(e) * r) >= 1, fn, "int(embed_dim * mlp_ratio) must be >= 1",
          double(e) * r);
}
inline void check_af(const autoformer_arch& a, std::string_view fn) {
  require(!a.mlp_ratio.empty(), fn, "the architecture needs at least one layer", a.mlp_ratio.size());
  require(a.num_heads.size() == a.mlp_ratio.size(), fn,
          "mlp_ratio and num_heads need one value per layer (sizes differ)",
          std::to_string(a.mlp_ratio.size()) + " and " + std::to_string(a.num_heads.size()));
  for (std::size_t i = 0; i < a.mlp_ratio.size(); ++i)
    check_af_layer(a.embed_dim, a.mlp_ratio[i], a.num_heads[i], fn);
}
} // namespace detail

/// f = int(e r), Python's truncation of the product in double.
inline std::int64_t autoformer_mlp_width(std::int64_t embed_dim, double mlp_ratio) {
  return static_cast<std::int64_t>(double(embed_dim) * mlp_ratio);
}

// ---- ranking convention ----------------------------------------------------------------------

/// One layer's ranking score: 3 h psi_X(floor(e/h), e) + psi_X(e, e) + psi_X(f, e) + psi_X(e, f).
inline double autoformer_ranking_layer_score(std::int64_t e, double r, std::int64_t h) {
  static constexpr std::string_view fn = "nsc::presets::autoformer_ranking_layer_score";
  detail::check_af_layer(e, r, h, fn);
  detail::require(h <= e, fn, "num_heads must be <= embed_dim", h);
  const double E = double(e), hd = double(e / h), f = double(autoformer_mlp_width(e, r));
  double v = double(3 * h) * psi_xavier(hd, E);
  v += psi_xavier(E, E);
  v += psi_xavier(f, E);
  v += psi_xavier(E, f);
  return v;
}

/// One AutoFormerSub block (head dim floor(e/h)); MACs for `tokens` tokens per image.
inline layer autoformer_ranking_block(std::int64_t e, double r, std::int64_t h,
                                      std::string name = "block",
                                      std::int64_t tokens = autoformer_tokens) {
  static constexpr std::string_view fn = "nsc::presets::autoformer_ranking_block";
  detail::check_af_layer(e, r, h, fn);
  detail::require(h <= e, fn, "num_heads must be <= embed_dim", h);
  const std::int64_t hd = e / h, rows = 3 * h * hd, f = autoformer_mlp_width(e, r);
  const double T = double(tokens);
  layer l;
  l.name = std::move(name);
  weight qkv = linear("attn.qkv", part::attention, rows, e, true);
  qkv.split_out = 3 * h;
  qkv.applications = T;
  l.weights.push_back(qkv);
  if (rows < 3 * e) {
    weight rest = linear("attn.qkv.unscored_rows", part::attention, 3 * e - rows, e, true);
    rest.scored = false;
    rest.applications = T;
    l.weights.push_back(rest);
  }
  l.weights.push_back(linear("attn.proj", part::attention, e, e, true));
  l.weights.push_back(linear("mlp.fc1", part::ffn, f, e, true));
  l.weights.push_back(linear("mlp.fc2", part::ffn, e, f, true));
  for (std::size_t j = 1; j < l.weights.size(); ++j) l.weights[j].applications = T;
  l.norm_params = 4 * e;
  l.extra_macs = 2 * T * T * double(h * hd);
  return l;
}

namespace detail {
inline layer autoformer_patch_layer(std::int64_t e, bool scored) {
  layer l;
  l.name = "patch_embed";
  weight w = conv2d("patch_embed.proj", e, 3, autoformer_patch_size, autoformer_patch_size, 1,
                    double(autoformer_patches), true);
  w.scored = scored;
  l.weights.push_back(w);
  l.other_params = e + autoformer_tokens * e; // cls token + position table
  l.embedding = true;
  return l;
}
inline layer autoformer_final_norm(std::int64_t e) {
  layer l;
  l.name = "norm";
  l.norm_params = 2 * e;
  return l;
}
inline layer autoformer_head(std::int64_t e, std::int64_t classes) {
  layer l;
  l.name = "head";
  l.weights.push_back(linear("head", part::head, classes, e, true));
  return l;
}
} // namespace detail

/// The ranking convention as a preset: score(net, rule).nsc is the reference ranking NSC;
/// count(net) is the AutoFormerSub network with a `classes`-way head (0: no head).
inline preset autoformer_ranking(const autoformer_arch& a,
                                 std::int64_t classes = autoformer_imagenet_classes) {
  static constexpr std::string_view fn = "nsc::presets::autoformer_ranking";
  detail::check_af(a, fn);
  detail::require(classes >= 0, fn, "classes must be >= 0", classes);
  preset p;
  p.net.name = "autoformer_ranking(embed_dim=" + std::to_string(a.embed_dim) +
               ", depth=" + std::to_string(a.depth()) + ")";
  p.net.per = "image";
  p.net.layers.push_back(detail::autoformer_patch_layer(a.embed_dim, false));
  for (std::size_t i = 0; i < a.depth(); ++i)
    p.net.layers.push_back(autoformer_ranking_block(a.embed_dim, a.mlp_ratio[i], a.num_heads[i],
                                                    "block" + std::to_string(i)));
  p.net.layers.push_back(detail::autoformer_final_norm(a.embed_dim));
  if (classes > 0) p.net.layers.push_back(detail::autoformer_head(a.embed_dim, classes));
  p.rule = xavier_block_scoring();
  return p;
}

/// Ranking NSC, layer by layer.
inline double autoformer_ranking_nsc(const autoformer_arch& a) {
  detail::check_af(a, "nsc::presets::autoformer_ranking_nsc");
  double v = 0;
  for (std::size_t i = 0; i < a.depth(); ++i)
    v += autoformer_ranking_layer_score(a.embed_dim, a.mlp_ratio[i], a.num_heads[i]);
  return v;
}

// ---- search convention -----------------------------------------------------------------------

/// One layer's search score: psi_X(3q, e) + psi_X(e, q) + psi_X(f, e) + psi_X(e, f), q = 64 h.
inline double autoformer_search_layer_score(std::int64_t e, double r, std::int64_t h) {
  detail::check_af_layer(e, r, h, "nsc::presets::autoformer_search_layer_score");
  const double E = double(e), q = double(autoformer_search_head_dim * h),
               f = double(autoformer_mlp_width(e, r));
  double v = psi_xavier(3 * q, E);
  v += psi_xavier(E, q);
  v += psi_xavier(f, E);
  v += psi_xavier(E, f);
  return v;
}

/// One layer's search parameters: 3qe + 3q + qe + e + 2e + 2ef + f + e + 2e.
inline std::int64_t autoformer_search_layer_params(std::int64_t e, double r, std::int64_t h) {
  detail::check_af_layer(e, r, h, "nsc::presets::autoformer_search_layer_params");
  const std::int64_t q = autoformer_search_head_dim * h, f = autoformer_mlp_width(e, r);
  return 3 * q * e + 3 * q + q * e + e + 2 * e + 2 * e * f + f + e + 2 * e;
}

/// The patch embedding's score psi_X(e, 768).
inline double autoformer_search_fixed_score(std::int64_t e) {
  detail::require(e >= 1, "nsc::presets::autoformer_search_fixed_score", "embed_dim must be >= 1", e);
  return psi_xavier(double(e), double(autoformer_patch_inputs));
}

/// The fixed parameters 969 e (patch conv and bias, cls token, 197 position rows, final norm).
inline std::int64_t autoformer_search_fixed_params(std::int64_t e) {
  detail::require(e >= 1, "nsc::presets::autoformer_search_fixed_params", "embed_dim must be >= 1", e);
  return 969 * e;
}

/// One block of the official AutoFormer with head dim 64 (q = 64 h); `relative_position` adds
/// the 7680 relative-position parameters (other_params). MACs for `tokens` tokens per image.
inline layer autoformer_search_block(std::int64_t e, double r, std::int64_t h,
                                     std::string name = "block", bool relative_position = false,
                                     std::int64_t tokens = autoformer_tokens) {
  detail::check_af_layer(e, r, h, "nsc::presets::autoformer_search_block");
  const std::int64_t q = autoformer_search_head_dim * h, f = autoformer_mlp_width(e, r);
  const double T = double(tokens);
  layer l;
  l.name = std::move(name);
  l.weights.push_back(linear("attn.qkv", part::attention, 3 * q, e, true));
  l.weights.push_back(linear("attn.proj", part::attention, e, q, true));
  l.weights.push_back(linear("mlp.fc1", part::ffn, f, e, true));
  l.weights.push_back(linear("mlp.fc2", part::ffn, e, f, true));
  for (weight& w : l.weights) w.applications = T;
  l.norm_params = 4 * e;
  if (relative_position) l.other_params = autoformer_rel_pos_params;
  l.extra_macs = 2 * T * T * double(q);
  return l;
}

/// The search convention as a preset: score(net, rule).nsc is the DP objective (layers plus
/// psi_X(e, 768)); count(net).total() == autoformer_search_params(a) (no head).
inline preset autoformer_search(const autoformer_arch& a) {
  detail::check_af(a, "nsc::presets::autoformer_search");
  preset p;
  p.net.name = "autoformer_search(embed_dim=" + std::to_string(a.embed_dim) +
               ", depth=" + std::to_string(a.depth()) + ")";
  p.net.per = "image";
  p.net.layers.push_back(detail::autoformer_patch_layer(a.embed_dim, true));
  for (std::size_t i = 0; i < a.depth(); ++i)
    p.net.layers.push_back(autoformer_search_block(a.embed_dim, a.mlp_ratio[i], a.num_heads[i],
                                                   "block" + std::to_string(i)));
  p.net.layers.push_back(detail::autoformer_final_norm(a.embed_dim));
  p.rule = xavier_block_scoring();
  return p;
}

/// The search's NSC: psi_X(e, 768) + sum of the layer scores.
inline double autoformer_search_nsc(const autoformer_arch& a) {
  detail::check_af(a, "nsc::presets::autoformer_search_nsc");
  double v = autoformer_search_fixed_score(a.embed_dim);
  for (std::size_t i = 0; i < a.depth(); ++i)
    v += autoformer_search_layer_score(a.embed_dim, a.mlp_ratio[i], a.num_heads[i]);
  return v;
}

/// The search's parameter count: 969 e + sum of the layer counts.
inline std::int64_t autoformer_search_params(const autoformer_arch& a) {
  detail::check_af(a, "nsc::presets::autoformer_search_params");
  std::int64_t p = autoformer_search_fixed_params(a.embed_dim);
  for (std::size_t i = 0; i < a.depth(); ++i)
    p += autoformer_search_layer_params(a.embed_dim, a.mlp_ratio[i], a.num_heads[i]);
  return p;
}

// ---- official network ------------------------------------------------------------------------

/// The official AutoFormer subnet (relative positions, head dim 64, `classes`-way head).
/// count(net).total() is the official parameter count; score equals the search convention's.
inline preset autoformer_official(const autoformer_arch& a,
                                  std::int64_t classes = autoformer_imagenet_classes) {
  static constexpr std::string_view fn = "nsc::presets::autoformer_official";
  detail::check_af(a, fn);
  detail::require(classes >= 0, fn, "classes must be >= 0", classes);
  preset p;
  p.net.name = "autoformer_official(embed_dim=" + std::to_string(a.embed_dim) +
               ", depth=" + std::to_string(a.depth()) + ")";
  p.net.per = "image";
  p.net.layers.push_back(detail::autoformer_patch_layer(a.embed_dim, true));
  for (std::size_t i = 0; i < a.depth(); ++i)
    p.net.layers.push_back(autoformer_search_block(a.embed_dim, a.mlp_ratio[i], a.num_heads[i],
                                                   "block" + std::to_string(i), true));
  p.net.layers.push_back(detail::autoformer_final_norm(a.embed_dim));
  if (classes > 0) p.net.layers.push_back(detail::autoformer_head(a.embed_dim, classes));
  p.rule = xavier_block_scoring();
  return p;
}

/// The official parameter count (AutoFormer's calc_sampled_param_num convention).
inline std::int64_t autoformer_official_params(const autoformer_arch& a,
                                               std::int64_t classes = autoformer_imagenet_classes) {
  return ::nsc::count(autoformer_official(a, classes).net).total();
}

/// FLOPs per image (2 x MACs, 197 tokens) of the official network (see the file comment).
inline double autoformer_official_flops(const autoformer_arch& a,
                                        std::int64_t classes = autoformer_imagenet_classes) {
  return ::nsc::count(autoformer_official(a, classes).net).flops();
}

// ---- search spaces and the published subnets -------------------------------------------------

/// A search space of the reference's AutoFormer NSC-DP; param_limit is an upper bound on
/// autoformer_search_params.
struct autoformer_search_space {
  std::string name;
  std::vector<std::int64_t> embed_dim;
  std::vector<std::int64_t> depth;
  std::vector<double> mlp_ratio;
  std::vector<std::int64_t> num_heads;
  double param_limit = 0;
};

/// Tiny as the reference searches it: e {192}, depth {12, 13, 14}, r {3.5, 4}, h {3, 4},
/// limit 5.9M (the code's value; the paper's text says 5.7M / 5.8M). AutoFormer's own Tiny
/// supernet also has e in {216, 240}.
inline autoformer_search_space autoformer_tiny_space() {
  return {"tiny", {192}, {12, 13, 14}, {3.5, 4.0}, {3, 4}, 5.9e6};
}
/// Small: e {320, 384, 448}, depth {12, 13, 14}, r {3, 3.5, 4}, h {5, 6, 7}, limit 23.5M.
inline autoformer_search_space autoformer_small_space() {
  return {"small", {320, 384, 448}, {12, 13, 14}, {3.0, 3.5, 4.0}, {5, 6, 7}, 23.5e6};
}
/// Base: e {528, 576, 624}, depth {14, 15, 16}, r {3, 3.5, 4}, h {8, 9, 10}, limit 54.5M
/// (AutoFormer's supernet-B yaml has h {9, 10}; its subnet yaml lists {8, 9, 10}).
inline autoformer_search_space autoformer_base_space() {
  return {"base", {528, 576, 624}, {14, 15, 16}, {3.0, 3.5, 4.0}, {8, 9, 10}, 54.5e6};
}

/// The released AutoFormer-T subnet (experiments/subnet/AutoFormer-T.yaml: e 192, depth 13;
/// note its r = 3.0 layers are outside the Tiny space).
inline autoformer_arch autoformer_t_subnet() {
  return {192,
          {3.5, 3.5, 3.0, 3.5, 3.0, 3.0, 4.0, 4.0, 3.5, 4.0, 3.5, 4.0, 3.5},
          {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 3, 3}};
}
/// The released AutoFormer-S subnet (e 384, depth 13).
inline autoformer_arch autoformer_s_subnet() {
  return {384,
          {3.0, 3.5, 3.0, 3.5, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 3.5, 4.0},
          {6, 6, 5, 7, 5, 5, 5, 6, 6, 7, 7, 6, 7}};
}
/// The released AutoFormer-B subnet (e 576, depth 14).
inline autoformer_arch autoformer_b_subnet() {
  return {576,
          {3.5, 3.5, 4.0, 3.5, 4.0, 3.5, 3.5, 3.0, 4.0, 4.0, 3.0, 4.0, 3.0, 3.5},
          {9, 9, 9, 9, 9, 10, 9, 9, 10, 9, 10, 9, 9, 10}};
}

} // namespace nsc::presets

#endif // NSC_PRESETS_AUTOFORMER_HPP
