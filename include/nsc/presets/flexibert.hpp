/// \file nsc/presets/flexibert.hpp
/// FlexiBERT / NAS-Bench-BERT presets (500 ELECTRA-small-style encoders with GLUE scores,
/// `shared/data/flexibert-nas-bench-bert`). Four readings of an architecture, each a named
/// option (`flexibert_reading`):
///
/// * `reference` (default): the paper's reference convention, spec-faithful. Per layer with the
///   architecture's declared hidden size H (psi_X = Xavier-normal of that very block):
///
///       SA:  psi_X(3H, H) + psi_X(H, H)     merged QKV + output; head count unused
///       LT:  2 psi_X(H, H)
///       DSC: psi_X(H, H)
///       FFN: nff branches of width w = floor(D_FF / nff), each psi_X(w, H) + psi_X(H, w)
///
///   D_FF = the layer's feed_forward_dimension, else layer 0's, else 1024 (flexibert_ffn_dim).
///   The network is a scoring skeleton: the scored matrices only (no biases, norms, MACs of
///   attention); its count() is NOT a parameter count -- use flexibert_params_*.
/// * `original`: the same matrices with H = 256 and D_FF = 1024 in every layer. This is my reading
///   of the paper's appendix F.1 ("the original FlexiBERT evaluation fixed hidden size at 256 and
///   intermediate size at 1024"); offered for comparison only.
/// * `as_trained`: reading B of flexibert-nas-bench-bert/SOURCE.md (what the TensorFlow code
///   behind the GLUE scores most probably built): every layer is multi-head self-attention,
///   merged QKV (3H, H) and output (H, H), with biases; the FFN is the chain
///   H -> 4H -> D_FF x (nff - 1) -> H (the first dense layer is always 4H) with biases; two
///   LayerNorms. Scored like the reference (merged QKV, Xavier of each block, every FFN matrix).
///   count(net).total() == the CSV's params_encoder_as_trained on every row (tested); MACs per
///   token include the attention products 2 T H at sequence length T.
/// * `nominal`: reading A of SOURCE.md (the FlexiBERT PyTorch spec), my documented count:
///     - SA/SDP: Q, K, V, O Linear(H, H) with bias; SA/WMA adds a bias-free Linear(H, H);
///       attention MACs 2 T H per token.
///     - LT/DFT, LT/DCT: one Linear(H, H) with bias; the parameter-free mixing along the
///       sequence is counted as a dense T x T transform, T H MACs per token.
///     - DSC with kernel k: n' = max(1, heads / 2), head width H / heads, a = n' H / heads;
///       Q, K, V Linear(H, a) with bias; depthwise conv over H channels, kernel k, no bias;
///       pointwise Linear(H, a) with bias; dynamic-kernel Linear(a, n' k) with bias;
///       conv-value Linear(H, a) with bias; output Linear(2a, H) with bias; MACs 2 T a
///       (attention half) + a k (dynamic convolution) per token beyond the weights.
///     - FFN: nff dense layers of width D_FF (H -> D_FF -> ... -> D_FF) then D_FF -> H, biases.
///     - Two LayerNorms (4H) per layer.
///
/// #Params for ranking: flexibert_params_as_trained (the CSV's params_encoder_as_trained
/// definition, reproduced exactly) and flexibert_params_nominal. #FLOPs: flexibert_flops =
/// 2 x MACs per token at sequence length 128 (as_trained or nominal reading). Embeddings and
/// prediction heads are in none of them.
#ifndef NSC_PRESETS_FLEXIBERT_HPP
#define NSC_PRESETS_FLEXIBERT_HPP

#include <nsc/error_handling.hpp>
#include <nsc/presets/preset.hpp>
#include <nsc/model/network.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/spectral/psi.hpp>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>


namespace nsc::presets {

/// FlexiBERT operation types.
enum class flexibert_op { sa, lt, dsc };

/// "SA", "LT", "DSC" (as in the benchmark).
constexpr std::string_view to_string(flexibert_op op) noexcept {
  switch (op) {
  case flexibert_op::sa: return "SA";
  case flexibert_op::lt: return "LT";
  case flexibert_op::dsc: return "DSC";
  }
  return "?";
}

/// Parses "SA", "LT" or "DSC"; std::invalid_argument otherwise.
inline flexibert_op parse_flexibert_op(std::string_view s) {
  if (s == "SA") return flexibert_op::sa;
  if (s == "LT") return flexibert_op::lt;
  if (s == "DSC") return flexibert_op::dsc;
  throw_invalid_argument("nsc::presets::parse_flexibert_op",
                         "unknown operation type; expected SA, LT or DSC", std::string(s));
}

/// One FlexiBERT layer as the benchmark declares it.
struct flexibert_layer {
  flexibert_op op = flexibert_op::sa;
  std::string op_param;                ///< SA: "SDP" / "WMA"; LT: "DFT" / "DCT"; DSC: kernel ("5", "9")
  std::int64_t heads = 1;              ///< operation heads
  std::optional<std::int64_t> ffn_dim; ///< feed_forward_dimension (missing: see flexibert_ffn_dim)
  std::int64_t n_ffn = 1;              ///< num_feed_forward
};

/// A FlexiBERT architecture: one hidden size for every layer.
struct flexibert_arch {
  std::int64_t hidden = 0;
  std::vector<flexibert_layer> layers;
};

/// Which network an architecture stands for (see the file comment).
enum class flexibert_reading { reference, original, as_trained, nominal };

constexpr std::string_view to_string(flexibert_reading r) noexcept {
  switch (r) {
  case flexibert_reading::reference: return "reference";
  case flexibert_reading::original: return "original";
  case flexibert_reading::as_trained: return "as_trained";
  case flexibert_reading::nominal: return "nominal";
  }
  return "?";
}

/// D_FF when neither the layer nor layer 0 declares one (the reference's fallback).
inline constexpr std::int64_t flexibert_default_ffn_dim = 1024;
/// Hidden size and D_FF of the `original` reading.
inline constexpr std::int64_t flexibert_original_hidden = 256;
inline constexpr std::int64_t flexibert_original_ffn_dim = 1024;
/// Sequence length for #FLOPs (the benchmark pretrains at 128).
inline constexpr std::int64_t flexibert_default_seq_len = 128;

namespace detail {
inline void check_flexibert(const flexibert_arch& a, std::string_view fn) {
  require(a.hidden >= 1, fn, "hidden size must be >= 1", a.hidden);
  require(!a.layers.empty(), fn, "the architecture needs at least one layer", a.layers.size());
  for (const flexibert_layer& l : a.layers) {
    require(l.heads >= 1, fn, "heads must be >= 1", l.heads);
    require(l.n_ffn >= 1, fn, "num_feed_forward must be >= 1", l.n_ffn);
    if (l.ffn_dim) require(*l.ffn_dim >= 1, fn, "feed_forward_dimension must be >= 1", *l.ffn_dim);
  }
}
inline std::int64_t flexibert_dsc_kernel(const flexibert_layer& l, std::string_view fn) {
  std::int64_t k = 0;
  const char* b = l.op_param.data();
  const char* e = b + l.op_param.size();
  const auto r = std::from_chars(b, e, k);
  require(r.ec == std::errc{} && r.ptr == e && k >= 1, fn,
          "a DSC layer's op_param must be its kernel size, an integer >= 1", l.op_param);
  return k;
}
inline void check_index(const flexibert_arch& a, std::size_t i, std::string_view fn) {
  require(i < a.layers.size(), fn, "layer index out of range", i);
}
} // namespace detail

/// D_FF of layer i: its feed_forward_dimension, else layer 0's, else 1024.
inline std::int64_t flexibert_ffn_dim(const flexibert_arch& a, std::size_t i) {
  detail::check_index(a, i, "nsc::presets::flexibert_ffn_dim");
  if (a.layers[i].ffn_dim) return *a.layers[i].ffn_dim;
  if (a.layers[0].ffn_dim) return *a.layers[0].ffn_dim;
  return flexibert_default_ffn_dim;
}

/// The FFN widths of layer i under reading B: H, 4H, D_FF x (nff - 1), H (the CSV's
/// l{i}_ffn_path_as_trained).
inline std::vector<std::int64_t> flexibert_ffn_path_as_trained(const flexibert_arch& a,
                                                               std::size_t i) {
  detail::check_index(a, i, "nsc::presets::flexibert_ffn_path_as_trained");
  const std::int64_t h = a.hidden, f = flexibert_ffn_dim(a, i);
  std::vector<std::int64_t> path{h, 4 * h};
  for (std::int64_t j = 1; j < a.layers[i].n_ffn; ++j) path.push_back(f);
  path.push_back(h);
  return path;
}

/// The FFN widths of layer i under reading A: H, D_FF x nff, H.
inline std::vector<std::int64_t> flexibert_ffn_path_nominal(const flexibert_arch& a, std::size_t i) {
  detail::check_index(a, i, "nsc::presets::flexibert_ffn_path_nominal");
  const std::int64_t h = a.hidden, f = flexibert_ffn_dim(a, i);
  std::vector<std::int64_t> path{h};
  for (std::int64_t j = 0; j < a.layers[i].n_ffn; ++j) path.push_back(f);
  path.push_back(h);
  return path;
}

/// Layer i of `a` under `reading` as an nsc::layer; `seq_len` sets the attention MACs of the
/// as_trained and nominal readings.
inline layer flexibert_block(const flexibert_arch& a, std::size_t i,
                             flexibert_reading reading = flexibert_reading::reference,
                             std::int64_t seq_len = flexibert_default_seq_len) {
  static constexpr std::string_view fn = "nsc::presets::flexibert_block";
  detail::check_flexibert(a, fn);
  detail::check_index(a, i, fn);
  detail::require(seq_len >= 0, fn, "seq_len must be >= 0", seq_len);
  const flexibert_layer& fl = a.layers[i];
  const double T = double(seq_len);
  layer l;
  l.name = "layer" + std::to_string(i) + "." + std::string(to_string(fl.op));
  switch (reading) {
  case flexibert_reading::reference:
  case flexibert_reading::original: {
    const bool orig = reading == flexibert_reading::original;
    const std::int64_t H = orig ? flexibert_original_hidden : a.hidden;
    const std::int64_t D = orig ? flexibert_original_ffn_dim : flexibert_ffn_dim(a, i);
    switch (fl.op) {
    case flexibert_op::sa:
      l.weights.push_back(linear("attn.qkv", part::attention, 3 * H, H));
      l.weights.push_back(linear("attn.o", part::attention, H, H));
      break;
    case flexibert_op::lt:
      l.weights.push_back(linear("lt.0", part::attention, H, H));
      l.weights.push_back(linear("lt.1", part::attention, H, H));
      break;
    case flexibert_op::dsc:
      l.weights.push_back(linear("dsc.0", part::attention, H, H));
      break;
    }
    const std::int64_t w = D / fl.n_ffn;
    detail::require(w >= 1, fn, "D_FF / num_feed_forward must be >= 1", w);
    for (std::int64_t b = 0; b < fl.n_ffn; ++b) {
      const std::string pre = "ff.branch" + std::to_string(b);
      l.weights.push_back(linear(pre + ".up", part::ffn, w, H));
      l.weights.push_back(linear(pre + ".down", part::ffn, H, w));
    }
    return l;
  }
  case flexibert_reading::as_trained: {
    const std::int64_t H = a.hidden;
    l.weights.push_back(linear("attn.qkv", part::attention, 3 * H, H, true));
    l.weights.push_back(linear("attn.o", part::attention, H, H, true));
    const auto path = flexibert_ffn_path_as_trained(a, i);
    for (std::size_t j = 0; j + 1 < path.size(); ++j)
      l.weights.push_back(linear(j + 2 == path.size() ? "ff.out" : "ff." + std::to_string(j),
                                 part::ffn, path[j + 1], path[j], true));
    l.norm_params = 4 * H;
    l.extra_macs = 2 * T * double(H);
    return l;
  }
  case flexibert_reading::nominal: {
    const std::int64_t H = a.hidden;
    switch (fl.op) {
    case flexibert_op::sa:
      l.weights.push_back(linear("attn.q", part::attention, H, H, true));
      l.weights.push_back(linear("attn.k", part::attention, H, H, true));
      l.weights.push_back(linear("attn.v", part::attention, H, H, true));
      if (fl.op_param == "WMA") l.weights.push_back(linear("attn.wma", part::attention, H, H));
      else
        detail::require(fl.op_param == "SDP", fn, "an SA layer's op_param must be SDP or WMA",
                        fl.op_param);
      l.weights.push_back(linear("attn.o", part::attention, H, H, true));
      l.extra_macs = 2 * T * double(H);
      break;
    case flexibert_op::lt:
      detail::require(fl.op_param == "DFT" || fl.op_param == "DCT", fn,
                      "an LT layer's op_param must be DFT or DCT", fl.op_param);
      l.weights.push_back(linear("lt.in", part::attention, H, H, true));
      l.extra_macs = T * double(H);
      break;
    case flexibert_op::dsc: {
      const std::int64_t k = detail::flexibert_dsc_kernel(fl, fn);
      const std::int64_t n2 = std::max<std::int64_t>(1, fl.heads / 2);
      const std::int64_t aw = n2 * (H / fl.heads);
      detail::require(aw >= 1, fn, "DSC attention width n' H / heads must be >= 1", aw);
      l.weights.push_back(linear("dsc.q", part::attention, aw, H, true));
      l.weights.push_back(linear("dsc.k", part::attention, aw, H, true));
      l.weights.push_back(linear("dsc.v", part::attention, aw, H, true));
      l.weights.push_back(conv2d("dsc.depthwise", H, H, 1, k, H));
      l.weights.push_back(linear("dsc.pointwise", part::attention, aw, H, true));
      l.weights.push_back(linear("dsc.kernel", part::attention, n2 * k, aw, true));
      l.weights.push_back(linear("dsc.conv_out", part::attention, aw, H, true));
      l.weights.push_back(linear("dsc.o", part::attention, H, 2 * aw, true));
      l.extra_macs = 2 * T * double(aw) + double(aw * k);
      break;
    }
    }
    const auto path = flexibert_ffn_path_nominal(a, i);
    for (std::size_t j = 0; j + 1 < path.size(); ++j)
      l.weights.push_back(linear(j + 2 == path.size() ? "ff.out" : "ff." + std::to_string(j),
                                 part::ffn, path[j + 1], path[j], true));
    l.norm_params = 4 * H;
    return l;
  }
  }
  return l;
}

/// A FlexiBERT architecture under `reading` as a preset (Xavier-normal of each block, psi_MP):
/// score(net, rule).nsc is its NSC; count(net) is the reading's count (a scoring skeleton for
/// reference / original, see the file comment).
inline preset flexibert(const flexibert_arch& a,
                        flexibert_reading reading = flexibert_reading::reference,
                        std::int64_t seq_len = flexibert_default_seq_len) {
  detail::check_flexibert(a, "nsc::presets::flexibert");
  preset p;
  p.net.name = "flexibert_" + std::string(to_string(reading)) + "(hidden=" +
               std::to_string(a.hidden) + ", layers=" + std::to_string(a.layers.size()) + ")";
  for (std::size_t i = 0; i < a.layers.size(); ++i)
    p.net.layers.push_back(flexibert_block(a, i, reading, seq_len));
  p.rule = xavier_block_scoring();
  return p;
}

/// Layer i's score under the reference, original or as_trained reading, in closed form
/// (the nominal reading scores flexibert_block's weights).
inline double flexibert_layer_score(const flexibert_arch& a, std::size_t i,
                                    flexibert_reading reading = flexibert_reading::reference) {
  static constexpr std::string_view fn = "nsc::presets::flexibert_layer_score";
  detail::check_flexibert(a, fn);
  detail::check_index(a, i, fn);
  const flexibert_layer& fl = a.layers[i];
  switch (reading) {
  case flexibert_reading::reference:
  case flexibert_reading::original: {
    const bool orig = reading == flexibert_reading::original;
    const double H = double(orig ? flexibert_original_hidden : a.hidden);
    const std::int64_t D = orig ? flexibert_original_ffn_dim : flexibert_ffn_dim(a, i);
    double v = 0;
    switch (fl.op) {
    case flexibert_op::sa:
      v += psi_xavier(3 * H, H);
      v += psi_xavier(H, H);
      break;
    case flexibert_op::lt:
      v += psi_xavier(H, H);
      v += psi_xavier(H, H);
      break;
    case flexibert_op::dsc: v += psi_xavier(H, H); break;
    }
    const std::int64_t w = D / fl.n_ffn;
    detail::require(w >= 1, fn, "D_FF / num_feed_forward must be >= 1", w);
    for (std::int64_t b = 0; b < fl.n_ffn; ++b) {
      v += psi_xavier(double(w), H);
      v += psi_xavier(H, double(w));
    }
    return v;
  }
  case flexibert_reading::as_trained: {
    const double H = double(a.hidden);
    double v = psi_xavier(3 * H, H);
    v += psi_xavier(H, H);
    const auto path = flexibert_ffn_path_as_trained(a, i);
    for (std::size_t j = 0; j + 1 < path.size(); ++j)
      v += psi_xavier(double(path[j + 1]), double(path[j]));
    return v;
  }
  case flexibert_reading::nominal:
    return ::nsc::score(flexibert_block(a, i, reading), xavier_block_scoring()).nsc;
  }
  return 0;
}

/// NSC of `a` under `reading`, layer by layer (equals flexibert(a, reading)'s score).
inline double flexibert_nsc(const flexibert_arch& a,
                            flexibert_reading reading = flexibert_reading::reference) {
  detail::check_flexibert(a, "nsc::presets::flexibert_nsc");
  double v = 0;
  for (std::size_t i = 0; i < a.layers.size(); ++i) v += flexibert_layer_score(a, i, reading);
  return v;
}

/// Encoder parameters under reading B (every weight and bias plus LayerNorms): per layer
/// 4 (H^2 + H) + 4H + sum over the FFN path of (in out + out). Equals the CSV's
/// params_encoder_as_trained.
inline std::int64_t flexibert_params_as_trained(const flexibert_arch& a) {
  return ::nsc::count(flexibert(a, flexibert_reading::as_trained).net).total();
}

/// Encoder parameters under reading A (the nominal count documented in the file comment).
inline std::int64_t flexibert_params_nominal(const flexibert_arch& a) {
  return ::nsc::count(flexibert(a, flexibert_reading::nominal).net).total();
}

/// FLOPs per token (2 x multiply-accumulates) of the encoder at sequence length `seq_len`
/// under the as_trained or nominal reading (std::invalid_argument for the scoring skeletons).
inline double flexibert_flops(const flexibert_arch& a,
                              flexibert_reading reading = flexibert_reading::as_trained,
                              std::int64_t seq_len = flexibert_default_seq_len) {
  detail::require(reading == flexibert_reading::as_trained || reading == flexibert_reading::nominal,
                  "nsc::presets::flexibert_flops",
                  "FLOPs are defined for the as_trained and nominal readings", to_string(reading));
  return ::nsc::count(flexibert(a, reading, seq_len).net).flops();
}

} // namespace nsc::presets

#endif // NSC_PRESETS_FLEXIBERT_HPP
