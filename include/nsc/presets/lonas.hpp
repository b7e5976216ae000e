/// \file nsc/presets/lonas.hpp
/// LoNAS LLaMA-7B pruning preset (reference-conventions.md, "LoNAS LLaMA-7B (pruning)").
///
/// H = 4096, 32 heads of 128, 32 layers, vocabulary 32000. Each layer picks one of 10 options:
/// the q/k/v LoRA rank r in {32, 28} and the FFN width k in {11008, 9632, 8256, 6880, 5504}.
/// psi_X = psi_MP with Xavier-normal variance of the scored block itself. Per layer:
///
///     q, k, v   32 psi_X(128, H) + psi_X(r, H) + psi_X(H, r)        per-head base + LoRA A, B
///     o         32 psi_X(H, 128) + psi_X(32, H) + psi_X(H, 32)      (per-head columns; LoRA at 32)
///     gate, up  psi_X(k, H) + psi_X(32, H) + psi_X(k, 32)
///     down      psi_X(H, k) + psi_X(32, k) + psi_X(H, 32)
///
/// (psi_X(H, 128) == psi_X(128, H): the o_proj blocks are the per-head column blocks.)
/// Known inconsistency kept on purpose: LoNAS attaches no LoRA to o_proj, but the reference
/// scores one at rank 32; the gate/up adapters are scored at rank 32 although LoNAS makes
/// their rank elastic too.
///
/// Params (the reference's formula; no LoRA):  2 V H + L (4 H^2 + 2 H) + 3 H sum_l k_l
///   -- the embedding and the untied LM head, q/k/v/o, two RMSNorms per layer, gate/up/down.
///   LLaMA's final RMSNorm (H = 4096 parameters) is NOT in the formula, so the unpruned model
///   counts 6,738,411,520 (the real checkpoint has 6,738,415,616).
/// TFLOPs at sequence length T (default 256) count multiply-accumulates:
///   [ sum_l (4 H^2 T + 2 T^2 H + 3 H k_l T) + H V T ] / 1e12.
///
/// lonas(options) builds the network: an embedding layer (V x H, part::embedding, no MACs), one
/// layer per option (LoRA adapters scored but neither counted nor applied: counted = false,
/// applications = 0; norm_params 2H; extra_macs 2 T H), and the LM head (V x H, part::head).
/// count(net).total() is the formula above and count(net).macs * T / 1e12 the TFLOPs.
/// Known answer (tests): rank 32 everywhere, width 8256 in 30 layers and 9632 in 2 ->
/// 5,690,097,664 params, NSC 881196.752.
#ifndef NSC_PRESETS_LONAS_HPP
#define NSC_PRESETS_LONAS_HPP

#include <nsc/error_handling.hpp>
#include <nsc/presets/preset.hpp>
#include <nsc/model/network.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/spectral/psi.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>


namespace nsc::presets {

inline constexpr std::int64_t lonas_hidden = 4096;
inline constexpr std::int64_t lonas_heads = 32;
inline constexpr std::int64_t lonas_head_dim = 128;
inline constexpr std::int64_t lonas_layers = 32;
inline constexpr std::int64_t lonas_vocab = 32000;
inline constexpr std::int64_t lonas_lora_rank = 32;  ///< fixed rank of o / gate / up / down adapters
inline constexpr std::int64_t lonas_seq_len = 256;   ///< T of the TFLOPs figures
inline constexpr std::array<std::int64_t, 2> lonas_ranks{32, 28};
inline constexpr std::array<std::int64_t, 5> lonas_widths{11008, 9632, 8256, 6880, 5504};

/// One layer's choice: q/k/v LoRA rank and FFN width.
struct lonas_option {
  std::int64_t rank = 32;
  std::int64_t width = 11008;
  bool operator==(const lonas_option&) const = default;
};

/// The 10 per-layer options, rank-major: (32, 11008), (32, 9632), ..., (28, 5504).
inline std::vector<lonas_option> lonas_options() {
  std::vector<lonas_option> o;
  for (std::int64_t r : lonas_ranks)
    for (std::int64_t k : lonas_widths) o.push_back({r, k});
  return o;
}

namespace detail {
inline void check_lonas_option(const lonas_option& o, std::string_view fn) {
  require(o.rank >= 1 && o.rank <= lonas_hidden, fn, "LoRA rank must be in [1, 4096]", o.rank);
  require(o.width >= 1, fn, "FFN width must be >= 1", o.width);
}
inline void check_lonas(const std::vector<lonas_option>& opts, std::string_view fn) {
  require(!opts.empty(), fn, "one option per layer is needed", opts.size());
  for (const lonas_option& o : opts) check_lonas_option(o, fn);
}
} // namespace detail

namespace detail {
/// One layer's score with `psi(m, n)` for psi_X (the order of the sums is the formula's).
template <class Psi>
double lonas_layer_score_with(const lonas_option& o, Psi&& psi) {
  const double H = double(lonas_hidden), d = double(lonas_head_dim), r = double(o.rank),
               k = double(o.width), r0 = double(lonas_lora_rank),
               heads = double(lonas_heads);
  const double base = heads * psi(d, H);
  double qkv = base;
  qkv += psi(r, H);
  qkv += psi(H, r);
  double v = 0;
  v += qkv;
  v += qkv;
  v += qkv;
  double out = heads * psi(H, d);
  out += psi(r0, H);
  out += psi(H, r0);
  v += out;
  double gate = psi(k, H);
  gate += psi(r0, H);
  gate += psi(k, r0);
  v += gate;
  v += gate;
  double down = psi(H, k);
  down += psi(r0, k);
  down += psi(H, r0);
  v += down;
  return v;
}
} // namespace detail

/// One layer's score (q + k + v + o + gate + up + down, in that order).
inline double lonas_layer_score(const lonas_option& o) {
  detail::check_lonas_option(o, "nsc::presets::lonas_layer_score");
  return detail::lonas_layer_score_with(o, [](double m, double n) { return psi_xavier(m, n); });
}

/// lonas_layer_score of every option, bitwise the same, each distinct psi_X(m, n) evaluated once
/// (the 10 options of the preset need 22 of the 150 evaluations).
inline std::vector<double> lonas_layer_scores(const std::vector<lonas_option>& opts) {
  struct entry {
    double m, n, psi;
  };
  std::vector<entry> memo;
  memo.reserve(8 + 8 * opts.size());
  auto psi = [&](double m, double n) {
    for (const entry& e : memo)
      if (e.m == m && e.n == n) return e.psi;
    memo.push_back({m, n, psi_xavier(m, n)});
    return memo.back().psi;
  };
  std::vector<double> out;
  out.reserve(opts.size());
  for (const lonas_option& o : opts) {
    detail::check_lonas_option(o, "nsc::presets::lonas_layer_scores");
    out.push_back(detail::lonas_layer_score_with(o, psi));
  }
  return out;
}

/// One layer's parameters: 4 H^2 + 2 H + 3 H k (no LoRA).
inline std::int64_t lonas_layer_params(const lonas_option& o) {
  detail::check_lonas_option(o, "nsc::presets::lonas_layer_params");
  return 4 * lonas_hidden * lonas_hidden + 2 * lonas_hidden + 3 * lonas_hidden * o.width;
}

/// One layer's TFLOPs (MACs / 1e12) at sequence length T: (4 H^2 T + 2 T^2 H + 3 H k T) / 1e12.
inline double lonas_layer_tflops(const lonas_option& o, std::int64_t seq_len = lonas_seq_len) {
  detail::check_lonas_option(o, "nsc::presets::lonas_layer_tflops");
  const double H = double(lonas_hidden), T = double(seq_len), k = double(o.width);
  return (4 * H * H * T + 2 * T * T * H + 3 * H * k * T) / 1e12;
}

/// Parameters outside the layers: 2 V H (embedding and untied LM head).
inline std::int64_t lonas_fixed_params() { return 2 * lonas_vocab * lonas_hidden; }

/// TFLOPs outside the layers: H V T / 1e12 (the LM head).
inline double lonas_fixed_tflops(std::int64_t seq_len = lonas_seq_len) {
  return double(lonas_hidden) * double(lonas_vocab) * double(seq_len) / 1e12;
}

/// Total parameters: 2 V H + sum_l (4 H^2 + 2 H + 3 H k_l).
inline std::int64_t lonas_params(const std::vector<lonas_option>& opts) {
  detail::check_lonas(opts, "nsc::presets::lonas_params");
  std::int64_t p = lonas_fixed_params();
  for (const lonas_option& o : opts) p += lonas_layer_params(o);
  return p;
}

/// Total TFLOPs at sequence length T.
inline double lonas_tflops(const std::vector<lonas_option>& opts,
                           std::int64_t seq_len = lonas_seq_len) {
  detail::check_lonas(opts, "nsc::presets::lonas_tflops");
  const double H = double(lonas_hidden), T = double(seq_len);
  double macs = double(lonas_hidden) * double(lonas_vocab) * T;
  for (const lonas_option& o : opts)
    macs += 4 * H * H * T + 2 * T * T * H + 3 * H * double(o.width) * T;
  return macs / 1e12;
}

/// NSC: sum of the layer scores.
inline double lonas_nsc(const std::vector<lonas_option>& opts) {
  detail::check_lonas(opts, "nsc::presets::lonas_nsc");
  double v = 0;
  for (const lonas_option& o : opts) v += lonas_layer_score(o);
  return v;
}

namespace detail {
inline void add_lora(layer& l, const std::string& base, part kind, std::int64_t out,
                     std::int64_t in, std::int64_t rank) {
  weight a = linear(base + ".lora_A", kind, rank, in);
  weight b = linear(base + ".lora_B", kind, out, rank);
  for (weight* w : {&a, &b}) {
    w->counted = false;
    w->applications = 0;
    l.weights.push_back(*w);
  }
}
} // namespace detail

/// One decoder layer as an nsc::layer (see the file comment); extra_macs 2 T H per token.
inline layer lonas_layer(const lonas_option& o, std::string name = "layer",
                         std::int64_t seq_len = lonas_seq_len) {
  detail::check_lonas_option(o, "nsc::presets::lonas_layer");
  detail::require(seq_len >= 0, "nsc::presets::lonas_layer", "seq_len must be >= 0", seq_len);
  const std::int64_t H = lonas_hidden, k = o.width;
  layer l;
  l.name = std::move(name);
  for (const char* n : {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"}) {
    weight w = linear(n, part::attention, H, H);
    w.split_out = lonas_heads;
    l.weights.push_back(w);
    detail::add_lora(l, n, part::attention, H, H, o.rank);
  }
  weight wo = linear("self_attn.o_proj", part::attention, H, H);
  wo.split_in = lonas_heads;
  l.weights.push_back(wo);
  detail::add_lora(l, "self_attn.o_proj", part::attention, H, H, lonas_lora_rank);
  for (const char* n : {"mlp.gate_proj", "mlp.up_proj"}) {
    l.weights.push_back(linear(n, part::ffn, k, H));
    detail::add_lora(l, n, part::ffn, k, H, lonas_lora_rank);
  }
  l.weights.push_back(linear("mlp.down_proj", part::ffn, H, k));
  detail::add_lora(l, "mlp.down_proj", part::ffn, H, k, lonas_lora_rank);
  l.norm_params = 2 * H;
  l.extra_macs = 2 * double(seq_len) * double(H);
  return l;
}

/// The pruned LLaMA-7B (one option per layer; 32 for the real model) as a preset:
/// score(net, rule).nsc == lonas_nsc(opts), count(net).total() == lonas_params(opts),
/// count(net).macs * seq_len / 1e12 == lonas_tflops(opts, seq_len).
inline preset lonas(const std::vector<lonas_option>& opts, std::int64_t seq_len = lonas_seq_len) {
  detail::check_lonas(opts, "nsc::presets::lonas");
  preset p;
  p.net.name = "lonas_llama_7b(layers=" + std::to_string(opts.size()) + ")";
  layer emb;
  emb.name = "embed_tokens";
  weight e = linear("embed_tokens", part::embedding, lonas_vocab, lonas_hidden);
  e.applications = 0; // a lookup, not a product
  emb.weights.push_back(e);
  p.net.layers.push_back(std::move(emb));
  for (std::size_t i = 0; i < opts.size(); ++i)
    p.net.layers.push_back(lonas_layer(opts[i], "layer" + std::to_string(i), seq_len));
  layer head;
  head.name = "lm_head";
  head.weights.push_back(linear("lm_head", part::head, lonas_vocab, lonas_hidden));
  p.net.layers.push_back(std::move(head));
  p.rule = xavier_block_scoring();
  return p;
}

/// The same option in all 32 layers.
inline std::vector<lonas_option> lonas_uniform(const lonas_option& o) {
  return std::vector<lonas_option>(static_cast<std::size_t>(lonas_layers), o);
}

/// The unpruned model: rank 32, width 11008 everywhere (6,738,411,520 params by the formula).
inline std::vector<lonas_option> lonas_unpruned() { return lonas_uniform({32, 11008}); }

/// The NSC-DP answer at 5.7B: rank 32 everywhere; width 8256 in 30 layers, 9632 in 2 (this
/// order; any permutation scores the same).
inline std::vector<lonas_option> lonas_nsc_dp_answer() {
  std::vector<lonas_option> v = lonas_uniform({32, 8256});
  v[0].width = 9632;
  v[1].width = 9632;
  return v;
}

} // namespace nsc::presets

#endif // NSC_PRESETS_LONAS_HPP
