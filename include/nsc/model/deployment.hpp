/// \file nsc/model/deployment.hpp
/// What serving a Transformer costs at a workload: FLOPs of prefill and decode, KV-cache bytes,
/// weight bytes at a dtype and serving memory, per layer and in total. Every figure is a sum
/// over layers (so NSC-DP can budget each one), computed exactly in integers with checked
/// arithmetic (FLOPs in 128 bits).
///
/// Synopsis
///
///     workload                 seq_len T (prefill), context C (decode and KV), batch B,
///                              kv / weight dtypes, attention convention (full | causal)
///     deploy(spec, w)          deployment { layers[], totals, convention() }
///     parse_dtype, parse_attention_convention, to_string(u128)
///
/// Conventions (README "Conventions: params, FLOPs, KV cache, memory"):
///  * FLOPs = 2 x MACs. The linear MACs of a token are out x in of every weight matrix it goes
///    through: MoE routed experts count top_k of n_experts, shared experts and the router count
///    whole, a tied LM head counts (it is a matmul), embedding lookups are free, BERT's pooler
///    runs once per prefill.
///  * Attention products: n_heads (qk_head_dim + v_head_dim) MACs per attended key and query
///    (QK^T and AV; 2 n_heads head_dim for standard attention; MLA's qk = nope + rope, v =
///    v_head_dim, counted in the naive, non-absorbed form transformers runs). A query attends
///    `keys` keys: full (the paper's convention) min(T, W) for each of T prefill queries;
///    causal the query at position p attends min(p, W) (mean (T + 1) / 2 without a window);
///    decode one token at context C attends min(C, W). W = sliding window (none: infinity).
///    Linear / no-op attention: none.
///  * KV cache: per token and layer 2 n_kv_heads head_dim elements (MLA: kv_lora_rank +
///    qk_rope_head_dim, the compressed latent, counted once, as TensorRT-LLM does); no-op and
///    linear attention cache nothing; a sliding-window layer caches min(C, W) tokens; total =
///    B sum_l min(C, W_l) bytes_l. kv_bytes_per_token is the per-token figure before any window
///    cap (the marginal cost while C <= every window).
///  * Weight bytes: fp32 4, bf16 / fp16 2 bytes per parameter. fp8 / int8: attention, FFN and
///    other Linear matrices 1 byte per element, int4: 0.5 byte per element (packed per matrix,
///    rounded up) plus one fp16 scale per group of int4_group_size = 128 consecutive input
///    elements of each row (symmetric, no zero point); embeddings, LM head, routers, norms and
///    biases stay at 2 bytes (bf16) for the quantised dtypes. A tied LM head stores nothing.
///  * State-space mixers (Mamba-2, attention_kind::mamba2) cache a state of fixed size per
///    sequence, whatever the context: the convolution's last K - 1 inputs (conv_dim (K - 1)
///    elements at workload::conv_state) and the SSM state (H P N elements at workload::state);
///    both default to bf16, vLLM's "auto" (the model dtype) for mamba_cache_dtype and
///    mamba_ssm_cache_dtype; NVIDIA recommends --mamba-ssm-cache-dtype float32 for
///    Nemotron-H-class models: state = fp32. The layer's kv_cache_bytes (and the totals, hence
///    memory) include B x these state bytes; state_bytes_per_sequence shows them alone. Their
///    per-token MACs (mixer_macs_per_token: conv_dim K + 2 H P N) count in prefill (T times)
///    and decode (once), outside linear_macs_per_token.
///  * Memory = weight bytes + KV-cache bytes (+ mixer state) at the workload (activations are
///    not counted).
#ifndef NSC_MODEL_DEPLOYMENT_HPP
#define NSC_MODEL_DEPLOYMENT_HPP

#include <nsc/error_handling.hpp>
#include <nsc/model/network.hpp>
#include <nsc/model/transformer.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nsc {

/// An unsigned 128-bit integer (exact FLOPs of long prefills: T^2 terms pass 2^64).
__extension__ typedef unsigned __int128 u128;

/// Decimal digits of a 128-bit count.
inline std::string to_string(u128 v) {
  if (v == 0) return "0";
  std::string s;
  while (v > 0) {
    s.push_back(char('0' + int(v % 10)));
    v /= 10;
  }
  return std::string(s.rbegin(), s.rend());
}

/// Storage types of weights and KV cache.
enum class dtype { fp32, bf16, fp16, fp8, int8, int4 };

constexpr std::string_view to_string(dtype t) noexcept {
  switch (t) {
  case dtype::fp32: return "fp32";
  case dtype::bf16: return "bf16";
  case dtype::fp16: return "fp16";
  case dtype::fp8: return "fp8";
  case dtype::int8: return "int8";
  case dtype::int4: return "int4";
  }
  return "?";
}

/// Parses fp32, bf16, fp16, fp8, int8, int4; std::invalid_argument otherwise.
inline dtype parse_dtype(std::string_view s) {
  for (dtype t : {dtype::fp32, dtype::bf16, dtype::fp16, dtype::fp8, dtype::int8, dtype::int4})
    if (s == to_string(t)) return t;
  throw_invalid_argument("nsc::parse_dtype", "unknown dtype; expected fp32, bf16, fp16, fp8, int8 or int4",
                         std::string(s));
}

/// How many keys a prefill query attends: full (every query all T keys, the paper's) or causal.
enum class attention_convention { full, causal };

constexpr std::string_view to_string(attention_convention a) noexcept {
  return a == attention_convention::full ? "full" : "causal";
}

/// Parses "full" or "causal"; std::invalid_argument otherwise.
inline attention_convention parse_attention_convention(std::string_view s) {
  if (s == "full") return attention_convention::full;
  if (s == "causal") return attention_convention::causal;
  throw_invalid_argument("nsc::parse_attention_convention", "expected full or causal", std::string(s));
}

/// int4 weights: one fp16 scale per this many consecutive input elements of a row.
inline constexpr std::int64_t int4_group_size = 128;
/// Bytes of one int4 group scale (fp16).
inline constexpr std::int64_t int4_scale_bytes = 2;

/// A serving workload.
struct workload {
  std::int64_t seq_len = 256;  ///< prefill length T (tokens per sequence), >= 1
  std::int64_t context = 0;    ///< decode context C and cached tokens (0: seq_len), >= 0
  std::int64_t batch = 1;      ///< sequences B, >= 1
  dtype kv = dtype::bf16;      ///< KV-cache element type (fp32, bf16, fp16, fp8, int8)
  dtype weights = dtype::bf16; ///< weight storage type
  dtype state = dtype::bf16;      ///< recurrent (SSM) state element type of Mamba-2 layers
  dtype conv_state = dtype::bf16; ///< convolution state element type of Mamba-2 layers
  attention_convention attention = attention_convention::full;
  /// The context C in effect: context, or seq_len when 0.
  constexpr std::int64_t context_tokens() const noexcept { return context > 0 ? context : seq_len; }
};

/// One layer's deployment figures (non-block layers have no attention and no KV cache). For a
/// run of `repeat` identical layers (layer::repeat) every figure is that of ONE of its layers;
/// the totals of `deployment` add repeat x each.
struct layer_deployment {
  std::string name;
  std::int64_t repeat = 1;                  ///< layers of the entry
  std::uint64_t linear_macs_per_token = 0;  ///< matmul MACs of one token (active experts)
  std::uint64_t attention_macs_per_key = 0; ///< n_heads (qk + v) head dims
  std::int64_t window = 0;                  ///< sliding window (0: global)
  std::uint64_t kv_bytes_per_token = 0;     ///< cache bytes per token of one sequence (no window cap)
  std::uint64_t kv_cache_bytes = 0;         ///< at context C and batch B (window-capped), + B x state bytes
  std::uint64_t state_bytes_per_sequence = 0; ///< fixed-size mixer state of one sequence (Mamba-2)
  std::uint64_t state_macs_per_token = 0;   ///< mixer MACs per token (conv + recurrence)
  std::uint64_t weight_bytes = 0;           ///< at the workload's weight dtype
  u128 prefill_macs = 0;                    ///< MACs of a prefill of T tokens (one sequence)
  std::uint64_t decode_macs = 0;            ///< MACs of one decoded token at context C
  std::uint64_t memory_bytes() const { return weight_bytes + kv_cache_bytes; }
};

/// Deployment figures of a whole model: per layer and summed.
struct deployment {
  workload load;
  std::vector<layer_deployment> layers;
  std::uint64_t linear_macs_per_token = 0;
  std::uint64_t kv_bytes_per_token = 0;
  std::uint64_t kv_cache_bytes = 0;  ///< KV cache + mixer state at the workload
  std::uint64_t state_bytes = 0;     ///< the mixer state alone: B x the per-sequence state bytes
  std::uint64_t weight_bytes = 0;
  std::uint64_t memory_bytes = 0; ///< weight_bytes + kv_cache_bytes
  u128 prefill_macs = 0;
  std::uint64_t decode_macs = 0;

  /// Prefill FLOPs of one sequence of T tokens, exact: 2 prefill_macs.
  u128 prefill_flops() const { return 2 * prefill_macs; }
  /// Mean FLOPs per prefill token, 2 prefill_macs / T (double: ~16 significant digits).
  double flops_per_token() const { return 2 * double(prefill_macs) / double(load.seq_len); }
  /// FLOPs of decoding one token at context C, exact.
  std::uint64_t decode_flops() const { return 2 * decode_macs; }
  /// The FLOPs convention in words, for output next to the numbers.
  std::string convention() const {
    std::string s = "FLOPs = 2 x MACs; flops_per_token = prefill FLOPs of T = " + std::to_string(load.seq_len) +
                    " tokens / T, ";
    s += load.attention == attention_convention::full
             ? "full attention (each query attends min(T, window) keys, the paper's convention)"
             : "causal attention (query p attends min(p, window) keys)";
    s += "; decode: one token at context C = " + std::to_string(load.context_tokens()) +
         " attends min(C, window) keys; attention products n_heads (qk_head_dim + v_head_dim) MACs per "
         "key; MoE: top-k routed + shared experts + router; embedding lookups free";
    return s;
  }
};

namespace detail {

inline constexpr std::string_view deploy_fn = "nsc::deploy";

[[noreturn]] inline void throw_overflow_u128(std::string_view quantity, u128 a, u128 b, char op) {
  std::string msg(deploy_fn);
  msg.append(": ").append(quantity).append(" overflows the unsigned 128-bit range (");
  msg.append(to_string(a)).append(" ").append(1, op).append(" ").append(to_string(b)).append(")");
  throw std::domain_error(msg);
}
inline u128 mul128(u128 a, u128 b, std::string_view q) {
  u128 r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw_overflow_u128(q, a, b, '*');
  return r;
}
inline u128 add128(u128 a, u128 b, std::string_view q) {
  u128 r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw_overflow_u128(q, a, b, '+');
  return r;
}
/// A 128-bit value that must fit 64 bits (bytes and per-token figures).
inline std::uint64_t to_u64(u128 v, std::string_view q) {
  if (v > u128(UINT64_MAX)) {
    std::string msg(deploy_fn);
    msg.append(": ").append(q).append(" exceeds 2^64 - 1 (").append(to_string(v)).append(")");
    throw std::domain_error(msg);
  }
  return std::uint64_t(v);
}

/// Bytes per element of a KV-cache dtype (int4 is not a KV type here).
inline std::uint64_t kv_element_bytes(dtype t) {
  switch (t) {
  case dtype::fp32: return 4;
  case dtype::bf16:
  case dtype::fp16: return 2;
  case dtype::fp8:
  case dtype::int8: return 1;
  case dtype::int4: break;
  }
  throw_invalid_argument(deploy_fn, "the KV-cache dtype must be fp32, bf16, fp16, fp8 or int8", to_string(t));
}

/// Sum over T prefill queries of the keys each attends (window 0: none).
inline u128 prefill_keys(std::int64_t T, std::int64_t window, attention_convention a) {
  const u128 t = u128(T);
  const u128 w = window > 0 ? u128(window) : t;
  if (a == attention_convention::full) return mul128(t, std::min(t, w), "prefill attended keys");
  if (t <= w) return mul128(t, t + 1, "prefill attended keys") / 2;
  return add128(mul128(w, w + 1, "prefill attended keys") / 2, mul128(t - w, w, "prefill attended keys"),
                "prefill attended keys");
}

/// Bytes of one weight at dtype t (0 when not counted: a tied head).
inline u128 weight_storage(const weight& w, dtype t) {
  if (!w.counted) return 0;
  const u128 params = u128(w.weight_params()), bias = u128(w.bias_params());
  const bool quantisable = w.kind == part::attention || w.kind == part::ffn || w.kind == part::other ||
                           w.kind == part::conv;
  switch (t) {
  case dtype::fp32: return mul128(params + bias, 4, "weight bytes");
  case dtype::bf16:
  case dtype::fp16: return mul128(params + bias, 2, "weight bytes");
  case dtype::fp8:
  case dtype::int8:
    return quantisable ? add128(params, 2 * bias, "weight bytes") : mul128(params + bias, 2, "weight bytes");
  case dtype::int4: {
    if (!quantisable) return mul128(params + bias, 2, "weight bytes");
    const u128 per_copy = u128(w.copy_params());
    const u128 row = u128(w.in / w.groups * w.kernel_h * w.kernel_w);
    const u128 groups = (row + u128(int4_group_size) - 1) / u128(int4_group_size);
    const u128 scales = mul128(mul128(u128(w.out), groups, "int4 scales"), u128(int4_scale_bytes), "int4 scales");
    const u128 one = add128((per_copy + 1) / 2, scales, "weight bytes");
    return add128(mul128(one, u128(w.copies), "weight bytes"), 2 * bias, "weight bytes");
  }
  }
  return 0;
}

/// Bytes of norm / other parameters at dtype t (2 bytes for the quantised dtypes).
inline u128 plain_storage(std::int64_t n, dtype t) {
  return mul128(u128(n), t == dtype::fp32 ? 4 : 2, "weight bytes");
}

/// MACs of one application of a weight by one token: active copies x out x in.
inline u128 weight_token_macs(const weight& w) {
  const double a = w.active_copies < 0 ? double(w.copies) : w.active_copies;
  if (a != std::floor(a))
    throw_invalid_argument(deploy_fn, "needs an integral number of active copies (weight '" + w.name + "')", a);
  return mul128(u128(std::int64_t(a)), u128(w.copy_params()), "linear MACs");
}

} // namespace detail

/// Deployment figures of `spec` at workload `w` (conventions in the file comment), one entry
/// per layer entry of make_transformer(spec, T) (a run of identical blocks is one entry with
/// its repeat; totals count every layer, exactly) plus totals. Throws std::invalid_argument
/// "nsc::deploy: ..." for a malformed spec or workload (seq_len >= 1, context >= 0, batch >= 1,
/// KV dtype not int4) and std::domain_error when a figure overflows (bytes beyond 2^64 - 1,
/// FLOPs beyond 2^128 - 1).
inline deployment deploy(const transformer_spec& spec, const workload& w) {
  using namespace detail;
  if (w.seq_len < 1) throw_invalid_argument(deploy_fn, "workload.seq_len must be >= 1", w.seq_len);
  if (w.context < 0) throw_invalid_argument(deploy_fn, "workload.context must be >= 0 (0: seq_len)", w.context);
  if (w.batch < 1) throw_invalid_argument(deploy_fn, "workload.batch must be >= 1", w.batch);
  const std::uint64_t kv_bytes = kv_element_bytes(w.kv);
  const std::uint64_t state_bytes = kv_element_bytes(w.state), conv_bytes = kv_element_bytes(w.conv_state);
  validate(spec, deploy_fn);
  const network net = make_transformer(spec, double(w.seq_len));
  const std::int64_t T = w.seq_len, C = w.context_tokens();
  deployment out;
  out.load = w;
  std::size_t block = 0;
  u128 prefill = 0, decode = 0, kv_total = 0, weights_total = 0, kv_tok = 0, linear_total = 0, state_total = 0;
  for (const layer& l : net.layers) {
    layer_deployment d;
    d.name = l.name;
    u128 per_token = 0, per_sequence = 0, bytes = 0;
    for (const weight& x : l.weights) {
      bytes = add128(bytes, weight_storage(x, w.weights), "weight bytes");
      if (x.applications == 1)
        per_token = add128(per_token, weight_token_macs(x), "linear MACs");
      else if (x.applications > 0) // once per sequence (BERT's pooler: applications = 1 / T)
        per_sequence = add128(per_sequence,
                              mul128(weight_token_macs(x), u128(std::llround(x.applications * double(T))), "MACs"),
                              "MACs");
    }
    bytes = add128(bytes, plain_storage(l.norm_params, w.weights), "weight bytes");
    bytes = add128(bytes, plain_storage(l.other_params, w.weights), "weight bytes");
    d.weight_bytes = to_u64(bytes, "weight bytes");
    d.linear_macs_per_token = to_u64(per_token, "linear MACs per token");
    u128 pre = add128(mul128(per_token, u128(T), "prefill MACs"), per_sequence, "prefill MACs");
    u128 dec = per_token;
    const bool is_block = l.name.rfind("layers.", 0) == 0 && block < spec.blocks.size();
    if (is_block) {
      attention_spec a = spec.blocks[block++].attention;
      a.d_model = spec.d_model;
      d.window = a.sliding_window;
      d.attention_macs_per_key = std::uint64_t(attention_macs_per_key(a));
      const u128 pk = d.attention_macs_per_key;
      pre = add128(pre, mul128(pk, prefill_keys(T, a.sliding_window, w.attention), "prefill MACs"), "prefill MACs");
      const std::int64_t keys = a.sliding_window > 0 ? std::min(C, a.sliding_window) : C;
      dec = add128(dec, mul128(pk, u128(keys), "decode MACs"), "decode MACs");
      u128 elems = 0;
      if (a.kind == attention_kind::standard)
        elems = mul128(2, mul128(u128(a.kv_heads()), u128(a.head_size()), "KV elements"), "KV elements");
      else if (a.kind == attention_kind::latent)
        elems = u128(a.kv_lora_rank) + u128(a.qk_rope_head_dim);
      const u128 tok = mul128(elems, kv_bytes, "KV bytes per token");
      d.kv_bytes_per_token = to_u64(tok, "KV bytes per token");
      d.kv_cache_bytes = to_u64(mul128(mul128(tok, u128(keys), "KV-cache bytes"), u128(w.batch), "KV-cache bytes"),
                                "KV-cache bytes");
      // State-space mixers: a fixed-size state per sequence and per-token recurrence MACs.
      const state_elements st = mixer_state(a);
      const u128 seq_state = add128(mul128(u128(st.conv), conv_bytes, "state bytes"),
                                    mul128(u128(st.recurrent), state_bytes, "state bytes"), "state bytes");
      d.state_bytes_per_sequence = to_u64(seq_state, "state bytes per sequence");
      const u128 batch_state = mul128(seq_state, u128(w.batch), "state bytes");
      d.kv_cache_bytes = to_u64(add128(d.kv_cache_bytes, batch_state, "KV-cache bytes"), "KV-cache bytes");
      state_total = add128(state_total, mul128(batch_state, u128(l.repeat), "state bytes"), "state bytes");
      d.state_macs_per_token = std::uint64_t(mixer_macs_per_token(a));
      pre = add128(pre, mul128(u128(d.state_macs_per_token), u128(T), "prefill MACs"), "prefill MACs");
      dec = add128(dec, u128(d.state_macs_per_token), "decode MACs");
    }
    d.prefill_macs = pre;
    d.decode_macs = to_u64(dec, "decode MACs");
    d.repeat = l.repeat;
    const u128 r = u128(l.repeat); // validate(spec) checked repeat >= 1
    prefill = add128(prefill, mul128(pre, r, "prefill MACs"), "prefill MACs");
    decode = add128(decode, mul128(dec, r, "decode MACs"), "decode MACs");
    kv_total = add128(kv_total, mul128(d.kv_cache_bytes, r, "KV-cache bytes"), "KV-cache bytes");
    kv_tok = add128(kv_tok, mul128(d.kv_bytes_per_token, r, "KV bytes per token"), "KV bytes per token");
    weights_total = add128(weights_total, mul128(d.weight_bytes, r, "weight bytes"), "weight bytes");
    linear_total = add128(linear_total, mul128(d.linear_macs_per_token, r, "linear MACs per token"),
                          "linear MACs per token");
    out.layers.push_back(std::move(d));
  }
  out.prefill_macs = prefill;
  if (prefill > (~u128(0)) / 2) throw_overflow_u128("prefill FLOPs", prefill, 2, '*');
  out.decode_macs = to_u64(decode, "decode MACs");
  to_u64(2 * decode, "decode FLOPs");
  out.kv_cache_bytes = to_u64(kv_total, "KV-cache bytes");
  out.state_bytes = to_u64(state_total, "state bytes");
  out.kv_bytes_per_token = to_u64(kv_tok, "KV bytes per token");
  out.weight_bytes = to_u64(weights_total, "weight bytes");
  out.memory_bytes = to_u64(add128(weights_total, kv_total, "memory bytes"), "memory bytes");
  out.linear_macs_per_token = to_u64(linear_total, "linear MACs per token");
  for (const layer_deployment& d : out.layers) {
    to_u64(u128(d.weight_bytes) + d.kv_cache_bytes, "memory bytes");
  }
  return out;
}

} // namespace nsc

#endif // NSC_MODEL_DEPLOYMENT_HPP
