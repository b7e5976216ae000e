/// \file nsc/model/transformer.hpp
/// Transformer specifications lowered to nsc::layer / nsc::network (math.md section 5).
///
/// Synopsis
///
///     attention_spec     d_model, n_heads, n_kv_heads (MHA / GQA / MQA), head_dim, how Q/K/V
///                        and the output projection are scored, biases, LoRA ranks
///     ffn_spec           standard (up, down) or gated (gate, up, down), bias, LoRA ranks,
///                        mixture of experts (n_experts, top_k, router)
///     block_spec         one Transformer layer: attention + FFN + its norms
///     embedding_spec     token / learned-position / token-type tables (lookups: no MACs)
///     transformer_spec   embeddings, a vector of per-layer block_specs (heterogeneous widths
///                        and head counts allowed), final norm, LM head (tied / untied), pooler
///
///     attention_weights(a)        the attention weights of one block
///     ffn_weights(f)              the FFN (or MoE) weights of one block
///     make_block(b, T)            one layer (weights + norm parameters + attention MACs)
///     make_transformer(s, T)      the whole network at sequence length T
///
/// Everything is core (std + nsc only). Hugging Face config.json files are read by
/// nsc/io/hf_config.hpp, which fills a transformer_spec.
///
/// Layout of the network built by make_transformer (layer names in quotes):
///   "embeddings"  flagged `embedding`: the token table (vocab, dim), the learned position
///                 table (positions, d_model) and the token-type table (token_types, d_model),
///                 all part::embedding with applications = 0 (lookups, no MACs), plus the
///                 embedding norm (BERT) in norm_params. Absent when vocab_size = 0 and no
///                 position/type tables exist.
///   "project_in"  only when embeddings.dim != d_model (OPT-350m): Linear(dim -> d_model), part::other.
///   "layers.<i>"  one per block_spec; a block_spec with repeat r > 1 is ONE entry
///                 "layers.<i>-<i + r - 1>" with layer::repeat = r (i counts layers, not entries).
///   "project_out" only when embeddings.dim != d_model: Linear(d_model -> dim), part::other.
///   "final_norm"  only when final_norm != none: norm parameters, no weights.
///   "lm_head"     only when lm_head != none: Linear(dim -> vocab), part::head; tied heads have
///                 counted = false (their MACs still count).
///   "pooler"      only when pooler: Linear(d_model -> d_model) with bias, part::other, applied to
///                 one token per sequence (applications = 1 / T per token).
///
/// Parameters and MACs follow PyTorch / Hugging Face modules exactly (tests check LLaMA-7B,
/// GPT-2, BERT-base, Mistral-7B and Mixtral-8x7B against their published counts). The attention
/// score and value products add extra_macs = 2 T n_heads head_dim per token (QK^T and AV at
/// sequence length T, no causal halving), the convention of the paper's LoNAS TFLOPs.
#ifndef NSC_MODEL_TRANSFORMER_HPP
#define NSC_MODEL_TRANSFORMER_HPP

#include <nsc/detail/checked.hpp>
#include <nsc/error_handling.hpp>
#include <nsc/model/network.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nsc {

/// How the query, key and value projections are scored (their parameters and MACs do not
/// depend on it).
///  * per_head: q is split into n_heads blocks (head_dim, d_model), k and v into n_kv_heads
///              blocks each (the paper's "attention decomposed per head"; default).
///  * merged:   one ((n_heads + 2 n_kv_heads) head_dim, d_model) matrix (GPT-2's c_attn,
///              Transformer-XL's qkv_net, FlexiBERT's SA).
///  * separate: three unsplit matrices q (n_heads head_dim, d_model), k and v (n_kv_heads
///              head_dim, d_model).
enum class qkv_layout { per_head, merged, separate };

/// How the output projection (d_model, n_heads head_dim) is scored: whole (default) or per head
/// (n_heads blocks (d_model, head_dim) along its input).
enum class out_layout { whole, per_head };

/// Normalisation layers: LayerNorm has weight and bias (2 d parameters), RMSNorm a weight (d).
enum class norm_kind { none, layernorm, rmsnorm };

/// Language-model head: absent (encoders), tied to the token embedding (no parameters of its
/// own, MACs counted), or untied (its own (vocab, dim) matrix).
enum class lm_head_kind { none, tied, untied };

constexpr std::string_view to_string(qkv_layout q) noexcept {
  switch (q) {
  case qkv_layout::per_head: return "per_head";
  case qkv_layout::merged: return "merged";
  case qkv_layout::separate: return "separate";
  }
  return "?";
}

constexpr std::string_view to_string(out_layout o) noexcept {
  return o == out_layout::whole ? "whole" : "per_head";
}

constexpr std::string_view to_string(norm_kind n) noexcept {
  switch (n) {
  case norm_kind::none: return "none";
  case norm_kind::layernorm: return "layernorm";
  case norm_kind::rmsnorm: return "rmsnorm";
  }
  return "?";
}

constexpr std::string_view to_string(lm_head_kind h) noexcept {
  switch (h) {
  case lm_head_kind::none: return "none";
  case lm_head_kind::tied: return "tied";
  case lm_head_kind::untied: return "untied";
  }
  return "?";
}

/// Parses "per_head", "merged" or "separate"; std::invalid_argument otherwise.
inline qkv_layout parse_qkv_layout(std::string_view name) {
  if (name == "per_head") return qkv_layout::per_head;
  if (name == "merged") return qkv_layout::merged;
  if (name == "separate") return qkv_layout::separate;
  throw_invalid_argument("nsc::parse_qkv_layout",
                         "unknown QKV layout; expected per_head, merged or separate",
                         std::string(name));
}

/// Parses "whole" or "per_head"; std::invalid_argument otherwise.
inline out_layout parse_out_layout(std::string_view name) {
  if (name == "whole") return out_layout::whole;
  if (name == "per_head") return out_layout::per_head;
  throw_invalid_argument("nsc::parse_out_layout", "unknown output layout; expected whole or per_head",
                         std::string(name));
}

/// Parameters of one normalisation layer of width d: LayerNorm 2 d, RMSNorm d, none 0
/// (std::domain_error if 2 d overflows).
constexpr std::int64_t norm_params(norm_kind n, std::int64_t d) {
  return n == norm_kind::layernorm ? detail::checked_mul<std::int64_t>(2, d, "nsc::norm_params", "LayerNorm parameters")
         : n == norm_kind::rmsnorm ? d
                                   : 0;
}

/// What an attention sublayer is:
///  * standard: q, k, v, o projections over n_heads query and n_kv_heads key/value heads;
///  * latent:   DeepSeek's multi-head latent attention (MLA): optional low-rank query
///              (q_a_proj (q_lora_rank, d) + RMSNorm + q_b_proj), a joint KV down-projection
///              kv_a_proj_with_mqa (kv_lora_rank + qk_rope_head_dim, d) + RMSNorm(kv_lora_rank),
///              the up-projection kv_b_proj (n_heads (qk_nope_head_dim + v_head_dim), kv_lora_rank)
///              and o_proj (d, n_heads v_head_dim);
///  * linear:   one Linear(d -> d) without bias instead of attention (DeciLM replace_with_linear);
///  * none:     absent (DeciLM no_op; the block's norm count must not include its norm);
///  * mamba2:   a Mamba-2 mixer (Nemotron-H's NemotronHMamba2Mixer): H = ssm_heads heads of
///              width P = ssm_head_dim (inner width I = H P), G = ssm_groups groups sharing the
///              state inputs B and C of width N = ssm_state, in_proj Linear(d -> 2 I + 2 G N + H)
///              (z, x, B, C, dt), a depthwise causal Conv1d over conv_dim = I + 2 G N channels
///              of width K = conv_kernel (+ bias when conv_bias), dt_bias, A_log and D (H each),
///              a gated RMSNorm(I) (when ssm_norm) and out_proj Linear(I -> d); in_proj's bias
///              is qkv_bias, out_proj's out_bias. It attends no keys: its cache is a state of
///              fixed size per sequence (conv_dim (K - 1) conv elements and H P N SSM elements);
///  * gated_deltanet: a Gated DeltaNet linear-attention mixer (Qwen3-Next's / Qwen3.5's
///              GatedDeltaNet): HK = ssm_groups key heads of width dk = ssm_state, HV = ssm_heads
///              value heads of width dv = ssm_head_dim (HK divides HV); in_proj_qkvz
///              Linear(d -> 2 HK dk + 2 HV dv) (q, k, v, z), in_proj_ba Linear(d -> 2 HV) (beta,
///              a), a depthwise causal Conv1d over conv_dim = 2 HK dk + HV dv channels of width K
///              without bias, dt_bias and A_log (HV each), a gated RMSNorm(dv) shared by the
///              heads, out_proj Linear(HV dv -> d); no biases. Its cache per sequence:
///              conv_dim (K - 1) conv elements and the HV dk dv recurrent state.
enum class attention_kind { standard, latent, linear, none, mamba2, gated_deltanet };

/// What an FFN sublayer is: standard (dense or MoE), linear (one Linear(d -> d) without bias,
/// DeciLM replace_with_linear) or none (absent, DeciLM no_op).
enum class ffn_kind { standard, linear, none };

/// Normalisation of queries and keys inside attention (RMSNorm weights, no bias):
///  * per_head: one RMSNorm(head_dim) for q and one for k, shared by the heads (Qwen3, Gemma 3);
///  * whole:    RMSNorm(n_heads head_dim) on q and RMSNorm(n_kv_heads head_dim) on k (OLMo 2).
enum class qk_norm_kind { none, per_head, whole };

constexpr std::string_view to_string(attention_kind k) noexcept {
  switch (k) {
  case attention_kind::standard: return "standard";
  case attention_kind::latent: return "latent";
  case attention_kind::linear: return "linear";
  case attention_kind::none: return "none";
  case attention_kind::mamba2: return "mamba2";
  case attention_kind::gated_deltanet: return "gated_deltanet";
  }
  return "?";
}

constexpr std::string_view to_string(ffn_kind k) noexcept {
  switch (k) {
  case ffn_kind::standard: return "standard";
  case ffn_kind::linear: return "linear";
  case ffn_kind::none: return "none";
  }
  return "?";
}

/// How LoRA adapters are accounted. Adapters are always scored (as the paper's LoNAS
/// reference does); by default they add neither parameters nor MACs (the base model's
/// counts, as LoNAS reports them, and adapters merged into the weights at inference).
struct lora_options {
  bool count_params = false; ///< adapters' A and B count in #Params (weight.counted)
  bool count_macs = false;   ///< adapters' A and B count in #MACs (applications 1, else 0)
};

/// Self-attention of one block. A LoRA rank r > 0 on a projection of shape (out, in) adds
/// A: (r, in) and B: (out, r), of the attention part, named "<proj>.lora_A" / ".lora_B"; the
/// adapters are per projection whatever the qkv layout (standard attention only).
/// Sliding-window attention (sliding_window = W > 0) has the same matrices; each query attends
/// at most W keys (FLOPs) and the layer caches at most W tokens (KV cache).
struct attention_spec {
  attention_kind kind = attention_kind::standard;
  std::int64_t d_model = 0;    ///< residual width (0 in a transformer_spec: the model's d_model)
  std::int64_t n_heads = 0;    ///< query heads, >= 1
  std::int64_t n_kv_heads = 0; ///< key/value heads, dividing n_heads (0: n_heads, i.e. MHA; 1: MQA)
  std::int64_t head_dim = 0;   ///< per-head width (0: d_model / n_heads, which must divide)
  qkv_layout qkv = qkv_layout::per_head;
  out_layout out = out_layout::whole;
  bool qkv_bias = false;       ///< biases on q, k, v
  bool out_bias = false;       ///< bias on the output projection
  std::int64_t lora_q = 0, lora_k = 0, lora_v = 0, lora_o = 0; ///< LoRA ranks (0: none)
  qk_norm_kind qk_norm = qk_norm_kind::none; ///< q_norm / k_norm (standard attention)
  std::int64_t sliding_window = 0; ///< keys attended / tokens cached at most (0: global attention)
  bool sinks = false;              ///< a learned sink logit per query head (gpt_oss): n_heads parameters
                                   ///< (layer other_params), no matrix, no MACs, nothing cached
  std::int64_t chunk = 0;          ///< chunked attention (llama4 attention_chunk_size): a query attends
                                   ///< only the keys of its chunk of `chunk` tokens; at most chunk cached
                                   ///< (0: not chunked)
  bool nope = false;               ///< no rotary position embedding on this layer (llama4, smollm3 NoPE layers);
                                   ///< changes no count and no score, reported per layer
  // Multi-head latent attention (kind latent):
  std::int64_t q_lora_rank = 0;      ///< query compression rank (0: a direct q_proj)
  std::int64_t kv_lora_rank = 0;     ///< the cached KV latent's width, >= 1
  std::int64_t qk_nope_head_dim = 0; ///< per-head query/key width without rotary part
  std::int64_t qk_rope_head_dim = 0; ///< per-head rotary width (the key's is shared by all heads)
  std::int64_t v_head_dim = 0;       ///< per-head value width, >= 1
  // DeepSeek sparse attention (DSA, deepseek_v32; latent attention only): a lightning indexer
  // scores every key with index_n_heads heads of index_head_dim and the attention attends the
  // index_topk best. Indexer weights: wq_b (index_n_heads index_head_dim, q_lora_rank), wk
  // (index_head_dim, d), weights_proj (index_n_heads, d), k_norm LayerNorm(index_head_dim).
  std::int64_t index_n_heads = 0;    ///< indexer heads (0: dense attention, no indexer)
  std::int64_t index_head_dim = 0;   ///< indexer head width (its cached key's width)
  std::int64_t index_topk = 0;       ///< keys the sparse attention attends at most; with
                                     ///< index_n_heads 0 the layer reuses the top-k of a previous
                                     ///< layer's indexer (GLM-MoE-DSA "shared" layers: no weights,
                                     ///< no indexer cache)
  // State-space mixers (kind mamba2; see attention_kind):
  std::int64_t ssm_heads = 0;    ///< Mamba-2 heads H, >= 1
  std::int64_t ssm_head_dim = 0; ///< Mamba-2 head width P, >= 1
  std::int64_t ssm_state = 0;    ///< state size N per group, >= 1
  std::int64_t ssm_groups = 0;   ///< groups G sharing B and C, >= 1, dividing ssm_heads
  std::int64_t conv_kernel = 0;  ///< depthwise causal convolution width K, >= 1
  bool conv_bias = false;        ///< the convolution has a bias (conv_dim)
  bool ssm_norm = true;          ///< a gated RMSNorm(I) before out_proj
  bool output_gate = false;      ///< standard attention: q_proj also yields a sigmoid gate of the output
                                 ///< (Qwen3-Next attn_output_gate): n_heads head_dim more rows
  bool k_eq_v = false;           ///< standard attention: the values are the key projection's output
                                 ///< (Gemma 4 attention_k_eq_v): no v_proj (no v matrix scored, no v MACs);
                                 ///< keys and values are still cached apart (different norms, keys rotated)
  bool kv_shared = false;        ///< standard attention reading the keys and values an earlier layer cached
                                 ///< (Gemma 4 num_kv_shared_layers): q_proj, q_norm and o_proj only (no k_proj,
                                 ///< v_proj, k_norm); nothing cached of its own; its attention products (QK^T,
                                 ///< AV over the keys it attends) are unchanged

  /// n_kv_heads, or n_heads when 0.
  constexpr std::int64_t kv_heads() const noexcept { return n_kv_heads == 0 ? n_heads : n_kv_heads; }
  /// head_dim, or d_model / n_heads when 0 (0 if n_heads is 0).
  constexpr std::int64_t head_size() const noexcept {
    return head_dim != 0 ? head_dim : (n_heads > 0 ? d_model / n_heads : 0);
  }
  /// Width of a query/key head: qk_nope_head_dim + qk_rope_head_dim for MLA, else head_size().
  constexpr std::int64_t qk_head_size() const noexcept {
    return kind == attention_kind::latent ? qk_nope_head_dim + qk_rope_head_dim : head_size();
  }
  /// Width of a value head: v_head_dim for MLA, else head_size().
  constexpr std::int64_t v_head_size() const noexcept {
    return kind == attention_kind::latent ? v_head_dim : head_size();
  }
  /// Whether the sublayer is a recurrent mixer with a fixed-size state (mamba2, gated_deltanet).
  constexpr bool recurrent() const noexcept {
    return kind == attention_kind::mamba2 || kind == attention_kind::gated_deltanet;
  }
  /// Whether the sublayer attends at all (standard or latent).
  constexpr bool attends() const noexcept {
    return kind == attention_kind::standard || kind == attention_kind::latent;
  }
};

/// An absent mixer (kind none): the default of block_spec::parallel.
constexpr attention_spec absent_mixer() noexcept {
  attention_spec a;
  a.kind = attention_kind::none;
  return a;
}

/// Feed-forward block: standard (up: (d_ff, d), down: (d, d_ff)) or gated (gate and up
/// (d_ff, d), down (d, d_ff); SwiGLU). With n_experts >= 1 it is a mixture of experts: every
/// expert weight has copies = n_experts and active_copies = top_k, and a router
/// Linear(d -> n_experts) of part::router is added (also for a single expert, as Hugging Face
/// builds it). Shared experts (shared_d_ff > 0, MoE only) are one more always-active FFN of
/// width shared_d_ff, named "shared_expert.<proj>" (DeepSeek: n_shared_experts x
/// moe_intermediate_size in one MLP, as Hugging Face builds it), optionally gated by
/// Linear(d -> 1) "shared_expert_gate" of part::router (Qwen2-MoE). LoRA adapters as in
/// attention_spec, part::ffn, one per expert.
struct ffn_spec {
  ffn_kind kind = ffn_kind::standard;
  std::int64_t d_model = 0; ///< residual width (0 in a transformer_spec: the model's d_model)
  std::int64_t d_ff = 0;    ///< intermediate width (per expert), >= 1
  bool gated = false;       ///< gate_proj present (SwiGLU / GeGLU)
  bool bias = false;        ///< biases on every FFN projection
  std::int64_t lora_gate = 0, lora_up = 0, lora_down = 0; ///< LoRA ranks (0: none)
  std::int64_t n_experts = 0; ///< 0: dense; >= 1: mixture of experts
  std::int64_t top_k = 0;     ///< experts per token, 1 <= top_k <= n_experts (MoE only)
  bool router_bias = false;   ///< a bias of n_experts on the router (DeepSeek-V3's e_score_correction_bias)
  std::int64_t shared_d_ff = 0; ///< width of the shared expert MLP (0: none; MoE only)
  bool shared_gate = false;     ///< Linear(d -> 1) gate on the shared expert (needs shared_d_ff)
  bool router_scales = false;   ///< Gemma 4's router: a learned scale (d_model) and per_expert_scale (n_experts),
                                ///< d_model + n_experts parameters in the layer's other_params (no matrix, no
                                ///< MACs; MoE only); its RMSNorm has no weight
};

/// One Transformer layer. Pre- or post-norm placement does not change any count. n_norms counts
/// the block's d_model-wide norms (2: before attention and FFN; Gemma 2/3: 4; a DeciLM block
/// with a no_op sublayer drops that sublayer's norm); q/k norms and MLA's norms are added from
/// the attention spec.
struct block_spec {
  attention_spec attention;
  ffn_spec ffn;
  norm_kind norm = norm_kind::rmsnorm;
  std::int64_t n_norms = 2; ///< normalisation layers in the block (2: attention and FFN)
  std::int64_t repeat = 1;  ///< this entry stands for `repeat` identical consecutive layers (>= 1)
  /// Gemma 4's per-layer input (hidden_size_per_layer_input p > 0; 0: none): after the FFN,
  /// per_layer_input_gate Linear(d -> p), times the layer's slice of the per-layer embedding,
  /// per_layer_projection Linear(p -> d) and post_per_layer_input_norm (d, the block's norm
  /// kind): 2 p d parameters and MACs per token (part::other, scored) + one norm. The model's
  /// embeddings.per_layer_dim must equal p (see embedding_spec).
  std::int64_t per_layer_input = 0;
  /// A second sequence mixer run in parallel with `attention` on the same normed input, the
  /// two outputs summed before the residual (Falcon-H1: a Mamba-2 mixer beside the attention of
  /// every layer). kind none (default): absent; otherwise a recurrent kind (mamba2,
  /// gated_deltanet) next to standard or latent attention. Its d_model is the attention's (0
  /// allowed). Its weights are the layer's attention part, named "mamba.<name>"; its norm,
  /// convolution and per-head parameters, state (per sequence) and MACs add to the layer's, so
  /// the layer caches both the attention's keys and values and the mixer's state.
  attention_spec parallel = absent_mixer();
};

/// Embedding tables. The position and token-type tables and the embedding norm have width
/// d_model; the token table has width `dim` (0: d_model). When dim != d_model the network gets
/// project_in / project_out Linear layers without bias (OPT's word_embed_proj_dim).
struct embedding_spec {
  std::int64_t vocab_size = 0;  ///< token table rows (0: no token table)
  std::int64_t positions = 0;   ///< learned position table rows (0: rotary / none)
  std::int64_t token_types = 0; ///< token-type (segment) table rows (BERT: 2)
  std::int64_t dim = 0;         ///< token table width (0: d_model)
  norm_kind norm = norm_kind::none; ///< a norm right after the embeddings (BERT: layernorm)
  /// Gemma 4's per-layer embeddings (PLE): a second table embed_tokens_per_layer (per_layer_vocab,
  /// L per_layer_dim) (a lookup: no MACs, not scored, as every embedding) and
  /// per_layer_model_projection Linear(d_model -> L per_layer_dim) (a matmul on the input
  /// embedding: L p d MACs per token, part::other, scored as one matrix) with
  /// per_layer_projection_norm RMSNorm(per_layer_dim), in a layer "per_layer_proj" after the
  /// embeddings; L = the model's layers, each of which has block_spec::per_layer_input = per_layer_dim.
  std::int64_t per_layer_vocab = 0; ///< rows of embed_tokens_per_layer (0: no per-layer embeddings)
  std::int64_t per_layer_dim = 0;   ///< per-layer width p (hidden_size_per_layer_input)
};

/// A whole Transformer.
struct transformer_spec {
  std::string name = "transformer";
  std::int64_t d_model = 0;
  embedding_spec embeddings;
  std::vector<block_spec> blocks; ///< one per layer or run of identical layers (block_spec::repeat);
                                  ///< attention/ffn d_model 0 means d_model
  norm_kind final_norm = norm_kind::rmsnorm;
  lm_head_kind lm_head = lm_head_kind::untied;
  bool lm_head_bias = false;  ///< a bias of vocab_size on an untied LM head (PhiMoE's lm_head_bias)
  bool pooler = false;        ///< BERT pooler Linear(d_model -> d_model) with bias
  bool score_pooler = false;  ///< whether the pooler is scored (the paper scores no task head)
  lora_options lora;

  /// The token table width: embeddings.dim, or d_model when 0.
  std::int64_t embedding_dim() const noexcept {
    return embeddings.dim != 0 ? embeddings.dim : d_model;
  }
};

/// The widths of a Mamba-2 mixer: inner I = H P, conv_dim = I + 2 G N (the channels of the
/// depthwise convolution: x, B, C), in_proj rows 2 I + 2 G N + H (z, x, B, C, dt). Checked
/// arithmetic (std::domain_error naming the width on overflow).
struct ssm_widths {
  std::int64_t inner = 0, conv_dim = 0, in_proj = 0;
};

inline ssm_widths mamba2_widths(const attention_spec& a) {
  constexpr std::string_view fn = "nsc::mamba2_widths";
  ssm_widths w;
  if (a.kind == attention_kind::gated_deltanet) { // inner = HV dv; conv_dim = 2 HK dk + HV dv; in = qkvz rows
    w.inner = detail::checked_mul(a.ssm_heads, a.ssm_head_dim, fn, "value width");
    const std::int64_t qk =
        detail::checked_mul<std::int64_t>(2, detail::checked_mul(a.ssm_groups, a.ssm_state, fn, "key width"), fn,
                                          "key width");
    w.conv_dim = detail::checked_add(qk, w.inner, fn, "conv_dim");
    w.in_proj = detail::checked_add(w.conv_dim, w.inner, fn, "in_proj_qkvz width");
    return w;
  }
  w.inner = detail::checked_mul(a.ssm_heads, a.ssm_head_dim, fn, "inner width ssm_heads * ssm_head_dim");
  const std::int64_t bc =
      detail::checked_mul<std::int64_t>(2, detail::checked_mul(a.ssm_groups, a.ssm_state, fn, "B/C width"), fn, "B/C width");
  w.conv_dim = detail::checked_add(w.inner, bc, fn, "conv_dim");
  w.in_proj = detail::checked_add(detail::checked_add(w.inner, w.conv_dim, fn, "in_proj width"), a.ssm_heads, fn,
                                  "in_proj width");
  return w;
}

/// Parameters of a state-space mixer that are not weight matrices (layer::other_params): the
/// depthwise convolution's conv_dim K weights (+ conv_dim biases), dt_bias, A_log and D (H
/// each). 0 for every other kind.
inline std::int64_t mixer_other_params(const attention_spec& a) {
  if (a.kind != attention_kind::mamba2 && a.kind != attention_kind::gated_deltanet) return 0;
  constexpr std::string_view fn = "nsc::mixer_other_params";
  const ssm_widths w = mamba2_widths(a);
  std::int64_t n = detail::checked_mul(w.conv_dim, a.conv_kernel, fn, "conv1d parameters");
  if (a.conv_bias) n = detail::checked_add(n, w.conv_dim, fn, "conv1d parameters");
  const std::int64_t per_head = a.kind == attention_kind::mamba2 ? 3 : 2; // dt_bias, A_log (, D)
  return detail::checked_add(n, detail::checked_mul<std::int64_t>(per_head, a.ssm_heads, fn, "dt_bias, A_log, D"),
                             fn, "mixer parameters");
}

/// Norm parameters inside a state-space mixer: the gated RMSNorm(I) of Mamba-2 (0 without it).
inline std::int64_t mixer_norm_params(const attention_spec& a) {
  if (a.kind == attention_kind::gated_deltanet) return a.ssm_norm ? a.ssm_head_dim : 0; // shared by the heads
  return a.kind == attention_kind::mamba2 && a.ssm_norm ? mamba2_widths(a).inner : 0;
}

/// The cache of a state-space mixer, elements per sequence, whatever the context: conv, the
/// last K - 1 inputs of the depthwise convolution (conv_dim (K - 1), as vLLM keeps it;
/// transformers' eager cache keeps K); recurrent, the SSM state H P N. Zero for attention.
struct state_elements {
  std::int64_t conv = 0, recurrent = 0;
};

inline state_elements mixer_state(const attention_spec& a) {
  if (a.kind != attention_kind::mamba2 && a.kind != attention_kind::gated_deltanet) return {};
  constexpr std::string_view fn = "nsc::mixer_state";
  const ssm_widths w = mamba2_widths(a); // recurrent: H P N (Mamba-2), HV dv dk (Gated DeltaNet)
  return {detail::checked_mul(w.conv_dim, a.conv_kernel - 1, fn, "conv state"),
          detail::checked_mul(w.inner, a.ssm_state, fn, "recurrent state")};
}

/// MACs per token of a state-space mixer that are not matrix products with weights: the
/// depthwise convolution conv_dim K, and the recurrence in its recurrent (decode) form: the
/// state update's outer product x B^T and the readout h C, P N each per head, 2 H P N (the
/// decay, D skip, gate and norm are elementwise and not counted, as softmax is not in
/// attention). Prefill counts T times this (the recurrent form). 0 for every other kind.
/// Gated DeltaNet: conv_dim K + 3 HV dk dv (per value head the prediction S k, the rank-one
/// update beta (v - S k) k^T and the readout S q, dk dv each; the decay alpha S is elementwise).
inline std::int64_t mixer_macs_per_token(const attention_spec& a) {
  if (a.kind != attention_kind::mamba2 && a.kind != attention_kind::gated_deltanet) return 0;
  constexpr std::string_view fn = "nsc::mixer_macs_per_token";
  const ssm_widths w = mamba2_widths(a);
  const std::int64_t products = a.kind == attention_kind::mamba2 ? 2 : 3;
  return detail::checked_add(
      detail::checked_mul(w.conv_dim, a.conv_kernel, fn, "conv MACs"),
      detail::checked_mul<std::int64_t>(products, detail::checked_mul(w.inner, a.ssm_state, fn, "state MACs"), fn,
                                        "state MACs"),
      fn, "mixer MACs");
}

/// The parallel mixer of a block (block_spec::parallel) with its d_model set to the attention's;
/// kind none when the block has none.
inline attention_spec parallel_mixer(const block_spec& b) {
  attention_spec p = b.parallel;
  if (p.kind != attention_kind::none) {
    p.d_model = b.attention.d_model;
    p.qkv = b.attention.qkv; // scored with the attention's layout (per head or whole)
    p.out = b.attention.out;
  }
  return p;
}

namespace detail {

/// Where a spec error is reported: "<function>: <prefix><field> <rule> (got <value>)".
struct spec_context {
  std::string_view function;
  std::string prefix; ///< "layer 3: " or ""
  template <class T>
  [[noreturn]] void fail(std::string_view field_and_rule, const T& value) const {
    std::string rule = prefix;
    rule += field_and_rule;
    throw_invalid_argument(function, rule, value);
  }
};

inline void check_attention(const attention_spec& a, const spec_context& c) {
  if (a.d_model < 1) c.fail("attention.d_model must be >= 1", a.d_model);
  if (a.sliding_window < 0) c.fail("attention.sliding_window must be >= 0 (0: global)", a.sliding_window);
  if (a.chunk < 0) c.fail("attention.chunk must be >= 0 (0: not chunked)", a.chunk);
  if (a.chunk > 0 && a.sliding_window > 0)
    c.fail("attention.chunk and attention.sliding_window cannot both be set (chunked or sliding, not both)", a.chunk);
  if (a.output_gate && a.kind != attention_kind::standard)
    c.fail("attention.output_gate needs standard attention", to_string(a.kind));
  if (a.kind == attention_kind::mamba2 || a.kind == attention_kind::gated_deltanet) {
    const std::string k(to_string(a.kind));
    if (a.ssm_heads < 1) c.fail("attention.ssm_heads must be >= 1 (" + k + " heads)", a.ssm_heads);
    if (a.ssm_head_dim < 1) c.fail("attention.ssm_head_dim must be >= 1", a.ssm_head_dim);
    if (a.ssm_state < 1) c.fail("attention.ssm_state must be >= 1", a.ssm_state);
    if (a.ssm_groups < 1 || a.ssm_heads % a.ssm_groups != 0)
      c.fail("attention.ssm_groups must be >= 1 and divide ssm_heads = " + std::to_string(a.ssm_heads),
             a.ssm_groups);
    if (a.conv_kernel < 1) c.fail("attention.conv_kernel must be >= 1", a.conv_kernel);
    if (a.sliding_window != 0) c.fail("attention.sliding_window needs attention (not " + k + ")", a.sliding_window);
    if (a.chunk != 0) c.fail("attention.chunk needs attention (not " + k + ")", a.chunk);
    if (a.sinks) c.fail("attention.sinks needs standard attention", k);
    if (a.lora_q || a.lora_k || a.lora_v || a.lora_o)
      c.fail("attention LoRA ranks need standard attention (not " + k + ")",
             std::max({a.lora_q, a.lora_k, a.lora_v, a.lora_o}));
    (void)mixer_macs_per_token(a); // every width fits 64 bits (domain error otherwise)
    (void)mixer_state(a);
    (void)mixer_other_params(a);
    return;
  }
  if (!a.attends()) return; // linear / none: no heads (sinks, chunk, k_eq_v and DSA fields of a removed sublayer are inert)
  if (a.k_eq_v && a.kind != attention_kind::standard)
    c.fail("attention.k_eq_v needs standard attention", to_string(a.kind));
  if (a.k_eq_v && a.lora_v != 0) c.fail("attention.lora_v needs a v_proj (k_eq_v has none)", a.lora_v);
  if (a.kv_shared && a.kind != attention_kind::standard)
    c.fail("attention.kv_shared needs standard attention", to_string(a.kind));
  if (a.kv_shared && a.k_eq_v) c.fail("attention.k_eq_v needs a k_proj (a kv_shared layer has none)", a.k_eq_v);
  if (a.kv_shared && (a.lora_k != 0 || a.lora_v != 0))
    c.fail("attention.lora_k / lora_v need k/v projections (a kv_shared layer has none)", std::max(a.lora_k, a.lora_v));
  if (a.sinks && a.kind != attention_kind::standard) c.fail("attention.sinks needs standard attention", to_string(a.kind));
  if (a.n_heads < 1) c.fail("attention.n_heads must be >= 1", a.n_heads);
  if (a.kind == attention_kind::latent) {
    if (a.q_lora_rank < 0) c.fail("attention.q_lora_rank must be >= 0 (0: no query compression)", a.q_lora_rank);
    if (a.kv_lora_rank < 1) c.fail("attention.kv_lora_rank must be >= 1", a.kv_lora_rank);
    if (a.qk_nope_head_dim < 0) c.fail("attention.qk_nope_head_dim must be >= 0", a.qk_nope_head_dim);
    if (a.qk_rope_head_dim < 0) c.fail("attention.qk_rope_head_dim must be >= 0", a.qk_rope_head_dim);
    if (a.qk_nope_head_dim == 0 && a.qk_rope_head_dim == 0)
      c.fail("attention.qk_nope_head_dim + qk_rope_head_dim must be >= 1", 0);
    if (a.v_head_dim < 1) c.fail("attention.v_head_dim must be >= 1", a.v_head_dim);
    // The widths below are sums of these dims: refuse what would overflow 64 bits.
    std::int64_t sum = 0;
    if (__builtin_add_overflow(a.qk_nope_head_dim, a.qk_rope_head_dim, &sum) ||
        __builtin_add_overflow(sum, a.v_head_dim, &sum) ||
        __builtin_add_overflow(a.kv_lora_rank, a.qk_rope_head_dim, &sum))
      c.fail("attention latent dims overflow 64 bits when added (qk_nope + qk_rope + v_head_dim, kv_lora_rank + "
             "qk_rope)",
             a.kv_lora_rank);
    if (a.lora_q || a.lora_k || a.lora_v || a.lora_o)
      c.fail("attention LoRA ranks need standard attention (not latent)",
             std::max({a.lora_q, a.lora_k, a.lora_v, a.lora_o}));
    if (a.qk_norm != qk_norm_kind::none) c.fail("attention.qk_norm needs standard attention", to_string(a.kind));
    if (a.index_n_heads < 0) c.fail("attention.index_n_heads must be >= 0 (0: no DSA indexer)", a.index_n_heads);
    if (a.index_n_heads > 0) {
      if (a.index_head_dim < 1) c.fail("attention.index_head_dim must be >= 1 with an indexer", a.index_head_dim);
      if (a.index_topk < 1) c.fail("attention.index_topk must be >= 1 with an indexer", a.index_topk);
      if (a.q_lora_rank < 1) c.fail("attention.index_n_heads needs q_lora_rank >= 1 (wq_b reads the query latent)", a.q_lora_rank);
      if (a.sliding_window > 0 || a.chunk > 0)
        c.fail("attention.index_topk cannot be combined with a sliding window or a chunk", a.index_topk);
    } else if (a.index_head_dim != 0) {
      c.fail("attention.index_head_dim needs index_n_heads >= 1", a.index_head_dim);
    } else if (a.index_topk < 0 || (a.index_topk > 0 && (a.sliding_window > 0 || a.chunk > 0))) {
      c.fail("attention.index_topk (a shared top-k) must be >= 0 and cannot be combined with a sliding window or a chunk",
             a.index_topk);
    }
    return;
  }
  if (a.index_n_heads != 0 || a.index_head_dim != 0 || a.index_topk != 0)
    c.fail("attention.index_n_heads (DSA) needs latent attention", to_string(a.kind)); // standard kind
  if (a.n_kv_heads < 0) c.fail("attention.n_kv_heads must be >= 0 (0: n_heads)", a.n_kv_heads);
  if (a.n_kv_heads > 0 && a.n_heads % a.n_kv_heads != 0)
    c.fail("attention.n_kv_heads must divide n_heads = " + std::to_string(a.n_heads), a.n_kv_heads);
  if (a.head_dim < 0) c.fail("attention.head_dim must be >= 0 (0: d_model / n_heads)", a.head_dim);
  if (a.head_dim == 0 && a.d_model % a.n_heads != 0)
    c.fail("attention.n_heads must divide d_model = " + std::to_string(a.d_model) +
               " when head_dim is 0",
           a.n_heads);
  if (a.lora_q < 0) c.fail("attention.lora_q must be >= 0", a.lora_q);
  if (a.lora_k < 0) c.fail("attention.lora_k must be >= 0", a.lora_k);
  if (a.lora_v < 0) c.fail("attention.lora_v must be >= 0", a.lora_v);
  if (a.lora_o < 0) c.fail("attention.lora_o must be >= 0", a.lora_o);
}

inline void check_ffn(const ffn_spec& f, const spec_context& c) {
  if (f.d_model < 1) c.fail("ffn.d_model must be >= 1", f.d_model);
  if (f.kind != ffn_kind::standard) return; // linear / none: no width
  if (f.d_ff < 1) c.fail("ffn.d_ff must be >= 1", f.d_ff);
  if (f.lora_gate < 0) c.fail("ffn.lora_gate must be >= 0", f.lora_gate);
  if (f.lora_up < 0) c.fail("ffn.lora_up must be >= 0", f.lora_up);
  if (f.lora_down < 0) c.fail("ffn.lora_down must be >= 0", f.lora_down);
  if (f.lora_gate > 0 && !f.gated) c.fail("ffn.lora_gate needs a gated FFN", f.lora_gate);
  if (f.n_experts < 0) c.fail("ffn.n_experts must be >= 0 (0: dense)", f.n_experts);
  if (f.n_experts >= 1 && (f.top_k < 1 || f.top_k > f.n_experts))
    c.fail("ffn.top_k must be in [1, n_experts = " + std::to_string(f.n_experts) + "]", f.top_k);
  if (f.n_experts == 0 && f.top_k != 0) c.fail("ffn.top_k needs n_experts >= 1", f.top_k);
  if (f.shared_d_ff < 0) c.fail("ffn.shared_d_ff must be >= 0 (0: no shared expert)", f.shared_d_ff);
  if (f.shared_d_ff > 0 && f.n_experts == 0)
    c.fail("ffn.shared_d_ff needs a mixture of experts (n_experts >= 1)", f.shared_d_ff);
  if (f.shared_gate && f.shared_d_ff == 0) c.fail("ffn.shared_gate needs shared_d_ff >= 1", 0);
  if (f.router_scales && f.n_experts == 0) c.fail("ffn.router_scales needs a mixture of experts (n_experts >= 1)", 0);
}

inline void check_block(const block_spec& b, const spec_context& c) {
  check_attention(b.attention, c);
  check_ffn(b.ffn, c);
  if (b.parallel.kind != attention_kind::none) {
    if (!b.parallel.recurrent())
      c.fail("parallel.kind must be none, mamba2 or gated_deltanet (a recurrent mixer beside the attention)",
             to_string(b.parallel.kind));
    if (!b.attention.attends())
      c.fail("parallel needs standard or latent attention beside it (attention.kind)", to_string(b.attention.kind));
    if (b.parallel.d_model != 0 && b.parallel.d_model != b.attention.d_model)
      c.fail("parallel.d_model must be 0 or attention.d_model = " + std::to_string(b.attention.d_model),
             b.parallel.d_model);
    attention_spec p = b.parallel;
    p.d_model = b.attention.d_model;
    check_attention(p, {c.function, c.prefix + "parallel mixer: "});
  }
  if (b.ffn.d_model != b.attention.d_model)
    c.fail("ffn.d_model must equal attention.d_model = " + std::to_string(b.attention.d_model),
           b.ffn.d_model);
  if (b.n_norms < 0) c.fail("n_norms must be >= 0", b.n_norms);
  if (b.repeat < 1) c.fail("repeat must be >= 1", b.repeat);
  if (b.per_layer_input < 0) c.fail("per_layer_input must be >= 0 (0: no per-layer input)", b.per_layer_input);
}

inline void check_seq_len(double seq_len, const spec_context& c) {
  if (!(std::isfinite(seq_len) && seq_len >= 1)) c.fail("seq_len must be finite and >= 1", seq_len);
}

/// Appends the LoRA pair of a (out, in) projection `host` (rank r > 0) carrying the host's
/// expert copies.
inline void add_lora(std::vector<weight>& ws, const std::string& host, part kind, std::int64_t out,
                     std::int64_t in, std::int64_t r, std::int64_t copies, double active,
                     const lora_options& o) {
  if (r <= 0) return;
  weight a = linear(host + ".lora_A", kind, r, in);
  weight b = linear(host + ".lora_B", kind, out, r);
  for (weight* w : {&a, &b}) {
    w->copies = copies;
    w->active_copies = active;
    w->counted = o.count_params;
    w->applications = o.count_macs ? 1.0 : 0.0;
    ws.push_back(std::move(*w));
  }
}

/// MLA's matrices: down-projections whole, up-projections per head (per_head layout; whole
/// otherwise), o_proj per `a.out`.
inline std::vector<weight> latent_attention_weights(const attention_spec& a) {
  const std::int64_t d = a.d_model, h = a.n_heads, r = a.kv_lora_rank;
  const std::int64_t qk = a.qk_head_size(), nope = a.qk_nope_head_dim, vd = a.v_head_dim;
  const bool split = a.qkv == qkv_layout::per_head;
  std::vector<weight> ws;
  auto mul = [](std::int64_t x, std::int64_t y) { return checked_mul(x, y, "nsc::attention_weights", "latent attention width"); };
  if (a.q_lora_rank > 0) {
    ws.push_back(linear("q_a_proj", part::attention, a.q_lora_rank, d, a.qkv_bias));
    weight qb = linear("q_b_proj", part::attention, mul(h, qk), a.q_lora_rank);
    if (split) qb.split_out = h;
    ws.push_back(std::move(qb));
  } else {
    weight q = linear("q_proj", part::attention, mul(h, qk), d);
    if (split) q.split_out = h;
    ws.push_back(std::move(q));
  }
  ws.push_back(linear("kv_a_proj_with_mqa", part::attention, r + a.qk_rope_head_dim, d, a.qkv_bias));
  if (split) {
    // kv_b_proj's rows interleave per head [k_nope (nope), v (v_head_dim)]: scored as the key
    // and value up-projections of each head.
    if (nope > 0) {
      weight kb = linear("kv_b_proj.k", part::attention, mul(h, nope), r);
      kb.split_out = h;
      ws.push_back(std::move(kb));
    }
    weight vb = linear("kv_b_proj.v", part::attention, mul(h, vd), r);
    vb.split_out = h;
    ws.push_back(std::move(vb));
  } else {
    ws.push_back(linear("kv_b_proj", part::attention, mul(h, nope + vd), r));
  }
  weight o = linear("o_proj", part::attention, d, mul(h, vd), a.out_bias);
  if (a.out == out_layout::per_head) o.split_in = h;
  ws.push_back(std::move(o));
  if (a.index_n_heads > 0) { // DSA's lightning indexer: wq_b per index head (per_head layout), wk and weights_proj whole
    weight qb = linear("indexer.wq_b", part::attention, mul(a.index_n_heads, a.index_head_dim), a.q_lora_rank);
    if (split) qb.split_out = a.index_n_heads;
    ws.push_back(std::move(qb));
    ws.push_back(linear("indexer.wk", part::attention, a.index_head_dim, d));
    ws.push_back(linear("indexer.weights_proj", part::attention, a.index_n_heads, d));
  }
  return ws;
}

/// Appends Linear(d -> rows) `name` of part::attention, scored as `blocks` row blocks when split.
inline void add_row_blocks(std::vector<weight>& ws, const char* name, std::int64_t rows, std::int64_t d,
                           std::int64_t blocks, bool bias, bool split) {
  weight x = linear(name, part::attention, rows, d, bias);
  if (split) x.split_out = blocks;
  ws.push_back(std::move(x));
}

/// Mamba-2's matrices. Scored by the paper's per-head convention: in_proj's z and x parts per
/// head (H blocks (P, d)), its B and C parts per group (G blocks (N, d)), its dt part (H, d)
/// whole (per_head layout; every part whole otherwise); out_proj whole (per head with
/// out_layout::per_head). Parameters and MACs are those of the one in_proj tensor.
inline std::vector<weight> mamba2_weights(const attention_spec& a) {
  const ssm_widths w = mamba2_widths(a);
  const std::int64_t d = a.d_model, gn = a.ssm_groups * a.ssm_state; // checked by mamba2_widths
  const bool split = a.qkv == qkv_layout::per_head;
  std::vector<weight> ws;
  add_row_blocks(ws, "in_proj.z", w.inner, d, a.ssm_heads, a.qkv_bias, split);
  add_row_blocks(ws, "in_proj.x", w.inner, d, a.ssm_heads, a.qkv_bias, split);
  add_row_blocks(ws, "in_proj.B", gn, d, a.ssm_groups, a.qkv_bias, split);
  add_row_blocks(ws, "in_proj.C", gn, d, a.ssm_groups, a.qkv_bias, split);
  add_row_blocks(ws, "in_proj.dt", a.ssm_heads, d, 1, a.qkv_bias, split);
  weight o = linear("out_proj", part::attention, d, w.inner, a.out_bias);
  if (a.out == out_layout::per_head) o.split_in = a.ssm_heads;
  ws.push_back(std::move(o));
  return ws;
}

/// Gated DeltaNet's matrices, scored per head like attention: in_proj_qkvz's q and k parts per
/// key head (HK blocks (dk, d)), its v and z parts per value head (HV blocks (dv, d)),
/// in_proj_ba's beta and a parts (HV, d) whole (per_head layout; every part whole otherwise);
/// out_proj whole (per value head with out_layout::per_head).
inline std::vector<weight> gated_deltanet_weights(const attention_spec& a) {
  const ssm_widths w = mamba2_widths(a);
  const std::int64_t d = a.d_model, kw = a.ssm_groups * a.ssm_state; // checked by mamba2_widths
  const bool split = a.qkv == qkv_layout::per_head;
  std::vector<weight> ws;
  add_row_blocks(ws, "in_proj_qkvz.q", kw, d, a.ssm_groups, false, split);
  add_row_blocks(ws, "in_proj_qkvz.k", kw, d, a.ssm_groups, false, split);
  add_row_blocks(ws, "in_proj_qkvz.v", w.inner, d, a.ssm_heads, false, split);
  add_row_blocks(ws, "in_proj_qkvz.z", w.inner, d, a.ssm_heads, false, split);
  add_row_blocks(ws, "in_proj_ba.b", a.ssm_heads, d, 1, false, split);
  add_row_blocks(ws, "in_proj_ba.a", a.ssm_heads, d, 1, false, split);
  weight o = linear("out_proj", part::attention, d, w.inner);
  if (a.out == out_layout::per_head) o.split_in = a.ssm_heads;
  ws.push_back(std::move(o));
  return ws;
}

inline std::vector<weight> attention_weights_unchecked(const attention_spec& a,
                                                       const lora_options& lo) {
  if (a.kind == attention_kind::none) return {};
  if (a.kind == attention_kind::mamba2) return mamba2_weights(a);
  if (a.kind == attention_kind::gated_deltanet) return gated_deltanet_weights(a);
  if (a.kind == attention_kind::linear) return {linear("linear_attn", part::attention, a.d_model, a.d_model)};
  if (a.kind == attention_kind::latent) return latent_attention_weights(a);
  const std::int64_t d = a.d_model, h = a.n_heads, kv = a.kv_heads();
  constexpr std::string_view fn = "nsc::attention_weights";
  const std::int64_t qw = checked_mul(h, a.head_size(), fn, "query width n_heads * head_dim");
  const std::int64_t kw = checked_mul(kv, a.head_size(), fn, "key/value width n_kv_heads * head_dim");
  std::vector<weight> ws;
  switch (a.qkv) {
  case qkv_layout::merged:
    ws.push_back(linear("qkv_proj", part::attention,
                        checked_add(a.output_gate ? checked_mul<std::int64_t>(2, qw, fn, "merged QKV width") : qw,
                                    checked_mul<std::int64_t>(a.kv_shared ? 0 : a.k_eq_v ? 1 : 2, kw, fn, "merged QKV width"), fn,
                                    "merged QKV width"),
                        d, a.qkv_bias));
    break;
  case qkv_layout::per_head:
  case qkv_layout::separate: {
    weight q = linear("q_proj", part::attention, qw, d, a.qkv_bias);
    weight k = linear("k_proj", part::attention, kw, d, a.qkv_bias);
    weight v = linear("v_proj", part::attention, kw, d, a.qkv_bias);
    if (a.qkv == qkv_layout::per_head) {
      q.split_out = h;
      k.split_out = kv;
      v.split_out = kv;
    }
    ws.push_back(std::move(q));
    if (a.output_gate) { // the second half of q_proj's rows: a sigmoid gate per query head
      weight g = linear("q_proj.gate", part::attention, qw, d, a.qkv_bias);
      if (a.qkv == qkv_layout::per_head) g.split_out = h;
      ws.push_back(std::move(g));
    }
    if (!a.kv_shared) ws.push_back(std::move(k)); // a kv_shared layer reads another layer's keys and values
    if (!a.k_eq_v && !a.kv_shared) ws.push_back(std::move(v));
    break;
  }
  }
  add_lora(ws, "q_proj", part::attention, qw, d, a.lora_q, 1, -1, lo);
  add_lora(ws, "k_proj", part::attention, kw, d, a.lora_k, 1, -1, lo);
  add_lora(ws, "v_proj", part::attention, kw, d, a.lora_v, 1, -1, lo);
  weight o = linear("o_proj", part::attention, d, qw, a.out_bias);
  if (a.out == out_layout::per_head) o.split_in = h;
  ws.push_back(std::move(o));
  add_lora(ws, "o_proj", part::attention, d, qw, a.lora_o, 1, -1, lo);
  return ws;
}

inline std::vector<weight> ffn_weights_unchecked(const ffn_spec& f, const lora_options& lo) {
  if (f.kind == ffn_kind::none) return {};
  if (f.kind == ffn_kind::linear) return {linear("linear_ffn", part::ffn, f.d_model, f.d_model)};
  const std::int64_t d = f.d_model, k = f.d_ff;
  const bool moe = f.n_experts >= 1;
  const std::int64_t copies = moe ? f.n_experts : 1;
  const double active = moe ? double(f.top_k) : -1.0;
  std::vector<weight> ws;
  if (moe) ws.push_back(linear("router", part::router, f.n_experts, d, f.router_bias));
  auto expert = [&](const char* name, std::int64_t out, std::int64_t in) {
    weight w = linear(name, part::ffn, out, in, f.bias);
    w.copies = copies;
    w.active_copies = active;
    ws.push_back(std::move(w));
  };
  if (f.gated) expert("gate_proj", k, d);
  expert("up_proj", k, d);
  expert("down_proj", d, k);
  if (moe && f.shared_d_ff > 0) {
    const std::int64_t ks = f.shared_d_ff;
    if (f.gated) ws.push_back(linear("shared_expert.gate_proj", part::ffn, ks, d, f.bias));
    ws.push_back(linear("shared_expert.up_proj", part::ffn, ks, d, f.bias));
    ws.push_back(linear("shared_expert.down_proj", part::ffn, d, ks, f.bias));
    if (f.shared_gate) ws.push_back(linear("shared_expert_gate", part::router, 1, d));
  }
  if (f.gated) add_lora(ws, "gate_proj", part::ffn, k, d, f.lora_gate, copies, active, lo);
  add_lora(ws, "up_proj", part::ffn, k, d, f.lora_up, copies, active, lo);
  add_lora(ws, "down_proj", part::ffn, d, k, f.lora_down, copies, active, lo);
  return ws;
}

/// Norm parameters inside an attention sublayer: q/k norms (RMSNorm) and MLA's q_a_layernorm
/// (q_lora_rank) and kv_a_layernorm (kv_lora_rank).
inline std::int64_t attention_norm_params(const attention_spec& a) {
  constexpr std::string_view fn = "nsc::make_block";
  if (a.kind == attention_kind::latent) // + the DSA indexer's k_norm LayerNorm (weight and bias)
    return checked_add(checked_add(a.q_lora_rank, a.kv_lora_rank, fn, "MLA norm parameters"),
                       checked_mul<std::int64_t>(2, a.index_head_dim, fn, "indexer k_norm parameters"), fn,
                       "MLA norm parameters");
  if (a.kind != attention_kind::standard) return 0;
  switch (a.qk_norm) {
  case qk_norm_kind::none: return 0;
  case qk_norm_kind::per_head: // q_norm only on a kv_shared layer
    return checked_mul<std::int64_t>(a.kv_shared ? 1 : 2, a.head_size(), fn, "q/k norm parameters");
  case qk_norm_kind::whole:
    return checked_mul(checked_add(a.n_heads, a.kv_shared ? 0 : a.kv_heads(), fn, "q/k norm parameters"), a.head_size(),
                       fn, "q/k norm parameters");
  }
  return 0;
}

/// Multiply-accumulates of the DSA indexer per key (every key, not capped by index_topk) and
/// query token: index_n_heads (index_head_dim + 1) (the q.k score of each index head and its
/// weighting by weights_proj's output); 0 without an indexer.
inline std::int64_t indexer_macs_per_key(const attention_spec& a) {
  if (a.kind != attention_kind::latent || a.index_n_heads <= 0) return 0;
  constexpr std::string_view fn = "nsc::make_block";
  return checked_mul(a.index_n_heads, checked_add<std::int64_t>(a.index_head_dim, 1, fn, "indexer MACs per key"), fn,
                     "indexer MACs per key");
}

/// Multiply-accumulates of the attention products per attended key and query token:
/// n_heads (qk_head_size + v_head_size) (scores QK^T plus values AV); 0 without attention.
inline std::int64_t attention_macs_per_key(const attention_spec& a) {
  if (!a.attends()) return 0;
  constexpr std::string_view fn = "nsc::make_block";
  return checked_mul(a.n_heads, checked_add(a.qk_head_size(), a.v_head_size(), fn, "attention MACs per key"), fn,
                     "attention MACs per key");
}

inline layer make_block_unchecked(const block_spec& b, double seq_len, std::string name,
                                  const lora_options& lo) {
  layer l;
  l.name = std::move(name);
  l.repeat = b.repeat;
  l.weights = attention_weights_unchecked(b.attention, lo);
  for (weight& w : ffn_weights_unchecked(b.ffn, lo)) l.weights.push_back(std::move(w));
  l.norm_params = checked_add(checked_mul(b.n_norms, norm_params(b.norm, b.attention.d_model), "nsc::make_block",
                                          "norm parameters"),
                              attention_norm_params(b.attention), "nsc::make_block", "norm parameters");
  l.norm_params = checked_add(l.norm_params, mixer_norm_params(b.attention), "nsc::make_block", "norm parameters");
  l.other_params = mixer_other_params(b.attention);
  if (b.attention.sinks && b.attention.kind == attention_kind::standard)
    l.other_params = checked_add(l.other_params, b.attention.n_heads, "nsc::make_block", "sink parameters");
  const attention_spec p = parallel_mixer(b);
  if (p.kind != attention_kind::none) { // Falcon-H1: the Mamba-2 mixer beside the attention
    const char* prefix = p.kind == attention_kind::mamba2 ? "mamba." : "linear_attn.";
    for (weight& w : attention_weights_unchecked(p, lo)) {
      w.name = prefix + w.name;
      l.weights.push_back(std::move(w));
    }
    l.norm_params = checked_add(l.norm_params, mixer_norm_params(p), "nsc::make_block", "norm parameters");
    l.other_params = checked_add(l.other_params, mixer_other_params(p), "nsc::make_block", "mixer parameters");
  }
  if (b.ffn.router_scales && b.ffn.kind == ffn_kind::standard && b.ffn.n_experts >= 1) // Gemma 4: scale + per_expert_scale
    l.other_params = checked_add(l.other_params, checked_add(b.ffn.d_model, b.ffn.n_experts, "nsc::make_block", "router scales"),
                                 "nsc::make_block", "router scales");
  if (b.per_layer_input > 0) { // Gemma 4: per_layer_input_gate, per_layer_projection, post_per_layer_input_norm
    l.weights.push_back(linear("per_layer_input_gate", part::other, b.per_layer_input, b.attention.d_model));
    l.weights.push_back(linear("per_layer_projection", part::other, b.attention.d_model, b.per_layer_input));
    l.norm_params = checked_add(l.norm_params, norm_params(b.norm, b.attention.d_model), "nsc::make_block", "norm parameters");
  }
  const double cap = b.attention.sliding_window > 0 ? double(b.attention.sliding_window)
                     : b.attention.chunk > 0        ? double(b.attention.chunk)
                     : b.attention.index_topk > 0   ? double(b.attention.index_topk)
                                                    : seq_len;
  const double keys = std::min(seq_len, cap);
  l.extra_macs = keys * double(attention_macs_per_key(b.attention)) +
                 seq_len * double(indexer_macs_per_key(b.attention)) + // the indexer scores every key
                 double(mixer_macs_per_token(b.attention)) + double(mixer_macs_per_token(p));
  return l;
}

} // namespace detail

/// The attention weights of one block, in order q_proj, k_proj, v_proj (or qkv_proj when
/// merged), their LoRA pairs, o_proj and its LoRA pair (see qkv_layout / out_layout for how
/// each is split for scoring). Parameters: (n_heads + 2 n_kv_heads) head_dim d_model for Q, K, V
/// (+ biases), n_heads head_dim d_model for the output projection.
/// Throws std::invalid_argument "nsc::attention_weights: attention.<field> <rule> (got <v>)"
/// on a malformed spec (see make_transformer).
inline std::vector<weight> attention_weights(const attention_spec& a, const lora_options& lo = {}) {
  detail::check_attention(a, {"nsc::attention_weights", ""});
  return detail::attention_weights_unchecked(a, lo);
}

/// The FFN weights of one block: [router,] [gate_proj,] up_proj, down_proj, then LoRA pairs.
/// Throws std::invalid_argument "nsc::ffn_weights: ffn.<field> <rule> (got <v>)".
inline std::vector<weight> ffn_weights(const ffn_spec& f, const lora_options& lo = {}) {
  detail::check_ffn(f, {"nsc::ffn_weights", ""});
  return detail::ffn_weights_unchecked(f, lo);
}

/// One Transformer layer at sequence length T: the attention and FFN weights, n_norms norms of
/// width d_model (+ q/k and MLA norms), and extra_macs = keys n_heads (qk_head_size +
/// v_head_size) (QK^T and AV per token; keys = T, or min(T, sliding_window), or min(T, chunk); 2 T n_heads
/// head_dim for standard attention; 0 for linear / no-op attention: the paper's full-attention
/// convention; nsc/model/deployment.hpp has causal prefill and decode). The d_model of
/// attention and ffn must be given (>= 1) and equal. Throws std::invalid_argument
/// "nsc::make_block: <field> <rule> (got <v>)"; T must be finite and >= 1.
inline layer make_block(const block_spec& b, double seq_len, std::string name = "block",
                        const lora_options& lo = {}) {
  const detail::spec_context c{"nsc::make_block", ""};
  detail::check_block(b, c);
  detail::check_seq_len(seq_len, c);
  return detail::make_block_unchecked(b, seq_len, std::move(name), lo);
}

/// Checks a transformer_spec as make_transformer does, without building it. Errors name the
/// layer and the field: std::invalid_argument
/// "<function>: layer 3: attention.n_kv_heads must divide n_heads = 32 (got 5)". Rules:
/// d_model >= 1; embedding sizes >= 0; an LM head needs vocab_size >= 1; per layer (attention
/// and ffn d_model 0 or equal to d_model) n_heads >= 1, n_kv_heads >= 0 dividing n_heads,
/// head_dim >= 0 (0 needs n_heads | d_model), d_ff >= 1, LoRA ranks >= 0 (lora_gate only when
/// gated), n_experts >= 0, 1 <= top_k <= n_experts for MoE, n_norms >= 0, repeat >= 1 (the
/// total of the repeats fitting 64 bits). A run of repeat r > 1 is named by its layer range:
/// "layers 8-79: attention.n_heads must be >= 1 (got 0)".
inline void validate(const transformer_spec& s, std::string_view function = "nsc::make_transformer") {
  const detail::spec_context top{function, ""};
  if (s.d_model < 1) top.fail("d_model must be >= 1", s.d_model);
  const embedding_spec& e = s.embeddings;
  if (e.vocab_size < 0) top.fail("embeddings.vocab_size must be >= 0", e.vocab_size);
  if (e.positions < 0) top.fail("embeddings.positions must be >= 0", e.positions);
  if (e.token_types < 0) top.fail("embeddings.token_types must be >= 0", e.token_types);
  if (e.dim < 0) top.fail("embeddings.dim must be >= 0 (0: d_model)", e.dim);
  if (s.lm_head != lm_head_kind::none && e.vocab_size < 1)
    top.fail("embeddings.vocab_size must be >= 1 with an LM head", e.vocab_size);
  if (e.per_layer_vocab < 0) top.fail("embeddings.per_layer_vocab must be >= 0", e.per_layer_vocab);
  if (e.per_layer_dim < 0) top.fail("embeddings.per_layer_dim must be >= 0", e.per_layer_dim);
  if ((e.per_layer_vocab > 0) != (e.per_layer_dim > 0))
    top.fail("embeddings.per_layer_vocab and per_layer_dim must both be 0 or both >= 1 (per_layer_dim " +
                 std::to_string(e.per_layer_dim) + ")",
             e.per_layer_vocab);
  std::int64_t first = 0; // index of the entry's first layer
  for (std::size_t i = 0; i < s.blocks.size(); ++i) {
    const std::int64_t r = s.blocks[i].repeat;
    std::int64_t last = first;
    const bool wraps = r > 1 && __builtin_add_overflow(first, r - 1, &last);
    const detail::spec_context c{function, r <= 1 || wraps ? "layer " + std::to_string(first) + ": "
                                                           : "layers " + std::to_string(first) + "-" +
                                                                 std::to_string(last) + ": "};
    if (r < 1) c.fail("repeat must be >= 1", r);
    if (wraps || __builtin_add_overflow(first, r, &first))
      c.fail("the total number of layers overflows 64 bits (repeat)", r);
    block_spec b = s.blocks[i];
    if (b.attention.d_model != 0 && b.attention.d_model != s.d_model)
      c.fail("attention.d_model must be 0 or the model's d_model = " + std::to_string(s.d_model),
             b.attention.d_model);
    if (b.ffn.d_model != 0 && b.ffn.d_model != s.d_model)
      c.fail("ffn.d_model must be 0 or the model's d_model = " + std::to_string(s.d_model),
             b.ffn.d_model);
    b.attention.d_model = s.d_model;
    b.ffn.d_model = s.d_model;
    detail::check_block(b, c);
    if (b.per_layer_input != e.per_layer_dim)
      c.fail("per_layer_input must equal embeddings.per_layer_dim = " + std::to_string(e.per_layer_dim) +
                 " (every layer reads its slice of the per-layer embedding)",
             b.per_layer_input);
  }
  if (e.per_layer_dim > 0) // the per-layer table's width L p, and its rows times it, fit 64 bits
    (void)detail::checked_mul(detail::checked_mul(first, e.per_layer_dim, function, "per-layer embedding width"),
                        std::max(e.per_layer_vocab, s.d_model), function, "per-layer embedding parameters");
}

/// The network of a Transformer at sequence length T (layout in the file comment). NSC,
/// #Params and #MACs then come from score(net) and count(net); both are sums over the layers.
/// Throws std::invalid_argument "nsc::make_transformer: [layer <i>: ]<field> <rule> (got <v>)"
/// (see validate(transformer_spec)); T must be finite and >= 1.
inline network make_transformer(const transformer_spec& s, double seq_len) {
  validate(s, "nsc::make_transformer");
  detail::check_seq_len(seq_len, {"nsc::make_transformer", ""});
  const std::int64_t d = s.d_model, dim = s.embedding_dim();
  const embedding_spec& e = s.embeddings;
  network net;
  net.name = s.name;
  net.per = "token";

  if (e.vocab_size > 0 || e.positions > 0 || e.token_types > 0 || e.per_layer_vocab > 0) {
    layer emb;
    emb.name = "embeddings";
    emb.embedding = true;
    auto table = [&](const char* name, std::int64_t rows, std::int64_t width) {
      if (rows <= 0) return;
      weight w = linear(name, part::embedding, rows, width);
      w.applications = 0;
      emb.weights.push_back(std::move(w));
    };
    table("embed_tokens", e.vocab_size, dim);
    table("embed_positions", e.positions, d);
    table("token_type_embeddings", e.token_types, d);
    std::int64_t ple_width = 0; // Gemma 4: L p (validate() checked it)
    if (e.per_layer_dim > 0) {
      ple_width = detail::sum_repeats(s.blocks, [](std::size_t i) { return "block " + std::to_string(i); }) * e.per_layer_dim;
      table("embed_tokens_per_layer", e.per_layer_vocab, ple_width);
    }
    emb.norm_params = norm_params(e.norm, d);
    net.layers.push_back(std::move(emb));
    if (ple_width > 0) { // the projection of the input embedding to every layer's per-layer input
      layer l;
      l.name = "per_layer_proj";
      l.weights.push_back(linear("per_layer_model_projection", part::other, ple_width, d));
      l.norm_params = norm_params(norm_kind::rmsnorm, e.per_layer_dim); // per_layer_projection_norm
      net.layers.push_back(std::move(l));
    }
  }
  if (dim != d) {
    layer l;
    l.name = "project_in";
    l.weights.push_back(linear("project_in", part::other, d, dim));
    net.layers.push_back(std::move(l));
  }
  std::int64_t first = 0; // validate() checked the repeats' sum
  for (std::size_t i = 0; i < s.blocks.size(); ++i) {
    block_spec b = s.blocks[i];
    b.attention.d_model = d;
    b.ffn.d_model = d;
    net.layers.push_back(detail::make_block_unchecked(b, seq_len, run_name("layers.", first, b.repeat), s.lora));
    first += b.repeat;
  }
  if (dim != d) {
    layer l;
    l.name = "project_out";
    l.weights.push_back(linear("project_out", part::other, dim, d));
    net.layers.push_back(std::move(l));
  }
  if (s.final_norm != norm_kind::none) {
    layer l;
    l.name = "final_norm";
    l.norm_params = norm_params(s.final_norm, d);
    net.layers.push_back(std::move(l));
  }
  if (s.lm_head != lm_head_kind::none) {
    layer l;
    l.name = "lm_head";
    weight w = linear("lm_head", part::head, e.vocab_size, dim, s.lm_head_bias);
    w.counted = s.lm_head == lm_head_kind::untied;
    l.weights.push_back(std::move(w));
    net.layers.push_back(std::move(l));
  }
  if (s.pooler) {
    layer l;
    l.name = "pooler";
    weight w = linear("pooler", part::other, d, d, true);
    w.applications = 1 / seq_len;
    w.scored = s.score_pooler;
    l.weights.push_back(std::move(w));
    net.layers.push_back(std::move(l));
  }
  return net;
}


/// Whether two attention specs (or parallel mixers) are equal in every field.
inline bool same_attention(const attention_spec& a, const attention_spec& b) {
  return a.kind == b.kind && a.d_model == b.d_model && a.n_heads == b.n_heads && a.n_kv_heads == b.n_kv_heads &&
         a.head_dim == b.head_dim && a.qkv == b.qkv && a.out == b.out && a.qkv_bias == b.qkv_bias &&
         a.out_bias == b.out_bias && a.lora_q == b.lora_q && a.lora_k == b.lora_k && a.lora_v == b.lora_v &&
         a.lora_o == b.lora_o && a.qk_norm == b.qk_norm && a.sliding_window == b.sliding_window &&
         a.sinks == b.sinks && a.chunk == b.chunk && a.nope == b.nope && a.index_n_heads == b.index_n_heads &&
         a.index_head_dim == b.index_head_dim && a.index_topk == b.index_topk &&
         a.q_lora_rank == b.q_lora_rank && a.kv_lora_rank == b.kv_lora_rank &&
         a.qk_nope_head_dim == b.qk_nope_head_dim && a.qk_rope_head_dim == b.qk_rope_head_dim &&
         a.v_head_dim == b.v_head_dim && a.ssm_heads == b.ssm_heads && a.ssm_head_dim == b.ssm_head_dim &&
         a.ssm_state == b.ssm_state && a.ssm_groups == b.ssm_groups && a.conv_kernel == b.conv_kernel &&
         a.conv_bias == b.conv_bias && a.ssm_norm == b.ssm_norm && a.output_gate == b.output_gate && a.k_eq_v == b.k_eq_v &&
         a.kv_shared == b.kv_shared;
}

/// Whether two blocks are the same layer (attention, parallel mixer, FFN, norms, per-layer
/// input; every field compared, the repeat not).
inline bool same_block(const block_spec& x, const block_spec& y) {
  const ffn_spec &f = x.ffn, &g = y.ffn;
  return same_attention(x.attention, y.attention) && same_attention(x.parallel, y.parallel) &&
         f.kind == g.kind && f.d_model == g.d_model && f.d_ff == g.d_ff && f.router_scales == g.router_scales &&
         x.per_layer_input == y.per_layer_input &&
         f.gated == g.gated && f.bias == g.bias && f.lora_gate == g.lora_gate && f.lora_up == g.lora_up &&
         f.lora_down == g.lora_down && f.n_experts == g.n_experts && f.top_k == g.top_k &&
         f.router_bias == g.router_bias && f.shared_d_ff == g.shared_d_ff && f.shared_gate == g.shared_gate &&
         x.norm == y.norm && x.n_norms == y.n_norms;
}

/// The number of layers of `s`: the sum of the blocks' repeats (std::invalid_argument for a
/// repeat < 1, std::domain_error when the sum overflows 64 bits).
inline std::int64_t total_layers(const transformer_spec& s) {
  return detail::sum_repeats(s.blocks, [](std::size_t i) { return "block " + std::to_string(i); });
}

/// `s` with one block per layer (every repeat 1): what code that indexes layers (per-layer
/// pruning, checkpoints, per-layer config fields) needs. Refuses, before allocating, more than
/// `max_layers` layers: std::invalid_argument "nsc::expand: the model has more layers than the
/// limit of <max_layers> ... (got <n>)".
inline transformer_spec expand(const transformer_spec& s, std::int64_t max_layers = expand_max_layers) {
  const std::int64_t n = total_layers(s);
  detail::check_layer_limit("nsc::expand", "model", n, max_layers, "blocks", "keep the runs, or raise max_layers");
  transformer_spec out = s;
  out.blocks.clear();
  out.blocks.reserve(std::size_t(n));
  for (const block_spec& b : s.blocks) {
    block_spec one = b;
    one.repeat = 1;
    out.blocks.insert(out.blocks.end(), std::size_t(b.repeat), one);
  }
  return out;
}

/// `s` with every stretch of consecutive equal blocks (same_block) merged into one block whose
/// repeat is the sum of theirs (checked). make_transformer then builds one layer entry per run;
/// every score, count and deployment figure is unchanged (integers exactly, NSC up to rounding).
inline transformer_spec compress(const transformer_spec& s) {
  total_layers(s);
  transformer_spec out = s;
  out.blocks.clear();
  for (const block_spec& b : s.blocks) {
    if (!out.blocks.empty() && same_block(out.blocks.back(), b))
      out.blocks.back().repeat = detail::checked_add(out.blocks.back().repeat, b.repeat, "nsc::compress", "repeat");
    else
      out.blocks.push_back(b);
  }
  return out;
}

} // namespace nsc

#endif // NSC_MODEL_TRANSFORMER_HPP
