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
/// Conventions (docs/reference.md "Conventions: params, FLOPs, KV cache, memory"):
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
///    Chunked attention (chunk c, llama4): full min(T, c) keys per query; causal the query at
///    position p (1-based) attends ((p - 1) mod c) + 1 keys (its chunk so far; sum over T:
///    floor(T / c) c (c + 1) / 2 + r (r + 1) / 2, r = T mod c); decode at most min(C, c).
///    Attention sinks (gpt_oss) add one logit per head and no product: no MACs.
///    DSA (deepseek_v32): the attention attends at most index_topk keys (min(T, k) per query
///    full, min(p, k) causal, min(C, k) decode); the indexer scores every key at
///    index_n_heads (index_head_dim + 1) MACs per key (T or p keys prefill, C decode).
///    Linear / no-op attention: none.
///  * KV cache: per token and layer 2 n_kv_heads head_dim elements (MLA: kv_lora_rank +
///    qk_rope_head_dim, the compressed latent, counted once, as TensorRT-LLM does); no-op and
///    linear attention cache nothing; a KV-shared layer (Gemma 4) caches nothing of its own; a
///    sliding-window layer caches min(C, W) tokens, a chunked layer min(C, c) (its current chunk
///    at most); sinks cache nothing; a DSA layer caches every
///    token's latent plus its indexer key (index_head_dim fp8 bytes + one fp32 scale per 128,
///    DeepSeek's k_cache / k_scale_cache, whatever the KV dtype); total =
///    B sum_l min(C, W_l) bytes_l. kv_bytes_per_token is the per-token figure before any window
///    cap (the marginal cost while C <= every window).
///  * Weight bytes: fp32 4, bf16 / fp16 2 bytes per parameter. fp8 / int8: attention, FFN and
///    other Linear matrices 1 byte per element, int4: 0.5 byte per element (packed per matrix,
///    rounded up) plus one fp16 scale per group of int4_group_size = 128 consecutive input
///    elements of each row (symmetric, no zero point); embeddings, LM head, routers, norms and
///    biases stay at 2 bytes (bf16) for the quantised dtypes. A tied LM head stores nothing.
///    These are stored_as(dtype); workload::stored (a stored_weights, read from a checkpoint's
///    quantization_config and torch_dtype by nsc/io/hf_config.hpp) describes any other layout:
///    per quantised matrix (and expert copy) ceil(out in bits / 8) bytes (or int32 words along
///    the input / output), one scale of scale_bytes per block_rows x block_cols block (ceil
///    division; 0 = the whole dimension), packed zero points, GPTQ's g_idx (4 in bytes) and
///    matrix_bytes more; everything not quantised at plain_bytes per parameter.
///  * State-space mixers (Mamba-2, attention_kind::mamba2) cache a state of fixed size per
///    sequence, whatever the context: the convolution's last K - 1 inputs (conv_dim (K - 1)
///    elements at workload::conv_state) and the SSM state (H P N elements at workload::state);
///    both default to bf16, vLLM's "auto" (the model dtype) for mamba_cache_dtype and
///    mamba_ssm_cache_dtype; NVIDIA recommends --mamba-ssm-cache-dtype float32 for
///    Nemotron-H-class models: state = fp32. The layer's kv_cache_bytes (and the totals, hence
///    memory) include B x these state bytes; state_bytes_per_sequence shows them alone. Their
///    per-token MACs (mixer_macs_per_token: conv_dim K + 2 H P N) count in prefill (T times)
///    and decode (once), outside linear_macs_per_token. A block's parallel mixer
///    (block_spec::parallel, Falcon-H1's Mamba-2 beside the attention) adds its state and MACs
///    to those of the layer, whose attention caches its keys and values as usual.
///  * Memory = weight bytes + KV-cache bytes (+ mixer state) at the workload (activations are
///    not counted).
#ifndef NSC_MODEL_DEPLOYMENT_HPP
#define NSC_MODEL_DEPLOYMENT_HPP

#include <nsc/error_handling.hpp>
#include <nsc/model/network.hpp>
#include <nsc/model/transformer.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
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

/// What a weight matrix is, for a quantisation scheme that covers some of them.
enum class weight_role { attention, dense_ffn, experts, shared_experts, router, embedding, head, other };
inline constexpr std::size_t weight_role_count = 8;

constexpr std::string_view to_string(weight_role r) noexcept {
  switch (r) {
  case weight_role::attention: return "attention";
  case weight_role::dense_ffn: return "dense_ffn";
  case weight_role::experts: return "experts";
  case weight_role::shared_experts: return "shared_experts";
  case weight_role::router: return "router";
  case weight_role::embedding: return "embedding";
  case weight_role::head: return "head";
  case weight_role::other: return "other";
  }
  return "?";
}

/// The role of a weight: its part, and for FFN weights whether they are routed experts (copies
/// with top-k activation), the shared expert ("shared_expert.*") or a dense MLP.
inline weight_role role_of(const weight& w) {
  switch (w.kind) {
  case part::attention: return weight_role::attention;
  case part::ffn:
    if (w.active_copies >= 0) return weight_role::experts;
    if (w.name.rfind("shared_expert", 0) == 0) return weight_role::shared_experts;
    return weight_role::dense_ffn;
  case part::router: return weight_role::router;
  case part::embedding: return weight_role::embedding;
  case part::head: return weight_role::head;
  case part::conv:
  case part::other: return weight_role::other;
  }
  return weight_role::other;
}

/// How a checkpoint stores its weights: every matrix of a quantised role as `bits`-bit elements
/// (packed as `pack` says) plus one scale of scale_bytes per block of block_rows x block_cols
/// elements (0: the whole dimension), an optional zero point of zero_bits per scale (packed 32
/// bits at a time along the output, as AWQ / GPTQ qzeros), GPTQ's g_idx (one int32 per input
/// column) and matrix_bytes more per matrix (compressed-tensors' weight_shape, a static
/// input_scale); everything else (embeddings, head, routers, norms, biases, matrices of roles
/// not quantised) at plain_bytes per parameter. Per expert copy, as checkpoints store experts.
/// nsc/io/hf_config.hpp reads it from quantization_config and torch_dtype; stored_as(dtype)
/// gives the --weight-dtype conventions.
struct stored_weights {
  /// How quantised elements are packed: per matrix rounded up to a byte (elements), or in
  /// int32 words along the input (GPTQ qweight, compressed-tensors weight_packed) or along the
  /// output (AWQ qweight).
  enum class packing { elements, int32_in, int32_out };
  std::string name = "bf16";        ///< short name: bf16, fp16, fp32, fp8, int8, int4, mxfp4, awq, gptq, compressed-tensors
  std::string source = "bf16";      ///< where the format comes from, for output
  std::int64_t plain_bytes = 2;     ///< bytes per parameter not quantised (torch_dtype)
  std::int64_t bits = 0;            ///< bits per quantised element (0: nothing quantised)
  packing pack = packing::elements;
  std::int64_t block_rows = 1;      ///< output rows per scale (0: all rows)
  std::int64_t block_cols = 0;      ///< input columns per scale (0: all columns)
  std::int64_t scale_bytes = 0;     ///< bytes per scale (0: no scales)
  std::int64_t zero_bits = 0;       ///< zero point bits per scale (0: symmetric)
  bool g_idx = false;               ///< GPTQ's int32 g_idx per input column
  std::int64_t matrix_bytes = 0;    ///< more bytes per matrix (copy)
  std::array<bool, weight_role_count> quantised{}; ///< which roles are quantised

  bool quantises(weight_role r) const { return bits > 0 && quantised[static_cast<std::size_t>(r)]; }
};

/// The --weight-dtype conventions as a stored format: fp32 4 and bf16 / fp16 2 bytes per
/// parameter; fp8 / int8: attention, FFN (dense, experts, shared) and other matrices 1 byte per
/// element, no scales; int4: 4 bits per element (packed per matrix) plus one fp16 scale per
/// int4_group_size inputs of a row; embeddings, head, routers, norms and biases at 2 bytes.
inline stored_weights stored_as(dtype t) {
  stored_weights s;
  s.name = s.source = std::string(to_string(t));
  s.plain_bytes = t == dtype::fp32 ? 4 : 2;
  if (t == dtype::fp8 || t == dtype::int8 || t == dtype::int4) {
    s.bits = t == dtype::int4 ? 4 : 8;
    for (weight_role r : {weight_role::attention, weight_role::dense_ffn, weight_role::experts,
                          weight_role::shared_experts, weight_role::other})
      s.quantised[static_cast<std::size_t>(r)] = true;
    if (t == dtype::int4) {
      s.block_cols = int4_group_size;
      s.scale_bytes = int4_scale_bytes;
    }
  }
  return s;
}

/// A serving workload.
struct workload {
  std::int64_t seq_len = 256;  ///< prefill length T (tokens per sequence), >= 1
  std::int64_t context = 0;    ///< decode context C and cached tokens (0: seq_len), >= 0
  std::int64_t batch = 1;      ///< sequences B, >= 1
  dtype kv = dtype::bf16;      ///< KV-cache element type (fp32, bf16, fp16, fp8, int8)
  dtype weights = dtype::bf16; ///< weight storage type
  std::optional<stored_weights> stored{}; ///< when set, weight bytes follow it (not `weights`)
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
  std::int64_t chunk = 0;                   ///< attention chunk (0: not chunked)
  std::int64_t index_topk = 0;              ///< DSA: keys attended at most (0: dense)
  std::uint64_t indexer_macs_per_key = 0;   ///< DSA indexer: index_n_heads (index_head_dim + 1)
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

/// Bytes per token of a DSA indexer's key cache: index_head_dim fp8 elements plus one fp32
/// scale per 128 of them (DeepSeek-V3.2's k_cache and k_scale_cache), whatever the KV dtype.
inline u128 indexer_cache_bytes(std::int64_t index_head_dim) {
  return u128(index_head_dim) + 4 * ((u128(index_head_dim) + 127) / 128);
}

/// Sum over T prefill queries of the keys each attends (window 0: none; chunk > 0: chunked
/// attention, full min(T, chunk) per query, causal ((p - 1) mod chunk) + 1 at position p).
inline u128 prefill_keys(std::int64_t T, std::int64_t window, attention_convention a, std::int64_t chunk = 0) {
  const u128 t = u128(T);
  if (chunk > 0) {
    const u128 c = u128(chunk);
    if (a == attention_convention::full) return mul128(t, std::min(t, c), "prefill attended keys");
    const u128 whole = t / c, r = t % c;
    return add128(mul128(whole, mul128(c, c + 1, "prefill attended keys") / 2, "prefill attended keys"),
                  mul128(r, r + 1, "prefill attended keys") / 2, "prefill attended keys");
  }
  const u128 w = window > 0 ? u128(window) : t;
  if (a == attention_convention::full) return mul128(t, std::min(t, w), "prefill attended keys");
  if (t <= w) return mul128(t, t + 1, "prefill attended keys") / 2;
  return add128(mul128(w, w + 1, "prefill attended keys") / 2, mul128(t - w, w, "prefill attended keys"),
                "prefill attended keys");
}

inline u128 ceil_div(u128 a, u128 b) { return (a + b - 1) / b; }

/// Bytes of one weight stored as `f` (0 when not counted: a tied head).
inline u128 weight_storage(const weight& w, const stored_weights& f) {
  if (!w.counted) return 0;
  const u128 plain = u128(f.plain_bytes);
  const u128 bias = mul128(u128(w.bias_params()), plain, "weight bytes");
  if (!f.quantises(role_of(w))) return add128(mul128(u128(w.weight_params()), plain, "weight bytes"), bias, "weight bytes");
  const u128 out = u128(w.out / w.groups), in = u128(w.in / w.groups * w.kernel_h * w.kernel_w);
  const u128 bits = u128(f.bits);
  u128 one = 0; // one copy
  switch (f.pack) {
  case stored_weights::packing::elements:
    one = ceil_div(mul128(u128(w.copy_params()), bits, "weight bytes"), 8);
    break;
  case stored_weights::packing::int32_in: one = mul128(mul128(out, ceil_div(mul128(in, bits, "weight bytes"), 32), "weight bytes"), 4, "weight bytes"); break;
  case stored_weights::packing::int32_out: one = mul128(mul128(in, ceil_div(mul128(out, bits, "weight bytes"), 32), "weight bytes"), 4, "weight bytes"); break;
  }
  if (f.pack != stored_weights::packing::elements && w.groups != 1) one = mul128(one, u128(w.groups), "weight bytes");
  const u128 rows = f.block_rows > 0 ? ceil_div(out, u128(f.block_rows)) : 1;
  const u128 cols = f.block_cols > 0 ? ceil_div(in, u128(f.block_cols)) : 1;
  const u128 scales = mul128(mul128(rows, cols, "scales"), u128(f.scale_bytes), "scale bytes");
  const u128 zeros = f.zero_bits > 0 ? mul128(mul128(cols, ceil_div(mul128(rows, u128(f.zero_bits), "zero points"), 32), "zero points"), 4, "zero points") : 0;
  const u128 gidx = f.g_idx ? mul128(in, 4, "g_idx bytes") : 0;
  one = add128(add128(add128(add128(one, scales, "weight bytes"), zeros, "weight bytes"), gidx, "weight bytes"),
               u128(f.matrix_bytes), "weight bytes");
  return add128(mul128(one, u128(w.copies), "weight bytes"), bias, "weight bytes");
}

/// Bytes of norm / other parameters stored as `f` (never quantised).
inline u128 plain_storage(std::int64_t n, const stored_weights& f) {
  return mul128(u128(n), u128(f.plain_bytes), "weight bytes");
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
  const stored_weights stored = w.stored ? *w.stored : stored_as(w.weights);
  if (stored.plain_bytes < 1 || stored.bits < 0 || stored.block_rows < 0 || stored.block_cols < 0 ||
      stored.scale_bytes < 0 || stored.zero_bits < 0 || stored.matrix_bytes < 0)
    throw_invalid_argument(deploy_fn, "workload.stored needs plain_bytes >= 1 and non-negative bits, blocks, scale, zero and matrix bytes",
                           stored.source);
  for (const layer& l : net.layers) {
    layer_deployment d;
    d.name = l.name;
    u128 per_token = 0, per_sequence = 0, bytes = 0;
    for (const weight& x : l.weights) {
      bytes = add128(bytes, weight_storage(x, stored), "weight bytes");
      if (x.applications == 1)
        per_token = add128(per_token, weight_token_macs(x), "linear MACs");
      else if (x.applications > 0) // once per sequence (BERT's pooler: applications = 1 / T)
        per_sequence = add128(per_sequence,
                              mul128(weight_token_macs(x), u128(std::llround(x.applications * double(T))), "MACs"),
                              "MACs");
    }
    bytes = add128(bytes, plain_storage(l.norm_params, stored), "weight bytes");
    bytes = add128(bytes, plain_storage(l.other_params, stored), "weight bytes");
    d.weight_bytes = to_u64(bytes, "weight bytes");
    d.linear_macs_per_token = to_u64(per_token, "linear MACs per token");
    u128 pre = add128(mul128(per_token, u128(T), "prefill MACs"), per_sequence, "prefill MACs");
    u128 dec = per_token;
    const bool is_block = l.name.rfind("layers.", 0) == 0 && block < spec.blocks.size();
    if (is_block) {
      attention_spec a = spec.blocks[block++].attention;
      a.d_model = spec.d_model;
      d.window = a.sliding_window;
      d.chunk = a.chunk;
      d.attention_macs_per_key = std::uint64_t(attention_macs_per_key(a));
      d.indexer_macs_per_key = std::uint64_t(indexer_macs_per_key(a));
      d.index_topk = a.index_topk;
      const u128 pk = d.attention_macs_per_key, ik = d.indexer_macs_per_key;
      // DSA: the attention attends at most index_topk keys (counted as a window of index_topk),
      // the indexer scores every key.
      const std::int64_t cap = a.sliding_window > 0 ? a.sliding_window : a.index_topk;
      pre = add128(pre, mul128(pk, prefill_keys(T, cap, w.attention, a.chunk), "prefill MACs"), "prefill MACs");
      if (ik > 0) pre = add128(pre, mul128(ik, prefill_keys(T, 0, w.attention), "prefill MACs"), "prefill MACs");
      if (ik > 0) dec = add128(dec, mul128(ik, u128(C), "decode MACs"), "decode MACs");
      const std::int64_t attended = cap > 0 ? std::min(C, cap) : a.chunk > 0 ? std::min(C, a.chunk) : C;
      const std::int64_t keys = a.sliding_window > 0 ? std::min(C, a.sliding_window)
                                : a.chunk > 0        ? std::min(C, a.chunk)
                                                     : C; // tokens cached (DSA caches every token)
      dec = add128(dec, mul128(pk, u128(attended), "decode MACs"), "decode MACs");
      u128 elems = 0;
      if (a.kind == attention_kind::standard && !a.kv_shared) // a kv_shared layer reads another layer's cache
        elems = mul128(2, mul128(u128(a.kv_heads()), u128(a.head_size()), "KV elements"), "KV elements");
      else if (a.kind == attention_kind::latent)
        elems = u128(a.kv_lora_rank) + u128(a.qk_rope_head_dim);
      u128 tok = mul128(elems, kv_bytes, "KV bytes per token");
      if (a.kind == attention_kind::latent && a.index_n_heads > 0) // the indexer's key cache (fp8 + fp32 scales)
        tok = add128(tok, indexer_cache_bytes(a.index_head_dim), "KV bytes per token");
      d.kv_bytes_per_token = to_u64(tok, "KV bytes per token");
      d.kv_cache_bytes = to_u64(mul128(mul128(tok, u128(keys), "KV-cache bytes"), u128(w.batch), "KV-cache bytes"),
                                "KV-cache bytes");
      // State-space mixers: a fixed-size state per sequence and per-token recurrence MACs (the
      // layer's own mixer, and a parallel one beside its attention: Falcon-H1).
      block_spec bb = spec.blocks[block - 1];
      bb.attention.d_model = spec.d_model;
      const attention_spec p = parallel_mixer(bb);
      const state_elements st = mixer_state(a), sp = mixer_state(p);
      const u128 seq_state =
          add128(mul128(u128(st.conv) + u128(sp.conv), conv_bytes, "state bytes"),
                 mul128(u128(st.recurrent) + u128(sp.recurrent), state_bytes, "state bytes"), "state bytes");
      d.state_bytes_per_sequence = to_u64(seq_state, "state bytes per sequence");
      const u128 batch_state = mul128(seq_state, u128(w.batch), "state bytes");
      d.kv_cache_bytes = to_u64(add128(d.kv_cache_bytes, batch_state, "KV-cache bytes"), "KV-cache bytes");
      state_total = add128(state_total, mul128(batch_state, u128(l.repeat), "state bytes"), "state bytes");
      d.state_macs_per_token = std::uint64_t(mixer_macs_per_token(a)) + std::uint64_t(mixer_macs_per_token(p));
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
