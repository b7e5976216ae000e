/// \file nsc/io/hf_config.hpp
/// Hugging Face `config.json` -> nsc::transformer_spec (optional part: needs nlohmann-json; the
/// core never includes this header).
///
/// Synopsis
///
///     hf_model read_hf_config(const nlohmann::json& config)     model_type, spec, init range
///     hf_model read_hf_config_file(const std::filesystem::path&)
///     network  hf_network(const hf_model&, double seq_len)       make_transformer(spec, T)
///     scoring  hf_scoring(const hf_model&, estimator)            normal(initializer_range),
///                                                                variance_source::tensor
///     nlohmann::json with_nsc_extensions(config, spec)           writes intermediate_sizes and
///                                                                lora_ranks (pruned models)
///     hf_families()                                              the table of family traits
///     hf_mtp_network(m, T), hf_mtp_spec(m), hf_deploy_mtp(m, w)  the MTP modules, apart
///     hf_model::stored / checkpoint_weights()                    quantization_config + torch_dtype
///
/// One reader drives every family from one table (`detail::hf::families`) of field names,
/// HF config-class defaults and structural traits; the counts are those of the module tree
/// transformers instantiates (every Linear, bias, norm, router, shared-expert gate, MLA norm).
///
/// | model_type | structure read from the config |
/// |---|---|
/// | llama, mistral, mixtral, qwen2, qwen3, phi3, olmo2, gemma, gemma2, gemma3 / gemma3_text | hidden_size, intermediate_size, num_hidden_layers, num_attention_heads, num_key_value_heads (absent or null: = heads), head_dim (absent or null: hidden / heads; Gemma 256, Qwen3 128 by default), vocab_size, tie_word_embeddings, rms_norm_eps, initializer_range. RMSNorm, gated FFN, rotary positions. llama/qwen3/olmo2: attention_bias (q, k, v, o), llama: mlp_bias; qwen2: q, k, v biased; qwen3, gemma3: q_norm/k_norm RMSNorm(head_dim); olmo2: q_norm RMSNorm(heads head_dim), k_norm RMSNorm(kv heads head_dim), 2 norms per layer; gemma2/gemma3: 4 norms per layer; gemma: tied by default. phi3's fused qkv_proj and gate_up_proj have the parameters of separate q, k, v and gate, up. mixtral: num_local_experts, num_experts_per_tok. |
/// | qwen2_moe, qwen3_moe | num_experts, num_experts_per_tok, moe_intermediate_size, decoder_sparse_step (1), mlp_only_layers ([]): layer i is MoE iff i is not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0, else a dense MLP of intermediate_size; qwen2_moe: shared_expert_intermediate_size and its Linear(d, 1) shared_expert_gate, q, k, v biased; qwen3_moe: q_norm/k_norm, no shared expert. |
/// | deepseek_v2, deepseek_v3 | multi-head latent attention: q_lora_rank (null: a direct q_proj), kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim, q_a_layernorm and kv_a_layernorm; n_routed_experts (null: dense), num_experts_per_tok, moe_intermediate_size, n_shared_experts (one MLP of n_shared_experts x moe_intermediate_size), first_k_dense_replace (0), moe_layer_freq (1): layer i is MoE iff i >= first_k_dense_replace and i % moe_layer_freq == 0; topk_method "noaux_tc" (V3) adds the router's e_score_correction_bias (n_routed_experts parameters). The multi-token-prediction layers (num_nextn_predict_layers) are not instantiated by transformers and not counted. |
/// | gpt_neox | hidden_size, intermediate_size, num_hidden_layers, num_attention_heads, vocab_size, tie_word_embeddings (false), attention_bias (true), layer_norm_eps; LayerNorm, fused query_key_value (= q, k, v), biased dense MLP; rotary_pct and use_parallel_residual change no count. |
/// | nemotron-nas (DeciLM) | the llama fields plus block_configs (exactly num_hidden_layers entries {"attention": {...}, "ffn": {...}}): attention no_op (sublayer and its norm absent), replace_with_linear (one Linear(hidden, hidden) without bias), n_heads_in_group (KV heads = heads / n_heads_in_group, must divide), window_length (sliding window); ffn no_op, replace_with_linear, ffn_mult (width find_multiple(int(2 ffn_mult hidden / 3), 256)), intermediate_size, or Puzzletron's moe {num_local_experts, num_experts_per_tok, expert_intermediate_dim} (a Mixtral-style MoE: router Linear(hidden, experts) without bias, SwiGLU experts). head_dim = hidden / heads. |
/// | nemotron_h | hybrid_override_pattern (one character per layer: M a Mamba-2 mixer, * attention, - a relu2 MLP up_proj/down_proj; E (MoE) refused); each layer one mixer and one RMSNorm (layer_norm_epsilon); hidden_size, num_attention_heads, num_key_value_heads, head_dim or attention_head_dim (remote code), attention_bias, intermediate_size, mlp_bias; Mamba-2: mamba_num_heads, mamba_head_dim, ssm_state_size, n_groups, conv_kernel, use_conv_bias (true), use_bias (false: in_proj, out_proj); vocab_size (131072), tie_word_embeddings (false). |
/// | qwen3_next | the qwen3_moe fields (q_norm/k_norm, qwen MoE with shared_expert_intermediate_size and its Linear(d, 1) gate, decoder_sparse_step, mlp_only_layers) plus: layer_types ("linear_attention" / "full_attention", one per layer) or full_attention_interval (4: layer i is full attention iff (i + 1) % 4 == 0); linear layers are Gated DeltaNet mixers (linear_num_value_heads, linear_value_head_dim, linear_num_key_heads, linear_key_head_dim, linear_conv_kernel_dim (4)); full-attention layers have the output gate (attn_output_gate, default true: q_proj of 2 heads head_dim rows); head_dim (256). The multi-token-prediction weights (mtp.*) are not instantiated by transformers and not counted. |
/// | qwen3_5_text, qwen3_5_moe_text (the text_config of qwen3_5 / qwen3_5_moe) | as qwen3_next (Qwen3.5's in_proj_qkv, in_proj_z, in_proj_b, in_proj_a have the parameters of in_proj_qkvz and in_proj_ba); qwen3_5_text: a dense MLP; qwen3_5_moe_text: every layer MoE with Qwen3_5MoeTextConfig's defaults (no intermediate_size field); the vision tower is not counted (its parameters, from vision_config, are printed: qwen3_5_vision_params); mtp_num_hidden_layers not counted. |
/// | gpt2 | n_embd, n_layer, n_head, n_inner (absent or null: 4 n_embd), n_positions, vocab_size, layer_norm_epsilon, initializer_range; every Linear biased, LayerNorm, learned positions, LM head tied (tie_word_embeddings, default true). |
/// | bert | hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, vocab_size, max_position_embeddings, type_vocab_size (2), layer_norm_eps, initializer_range; BertModel: embedding LayerNorm, post-norm blocks, no final norm, no LM head, the pooler (nsc extension `add_pooling_layer`, default true; the pretraining/MLM heads are not part of the spec). |
/// | opt | hidden_size, num_hidden_layers, num_attention_heads, ffn_dim, vocab_size, max_position_embeddings (+2 rows, as OPTLearnedPositionalEmbedding), word_embed_proj_dim (project_in/out when != hidden_size), enable_bias (true), do_layer_norm_before (true; false: no final norm), _remove_final_layer_norm (false), layer_norm_elementwise_affine (true), tie_word_embeddings (true), init_std (0.02). |
///
/// | kimi_k2 | deepseek_v3 under another name (DeepseekV3ForCausalLM). |
/// | granite, smollm3, ministral, ministral3 | llama (granite's multipliers change no count; smollm3 ties the head by default and its NoPE layers (no_rope_layers, else every no_rope_layer_interval-th (4)) are attention_spec::nope, as llama4's; ministral: mistral's sliding windows). |
/// | glm4 | attention_bias biases q, k, v (not o_proj); 4 norms per layer (input, post_self_attn, post_attention, post_mlp); fused gate_up_proj = gate + up. |
/// | glm4_moe | DeepSeek's MoE layout (n_routed_experts, moe_intermediate_size, n_shared_experts, first_k_dense_replace) with GQA attention (num_key_value_heads, head_dim), q, k, v biases from attention_bias, q_norm/k_norm RMSNorm(head_dim) when use_qk_norm, the router's e_score_correction_bias always. |
/// | minimax_m2 | mixtral's MoE (num_local_experts, intermediate_size), q_norm RMSNorm(heads head_dim) and k_norm RMSNorm(kv heads head_dim) when use_qk_norm, e_score_correction_bias when use_routing_bias; no sliding window. |
/// | granitemoe | mixtral's MoE (input_linear = gate + up of every expert, output_linear = down, router Linear(d, experts)), attention_bias. |
/// | olmoe | mixtral's MoE with num_experts, q_norm RMSNorm(hidden) and k_norm RMSNorm(kv heads head_dim), attention_bias; head_dim = hidden / heads. |
/// | phimoe | mixtral's MoE, LayerNorm (weight and bias) everywhere, attention_bias on q, k, v, o, lm_head_bias on the head; head_dim = hidden / heads. |
/// | starcoder2 | LayerNorm, a plain MLP (c_fc, c_proj), use_bias (true) on every Linear, tied head by default, sliding_window on every layer, norm_epsilon. |
/// | mimo | qwen2 plus num_nextn_predict_layers MTP modules (remote code MiMoMTPLayers). |
/// | cohere, cohere2 | one LayerNorm per layer (weight only: d parameters, counted as an RMSNorm) before the parallel attention and MLP; attention_bias (q, k, v, o); tied head by default; cohere: q_norm / k_norm over (heads, head_dim) and (kv heads, head_dim) when use_qk_norm; cohere2: sliding_window (4096) on every layer but each sliding_window_pattern-th (4), or layer_types (the global layers use no rotary positions: no parameters). |
/// | internlm2 | remote code InternLM2ForCausalLM: fused wqkv (= q, k, v) and wo biased by `bias` (default true), w1 / w3 / w2, head_dim = hidden / heads, untied output. |
/// | seed_oss | llama plus attention_bias on q, k, v, attention_out_bias on o_proj, mlp_bias. |
/// | granitemoehybrid | layer_types ("mamba" / "attention", one per layer) picks each layer's mixer; every layer has 2 RMSNorms and the shared_mlp (input_linear = gate + up of shared_intermediate_size, output_linear); num_local_experts > 0 adds granitemoe's experts (intermediate_size) and router, the shared_mlp then being an ungated shared expert; Mamba-2 as nemotron_h's from mamba_n_heads, mamba_d_head ("auto": mamba_expand x hidden / mamba_n_heads), mamba_d_state, mamba_n_groups, mamba_d_conv, mamba_conv_bias, mamba_proj_bias; head_dim = hidden / heads. |
/// | falcon | FalconForCausalLM: hidden_size, num_attention_heads (head_dim = hidden / heads), fused query_key_value of (heads + 2 kv) head_dim rows with kv = 1 when multi_query (default true) and not new_decoder_architecture, else num_kv_heads (null: heads); bias (false) on every Linear; LayerNorm (weight and bias): 2 per layer when not parallel_attn or num_ln_in_parallel_attn == 2 (default 2 with new_decoder_architecture), else 1; MLP dense_h_to_4h / dense_4h_to_h of ffn_hidden_size (4 hidden); tied head by default; alibi noted (no parameters). |
/// | falcon_h1 | FalconH1ForCausalLM: llama's attention (head_dim, attention_bias on q, k, v, o) and gated MLP (mlp_bias), 2 RMSNorms per layer, untied by default; beside the attention of every layer a Mamba-2 mixer (block_spec::parallel) on the same normed input, outputs summed: mamba_n_heads, mamba_d_head ("auto": inner / heads), inner width mamba_d_ssm (explicit null: mamba_expand x hidden), mamba_d_state, mamba_n_groups, mamba_d_conv, mamba_conv_bias (conv1d bias), mamba_proj_bias (in_proj bias), projectors_bias (out_proj bias), mamba_rms_norm (the gated RMSNorm(inner), default false); the muP multipliers and mamba_norm_before_gate change no count. |
/// | internlm3 | llama with qkv_bias on q, k, v and `bias` on o_proj and the MLP (remote code InternLM3). |
/// | ernie4_5, ernie4_5_moe | use_bias on q, k, v, o and the MLP; tied by default; MoE (Ernie4_5_MoeSparseMoeBlock): moe_num_experts (64), moe_k (6), moe_intermediate_size (1536), moe_num_shared_experts (2: one MLP of 2 widths), layer i is MoE iff moe_layer_start_index (1) <= i <= moe_layer_end_index (-1: the last) and (i + 1) % moe_layer_interval (1) == 0; the router's moe_statics bias; lm_head bias when use_bias. |
/// | exaone4 | q_norm / k_norm RMSNorm(head_dim), post_attention and post_feedforward norms, layer_types or every sliding_window_pattern-th (4) layer global, the others sliding (sliding_window 4096; an explicit null: none). |
/// | hunyuan_v1_dense, hunyuan_v1_moe | attention_bias (q, k, v, o), query_layernorm / key_layernorm RMSNorm(head_dim) always, unbiased MLP; MoE: every layer num_experts MixtralExperts of intermediate_size (top moe_topk) + a shared_mlp of intermediate_size, router without bias; num_experts / moe_topk as an integer or a per-layer list of one value. |
/// | gemma4 / gemma4_text | Gemma4ForConditionalGeneration's text decoder: gemma3's layers (4 norms, q_norm/k_norm RMSNorm(head_dim), GeGLU, tied) with layer_types (else every 6th layer full; the last layer always full), sliding_window (512); full layers have global_head_dim (512) and, with attention_k_eq_v, num_global_key_value_heads and no v_proj (the values are the key projection's output; the unweighted v_norm; keys and values both cached), unless the config has its own per_layer_config; layer_scalar buffers and final_logit_softcapping noted; per-layer embeddings (hidden_size_per_layer_input > 0, default 256, null none: embed_tokens_per_layer (vocab_size_per_layer_input, L p), per_layer_model_projection, per-layer gate / projection / norm: embedding_spec::per_layer_dim, block_spec::per_layer_input); num_kv_shared_layers n: the last n layers are KV-shared (attention_spec::kv_shared: no k/v projections, k_norm or cache; they attend the last earlier layer of their type, which must exist with their shape), with use_double_wide_mlp their MLP is 2 x intermediate_size; enable_moe_block: num_experts experts of moe_intermediate_size (top_k_experts) beside the dense MLP (shared_d_ff), router scales (ffn_spec::router_scales), 3 more norms; vision / audio tower sizes from vision_config / audio_config (hf_model::vision_params, audio_params). |
/// | glm_moe_dsa | GlmMoeDsaForCausalLM (GLM-5): deepseek_v32 with GlmMoeDsaConfig's defaults and the router bias always; indexer_types ("full" / "shared"), index_topk_pattern (F / S) or index_topk_freq (1) with index_skip_topk_offset (2): a shared layer has no indexer (it reuses the previous full layer's top-k; index_topk still caps its keys); mlp_layer_types must agree with first_k_dense_replace. |
///
/// Multi-token prediction (num_nextn_predict_layers: deepseek_v3, kimi_k2, glm4_moe, mimo): the
/// modules are not part of the served model and never enter the spec; hf_model::mtp_layers,
/// mtp_block (the decoder block the next layer index would have), mtp_norms (3: DeepSeek's
/// enorm, hnorm, shared_head.norm; MiMo's token, hidden and final layernorms) describe them,
/// hf_mtp_network / hf_mtp_spec / hf_deploy_mtp count them (eh_proj / input_proj Linear(2d -> d)
/// included; the embedding and head are the main model's, not counted again).
///
/// Quantised checkpoints (hf_model::stored, a stored_weights of nsc/model/deployment.hpp):
/// torch_dtype (or dtype) gives the bytes of everything not quantised (bfloat16 / float16 2,
/// float32 4; absent: bf16). quantization_config.quant_method:
///  * fp8: 8-bit elements, one float32 weight_scale_inv per weight_block_size block ([128, 128]
///    by default) of every attention, MLP, expert and shared-expert matrix;
///  * mxfp4: the routed experts only, 4-bit elements and one e8m0 byte per 32 inputs;
///  * awq: bits (w_bit), group_size (q_group_size; -1 per channel), zero_point, version gemm
///    (qweight int32 along the output) or gemv; fp16 scales and int32-packed qzeros per group;
///  * gptq: bits, group_size; qweight int32 along the input, qzeros (always stored), fp16
///    scales, and g_idx (one int32 per input column);
///  * compressed-tensors: format float-quantized / int-quantized (8-bit), pack-quantized (int32
///    words along the input plus a 2 x int64 weight_shape), naive-quantized; one weight scheme
///    (config_groups.*.weights: num_bits, strategy tensor / channel / group (group_size) / block
///    (block_structure), symmetric) on its targets ("Linear": every Linear incl. routers and the
///    head), scales in the model dtype, a static input_scale per Linear when
///    input_activations.dynamic is false.
/// modules_to_not_convert / ignore name modules (regexes "re:..." too) that stay plain; a role
/// (attention, MLP, experts, shared experts, router, head, embedding) excluded in every layer
/// that has it is plain, excluded in some layers only is an error (nsc stores a role one way
/// in every layer); vision-tower names are skipped. Any other quant_method, or a malformed
/// field, leaves `stored` empty with stored_error naming the field (the architecture still reads;
/// nsc score then needs --weight-dtype).
///
/// Multimodal configs: when the top-level model_type is not in the table but a `text_config`
/// object is (gemma3's Gemma3ForConditionalGeneration, and any other), its text decoder is read
/// (`hf_model::text_config` is true; the vision tower and projector are not counted).
///
/// Sliding-window layers (attention_spec::sliding_window): `layer_types` ("sliding_attention" /
/// "full_attention", one per layer) when given; else mistral, mixtral, phi3: every layer when
/// sliding_window is non-null; qwen2, qwen3, qwen2_moe, qwen3_moe: layers i >= max_window_layers
/// when use_sliding_window is true; gemma2: even layers; gemma3: every layer but each
/// sliding_window_pattern-th (6).
///
/// Per-layer overrides (llama-like families): transformers' `per_layer_config`, a map from the
/// layer index (a string) to {num_attention_heads, num_key_value_heads, head_dim,
/// intermediate_size, skip: ["attention" | "mlp"]} (a skipped sublayer drops its norms, as a
/// DeciLM no_op), and on MoE layers the family's expert count (mixtral num_local_experts, qwen
/// num_experts) and expert width (mixtral intermediate_size, qwen moe_intermediate_size), the
/// count >= num_experts_per_tok; an unknown key is an error (it might change a shape nsc cannot see).
///
/// nsc extensions (any model_type): `intermediate_sizes` (one positive integer per layer,
/// overriding the FFN width; experts' width for MoE layers), `expert_counts` (one integer per
/// layer: the routed experts of a MoE layer, >= num_experts_per_tok; 0 for a layer without
/// experts) and `lora_ranks`: an integer (every
/// adapted projection of every layer), an object {"q_proj": r, "k_proj": r, "v_proj": r,
/// "o_proj": r, "gate_proj": r, "up_proj": r, "down_proj": r} (keys optional, every layer), or a
/// list with one integer or object per layer. The projection names are nsc's (the same for
/// every model_type: up_proj is GPT-2's c_fc, BERT's intermediate.dense, OPT's fc1).
///
/// Runs of identical layers: the spec's blocks are runs (block_spec::repeat), built without
/// materialising a layer twice; a uniform config is one block "layers.0-<n-1>" whatever
/// num_hidden_layers (2e6, 1e7, 1e12 read instantly; their counts are exact or a domain error
/// naming the overflow). Per-layer configs (layer_types, block_configs, per_layer_config,
/// mlp_only_layers, decoder_sparse_step, first_k_dense_replace, moe_layer_freq, gemma2/3
/// window patterns, intermediate_sizes, lora_ranks lists) give consecutive runs, equal
/// neighbours merged (same_block). Code that needs one block per layer calls expand(spec).
///
/// Limits (checked before anything is allocated): at most hf_max_layer_runs (16384) runs, and
/// per-layer lists for at most 16384 layers (a message naming the field, the value and the
/// limit); every count derived from the config is computed with checked arithmetic
/// (nsc/detail/checked.hpp), so a huge width or depth is a domain error, never a wrapped number.
///
/// Errors: std::invalid_argument "nsc::read_hf_config: field 'hidden_size' must be a positive
/// integer (got \"abc\")", "nsc::read_hf_config: missing field 'hidden_size' (model_type
/// llama)", "nsc::read_hf_config: unknown model_type; supported: ... (got \"t5\")",
/// "nsc::read_hf_config: field 'block_configs[3].attention.n_heads_in_group' must divide
/// num_attention_heads = 64 (got 7)"; files go through nsc/io/input_file.hpp (size and depth
/// limits, the path in every message). Values are quoted truncated. Unknown top-level fields
/// are ignored (real configs carry many).
#ifndef NSC_IO_HF_CONFIG_HPP
#define NSC_IO_HF_CONFIG_HPP

#include <nsc/detail/checked.hpp>
#include <nsc/error_handling.hpp>
#include <nsc/io/input_file.hpp>
#include <nsc/model/deployment.hpp>
#include <nsc/model/network.hpp>
#include <nsc/model/score.hpp>
#include <nsc/model/transformer.hpp>
#include <nsc/spectral/psi.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <utility>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace nsc {

/// What read_hf_config extracts from a config.json.
struct hf_model {
  std::string model_type;         ///< "llama", "gpt2", ... (the text decoder's for a multimodal config)
  transformer_spec spec;          ///< the architecture
  double initializer_range = 0.02; ///< std of HF's normal init (OPT: init_std)
  double norm_eps = 0;            ///< rms_norm_eps / layer_norm_eps(ilon) if given (informative)
  bool text_config = false;       ///< read from a nested text_config (vision parts not counted)
  /// How the checkpoint stores the weights (torch_dtype, quantization_config); empty when the
  /// config's quantization_config cannot be read (stored_error says why).
  std::optional<stored_weights> stored;
  std::string stored_error;       ///< why `stored` is empty
  /// Multi-token-prediction modules (num_nextn_predict_layers; DeepSeek-V3, Kimi K2, GLM-4.5,
  /// MiMo): not part of the served model. Each is mtp_block (a decoder block like the last
  /// layer's kind), a Linear(2 d -> d) without bias (eh_proj / input_proj) and mtp_norms
  /// d-wide RMSNorms (enorm, hnorm, shared_head.norm; MiMo token, hidden and final
  /// layernorms); the embedding and the LM head are the main model's (not counted again).
  std::int64_t mtp_layers = 0;
  block_spec mtp_block;
  std::int64_t mtp_norms = 0;
  /// Parameters of the vision tower and projector a multimodal wrapper's vision_config
  /// determines (llama4: Llama4VisionModel + Llama4MultiModalProjector); -1 when not determined.
  /// Never part of spec (the text decoder is what is scored and counted).
  std::int64_t vision_params = -1;
  /// Parameters of the audio tower and projector an audio_config determines (gemma4:
  /// Gemma4AudioModel + embed_audio); -1 when there is none or it is not determined. Never in spec.
  std::int64_t audio_params = -1;
  /// One line per structure of the config that the counts do not show by themselves (attention
  /// sinks, chunked and NoPE layers, the vision tower not counted), for output next to them.
  std::vector<std::string> notes;

  /// The stored format; throws std::invalid_argument (stored_error) when it could not be read.
  const stored_weights& checkpoint_weights() const {
    if (!stored) throw std::invalid_argument(stored_error);
    return *stored;
  }
};

/// The most runs of identical layers read_hf_config builds, and the most layers a per-layer list
/// (layer_types, block_configs, intermediate_sizes, a list of lora_ranks) may describe: far
/// above any published decoder (~130 layers). num_hidden_layers itself has no limit of its own:
/// a uniform config is one run (block_spec::repeat) whatever its depth, and every count of it is
/// checked arithmetic (a domain error on overflow).
inline constexpr std::int64_t hf_max_layer_runs = 16384;

/// The model types read_hf_config understands.
inline constexpr std::string_view hf_supported_model_types =
    "llama, mistral, mixtral, qwen2, qwen3, qwen2_moe, qwen3_moe, phi3, olmo2, gemma, gemma2, "
    "gemma3, gemma3_text, deepseek_v2, deepseek_v3, deepseek_v32, gpt_oss, llama4 / llama4_text, gpt_neox, nemotron-nas, "
    "nemotron_h, qwen3_next, qwen3_5 / qwen3_5_text, qwen3_5_moe / qwen3_5_moe_text, gpt2, bert, opt, "
    "kimi_k2, granite, granitemoe, smollm3, ministral, ministral3, glm4, glm4_moe, minimax_m2, olmoe, phimoe, "
    "starcoder2, mimo, cohere, cohere2, internlm2, seed_oss, granitemoehybrid, falcon, falcon_h1, internlm3, ernie4_5, exaone4, "
    "hunyuan_v1_dense, hunyuan_v1_moe, glm_moe_dsa, ernie4_5_moe, gemma4 / gemma4_text (and multimodal wrappers holding one of these in text_config: gemma3, mistral3, llama4, ...)";

namespace detail::hf {

using json = nlohmann::json;
inline constexpr std::string_view fn = "nsc::read_hf_config";

[[noreturn]] inline void bad(std::string_view field, std::string_view rule, const json& v) {
  std::string r = "field '";
  r.append(field).append("' ").append(rule);
  throw_invalid_argument(fn, r, io::json_excerpt(v));
}

/// Which mixture-of-experts layout a family has.
enum class moe_layout { none, mixtral, qwen, deepseek, llama4, ernie };
/// How a family marks sliding-window layers when `layer_types` is absent.
enum class window_rule { none, every_layer, qwen, alternate, pattern };

/// One row of the family table: field names, HF config-class defaults and structure.
struct family {
  std::string_view model_type;
  const char* hidden = "hidden_size";
  const char* layers = "num_hidden_layers";
  const char* heads = "num_attention_heads";
  const char* kv_heads = "num_key_value_heads"; ///< nullptr: MHA (kv = heads)
  bool head_dim = true;                          ///< reads head_dim (else hidden / heads)
  const char* ffn = "intermediate_size";         ///< nullptr: no global FFN width (DeciLM)
  std::int64_t ffn_default_mult = 0;             ///< absent FFN width: mult x hidden (GPT-2: 4)
  const char* vocab = "vocab_size";
  const char* positions = nullptr;               ///< learned position table rows
  const char* eps = "rms_norm_eps";
  const char* init = "initializer_range";
  const char* defaults = "{}";                   ///< HF config-class defaults (JSON)
  bool tie_default = false;
  norm_kind norm = norm_kind::rmsnorm;
  std::int64_t block_norms = 2;                  ///< d_model-wide norms per block
  bool gated = true;
  bool qkv_bias = false, out_bias = false, ffn_bias = false;
  const char* attention_bias = nullptr;          ///< field switching q, k, v, o biases
  const char* mlp_bias = nullptr;                ///< field switching the MLP biases
  qk_norm_kind qk_norm = qk_norm_kind::none;
  moe_layout moe = moe_layout::none;
  bool shared_expert = false;                    ///< qwen: shared expert + its gate
  bool latent = false;                           ///< DeepSeek MLA
  window_rule window = window_rule::none;
  bool per_layer_config = true;                  ///< reads transformers' per_layer_config
  bool sinks = false;                            ///< gpt_oss: a learned sink logit per query head
  bool chunked = false;                          ///< llama4: no_rope_layers (NoPE) and chunked attention
  bool dsa = false;                              ///< deepseek_v32: DSA indexer (index_n_heads, index_head_dim, index_topk)
  bool shared_indexer = false;                   ///< glm_moe_dsa: indexer_types "shared" layers reuse a previous layer's top-k
  /// HunYuan MoE: top-k field (moe_topk), expert count and top-k as an integer or a per-layer list
  /// of one value, and a shared_mlp of intermediate_size beside the experts in every layer.
  const char* topk_key = "num_experts_per_tok";
  bool uniform_lists = false;
  bool shared_mlp = false;
  bool block_configs = false;                    ///< DeciLM block_configs
  const char* qk_norm_flag = nullptr;            ///< field switching the q/k norms (use_qk_norm)
  bool qkv_only_bias = false;                    ///< attention_bias switches q, k, v only (o_proj unbiased)
  const char* experts_key = nullptr;             ///< mixtral layout: expert count field (num_local_experts)
  bool router_bias = false;                      ///< the router has n_experts bias parameters (GLM-4.5 e_score_correction_bias, gpt_oss router.bias)
  const char* router_bias_flag = nullptr;        ///< field switching it (MiniMax-M2 use_routing_bias)
  const char* lm_head_bias = nullptr;            ///< field switching a bias on the LM head (PhiMoE)
  const char* mtp_layers = nullptr;              ///< field counting MTP modules (num_nextn_predict_layers)
  std::int64_t mtp_norms = 3;                    ///< d-wide norms of an MTP module outside its block
  bool nope_layers = false;                      ///< SmolLM3: no_rope_layers / no_rope_layer_interval NoPE layers (attention_spec::nope)
  const char* hybrid_pattern = nullptr;          ///< Nemotron-H hybrid_override_pattern (one mixer per layer)
  bool linear_attention = false;                 ///< Qwen3-Next: Gated DeltaNet layers (layer_types /
                                                 ///< full_attention_interval), gated full attention
  const char* out_bias_flag = nullptr;           ///< field switching o_proj's bias alone (Seed-OSS attention_out_bias)
  /// GraniteMoeHybrid: layer_types "mamba" / "attention" pick each layer's mixer (an FFN in every
  /// layer); the Mamba-2 fields are mamba_*; the dense FFN is the shared_mlp, and with
  /// num_local_experts > 0 every layer is a MoE whose shared_mlp is an ungated shared expert.
  bool mamba_layer_types = false;
  /// EXAONE 4: `sliding_window: null` (explicitly) means no sliding layer (Exaone4Config sets
  /// sliding_window_pattern 0), where the table default would otherwise apply.
  bool null_window_is_full = false;
  /// Gemma 4: full-attention layers take global_head_dim (512) and, with attention_k_eq_v,
  /// num_global_key_value_heads and no v_proj (attention_spec::k_eq_v), unless the config holds
  /// its own per_layer_config; the last layer is always full attention; without layer_types every
  /// 6th layer is full (sliding_window_pattern is not read). Per-layer embeddings
  /// (hidden_size_per_layer_input > 0, default 256), KV-shared layers (num_kv_shared_layers > 0,
  /// their MLP doubled by use_double_wide_mlp) and the MoE block (enable_moe_block) are read (see
  /// the family table).
  bool global_layers = false;
  /// Falcon-H1: every layer runs attention and a Mamba-2 mixer (mamba_*, inner width mamba_d_ssm
  /// or mamba_expand x hidden) in parallel on the same normed input (block_spec::parallel).
  bool parallel_mamba = false;
};

inline constexpr const char* gemma_defaults = R"({"head_dim": 256, "vocab_size": 256000})";
inline constexpr const char* gemma3_defaults =
    R"({"vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26,
        "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "sliding_window": 4096,
        "sliding_window_pattern": 6})";

inline constexpr const char* gemma4_defaults = // Gemma4TextConfig
    R"({"vocab_size": 262144, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 30,
        "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "sliding_window": 512,
        "global_head_dim": 512, "hidden_size_per_layer_input": 256, "num_kv_shared_layers": 0})";

inline constexpr const char* gpt_oss_defaults =
    R"({"num_hidden_layers": 36, "num_local_experts": 128, "vocab_size": 201088, "hidden_size": 2880,
        "intermediate_size": 2880, "head_dim": 64, "num_attention_heads": 64, "num_key_value_heads": 8,
        "sliding_window": 128, "num_experts_per_tok": 4})";

inline constexpr const char* llama4_defaults =
    R"({"vocab_size": 202048, "hidden_size": 5120, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
        "num_hidden_layers": 48, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
        "num_experts_per_tok": 1, "num_local_experts": 16, "interleave_moe_layer_step": 1,
        "attention_chunk_size": 8192, "no_rope_layer_interval": 4})";

inline constexpr const char* glm_moe_dsa_defaults = // GlmMoeDsaConfig (zai-org/GLM-5)
    R"({"vocab_size": 154880, "hidden_size": 6144, "intermediate_size": 12288, "moe_intermediate_size": 2048,
        "num_hidden_layers": 78, "num_attention_heads": 64, "n_shared_experts": 1, "n_routed_experts": 256,
        "kv_lora_rank": 512, "q_lora_rank": 2048, "qk_rope_head_dim": 64, "v_head_dim": 256, "qk_nope_head_dim": 192,
        "num_experts_per_tok": 8, "first_k_dense_replace": 3, "index_topk": 2048, "index_head_dim": 128,
        "index_n_heads": 32})";

/// The family table (HF transformers' modeling files; see the file comment).
inline const std::vector<family>& families() {
  static const std::vector<family> table = [] {
    std::vector<family> t;
    family llama;
    llama.model_type = "llama";
    llama.attention_bias = "attention_bias";
    llama.mlp_bias = "mlp_bias";
    t.push_back(llama);
    family mistral;
    mistral.model_type = "mistral";
    mistral.window = window_rule::every_layer;
    t.push_back(mistral);
    family mixtral = mistral;
    mixtral.model_type = "mixtral";
    mixtral.moe = moe_layout::mixtral;
    t.push_back(mixtral);
    family qwen2;
    qwen2.model_type = "qwen2";
    qwen2.qkv_bias = true;
    qwen2.window = window_rule::qwen;
    t.push_back(qwen2);
    family qwen3;
    qwen3.model_type = "qwen3";
    qwen3.attention_bias = "attention_bias";
    qwen3.qk_norm = qk_norm_kind::per_head;
    qwen3.window = window_rule::qwen;
    qwen3.defaults = R"({"head_dim": 128})";
    t.push_back(qwen3);
    family qwen2_moe = qwen2;
    qwen2_moe.model_type = "qwen2_moe";
    qwen2_moe.moe = moe_layout::qwen;
    qwen2_moe.shared_expert = true;
    t.push_back(qwen2_moe);
    family qwen3_moe = qwen3;
    qwen3_moe.model_type = "qwen3_moe";
    qwen3_moe.moe = moe_layout::qwen;
    t.push_back(qwen3_moe);
    family phi3;
    phi3.model_type = "phi3";
    phi3.window = window_rule::every_layer;
    t.push_back(phi3);
    family olmo2;
    olmo2.model_type = "olmo2";
    olmo2.attention_bias = "attention_bias";
    olmo2.qk_norm = qk_norm_kind::whole;
    t.push_back(olmo2);
    family gemma;
    gemma.model_type = "gemma";
    gemma.tie_default = true;
    gemma.defaults = gemma_defaults;
    gemma.attention_bias = "attention_bias";
    t.push_back(gemma);
    family gemma2 = gemma;
    gemma2.model_type = "gemma2";
    gemma2.block_norms = 4;
    gemma2.window = window_rule::alternate;
    t.push_back(gemma2);
    family gemma3 = gemma2;
    gemma3.model_type = "gemma3_text";
    gemma3.qk_norm = qk_norm_kind::per_head;
    gemma3.window = window_rule::pattern;
    gemma3.defaults = gemma3_defaults;
    t.push_back(gemma3);
    gemma3.model_type = "gemma3"; // a text-only config labelled gemma3
    t.push_back(gemma3);
    family gemma4 = gemma3; // Gemma4ForConditionalGeneration's text decoder (gemma4 wrappers are read through text_config)
    gemma4.model_type = "gemma4_text";
    gemma4.global_layers = true;
    gemma4.defaults = gemma4_defaults;
    t.push_back(gemma4);
    family ds;
    ds.model_type = "deepseek_v2";
    ds.latent = true;
    ds.kv_heads = nullptr;
    ds.head_dim = false;
    ds.moe = moe_layout::deepseek;
    ds.attention_bias = "attention_bias";
    ds.per_layer_config = false;
    t.push_back(ds);
    ds.model_type = "deepseek_v3";
    ds.mtp_layers = "num_nextn_predict_layers";
    t.push_back(ds);
    ds.model_type = "deepseek_v32"; // DeepseekV32ForCausalLM: V3 + the DSA lightning indexer
    ds.dsa = true;
    t.push_back(ds);
    family gpt_oss; // GptOssForCausalLM: sinks, biased attention, router and experts
    gpt_oss.model_type = "gpt_oss";
    gpt_oss.attention_bias = "attention_bias";
    gpt_oss.qkv_bias = gpt_oss.out_bias = gpt_oss.ffn_bias = true;
    gpt_oss.moe = moe_layout::mixtral;
    gpt_oss.window = window_rule::alternate;
    gpt_oss.sinks = gpt_oss.router_bias = true;
    gpt_oss.defaults = gpt_oss_defaults;
    t.push_back(gpt_oss);
    family llama4; // Llama4ForCausalLM's text decoder (llama4 wrappers are read through text_config)
    llama4.model_type = "llama4_text";
    llama4.ffn = "intermediate_size_mlp";  // dense layers; the experts' width is intermediate_size
    llama4.moe = moe_layout::llama4;
    llama4.chunked = true;
    llama4.per_layer_config = false;
    llama4.defaults = llama4_defaults;
    t.push_back(llama4);
    family neox;
    neox.model_type = "gpt_neox";
    neox.kv_heads = nullptr;
    neox.head_dim = false;
    neox.eps = "layer_norm_eps";
    neox.norm = norm_kind::layernorm;
    neox.gated = false;
    neox.qkv_bias = neox.out_bias = neox.ffn_bias = true;
    neox.attention_bias = "attention_bias";
    t.push_back(neox);
    family deci;
    deci.model_type = "nemotron-nas";
    deci.kv_heads = nullptr;
    deci.head_dim = false;
    deci.ffn = nullptr;
    deci.block_configs = true;
    deci.per_layer_config = false;
    t.push_back(deci);
    family qwen3_next = qwen3_moe; // Qwen3NextForCausalLM: Gated DeltaNet + gated attention, qwen2_moe-style MoE
    qwen3_next.model_type = "qwen3_next";
    qwen3_next.shared_expert = true;
    qwen3_next.window = window_rule::none;
    qwen3_next.linear_attention = true;
    qwen3_next.per_layer_config = false;
    qwen3_next.defaults = R"({"head_dim": 256, "full_attention_interval": 4, "linear_conv_kernel_dim": 4})";
    t.push_back(qwen3_next);
    // Qwen3.5 (Qwen3_5ForConditionalGeneration / Qwen3_5MoeForConditionalGeneration): the text
    // decoder in text_config has Qwen3-Next's structure (in_proj_qkv + in_proj_z and in_proj_b +
    // in_proj_a hold the parameters of in_proj_qkvz and in_proj_ba); dense (qwen3_5_text: no
    // num_experts) or MoE with a gated shared expert (qwen3_5_moe_text).
    qwen3_next.model_type = "qwen3_5_text";
    t.push_back(qwen3_next);
    qwen3_next.model_type = "qwen3_5_moe_text"; // Qwen3_5MoeTextConfig: every layer MoE, no intermediate_size field
    qwen3_next.ffn = "moe_intermediate_size";
    qwen3_next.defaults = R"({"vocab_size": 248320, "hidden_size": 2048, "num_hidden_layers": 40, "num_attention_heads": 16,
                              "num_key_value_heads": 2, "head_dim": 256, "full_attention_interval": 4, "linear_conv_kernel_dim": 4,
                              "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_num_key_heads": 16,
                              "linear_num_value_heads": 32, "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512,
                              "num_experts_per_tok": 8, "num_experts": 256})";
    t.push_back(qwen3_next);
    family nemotron_h; // NemotronHForCausalLM: one mixer per layer, picked by hybrid_override_pattern
    nemotron_h.model_type = "nemotron_h";
    nemotron_h.eps = "layer_norm_epsilon";
    nemotron_h.block_norms = 1;
    nemotron_h.gated = false; // relu2 MLP: up_proj, down_proj
    nemotron_h.attention_bias = "attention_bias";
    nemotron_h.mlp_bias = "mlp_bias";
    nemotron_h.hybrid_pattern = "hybrid_override_pattern";
    nemotron_h.per_layer_config = false;
    nemotron_h.defaults = R"({"use_conv_bias": true, "use_bias": false, "vocab_size": 131072})";
    t.push_back(nemotron_h);
    family gpt2;
    gpt2.model_type = "gpt2";
    gpt2.hidden = "n_embd";
    gpt2.layers = "n_layer";
    gpt2.heads = "n_head";
    gpt2.kv_heads = nullptr;
    gpt2.head_dim = false;
    gpt2.ffn = "n_inner";
    gpt2.ffn_default_mult = 4;
    gpt2.positions = "n_positions";
    gpt2.eps = "layer_norm_epsilon";
    gpt2.tie_default = true;
    gpt2.norm = norm_kind::layernorm;
    gpt2.gated = false;
    gpt2.qkv_bias = gpt2.out_bias = gpt2.ffn_bias = true;
    gpt2.per_layer_config = false;
    t.push_back(gpt2);
    family bert = gpt2;
    bert.model_type = "bert";
    bert.hidden = "hidden_size";
    bert.layers = "num_hidden_layers";
    bert.heads = "num_attention_heads";
    bert.ffn = "intermediate_size";
    bert.ffn_default_mult = 0;
    bert.positions = "max_position_embeddings";
    bert.eps = "layer_norm_eps";
    t.push_back(bert);
    family opt = bert;
    opt.model_type = "opt";
    opt.ffn = "ffn_dim";
    opt.eps = "layer_norm_eps";
    opt.init = "init_std";
    t.push_back(opt);
    // Issue 18 families (one entry each; the modeling files are cited in the file comment).
    family kimi = ds; // DeepseekV3ForCausalLM under another name
    kimi.model_type = "kimi_k2";
    kimi.dsa = false; // ds is deepseek_v32 by now
    kimi.mtp_layers = "num_nextn_predict_layers";
    t.push_back(kimi);
    family granite = llama; // llama + scalar multipliers (no parameters)
    granite.model_type = "granite";
    t.push_back(granite);
    family smollm3 = llama; // NoPE every no_rope_layer_interval-th layer: no parameters
    smollm3.model_type = "smollm3";
    smollm3.tie_default = true;
    smollm3.nope_layers = true;
    t.push_back(smollm3);
    family ministral = mistral; // text decoders of mistral3 / Ministral
    ministral.model_type = "ministral";
    t.push_back(ministral);
    ministral.model_type = "ministral3";
    t.push_back(ministral);
    family glm4;
    glm4.model_type = "glm4";
    glm4.attention_bias = "attention_bias";
    glm4.qkv_only_bias = true;
    glm4.block_norms = 4; // input, post_self_attn, post_attention, post_mlp
    t.push_back(glm4);
    family glm4_moe = glm4;
    glm4_moe.model_type = "glm4_moe";
    glm4_moe.block_norms = 2;
    glm4_moe.qk_norm = qk_norm_kind::per_head;
    glm4_moe.qk_norm_flag = "use_qk_norm";
    glm4_moe.moe = moe_layout::deepseek;
    glm4_moe.router_bias = true;
    glm4_moe.per_layer_config = false;
    glm4_moe.mtp_layers = "num_nextn_predict_layers";
    t.push_back(glm4_moe);
    family minimax = mixtral;
    minimax.model_type = "minimax_m2";
    minimax.window = window_rule::none;
    minimax.qk_norm = qk_norm_kind::whole; // qk_norm_type per_layer: RMSNorm over all heads
    minimax.qk_norm_flag = "use_qk_norm";
    minimax.router_bias_flag = "use_routing_bias";
    t.push_back(minimax);
    family granitemoe = mixtral; // input_linear = gate + up of every expert, output_linear = down
    granitemoe.model_type = "granitemoe";
    granitemoe.window = window_rule::none;
    granitemoe.attention_bias = "attention_bias";
    t.push_back(granitemoe);
    family olmoe = mixtral;
    olmoe.model_type = "olmoe";
    olmoe.window = window_rule::none;
    olmoe.experts_key = "num_experts";
    olmoe.qk_norm = qk_norm_kind::whole;
    olmoe.attention_bias = "attention_bias";
    olmoe.head_dim = false;
    t.push_back(olmoe);
    family phimoe = mixtral;
    phimoe.model_type = "phimoe";
    phimoe.norm = norm_kind::layernorm;
    phimoe.attention_bias = "attention_bias";
    phimoe.lm_head_bias = "lm_head_bias";
    phimoe.head_dim = false;
    t.push_back(phimoe);
    family starcoder2;
    starcoder2.model_type = "starcoder2";
    starcoder2.eps = "norm_epsilon";
    starcoder2.norm = norm_kind::layernorm;
    starcoder2.gated = false;
    starcoder2.qkv_bias = starcoder2.out_bias = starcoder2.ffn_bias = true;
    starcoder2.attention_bias = starcoder2.mlp_bias = "use_bias";
    starcoder2.tie_default = true;
    starcoder2.head_dim = false;
    starcoder2.window = window_rule::every_layer;
    t.push_back(starcoder2);
    family mimo = qwen2; // Qwen2 + MTP modules (remote code MiMoMTPLayers)
    mimo.model_type = "mimo";
    mimo.mtp_layers = "num_nextn_predict_layers";
    t.push_back(mimo);
    // Issue 18d families.
    family cohere; // CohereForCausalLM: parallel attention + MLP after one LayerNorm (weight only: d parameters)
    cohere.model_type = "cohere";
    cohere.eps = "layer_norm_eps";
    cohere.block_norms = 1;
    cohere.tie_default = true;
    cohere.attention_bias = "attention_bias";
    cohere.qk_norm = qk_norm_kind::whole; // CohereLayerNorm((heads, head_dim)) and ((kv heads, head_dim))
    cohere.qk_norm_flag = "use_qk_norm";
    t.push_back(cohere);
    family cohere2 = cohere; // Cohere2ForCausalLM: 3 sliding-window layers then one global (NoPE) layer
    cohere2.model_type = "cohere2";
    cohere2.qk_norm = qk_norm_kind::none;
    cohere2.qk_norm_flag = nullptr;
    cohere2.window = window_rule::pattern;
    cohere2.defaults = R"({"sliding_window": 4096, "sliding_window_pattern": 4})";
    t.push_back(cohere2);
    family internlm2; // remote code InternLM2ForCausalLM: fused wqkv (= q, k, v), wo, w1 / w3 / w2; `bias` (default true) on wqkv and wo
    internlm2.model_type = "internlm2";
    internlm2.head_dim = false;
    internlm2.qkv_bias = internlm2.out_bias = true;
    internlm2.attention_bias = "bias";
    t.push_back(internlm2);
    family seed_oss = glm4; // SeedOssForCausalLM: attention_bias on q, k, v; attention_out_bias on o_proj; mlp_bias
    seed_oss.model_type = "seed_oss";
    seed_oss.block_norms = 2;
    seed_oss.out_bias_flag = "attention_out_bias";
    seed_oss.mlp_bias = "mlp_bias";
    t.push_back(seed_oss);
    family granite_hybrid; // GraniteMoeHybridForCausalLM (Granite 4.0): Mamba-2 / attention layers, shared_mlp, optional MoE
    granite_hybrid.model_type = "granitemoehybrid";
    granite_hybrid.head_dim = false;
    granite_hybrid.ffn = "shared_intermediate_size";
    granite_hybrid.attention_bias = "attention_bias";
    granite_hybrid.moe = moe_layout::mixtral;
    granite_hybrid.mamba_layer_types = true;
    granite_hybrid.per_layer_config = false;
    granite_hybrid.defaults = R"({"mamba_n_heads": 128, "mamba_d_head": "auto", "mamba_d_state": 256, "mamba_n_groups": 1, "mamba_d_conv": 4,
                                  "mamba_expand": 2, "mamba_conv_bias": true, "mamba_proj_bias": false, "num_local_experts": 0})";
    t.push_back(granite_hybrid);
    // Issue 18e families.
    family falcon; // FalconForCausalLM: fused query_key_value, biased LayerNorms, GELU MLP; KV heads and norms per layer in read_family
    falcon.model_type = "falcon";
    falcon.kv_heads = nullptr;
    falcon.head_dim = false;
    falcon.ffn = "ffn_hidden_size";
    falcon.ffn_default_mult = 4;
    falcon.eps = "layer_norm_epsilon";
    falcon.norm = norm_kind::layernorm;
    falcon.gated = false;
    falcon.attention_bias = falcon.mlp_bias = "bias";
    falcon.tie_default = true;
    falcon.per_layer_config = false;
    t.push_back(falcon);
    family falcon_h1 = llama; // FalconH1ForCausalLM: attention + Mamba-2 in parallel in every layer, then the gated MLP
    falcon_h1.model_type = "falcon_h1";
    falcon_h1.parallel_mamba = true;
    falcon_h1.per_layer_config = false;
    falcon_h1.defaults = R"({"vocab_size": 128000, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                             "num_attention_heads": 32, "num_key_value_heads": 8, "mamba_d_ssm": 1024, "mamba_n_heads": 128,
                             "mamba_d_head": "auto", "mamba_n_groups": 1, "mamba_d_state": 256, "mamba_d_conv": 4,
                             "mamba_expand": 2, "mamba_conv_bias": true, "mamba_proj_bias": false, "mamba_rms_norm": false,
                             "projectors_bias": false})";
    t.push_back(falcon_h1);
    family internlm3 = llama; // InternLM3ForCausalLM (remote code): qkv_bias on q, k, v; `bias` on o_proj and the MLP
    internlm3.model_type = "internlm3";
    internlm3.attention_bias = "qkv_bias";
    internlm3.qkv_only_bias = true;
    internlm3.out_bias_flag = "bias";
    internlm3.mlp_bias = "bias";
    t.push_back(internlm3);
    family ernie = llama; // Ernie4_5ForCausalLM: use_bias on q, k, v, o and the MLP; tied head by default
    ernie.model_type = "ernie4_5";
    ernie.attention_bias = ernie.mlp_bias = "use_bias";
    ernie.tie_default = true;
    t.push_back(ernie);
    family exaone4 = llama; // Exaone4ForCausalLM: q/k norms per head, post-attention / post-feedforward norms, 3 local : 1 global
    exaone4.model_type = "exaone4";
    exaone4.attention_bias = exaone4.mlp_bias = nullptr;
    exaone4.qk_norm = qk_norm_kind::per_head;
    exaone4.window = window_rule::pattern;
    exaone4.null_window_is_full = true;
    exaone4.defaults = R"({"sliding_window": 4096, "sliding_window_pattern": 4})";
    t.push_back(exaone4);
    family hunyuan = llama; // HunYuanDenseV1ForCausalLM: attention_bias (q, k, v, o), query/key_layernorm per head, unbiased MLP
    hunyuan.model_type = "hunyuan_v1_dense";
    hunyuan.mlp_bias = nullptr;
    hunyuan.qk_norm = qk_norm_kind::per_head;
    t.push_back(hunyuan);
    family ernie_moe = ernie; // Ernie4_5_MoeForCausalLM: moe_* experts and shared experts, moe_statics bias, lm_head bias = use_bias
    ernie_moe.model_type = "ernie4_5_moe";
    ernie_moe.moe = moe_layout::ernie;
    ernie_moe.lm_head_bias = "use_bias";
    ernie_moe.per_layer_config = false;
    ernie_moe.defaults = R"({"moe_num_experts": 64, "moe_k": 6, "moe_intermediate_size": 1536, "moe_num_shared_experts": 2,
                            "moe_layer_start_index": 1, "moe_layer_end_index": -1, "moe_layer_interval": 1})";
    t.push_back(ernie_moe);
    family hunyuan_moe = hunyuan; // HunYuanMoEV1ForCausalLM: every layer MoE (wg router, MixtralExperts of intermediate_size) + shared_mlp
    hunyuan_moe.model_type = "hunyuan_v1_moe";
    hunyuan_moe.moe = moe_layout::mixtral;
    hunyuan_moe.experts_key = "num_experts";
    hunyuan_moe.topk_key = "moe_topk";
    hunyuan_moe.uniform_lists = true;
    hunyuan_moe.shared_mlp = true;
    hunyuan_moe.per_layer_config = false;
    t.push_back(hunyuan_moe);
    family glm_dsa = ds; // GlmMoeDsaForCausalLM (GLM-5): DeepSeek-V3.2's MLA + DSA + MoE; indexer_types may share top-k
    glm_dsa.model_type = "glm_moe_dsa";
    glm_dsa.shared_indexer = true;
    glm_dsa.router_bias = true;
    glm_dsa.defaults = glm_moe_dsa_defaults;
    t.push_back(glm_dsa);
    return t;
  }();
  return table;
}

inline const family* find_family(std::string_view type) {
  for (const family& f : families())
    if (f.model_type == type) return &f;
  return nullptr;
}

/// An integer-valued JSON number (integer, or a float with an integral value) as int64.
inline std::optional<std::int64_t> as_integer(const json& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > std::uint64_t(INT64_MAX)) return std::nullopt;
    return std::int64_t(u);
  }
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) <= 9007199254740992.0)
      return std::int64_t(d);
  }
  return std::nullopt;
}

inline bool present(const json& c, const char* key) { return c.contains(key) && !c[key].is_null(); }

inline std::int64_t integer(const json& v, std::string_view key, std::int64_t min, const char* rule) {
  const auto i = as_integer(v);
  if (!i || *i < min) bad(key, rule, v);
  return *i;
}

inline const char* int_rule(std::int64_t min) {
  return min >= 1 ? "must be a positive integer" : "must be a non-negative integer";
}

/// A config seen through its family's defaults: a field absent or null in the config takes
/// the HF config class's default when the family table has one.
struct fields {
  const json& c;
  json defaults;
  std::string type;

  const json* get(const char* key) const {
    if (present(c, key)) return &c[key];
    if (present(defaults, key)) return &defaults[key];
    return nullptr;
  }
  bool has(const char* key) const { return get(key) != nullptr; }
  std::int64_t required(const char* key, std::int64_t min = 1) const {
    const json* v = get(key);
    if (!v) {
      std::string r = "missing field '";
      r.append(key).append("' (model_type ").append(type).append(")");
      throw_invalid_argument(fn, r);
    }
    return integer(*v, key, min, int_rule(min));
  }
  std::int64_t optional(const char* key, std::int64_t fallback, std::int64_t min = 1) const {
    const json* v = get(key);
    return v ? integer(*v, key, min, int_rule(min)) : fallback;
  }
  bool flag(const char* key, bool fallback) const {
    const json* v = get(key);
    if (!v) return fallback;
    if (!v->is_boolean()) bad(key, "must be true or false", *v);
    return v->get<bool>();
  }
  double positive(const char* key, double fallback) const {
    const json* v = get(key);
    if (!v) return fallback;
    if (!v->is_number() || !(std::isfinite(v->get<double>()) && v->get<double>() > 0))
      bad(key, "must be a positive number", *v);
    return v->get<double>();
  }
};

/// One layer's LoRA ranks from an integer or an object of per-projection ranks.
inline void read_lora(const json& v, block_spec& b, const std::string& where) {
  auto rank = [&](const json& x, const std::string& key) {
    const auto i = as_integer(x);
    if (!i || *i < 0) bad(key, "must be a non-negative integer", x);
    return *i;
  };
  if (v.is_object()) {
    for (const auto& [key, val] : v.items()) {
      const std::int64_t r = rank(val, where + "." + key);
      if (key == "q_proj") b.attention.lora_q = r;
      else if (key == "k_proj") b.attention.lora_k = r;
      else if (key == "v_proj") b.attention.lora_v = r;
      else if (key == "o_proj") b.attention.lora_o = r;
      else if (key == "gate_proj") {
        if (r > 0 && !b.ffn.gated)
          bad(where + "." + key, "needs a gated FFN (this model_type has none)", val);
        b.ffn.lora_gate = r;
      } else if (key == "up_proj") b.ffn.lora_up = r;
      else if (key == "down_proj") b.ffn.lora_down = r;
      else
        bad(where + "." + key,
            "is not a LoRA target; expected q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj "
            "or down_proj",
            val);
    }
    return;
  }
  const std::int64_t r = rank(v, where);
  b.attention.lora_q = b.attention.lora_k = b.attention.lora_v = b.attention.lora_o = r;
  if (b.ffn.gated) b.ffn.lora_gate = r;
  b.ffn.lora_up = b.ffn.lora_down = r;
}

/// The nsc extension fields intermediate_sizes and lora_ranks, checked as a whole (lists of one
/// entry per layer) and applied layer by layer (apply).
struct extensions {
  const json* sizes = nullptr; ///< intermediate_sizes (a list of n)
  const json* ranks = nullptr; ///< lora_ranks (an integer, an object or a list of n)
  const json* experts = nullptr; ///< expert_counts (a list of n)

  extensions(const json& c, std::int64_t n) {
    const std::size_t un = std::size_t(n);
    if (present(c, "intermediate_sizes")) {
      sizes = &c["intermediate_sizes"];
      if (!sizes->is_array() || sizes->size() != un)
        bad("intermediate_sizes", "must be a list of " + std::to_string(n) + " positive integers (one per layer)",
            *sizes);
    }
    if (present(c, "expert_counts")) { // routed experts kept per layer (0: a layer without experts)
      experts = &c["expert_counts"];
      if (!experts->is_array() || experts->size() != un)
        bad("expert_counts", "must be a list of " + std::to_string(n) + " integers (one per layer)", *experts);
    }
    if (present(c, "lora_ranks")) {
      ranks = &c["lora_ranks"];
      if (ranks->is_array()) {
        if (ranks->size() != un) bad("lora_ranks", "must have " + std::to_string(n) + " entries (one per layer)", *ranks);
      } else if (!ranks->is_object() && !as_integer(*ranks)) {
        bad("lora_ranks", "must be an integer, an object of ranks or a list of them", *ranks);
      }
    }
  }
  /// Whether a field lists one entry per layer (every layer is then read on its own).
  bool per_layer() const { return sizes || experts || (ranks && ranks->is_array()); }
  /// The per-layer list that sets the runs (the first present).
  std::pair<const char*, const json*> list() const {
    if (sizes) return {"intermediate_sizes", sizes};
    if (experts) return {"expert_counts", experts};
    return {"lora_ranks", ranks};
  }
  /// Applies the fields to layer i.
  void apply(std::int64_t i, block_spec& b) const {
    const std::size_t ui = std::size_t(i);
    if (sizes) {
      const json& e = (*sizes)[ui];
      const auto k = as_integer(e);
      const bool width = b.ffn.kind == ffn_kind::standard; // no_op / linear: no width
      if (!k || *k < (width ? 1 : 0))
        bad("intermediate_sizes[" + std::to_string(i) + "]",
            width ? "must be a positive integer" : "must be a non-negative integer (layer without an FFN width)", e);
      if (width) b.ffn.d_ff = *k;
    }
    if (experts) {
      const json& e = (*experts)[ui];
      const auto k = as_integer(e);
      const std::string at = "expert_counts[" + std::to_string(i) + "]";
      if (b.ffn.kind != ffn_kind::standard || b.ffn.n_experts == 0) {
        if (!k || *k != 0) bad(at, "must be 0 (layer " + std::to_string(i) + " has no experts)", e);
      } else {
        if (!k || *k < b.ffn.top_k)
          bad(at, "must be an integer >= num_experts_per_tok = " + std::to_string(b.ffn.top_k) +
                      " (top-k routing needs at least k experts)",
              e);
        b.ffn.n_experts = *k;
      }
    }
    if (ranks) {
      if (ranks->is_array()) read_lora((*ranks)[ui], b, "lora_ranks[" + std::to_string(i) + "]");
      else read_lora(*ranks, b, "lora_ranks");
    }
  }
};

/// Heads consistent with the width: without an explicit head_dim, heads divide hidden; the
/// KV heads divide the heads.
inline void check_heads(std::int64_t d, std::int64_t h, std::int64_t kv, bool explicit_head_dim,
                        const std::string& d_key, const std::string& h_key, const std::string& kv_key) {
  if (!explicit_head_dim && d % h != 0)
    bad(h_key, "must divide " + d_key + " = " + std::to_string(d), json(h));
  if (!kv_key.empty() && (kv < 1 || h % kv != 0))
    bad(kv_key, "must divide " + h_key + " = " + std::to_string(h), json(kv));
}

/// DeciLM's find_multiple(int(2 * ffn_mult * hidden / 3), 256) (Python float arithmetic).
inline std::int64_t deci_ffn_width(double ffn_mult, std::int64_t hidden, const std::string& where,
                                   const json& v) {
  const double x = 2 * ffn_mult * double(hidden) / 3;
  if (!(std::isfinite(x) && x >= 1 && x < 9.0e15)) bad(where, "gives an FFN width out of range", v);
  const auto n = std::int64_t(x);
  return n % 256 == 0 ? n : n + 256 - n % 256;
}

/// Reads one DeciLM block_configs entry into block i.
inline void read_block_config(const json& e, std::size_t i, const fields& f, block_spec& b) {
  const std::string at = "block_configs[" + std::to_string(i) + "]";
  if (!e.is_object()) bad(at, "must be an object {\"attention\": {...}, \"ffn\": {...}}", e);
  auto sub = [&](const char* key) -> const json& {
    if (!present(e, key) || !e[key].is_object()) bad(at + "." + key, "must be an object", e.contains(key) ? e[key] : json());
    return e[key];
  };
  auto flag = [&](const json& o, const std::string& where, const char* key) {
    if (!present(o, key)) return false;
    if (!o[key].is_boolean()) bad(where + "." + key, "must be true or false", o[key]);
    return o[key].get<bool>();
  };
  // Fields that change no count; anything else non-null is refused (it could change a shape).
  auto check_known = [&](const json& o, const std::string& where, std::initializer_list<std::string_view> known) {
    for (const auto& [key, val] : o.items()) {
      bool ok = val.is_null() || (val.is_boolean() && !val.get<bool>());
      for (std::string_view k : known) ok = ok || key == k;
      if (!ok) bad(where + "." + key, "is not a supported block_configs field (it may change shapes)", val);
    }
  };
  const json& a = sub("attention");
  const std::string aw = at + ".attention";
  check_known(a, aw, {"no_op", "replace_with_linear", "n_heads_in_group", "window_length", "num_sink_tokens",
                      "use_prefill_window_in_sink_attention", "unshifted_sink", "sparsify"});
  const bool a_none = flag(a, aw, "no_op"), a_lin = flag(a, aw, "replace_with_linear");
  if (a_none && a_lin) bad(aw, "cannot be both no_op and replace_with_linear", a);
  std::int64_t norms = 0;
  if (a_none) {
    b.attention.kind = attention_kind::none;
  } else {
    ++norms;
    if (a_lin) {
      b.attention.kind = attention_kind::linear;
    } else {
      if (!present(a, "n_heads_in_group")) bad(aw + ".n_heads_in_group", "is required for an attention block", json());
      const std::int64_t g = integer(a["n_heads_in_group"], aw + ".n_heads_in_group", 1, "must be a positive integer");
      const std::int64_t h = b.attention.n_heads;
      if (h % g != 0)
        bad(aw + ".n_heads_in_group", "must divide num_attention_heads = " + std::to_string(h), a["n_heads_in_group"]);
      b.attention.n_kv_heads = h / g;
      if (present(a, "window_length"))
        b.attention.sliding_window = integer(a["window_length"], aw + ".window_length", 1, "must be a positive integer");
    }
  }
  const json& ff = sub("ffn");
  const std::string fw = at + ".ffn";
  check_known(ff, fw, {"no_op", "replace_with_linear", "ffn_mult", "intermediate_size", "moe", "sparsify"});
  const bool f_none = flag(ff, fw, "no_op"), f_lin = flag(ff, fw, "replace_with_linear");
  if (f_none && f_lin) bad(fw, "cannot be both no_op and replace_with_linear", ff);
  if (f_none) {
    b.ffn.kind = ffn_kind::none;
  } else {
    ++norms;
    if (f_lin) {
      b.ffn.kind = ffn_kind::linear;
    } else if (present(ff, "moe")) { // Puzzletron's MoE block: E experts of SwiGLU width w, top-k routing
      const json& mo = ff["moe"];
      const std::string mw = fw + ".moe";
      if (!mo.is_object())
        bad(mw, "must be an object {num_local_experts, num_experts_per_tok, expert_intermediate_dim}", mo);
      if (present(ff, "intermediate_size") || present(ff, "ffn_mult"))
        bad(mw, "cannot be combined with intermediate_size or ffn_mult (the experts' width is expert_intermediate_dim)", ff);
      check_known(mo, mw, {"num_local_experts", "num_experts_per_tok", "expert_intermediate_dim"});
      auto need = [&](const char* key) {
        if (!present(mo, key)) bad(mw + "." + key, "is required", json());
        return integer(mo[key], mw + "." + key, 1, "must be a positive integer");
      };
      b.ffn.n_experts = need("num_local_experts");
      b.ffn.top_k = need("num_experts_per_tok");
      b.ffn.d_ff = need("expert_intermediate_dim");
      if (b.ffn.top_k > b.ffn.n_experts)
        bad(mw + ".num_experts_per_tok", "must be <= num_local_experts = " + std::to_string(b.ffn.n_experts),
            mo["num_experts_per_tok"]);
    } else if (present(ff, "intermediate_size")) {
      b.ffn.d_ff = integer(ff["intermediate_size"], fw + ".intermediate_size", 1, "must be a positive integer");
    } else if (present(ff, "ffn_mult")) {
      const json& m = ff["ffn_mult"];
      if (!m.is_number() || !(std::isfinite(m.get<double>()) && m.get<double>() > 0))
        bad(fw + ".ffn_mult", "must be a positive number", m);
      b.ffn.d_ff = deci_ffn_width(m.get<double>(), b.attention.d_model, fw + ".ffn_mult", m);
    } else if (f.has("intermediate_size")) {
      b.ffn.d_ff = f.required("intermediate_size");
    } else {
      bad(fw, "needs ffn_mult or intermediate_size (or no_op / replace_with_linear)", ff);
    }
  }
  b.n_norms = norms;
}

/// The config field holding a MoE family's routed expert count ("" when the family has none).
inline std::string_view moe_count_key(moe_layout m) {
  return m == moe_layout::mixtral || m == moe_layout::llama4 ? "num_local_experts"
         : m == moe_layout::qwen  ? "num_experts"
         : m == moe_layout::deepseek ? "n_routed_experts"
         : m == moe_layout::ernie    ? "moe_num_experts"
                                     : "";
}

/// The config field holding a MoE family's expert width (mixtral: intermediate_size itself).
inline std::string_view moe_width_key(moe_layout m) {
  return m == moe_layout::mixtral || m == moe_layout::llama4 ? "intermediate_size"
         : m == moe_layout::none                               ? ""
                                                               : "moe_intermediate_size";
}

/// transformers' per_layer_config: the keys checked as a whole (layer indices in [0, n)), the
/// overrides applied layer by layer (apply; MoE layers: the family's expert count and expert
/// width fields, moe_count_key / moe_width_key).
struct per_layer_overrides {
  std::map<std::int64_t, std::vector<std::pair<std::string, const json*>>> at; ///< layer -> (key, overrides)
  std::int64_t norms_per_sublayer = 1;
  moe_layout moe = moe_layout::none;

  per_layer_overrides() = default;
  per_layer_overrides(const json& v, std::int64_t n, std::int64_t norms, moe_layout m = moe_layout::none)
      : norms_per_sublayer(norms), moe(m) {
    if (!v.is_object()) bad("per_layer_config", "must be an object mapping layer indices to overrides", v);
    for (const auto& [key, o] : v.items()) {
      const std::string where = "per_layer_config." + key;
      std::int64_t i = 0;
      bool ok = !key.empty() && key.size() <= 6;
      for (char ch : key) ok = ok && ch >= '0' && ch <= '9';
      if (ok) i = std::int64_t(std::stoul(key));
      if (!ok || i >= n) bad(where, "must be keyed by a layer index in [0, " + std::to_string(n) + ")", json(key));
      if (!o.is_object()) bad(where, "must be an object of overrides", o);
      at[i].emplace_back(key, &o);
    }
  }
  /// Applies the overrides of layer i (none: b unchanged).
  void apply(std::int64_t i, block_spec& b) const {
    const auto found = at.find(i);
    if (found == at.end()) return;
    for (const auto& [key, op] : found->second) {
      const std::string at_key = "per_layer_config." + key;
      for (const auto& [field, val] : op->items()) {
        const std::string w = at_key + "." + field;
        if (field == "num_attention_heads") b.attention.n_heads = integer(val, w, 1, "must be a positive integer");
        else if (field == "num_key_value_heads") b.attention.n_kv_heads = integer(val, w, 1, "must be a positive integer");
        else if (field == "head_dim") b.attention.head_dim = integer(val, w, 1, "must be a positive integer");
        else if (b.ffn.n_experts > 0 && field == moe_width_key(moe)) // the experts' width
          b.ffn.d_ff = integer(val, w, 1, "must be a positive integer");
        else if (field == "intermediate_size") {
          if (b.ffn.n_experts > 0) bad(w, "overrides a dense MLP width, but layer " + key + " is a mixture of experts", val);
          b.ffn.d_ff = integer(val, w, 1, "must be a positive integer");
        } else if (moe != moe_layout::none && (field == moe_count_key(moe) || field == moe_width_key(moe))) {
          if (b.ffn.n_experts == 0) bad(w, "overrides the experts, but layer " + key + " has none (a dense MLP)", val);
          const std::int64_t e = integer(val, w, 1, "must be a positive integer");
          if (e < b.ffn.top_k)
            bad(w, "must be >= num_experts_per_tok = " + std::to_string(b.ffn.top_k) + " (top-k routing needs k experts)",
                val);
          b.ffn.n_experts = e;
        } else if (field == "skip") {
          if (!val.is_array()) bad(w, "must be a list of \"attention\" and/or \"mlp\"", val);
          for (const json& sk : val) {
            if (sk == "attention" && b.attention.kind != attention_kind::none) {
              b.attention.kind = attention_kind::none;
              b.n_norms -= norms_per_sublayer;
            } else if (sk == "mlp" && b.ffn.kind != ffn_kind::none) {
              b.ffn.kind = ffn_kind::none;
              b.n_norms -= norms_per_sublayer;
            } else if (sk != "attention" && sk != "mlp") {
              bad(w, "entries must be \"attention\" or \"mlp\"", sk);
            }
          }
          // A layer left with neither sublayer keeps no norm: the norm a parallel block's two
          // sublayers share (cohere's one LayerNorm; norms_per_sublayer 0) goes with the second.
          if (b.attention.kind == attention_kind::none && b.ffn.kind == ffn_kind::none) b.n_norms = 0;
        } else {
          bad(w, "is not a supported per_layer_config override (num_attention_heads, num_key_value_heads, head_dim, "
                 "intermediate_size, skip" +
                     (moe == moe_layout::none ? std::string()
                                              : ", " + std::string(moe_count_key(moe)) + ", " + std::string(moe_width_key(moe))) +
                     ")",
              val);
        }
      }
      if (b.attention.kind == attention_kind::standard) {
        const attention_spec& a = b.attention;
        if (a.head_dim == 0 && a.d_model % a.n_heads != 0)
          bad(at_key + ".num_attention_heads", "must divide hidden_size = " + std::to_string(a.d_model) + " (no head_dim)",
              json(a.n_heads));
        if (a.n_heads % a.kv_heads() != 0)
          bad(at_key + ".num_key_value_heads", "must divide num_attention_heads = " + std::to_string(a.n_heads),
              json(a.kv_heads()));
      }
    }
  }
};

/// Where the layers of a config change: the indices at which a run of identical layers may
/// end. A per-layer list (every_layer) needs num_hidden_layers <= hf_max_layer_runs; a periodic
/// rule (period p) adds about 2 n / p cuts and is refused when that exceeds hf_max_layer_runs.
struct layer_cuts {
  std::int64_t n;          ///< layers
  const char* layers_key;  ///< the family's num_hidden_layers field (for messages)
  const json* layers_value;
  bool all = false;        ///< every layer is read on its own
  std::vector<std::int64_t> points{0};

  /// A run may end before layer i.
  void at(std::int64_t i) {
    if (i <= 0 || i >= n || all) return;
    if (points.size() > 4 * std::size_t(hf_max_layer_runs))
      bad(layers_key, "gives more than " + std::to_string(hf_max_layer_runs) +
                          " runs of identical layers (per-layer fields); at most that many are supported",
          *layers_value);
    points.push_back(i);
  }
  /// Every layer is read on its own: `field` is a list with one entry per layer.
  void every_layer(const char* field, const json& v) {
    if (n > hf_max_layer_runs)
      bad(field, "is a per-layer list, supported for at most " + std::to_string(hf_max_layer_runs) +
                     " layers (num_hidden_layers = " + std::to_string(n) + ")",
          v);
    all = true;
  }
  /// Cuts before start + k p + offset for k >= 0 and each offset in {0, 1}: rule `what` holds
  /// for the layers start + k p.
  void periodic(std::int64_t start, std::int64_t p, const std::string& what) {
    if (all || p <= 1 || start >= n) {
      at(start);
      return;
    }
    const std::int64_t count = (n - start) / p + 1;
    if (count > hf_max_layer_runs / 2)
      bad(layers_key, "gives more than " + std::to_string(hf_max_layer_runs) + " runs of identical layers (" + what +
                          " alternates every " + std::to_string(p) + " layers); at most " +
                          std::to_string(hf_max_layer_runs) + " runs are supported",
          *layers_value);
    for (std::int64_t m = start; m < n; m += p) {
      at(m);
      at(m + 1);
    }
  }
  /// The run boundaries: sorted, unique, starting at 0 (every layer when `all`).
  std::vector<std::int64_t> starts() {
    if (all) {
      std::vector<std::int64_t> v(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) v[std::size_t(i)] = i;
      return v;
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    return points;
  }
};

/// A per-layer list `key` (layer_types, no_rope_layers, ...): exactly n entries (n the layers),
/// each one of `kinds` (entry i's message: `rule`, default "must be \"a\" or \"b\""); returns
/// entry i's index in kinds and marks every layer as read on its own (layer_cuts::every_layer).
inline std::vector<std::size_t> per_layer_kinds(const json& v, const char* key, std::initializer_list<json> kinds,
                                                layer_cuts& cuts, std::string rule = "") {
  std::string names;
  for (const json& k : kinds) names += (names.empty() ? "" : " or ") + k.dump();
  if (rule.empty()) rule = "must be " + names;
  if (!v.is_array() || v.size() != std::size_t(cuts.n))
    bad(key, "must be a list of " + std::string(cuts.layers_key) + " = " + std::to_string(cuts.n) + " entries (one per layer), each " + names, v);
  cuts.every_layer(key, v);
  std::vector<std::size_t> out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::size_t k = 0;
    for (const json& x : kinds) {
      if (v[i] == x) break;
      ++k;
    }
    if (k == kinds.size()) bad(std::string(key) + "[" + std::to_string(i) + "]", rule, v[i]);
    out.push_back(k);
  }
  return out;
}

/// Which layers use a sliding window: `layer_types` ("sliding_attention" / "full_attention",
/// one per layer, all checked) when given, else the family's rule; at(i) for layer i.
struct sliding_rule {
  window_rule rule = window_rule::none;
  const json* types = nullptr;
  bool on = false;          ///< every_layer: sliding_window given; qwen: use_sliding_window
  std::int64_t from = 0;    ///< qwen: max_window_layers
  std::int64_t pattern = 6; ///< gemma3: every pattern-th layer is global

  sliding_rule() = default; ///< no sliding-window layer
  sliding_rule(const fields& f, const family& fam, layer_cuts& cuts) {
    if (const json* lt = f.get("layer_types")) {
      per_layer_kinds(*lt, "layer_types", {"sliding_attention", "full_attention"}, cuts);
      types = lt;
      return;
    }
    rule = fam.window;
    switch (rule) {
    case window_rule::none: break;
    case window_rule::every_layer: on = f.has("sliding_window"); break;
    case window_rule::qwen:
      on = f.flag("use_sliding_window", false);
      if (on) {
        from = f.optional("max_window_layers", 0, 0);
        cuts.at(from);
      }
      break;
    case window_rule::alternate: cuts.periodic(0, 2, "the sliding window"); break;
    case window_rule::pattern: {
      if (fam.null_window_is_full && f.c.contains("sliding_window") && f.c["sliding_window"].is_null()) {
        rule = window_rule::none;
        break;
      }
      const char* key = f.has("sliding_window_pattern") ? "sliding_window_pattern" : "_sliding_window_pattern";
      pattern = fam.global_layers ? 6 : f.optional(key, 6); // Gemma4TextConfig: 5 sliding, 1 full
      cuts.periodic(pattern - 1, pattern, "the sliding window");
      break;
    }
    }
  }
  bool at(std::int64_t i) const {
    if (types) return (*types)[std::size_t(i)] == "sliding_attention";
    switch (rule) {
    case window_rule::none: return false;
    case window_rule::every_layer: return on;
    case window_rule::qwen: return on && i >= from;
    case window_rule::alternate: return i % 2 == 0;
    case window_rule::pattern: return (i + 1) % pattern != 0;
    }
    return false;
  }
};

/// A module name or pattern of quantization_config (modules_to_not_convert, ignore, targets)
/// as nsc weight roles: which roles it names, in which layer (-1: every layer), or outside
/// the text decoder (a vision tower, not counted).
struct module_pattern {
  std::vector<weight_role> roles;
  std::int64_t layer = -1;
  bool outside = false;
};

inline module_pattern classify_module(const std::string& where, const json& v) {
  if (!v.is_string()) bad(where, "must be a module name (a string)", v);
  std::string p = v.get<std::string>();
  for (char& ch : p) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  if (p.rfind("re:", 0) == 0) p = p.substr(3);
  module_pattern m;
  auto has = [&](std::string_view s) { return p.find(s) != std::string::npos; };
  if (has("vision") || has("visual") || has("multi_modal") || has("mm_projector") || has("audio")) {
    m.outside = true;
    return m;
  }
  // The layer index after "layers." (digits only; a wildcard or a regex is every layer).
  if (const std::size_t at = p.find("layers."); at != std::string::npos) {
    std::size_t i = at + 7, j = i;
    while (j < p.size() && std::isdigit(static_cast<unsigned char>(p[j]))) ++j;
    if (j > i && j - i <= 9 && (j == p.size() || p[j] == '.')) m.layer = std::stoll(p.substr(i, j - i));
  }
  // The last name component, without regex decorations.
  std::string last;
  for (std::size_t k = p.size(); k-- > 0;) {
    const char ch = p[k];
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') last.insert(last.begin(), ch);
    else if (!last.empty()) break;
  }
  using r = weight_role;
  auto one_of = [&](std::initializer_list<std::string_view> names) {
    for (std::string_view n : names)
      if (last == n) return true;
    return false;
  };
  if (p == "linear") m.roles = {r::attention, r::dense_ffn, r::experts, r::shared_experts, r::router, r::head, r::other};
  else if (has("lm_head")) m.roles = {r::head};
  else if (has("embed")) m.roles = {r::embedding};
  else if (has("shared_expert_gate") || one_of({"gate", "router", "e_score_correction_bias", "classifier"})) m.roles = {r::router};
  else if (has("shared_expert")) m.roles = {r::shared_experts};
  else if (has("experts")) m.roles = {r::experts};
  else if (has("self_attn") || has("attention") || one_of({"attn", "q_proj", "k_proj", "v_proj", "o_proj", "qkv_proj", "q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj", "c_attn", "query_key_value", "wqkv", "wo"}))
    m.roles = {r::attention};
  else if (one_of({"mlp", "block_sparse_moe", "feed_forward", "moe"})) m.roles = {r::dense_ffn, r::experts, r::shared_experts, r::router};
  else if (one_of({"gate_proj", "up_proj", "down_proj", "gate_up_proj", "w1", "w2", "w3", "c_fc", "fc1", "fc2", "dense_h_to_4h", "dense_4h_to_h"}))
    m.roles = {r::dense_ffn};
  else if (has("eh_proj") || has("mtp")) m.roles = {r::other};
  else
    bad(where, "is a module nsc cannot place (expected an attention, MLP, expert, router, embedding or lm_head module, "
               "or a vision module)", v);
  return m;
}

/// Which layers of `spec` have a weight of role r (a predicate on the block).
inline bool block_has(const block_spec& b, weight_role r) {
  const bool moe = b.ffn.kind == ffn_kind::standard && b.ffn.n_experts > 0;
  switch (r) {
  case weight_role::attention: return b.attention.kind != attention_kind::none;
  case weight_role::dense_ffn: return b.ffn.kind == ffn_kind::linear || (b.ffn.kind == ffn_kind::standard && !moe);
  case weight_role::experts: return moe;
  case weight_role::shared_experts: return moe && b.ffn.shared_d_ff > 0;
  case weight_role::router: return moe;
  default: return false;
  }
}

/// Quantised roles after a list of exclusions (modules_to_not_convert / ignore): a role
/// excluded in every layer that has it is stored plain; excluded in some of them only, an
/// error (a per-layer mix is not expressed).
inline void apply_exclusions(stored_weights& s, const json* list, const std::string& key, const transformer_spec& spec) {
  if (!list) return;
  if (!list->is_array()) bad(key, "must be a list of module names", *list);
  std::array<std::set<std::int64_t>, weight_role_count> some;
  std::array<bool, weight_role_count> all{};
  for (std::size_t k = 0; k < list->size() && k < 1000000; ++k) {
    const module_pattern m = classify_module(key + "[" + std::to_string(k) + "]", (*list)[k]);
    for (weight_role r : m.roles) {
      const std::size_t i = static_cast<std::size_t>(r);
      if (m.layer < 0) all[i] = true;
      else some[i].insert(m.layer);
    }
  }
  for (std::size_t i = 0; i < weight_role_count; ++i) {
    if (!s.quantised[i] || (!all[i] && some[i].empty())) continue;
    if (all[i]) {
      s.quantised[i] = false;
      continue;
    }
    std::int64_t having = 0, excluded = 0, first = 0;
    for (const block_spec& b : spec.blocks) {
      if (block_has(b, weight_role(i))) {
        having += b.repeat;
        for (auto it = some[i].lower_bound(first); it != some[i].end() && *it < first + b.repeat; ++it) ++excluded;
      }
      first += b.repeat;
    }
    if (excluded == 0) continue;
    if (excluded < having)
      bad(key, "keeps the " + std::string(to_string(weight_role(i))) + " matrices unquantised in " + std::to_string(excluded) +
                   " of the " + std::to_string(having) + " layers that have them; nsc stores a role one way in every layer",
          *list);
    s.quantised[i] = false;
  }
}

/// Bytes per parameter of a torch dtype name ("bfloat16", "float16", "float32").
inline std::int64_t torch_dtype_bytes(const std::string& key, const json& v) {
  if (v == "bfloat16" || v == "float16" || v == "bf16" || v == "fp16" || v == "half") return 2;
  if (v == "float32" || v == "fp32" || v == "float") return 4;
  bad(key, "must be bfloat16, float16 or float32", v);
}

/// How the checkpoint of a config stores its weights: torch_dtype (or dtype) for what is not
/// quantised, quantization_config for the rest (file comment: "Quantised checkpoints").
inline stored_weights read_stored_weights(const json& top, const json& body, const transformer_spec& spec) {
  stored_weights s;
  s.quantised = {};
  const json* dt = nullptr;
  std::string dt_key;
  for (const json* c : {&top, &body})
    for (const char* k : {"torch_dtype", "dtype"})
      if (!dt && present(*c, k)) {
        dt = &(*c)[k];
        dt_key = (c == &body && c != &top ? "text_config." : "") + std::string(k);
      }
  if (dt) {
    if (!dt->is_string()) bad(dt_key, "must be a dtype name", *dt);
    s.plain_bytes = torch_dtype_bytes(dt_key, *dt);
    s.source = dt_key + " " + dt->get<std::string>();
    s.name = s.plain_bytes == 4 ? "fp32" : (*dt == "float16" || *dt == "fp16" || *dt == "half") ? "fp16" : "bf16";
  } else {
    s.source = "bf16 (the config names no torch_dtype)";
  }
  const json* q = present(top, "quantization_config") ? &top["quantization_config"]
                  : present(body, "quantization_config") ? &body["quantization_config"] : nullptr;
  if (!q) return s;
  const std::string qk = "quantization_config";
  if (!q->is_object()) bad(qk, "must be an object", *q);
  if (!present(*q, "quant_method") || !(*q)["quant_method"].is_string())
    bad(qk + ".quant_method", "must name the method (fp8, mxfp4, awq, gptq, compressed-tensors)",
        q->contains("quant_method") ? (*q)["quant_method"] : json());
  const std::string method = (*q)["quant_method"].get<std::string>();
  auto qint = [&](const char* key, std::int64_t fallback, std::int64_t min) {
    if (!present(*q, key)) return fallback;
    return integer((*q)[key], qk + "." + key, min, int_rule(min));
  };
  using r = weight_role;
  auto quantise = [&](std::initializer_list<weight_role> roles) {
    for (weight_role x : roles) s.quantised[static_cast<std::size_t>(x)] = true;
  };
  const std::string plain = s.source;
  auto group_text = [](std::int64_t g) { return g > 0 ? "group " + std::to_string(g) : std::string("per output channel"); };
  if (method == "fp8") {
    s.bits = 8;
    s.scale_bytes = 4; // weight_scale_inv float32, as transformers' FP8 layers and DeepSeek-V3 store them
    s.block_rows = s.block_cols = 128;
    if (present(*q, "weight_block_size")) {
      const json& b = (*q)["weight_block_size"];
      if (!b.is_array() || b.size() != 2) bad(qk + ".weight_block_size", "must be [rows, columns]", b);
      s.block_rows = integer(b[0], qk + ".weight_block_size[0]", 1, "must be a positive integer");
      s.block_cols = integer(b[1], qk + ".weight_block_size[1]", 1, "must be a positive integer");
    }
    quantise({r::attention, r::dense_ffn, r::experts, r::shared_experts, r::other});
    apply_exclusions(s, present(*q, "modules_to_not_convert") ? &(*q)["modules_to_not_convert"] : nullptr,
                     qk + ".modules_to_not_convert", spec);
    s.source = "quantization_config fp8 block " + std::to_string(s.block_rows) + "x" + std::to_string(s.block_cols) +
               " (fp32 scales)";
  } else if (method == "mxfp4") {
    s.bits = 4;
    s.block_cols = 32;
    s.scale_bytes = 1; // one e8m0 exponent per 32 elements
    quantise({r::experts}); // transformers replaces the experts only
    apply_exclusions(s, present(*q, "modules_to_not_convert") ? &(*q)["modules_to_not_convert"] : nullptr,
                     qk + ".modules_to_not_convert", spec);
    s.source = "quantization_config mxfp4 (experts 4-bit, one e8m0 scale per 32 inputs)";
  } else if (method == "awq" || method == "gptq") {
    const bool awq = method == "awq";
    s.bits = qint(awq && present(*q, "w_bit") ? "w_bit" : "bits", 4, 1);
    if (s.bits != 2 && s.bits != 3 && s.bits != 4 && s.bits != 8) bad(qk + ".bits", "must be 2, 3, 4 or 8", json(s.bits));
    const char* gkey = awq && present(*q, "q_group_size") ? "q_group_size" : "group_size";
    std::int64_t g = 128;
    if (present(*q, gkey)) {
      const auto gi = as_integer((*q)[gkey]);
      if (!gi || (*gi < 1 && *gi != -1)) bad(qk + "." + gkey, "must be a positive integer or -1 (per channel)", (*q)[gkey]);
      g = *gi;
    }
    s.block_rows = 1;
    s.block_cols = g > 0 ? g : 0;
    s.scale_bytes = 2; // fp16 scales
    if (awq) {
      std::string version = "gemm";
      if (present(*q, "version")) {
        if (!(*q)["version"].is_string()) bad(qk + ".version", "must be gemm or gemv", (*q)["version"]);
        version = (*q)["version"].get<std::string>();
        for (char& ch : version) ch = char(std::tolower(static_cast<unsigned char>(ch)));
      }
      if (version != "gemm" && version != "gemv") bad(qk + ".version", "must be gemm or gemv (other AWQ layouts are not supported)", (*q)["version"]);
      s.pack = version == "gemm" ? stored_weights::packing::int32_out : stored_weights::packing::int32_in;
      bool zp = true;
      if (present(*q, "zero_point")) {
        if (!(*q)["zero_point"].is_boolean()) bad(qk + ".zero_point", "must be true or false", (*q)["zero_point"]);
        zp = (*q)["zero_point"].get<bool>();
      }
      s.zero_bits = zp ? s.bits : 0;
    } else {
      s.pack = stored_weights::packing::int32_in; // qweight (in bits / 32, out)
      s.zero_bits = s.bits;                       // qzeros are stored, symmetric or not
      s.g_idx = true;                             // one int32 per input column
    }
    quantise({r::attention, r::dense_ffn, r::experts, r::shared_experts, r::other});
    apply_exclusions(s, present(*q, "modules_to_not_convert") ? &(*q)["modules_to_not_convert"] : nullptr,
                     qk + ".modules_to_not_convert", spec);
    s.source = "quantization_config " + method + " int" + std::to_string(s.bits) + " " + group_text(g) + " (fp16 scales" +
               (s.zero_bits ? ", packed zero points" : "") + (s.g_idx ? ", g_idx" : "") + ")";
  } else if (method == "compressed-tensors") {
    std::string format = "dense";
    if (present(*q, "format")) {
      if (!(*q)["format"].is_string()) bad(qk + ".format", "must be a string", (*q)["format"]);
      format = (*q)["format"].get<std::string>();
    }
    if (format != "float-quantized" && format != "int-quantized" && format != "pack-quantized" && format != "naive-quantized")
      bad(qk + ".format", "must be float-quantized, int-quantized, pack-quantized or naive-quantized (other formats are not supported)",
          (*q)["format"]);
    if (!present(*q, "config_groups") || !(*q)["config_groups"].is_object() || (*q)["config_groups"].empty())
      bad(qk + ".config_groups", "must be an object of quantisation groups", q->contains("config_groups") ? (*q)["config_groups"] : json());
    const json& groups = (*q)["config_groups"];
    const json* scheme = nullptr;
    std::string scheme_key;
    for (const auto& [name, grp] : groups.items()) {
      const std::string gk = qk + ".config_groups." + name;
      if (!grp.is_object()) bad(gk, "must be an object", grp);
      if (!present(grp, "weights")) continue;
      if (scheme && grp["weights"] != (*scheme)["weights"])
        bad(gk + ".weights", "differs from " + scheme_key + ".weights; one weight scheme per checkpoint is supported", grp["weights"]);
      if (!scheme) {
        scheme = &grp;
        scheme_key = gk;
      }
      if (!present(grp, "targets") || !grp["targets"].is_array()) bad(gk + ".targets", "must be a list of module names", grp.contains("targets") ? grp["targets"] : json());
      const json& t = grp["targets"];
      for (std::size_t k = 0; k < t.size(); ++k) {
        const module_pattern m = classify_module(gk + ".targets[" + std::to_string(k) + "]", t[k]);
        if (m.layer >= 0) bad(gk + ".targets[" + std::to_string(k) + "]", "targets one layer; nsc stores a role one way in every layer", t[k]);
        for (weight_role x : m.roles) s.quantised[static_cast<std::size_t>(x)] = true;
      }
      if (present(grp, "input_activations")) {
        const json& a = grp["input_activations"];
        if (!a.is_object()) bad(gk + ".input_activations", "must be an object", a);
        if (present(a, "dynamic") && a["dynamic"] == false) s.matrix_bytes = s.plain_bytes; // a static input_scale per Linear
      }
    }
    if (!scheme) bad(qk + ".config_groups", "has no group with weights", groups);
    const json& w = (*scheme)["weights"];
    const std::string wk = scheme_key + ".weights";
    if (!w.is_object()) bad(wk, "must be an object", w);
    auto wint = [&](const char* key, std::int64_t min) {
      if (!present(w, key)) bad(wk + "." + key, "is required", json());
      return integer(w[key], wk + "." + key, min, int_rule(min));
    };
    s.bits = wint("num_bits", 1);
    if (s.bits != 4 && s.bits != 8) bad(wk + ".num_bits", "must be 4 or 8", w["num_bits"]);
    const std::string type = present(w, "type") && w["type"].is_string() ? w["type"].get<std::string>() : "int";
    if (type != "int" && type != "float") bad(wk + ".type", "must be int or float", w.contains("type") ? w["type"] : json());
    const std::string strategy = present(w, "strategy") && w["strategy"].is_string() ? w["strategy"].get<std::string>() : "";
    std::string layout;
    if (strategy == "tensor") {
      s.block_rows = s.block_cols = 0;
      layout = "per tensor";
    } else if (strategy == "channel") {
      s.block_rows = 1;
      s.block_cols = 0;
      layout = "per channel";
    } else if (strategy == "group") {
      s.block_rows = 1;
      s.block_cols = wint("group_size", 1);
      layout = "group " + std::to_string(s.block_cols);
    } else if (strategy == "block") {
      if (!present(w, "block_structure") || !w["block_structure"].is_array() || w["block_structure"].size() != 2)
        bad(wk + ".block_structure", "must be [rows, columns]", w.contains("block_structure") ? w["block_structure"] : json());
      s.block_rows = integer(w["block_structure"][0], wk + ".block_structure[0]", 1, "must be a positive integer");
      s.block_cols = integer(w["block_structure"][1], wk + ".block_structure[1]", 1, "must be a positive integer");
      layout = "block " + std::to_string(s.block_rows) + "x" + std::to_string(s.block_cols);
    } else {
      bad(wk + ".strategy", "must be tensor, channel, group or block", w.contains("strategy") ? w["strategy"] : json());
    }
    s.scale_bytes = s.plain_bytes; // weight_scale in the model's dtype
    bool symmetric = true;
    if (present(w, "symmetric")) {
      if (!w["symmetric"].is_boolean()) bad(wk + ".symmetric", "must be true or false", w["symmetric"]);
      symmetric = w["symmetric"].get<bool>();
    }
    if (format == "pack-quantized") {
      if (type != "int") bad(wk + ".type", "must be int for pack-quantized", w["type"]);
      s.pack = stored_weights::packing::int32_in;  // weight_packed (out, in bits / 32) int32
      s.matrix_bytes += 16;                        // weight_shape: two int64
      s.zero_bits = symmetric ? 0 : s.bits;         // weight_zero_point packed along the output
    } else {
      if (format == "naive-quantized" || s.bits == 8) s.bits = 8; // one byte per element
      else bad(wk + ".num_bits", "must be 8 for " + format + " (4-bit weights are pack-quantized)", w["num_bits"]);
      s.zero_bits = symmetric ? 0 : 8;
    }
    if (s.block_rows == 0 && s.block_cols == 0 && s.zero_bits == 8) s.zero_bits = 32; // one int8 zero point, stored as a word
    apply_exclusions(s, present(*q, "ignore") ? &(*q)["ignore"] : nullptr, qk + ".ignore", spec);
    s.source = "quantization_config compressed-tensors " + format + " " + type + std::to_string(s.bits) + " " + layout +
               (symmetric ? "" : " asymmetric") + " (" + (s.plain_bytes == 4 ? "fp32" : "16-bit") + " scales" +
               (s.matrix_bytes ? ", static input scales" : "") + ")";
  } else {
    bad(qk + ".quant_method", "is not supported (fp8, mxfp4, awq, gptq, compressed-tensors); give --weight-dtype", (*q)["quant_method"]);
  }
  s.name = method;
  s.source += "; other weights " + plain;
  return s;
}

/// Reads a config of family `fam`.
inline hf_model read_family(const json& c, const family& fam, const std::string& type) {
  fields f{c, json::parse(fam.defaults), type};
  hf_model m;
  m.model_type = type;
  transformer_spec& s = m.spec;
  s.d_model = f.required(fam.hidden);
  const std::int64_t layers = f.required(fam.layers);
  const std::int64_t heads = f.required(fam.heads);
  const std::int64_t kv = fam.kv_heads ? f.optional(fam.kv_heads, heads) : heads;
  std::int64_t head_dim = 0;
  if (fam.head_dim) {
    head_dim = f.optional("head_dim", 0);
    if (fam.hybrid_pattern && f.has("attention_head_dim")) { // Nemotron-H's remote code reads attention_head_dim
      const std::int64_t ahd = f.required("attention_head_dim");
      if (head_dim > 0 && head_dim != ahd)
        bad("head_dim", "must equal attention_head_dim = " + std::to_string(ahd), *f.get("head_dim"));
      head_dim = ahd;
    }
  } else if (!fam.latent && f.has("head_dim") &&
             (s.d_model % heads != 0 || f.required("head_dim") != s.d_model / heads)) {
    bad("head_dim", "must be " + std::string(fam.hidden) + " / " + fam.heads + " = " +
                        std::to_string(s.d_model / heads) + " for model_type " + type +
                        " (its modeling code does not read head_dim)",
        *f.get("head_dim"));
  }
  if (!fam.latent)
    check_heads(s.d_model, heads, kv, head_dim > 0, fam.hidden, fam.heads, fam.kv_heads ? fam.kv_heads : "");
  std::int64_t ffn = 0;
  if (fam.ffn) {
    if (fam.ffn_default_mult > 0)
      ffn = f.optional(fam.ffn, checked_mul(fam.ffn_default_mult, s.d_model, fn, "default FFN width"));
    else
      ffn = f.required(fam.ffn);
  }
  s.embeddings.vocab_size = f.required(fam.vocab);
  if (fam.positions) s.embeddings.positions = f.required(fam.positions);
  s.lm_head = f.flag("tie_word_embeddings", fam.tie_default) ? lm_head_kind::tied : lm_head_kind::untied;
  s.lm_head_bias = fam.lm_head_bias && s.lm_head == lm_head_kind::untied && f.flag(fam.lm_head_bias, false);
  s.final_norm = fam.norm;
  m.norm_eps = f.positive(fam.eps, 0);
  m.initializer_range = f.positive(fam.init, f.positive("initializer_range", 0.02));

  block_spec b;
  b.norm = fam.norm;
  b.n_norms = fam.block_norms;
  attention_spec& a = b.attention;
  a.d_model = b.ffn.d_model = s.d_model;
  a.n_heads = heads;
  a.n_kv_heads = kv;
  a.head_dim = head_dim;
  a.qkv_bias = fam.qkv_bias;
  a.out_bias = fam.out_bias;
  if (fam.attention_bias) {
    a.qkv_bias = f.flag(fam.attention_bias, fam.qkv_bias);
    a.out_bias = fam.qkv_only_bias ? fam.out_bias : a.qkv_bias;
  }
  if (fam.out_bias_flag) a.out_bias = f.flag(fam.out_bias_flag, false);
  a.qk_norm = fam.qk_norm_flag && !f.flag(fam.qk_norm_flag, false) ? qk_norm_kind::none : fam.qk_norm;
  a.sinks = fam.sinks;
  b.ffn.d_ff = ffn;
  b.ffn.gated = fam.gated;
  b.ffn.bias = fam.mlp_bias ? f.flag(fam.mlp_bias, fam.ffn_bias) : fam.ffn_bias;
  if (fam.latent) {
    a.kind = attention_kind::latent;
    a.n_kv_heads = 0;
    a.q_lora_rank = f.optional("q_lora_rank", 0);
    a.kv_lora_rank = f.required("kv_lora_rank");
    a.qk_nope_head_dim = f.required("qk_nope_head_dim", 0);
    a.qk_rope_head_dim = f.required("qk_rope_head_dim", 0);
    a.v_head_dim = f.required("v_head_dim");
    if (a.qk_nope_head_dim == 0 && a.qk_rope_head_dim == 0)
      bad("qk_nope_head_dim", "plus qk_rope_head_dim must be >= 1", *f.get("qk_nope_head_dim"));
    if (fam.dsa) {
      a.index_n_heads = f.required("index_n_heads");
      a.index_head_dim = f.required("index_head_dim");
      a.index_topk = f.required("index_topk");
      if (a.q_lora_rank < 1) bad("q_lora_rank", "must be a positive integer with DSA (the indexer's wq_b reads the query latent)", c.contains("q_lora_rank") ? c["q_lora_rank"] : json());
    }
  }
  // The layers are built as runs of identical layers (block_spec::repeat): every rule below
  // is a function of the layer index i (at(i)) plus the indices where it may change (cuts), so
  // a uniform config is one run whatever num_hidden_layers, and no layer is built twice.
  layer_cuts cuts{layers, fam.layers, f.get(fam.layers)};

  // Mixture of experts, per layer.
  // An integer field, or (uniform_lists families) a list of num_hidden_layers equal integers.
  auto count_field = [&](const char* key) {
    const json* v = f.get(key);
    if (!fam.uniform_lists || !v || !v->is_array()) return f.required(key);
    if (v->size() != std::size_t(layers))
      bad(key, "must be an integer or a list of num_hidden_layers = " + std::to_string(layers) + " entries", *v);
    for (std::size_t k = 1; k < v->size(); ++k)
      if ((*v)[k] != (*v)[0])
        bad(std::string(key) + "[" + std::to_string(k) + "]",
            "differs from " + std::string(key) + "[0]: per-layer values are not supported", (*v)[k]);
    return integer((*v)[0], std::string(key) + "[0]", 1, "must be a positive integer");
  };
  auto moe_fields = [&](const char* n_key, std::int64_t width) {
    ffn_spec e = b.ffn;
    e.n_experts = count_field(n_key);
    e.top_k = count_field(fam.topk_key);
    if (e.top_k > e.n_experts)
      bad(fam.topk_key, "must be <= " + std::string(n_key) + " = " + std::to_string(e.n_experts), *f.get(fam.topk_key));
    e.d_ff = width;
    return e;
  };
  ffn_spec expert;                   // the MoE FFN of the layers is_moe(i) picks
  bool moe = false;                  // the config has MoE layers
  std::int64_t step = 1, first = 0;  // qwen decoder_sparse_step; deepseek first_k_dense_replace ...
  std::int64_t freq = 1;             // ... and moe_layer_freq
  std::int64_t last = 0;             // ernie: moe_layer_end_index
  std::set<std::int64_t> dense;      // qwen mlp_only_layers
  std::set<std::int64_t> llama4_moe; // llama4 moe_layers (when listed)
  bool llama4_listed = false;
  switch (fam.moe) {
  case moe_layout::none: break;
  case moe_layout::mixtral:
    if (fam.mamba_layer_types) { // GraniteMoeHybrid: experts of intermediate_size + the shared_mlp, ungated
      if (f.optional("num_local_experts", 0, 0) == 0) break; // dense: the shared_mlp alone
      expert = moe_fields("num_local_experts", f.required("intermediate_size"));
      expert.shared_d_ff = ffn;
      moe = true;
      break;
    }
    expert = moe_fields(fam.experts_key ? fam.experts_key : "num_local_experts", ffn);
    if (fam.shared_mlp) expert.shared_d_ff = ffn; // HunYuan: shared_mlp (an MLP of intermediate_size) in every layer
    moe = true;
    break;
  case moe_layout::qwen: {
    if (f.optional("num_experts", 0, 0) == 0) break;
    expert = moe_fields("num_experts", f.required("moe_intermediate_size"));
    moe = true;
    if (fam.shared_expert) {
      expert.shared_d_ff = f.optional("shared_expert_intermediate_size", 0, 0);
      expert.shared_gate = expert.shared_d_ff > 0;
    }
    step = f.optional("decoder_sparse_step", 1);
    if (const json* v = f.get("mlp_only_layers")) {
      if (!v->is_array()) bad("mlp_only_layers", "must be a list of layer indices", *v);
      for (std::size_t k = 0; k < v->size(); ++k) {
        const std::int64_t i = integer((*v)[k], "mlp_only_layers[" + std::to_string(k) + "]", 0,
                                       "must be a non-negative integer");
        if (i >= layers) bad("mlp_only_layers[" + std::to_string(k) + "]", "must be < num_hidden_layers = " + std::to_string(layers), (*v)[k]);
        dense.insert(i);
        cuts.at(i);
        cuts.at(i + 1);
      }
    }
    cuts.periodic(step - 1, step, "decoder_sparse_step");
    break;
  }
  case moe_layout::llama4: { // Llama4TextMoe: router, experts, one shared expert of the experts' width
    expert = moe_fields("num_local_experts", f.required("intermediate_size"));
    expert.shared_d_ff = expert.d_ff;
    moe = true;
    if (const json* v = f.get("moe_layers"); v && !(c.contains("moe_layers") && c["moe_layers"].is_null())) {
      if (!v->is_array()) bad("moe_layers", "must be a list of layer indices", *v);
      for (std::size_t k = 0; k < v->size(); ++k) {
        const std::string at = "moe_layers[" + std::to_string(k) + "]";
        const std::int64_t i = integer((*v)[k], at, 0, "must be a non-negative integer");
        if (i >= layers) bad(at, "must be < num_hidden_layers = " + std::to_string(layers), (*v)[k]);
        llama4_moe.insert(i);
        cuts.at(i);
        cuts.at(i + 1);
      }
      llama4_listed = true;
    } else {
      step = f.optional("interleave_moe_layer_step", 1);
      cuts.periodic(step - 1, step, "interleave_moe_layer_step");
    }
    break;
  }
  case moe_layout::deepseek: {
    if (!f.has("n_routed_experts")) break;
    expert = moe_fields("n_routed_experts", f.required("moe_intermediate_size"));
    moe = true;
    expert.shared_d_ff = checked_mul(f.optional("n_shared_experts", 0, 0), expert.d_ff, fn, "shared expert width");
    if (const json* t = f.get("topk_method")) expert.router_bias = *t == "noaux_tc";
    first = f.optional("first_k_dense_replace", 0, 0);
    freq = f.optional("moe_layer_freq", 1);
    cuts.at(first);
    if (freq > 1) cuts.periodic(first + (freq - first % freq) % freq, freq, "moe_layer_freq");
    break;
  }
  case moe_layout::ernie: { // Ernie4_5_MoeSparseMoeBlock: gate Linear(d, E), moe_statics (E), experts, shared experts
    if (f.optional("moe_num_experts", 0, 0) == 0) break;
    expert = b.ffn;
    expert.n_experts = f.required("moe_num_experts");
    expert.top_k = f.required("moe_k");
    if (expert.top_k > expert.n_experts)
      bad("moe_k", "must be <= moe_num_experts = " + std::to_string(expert.n_experts), *f.get("moe_k"));
    expert.d_ff = f.required("moe_intermediate_size");
    expert.shared_d_ff = checked_mul(f.optional("moe_num_shared_experts", 0, 0), expert.d_ff, fn, "shared expert width");
    expert.router_bias = true;
    moe = true;
    first = f.optional("moe_layer_start_index", 0, 0);
    last = integer(*f.get("moe_layer_end_index"), "moe_layer_end_index", -1, "must be -1 (the last layer) or a layer index");
    if (last == -1) last = layers - 1;
    step = f.optional("moe_layer_interval", 1);
    cuts.at(first);
    cuts.at(last + 1);
    cuts.periodic(step - 1, step, "moe_layer_interval");
    break;
  }
  }
  if (moe && (fam.router_bias || (fam.router_bias_flag && f.flag(fam.router_bias_flag, false))))
    expert.router_bias = true;
  auto is_moe = [&](std::int64_t i) {
    switch (fam.moe) {
    case moe_layout::none: return false;
    case moe_layout::mixtral: return moe;
    case moe_layout::qwen: return moe && !dense.count(i) && (i + 1) % step == 0;
    case moe_layout::deepseek: return moe && i >= first && i % freq == 0;
    case moe_layout::llama4: return llama4_listed ? llama4_moe.count(i) > 0 : (i + 1) % step == 0;
    case moe_layout::ernie: return moe && i >= first && i <= last && (i + 1) % step == 0;
    }
    return false;
  };

  // llama4: NoPE layers (no_rope_layers[i] == 0; absent or []: every no_rope_layer_interval-th)
  // and chunked attention (the layers with rotary positions, when attention_chunk_size is set;
  // layer_types "chunked_attention" / "full_attention" when given).
  const json* no_rope = nullptr;
  const json* chunk_types = nullptr;
  std::int64_t nope_interval = 0, chunk = 0;
  if (fam.chunked || fam.nope_layers) { // llama4, SmolLM3
    if (const json* v = f.get("no_rope_layers"); v && !(v->is_array() && v->empty())) {
      per_layer_kinds(*v, "no_rope_layers", {0, 1}, cuts, "must be 0 (NoPE) or 1 (rotary)");
      no_rope = v;
    } else {
      nope_interval = f.optional("no_rope_layer_interval", 4);
      cuts.periodic(nope_interval - 1, nope_interval, "no_rope_layer_interval");
    }
  }
  if (fam.chunked) {
    if (!(c.contains("attention_chunk_size") && c["attention_chunk_size"].is_null()))
      chunk = f.optional("attention_chunk_size", 0);
    if (const json* lt = f.get("layer_types")) {
      const auto kind = per_layer_kinds(*lt, "layer_types", {"chunked_attention", "full_attention"}, cuts);
      for (std::size_t k = 0; k < kind.size(); ++k)
        if (kind[k] == 0 && chunk == 0)
          bad("layer_types[" + std::to_string(k) + "]", "is chunked_attention, but attention_chunk_size is null", (*lt)[k]);
      chunk_types = lt;
    }
  }
  auto rope_at = [&](std::int64_t i) {
    return no_rope ? (*no_rope)[std::size_t(i)] == 1 : (i + 1) % nope_interval != 0;
  };

  // Gemma 4: full layers' own shapes, per-layer embeddings, KV-shared layers (and the double-wide
  // MLP on them), the MoE block.
  std::int64_t global_head_dim = 0, global_kv = 0;
  bool k_eq_v = false, own_per_layer = false;
  std::int64_t ple = 0, first_shared = layers; // hidden_size_per_layer_input; the first KV-shared layer
  bool double_wide = false;
  ffn_spec moe_block; // Gemma4TextRouter + Gemma4TextExperts beside the dense MLP (n_experts 0: none)
  if (fam.global_layers) {
    // hidden_size_per_layer_input: null means none (transformers tests it for truth), absent the default 256
    if (!(c.contains("hidden_size_per_layer_input") && c["hidden_size_per_layer_input"].is_null()))
      ple = f.optional("hidden_size_per_layer_input", 0, 0);
    if (ple > 0) {
      s.embeddings.per_layer_dim = ple;
      s.embeddings.per_layer_vocab = f.required("vocab_size_per_layer_input");
    }
    const std::int64_t n_shared = f.optional("num_kv_shared_layers", 0, 0);
    if (n_shared >= layers)
      bad("num_kv_shared_layers", "must be < num_hidden_layers = " + std::to_string(layers) +
                                      " (KV-shared layers read the keys and values of an earlier layer)",
          *f.get("num_kv_shared_layers"));
    if (n_shared > 0) {
      first_shared = layers - n_shared;
      cuts.at(first_shared);
    }
    double_wide = f.flag("use_double_wide_mlp", false); // Gemma4TextMLP: 2 x intermediate_size on KV-shared layers
    if (f.flag("enable_moe_block", false)) {
      moe_block.n_experts = f.required("num_experts");
      moe_block.top_k = f.required("top_k_experts");
      if (moe_block.top_k > moe_block.n_experts)
        bad("top_k_experts", "must be <= num_experts = " + std::to_string(moe_block.n_experts), *f.get("top_k_experts"));
      moe_block.d_ff = f.required("moe_intermediate_size");
    }
    global_head_dim = f.required("global_head_dim");
    k_eq_v = f.flag("attention_k_eq_v", false);
    if (k_eq_v && f.has("num_global_key_value_heads")) {
      global_kv = f.required("num_global_key_value_heads");
      if (heads % global_kv != 0)
        bad("num_global_key_value_heads", "must divide num_attention_heads = " + std::to_string(heads),
            *f.get("num_global_key_value_heads"));
    }
    own_per_layer = f.has("per_layer_config");
    cuts.at(layers - 1); // the last layer is full attention whatever layer_types says
  }

  // Sliding-window layers.
  const bool windows = fam.window != window_rule::none || (f.has("layer_types") && !fam.chunked && !fam.linear_attention && !fam.mamba_layer_types);
  const sliding_rule sliding = windows ? sliding_rule(f, fam, cuts) : sliding_rule();
  std::int64_t window = 0; // sliding_window, read at the first sliding layer

  const json* block_configs = nullptr;
  if (fam.block_configs) {
    block_configs = f.get("block_configs");
    if (!block_configs) bad("block_configs", "is required for model_type " + type, json());
    if (!block_configs->is_array() || block_configs->size() != std::size_t(layers))
      bad("block_configs", "must be a list of num_hidden_layers = " + std::to_string(layers) + " entries",
          *block_configs);
    cuts.every_layer("block_configs", *block_configs);
  }
  per_layer_overrides overrides;
  if (const json* v = f.get("per_layer_config")) {
    if (!fam.per_layer_config) bad("per_layer_config", "is not supported for model_type " + type, *v);
    overrides = per_layer_overrides(*v, layers, fam.block_norms / 2, fam.moe);
    for (const auto& [i, list] : overrides.at) {
      cuts.at(i);
      cuts.at(i + 1);
    }
  }
  // Nemotron-H: hybrid_override_pattern, one character per layer: 'M' a Mamba-2 mixer, '*'
  // attention, '-' an MLP; each layer has that one mixer and one RMSNorm.
  std::string pattern;
  attention_spec mamba;
  // A Mamba-2 mixer from the family's field names; `expand` (when given) allows head_dim "auto" =
  // expand x hidden_size / heads (GraniteMoeHybridConfig).
  struct mamba_keys {
    const char *heads, *head_dim, *expand, *state, *groups, *conv, *conv_bias, *bias;
    const char* inner; ///< the inner width's own field (Falcon-H1 mamba_d_ssm; null: expand x hidden)
  };
  auto read_mamba = [&](const mamba_keys& k) {
    attention_spec x;
    x.kind = attention_kind::mamba2;
    x.d_model = s.d_model;
    x.ssm_heads = f.required(k.heads);
    // FalconH1Config: mamba_d_ssm (absent: its default 1024; an explicit null: expand x hidden)
    const bool own_inner = k.inner && f.has(k.inner) && !(f.c.contains(k.inner) && f.c[k.inner].is_null());
    const std::string inner_name = own_inner ? std::string(k.inner) : std::string(k.expand ? k.expand : "") + " x hidden_size";
    if (const json* dh = f.get(k.head_dim); k.expand && dh && *dh == "auto") {
      const std::int64_t inner = own_inner ? f.required(k.inner) : checked_mul(f.required(k.expand), s.d_model, fn, "Mamba inner width");
      if (inner % x.ssm_heads != 0)
        bad(k.heads, "must divide " + inner_name + " = " + std::to_string(inner) + " (" + k.head_dim + " auto)",
            *f.get(k.heads));
      x.ssm_head_dim = inner / x.ssm_heads;
    } else {
      x.ssm_head_dim = f.required(k.head_dim);
      if (k.inner) { // FalconH1Config.validate_architecture: mamba_d_head x mamba_n_heads = the inner width
        const std::int64_t inner = own_inner ? f.required(k.inner) : checked_mul(f.required(k.expand), s.d_model, fn, "Mamba inner width");
        if (checked_mul(x.ssm_head_dim, x.ssm_heads, fn, "Mamba inner width") != inner)
          bad(k.head_dim, "x " + std::string(k.heads) + " = " + std::to_string(x.ssm_heads) + " must equal " + inner_name +
                              " = " + std::to_string(inner),
              *f.get(k.head_dim));
      }
    }
    x.ssm_state = f.required(k.state);
    x.ssm_groups = f.required(k.groups);
    if (x.ssm_heads % x.ssm_groups != 0)
      bad(k.groups, "must divide " + std::string(k.heads) + " = " + std::to_string(x.ssm_heads), *f.get(k.groups));
    x.conv_kernel = f.required(k.conv);
    x.conv_bias = f.flag(k.conv_bias, true);
    x.qkv_bias = x.out_bias = f.flag(k.bias, false);
    return x;
  };
  if (fam.hybrid_pattern) {
    const json* v = f.get(fam.hybrid_pattern);
    if (!v || !v->is_string())
      bad(fam.hybrid_pattern, "must be a string of one character per layer (M, *, -) for model_type " + type,
          v ? *v : json());
    pattern = v->get<std::string>();
    if (pattern.size() != std::size_t(layers))
      bad(fam.hybrid_pattern, "must have num_hidden_layers = " + std::to_string(layers) + " characters", *v);
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      const char ch = pattern[i];
      if (ch == 'E')
        bad(fam.hybrid_pattern, "has an 'E' (mixture-of-experts layer) at " + std::to_string(i) +
                                    ": Nemotron-H MoE layers are not supported yet (M, * and - are)",
            *v);
      if (ch != 'M' && ch != '*' && ch != '-')
        bad(fam.hybrid_pattern, "has '" + std::string(1, ch) + "' at " + std::to_string(i) +
                                    "; expected M (Mamba-2), * (attention) or - (MLP)",
            *v);
      if (i > 0 && ch != pattern[i - 1]) cuts.at(std::int64_t(i));
    }
    if (pattern.find('M') != std::string::npos)
      mamba = read_mamba({"mamba_num_heads", "mamba_head_dim", nullptr, "ssm_state_size", "n_groups", "conv_kernel",
                          "use_conv_bias", "use_bias", nullptr});
  }
  // GraniteMoeHybrid: layer_types "mamba" / "attention" (every layer keeps its FFN and 2 norms).
  std::vector<bool> mamba_at;
  if (fam.mamba_layer_types) {
    const json* v = f.get("layer_types");
    for (std::size_t k : per_layer_kinds(v ? *v : json(), "layer_types", {"mamba", "attention"}, cuts)) mamba_at.push_back(k == 0);
    if (std::find(mamba_at.begin(), mamba_at.end(), true) != mamba_at.end())
      mamba = read_mamba({"mamba_n_heads", "mamba_d_head", "mamba_expand", "mamba_d_state", "mamba_n_groups", "mamba_d_conv",
                          "mamba_conv_bias", "mamba_proj_bias", nullptr});
  }
  // Falcon-H1: a Mamba-2 mixer beside the attention of every layer (FalconH1Mixer): in_proj's bias
  // mamba_proj_bias, out_proj's projectors_bias, the gated RMSNorm(I) only with mamba_rms_norm.
  if (fam.parallel_mamba) {
    b.parallel = read_mamba({"mamba_n_heads", "mamba_d_head", "mamba_expand", "mamba_d_state", "mamba_n_groups",
                             "mamba_d_conv", "mamba_conv_bias", "mamba_proj_bias", "mamba_d_ssm"});
    b.parallel.out_bias = f.flag("projectors_bias", false);
    b.parallel.ssm_norm = f.flag("mamba_rms_norm", false);
    const attention_spec& p = b.parallel;
    m.notes.push_back("every layer runs attention and a Mamba-2 mixer in parallel on the same normed input, outputs "
                      "summed (" + std::to_string(p.ssm_heads) + " heads of " + std::to_string(p.ssm_head_dim) +
                      ", state " + std::to_string(p.ssm_state) + ", " + std::to_string(p.ssm_groups) +
                      " group(s), conv " + std::to_string(p.conv_kernel) +
                      (p.ssm_norm ? ", gated RMSNorm" : ", no gated RMSNorm") +
                      "): the layer caches keys and values per token and the mixer's state per sequence; the muP "
                      "multipliers change no count (mup_vector is a non-persistent buffer, not counted)");
  }
  // Qwen3-Next: Gated DeltaNet ("linear_attention") and gated full-attention layers, from
  // layer_types, else every full_attention_interval-th layer is full attention.
  attention_spec gdn;
  std::vector<bool> linear_at; // per layer when layer_types is given
  std::int64_t interval = 0;
  if (fam.linear_attention) {
    gdn.kind = attention_kind::gated_deltanet;
    gdn.d_model = s.d_model;
    gdn.ssm_heads = f.required("linear_num_value_heads");
    gdn.ssm_head_dim = f.required("linear_value_head_dim");
    gdn.ssm_groups = f.required("linear_num_key_heads");
    gdn.ssm_state = f.required("linear_key_head_dim");
    gdn.conv_kernel = f.required("linear_conv_kernel_dim");
    if (gdn.ssm_heads % gdn.ssm_groups != 0)
      bad("linear_num_key_heads", "must divide linear_num_value_heads = " + std::to_string(gdn.ssm_heads),
          *f.get("linear_num_key_heads"));
    b.attention.output_gate = f.flag("attn_output_gate", true);
    if (const json* v = f.get("layer_types")) {
      for (std::size_t k : per_layer_kinds(*v, "layer_types", {"linear_attention", "full_attention"}, cuts))
        linear_at.push_back(k == 0);
    } else {
      interval = f.required("full_attention_interval");
      cuts.periodic(interval - 1, interval, "full_attention_interval");
    }
  }
  // GLM-MoE-DSA: indexer_types ("full": the layer runs its indexer; "shared": it reuses the top-k
  // of the previous full layer, so it has no indexer weights and no indexer cache, and its
  // attention still attends at most index_topk keys); absent: index_topk_pattern ("F" / "S" per
  // layer), else full iff max(i - index_skip_topk_offset + 1, 0) % index_topk_freq == 0 (2, 1).
  std::vector<bool> shared_list;
  std::int64_t ifreq = 1, ioffset = 2;
  if (fam.shared_indexer) {
    const char* key = f.has("indexer_types") ? "indexer_types" : f.has("index_topk_pattern") ? "index_topk_pattern" : nullptr;
    if (key) {
      const json& v = *f.get(key);
      const bool letters = v.is_string();
      if ((!letters && !v.is_array()) || (letters ? v.get<std::string>().size() : v.size()) != std::size_t(layers))
        bad(key, "must list num_hidden_layers = " + std::to_string(layers) + " entries \"full\" / \"shared\" (or F / S)", v);
      cuts.every_layer(key, v);
      for (std::size_t i = 0; i < std::size_t(layers); ++i) {
        const json e = letters ? json(std::string(1, v.get<std::string>()[i])) : v[i];
        if (e != "full" && e != "shared" && e != "F" && e != "S")
          bad(std::string(key) + "[" + std::to_string(i) + "]", "must be \"full\" or \"shared\" (F or S)", e);
        shared_list.push_back(e == "shared" || e == "S");
      }
    } else {
      ifreq = f.optional("index_topk_freq", 1);
      ioffset = f.optional("index_skip_topk_offset", 2, 0);
      cuts.at(ioffset - 1);
      cuts.periodic(ioffset - 1, ifreq, "index_topk_freq");
    }
  }
  auto shared_at = [&](std::int64_t i) {
    if (!fam.shared_indexer) return false;
    if (!shared_list.empty()) return bool(shared_list[std::size_t(i)]);
    return std::max<std::int64_t>(i - ioffset + 1, 0) % ifreq != 0;
  };
  if (fam.shared_indexer && shared_at(0))
    bad(f.has("indexer_types") ? "indexer_types" : f.has("index_topk_pattern") ? "index_topk_pattern" : "index_skip_topk_offset",
        "makes layer 0 \"shared\": a shared layer reuses the top-k of a previous full layer", json(ioffset));
  const extensions ext(c, layers);
  if (ext.per_layer()) cuts.every_layer(ext.list().first, *ext.list().second);

  // Layer i, then the runs.
  auto layer_at = [&](std::int64_t i) {
    block_spec x = b;
    if (is_moe(i)) x.ffn = expert;
    if (fam.chunked || fam.nope_layers) x.attention.nope = !rope_at(i);
    if (fam.chunked) {
      const bool rope = rope_at(i);
      const bool chunked = chunk_types ? (*chunk_types)[std::size_t(i)] == "chunked_attention" : rope;
      if (chunked) x.attention.chunk = chunk;
    }
    if (windows && sliding.at(i) && !(fam.global_layers && i == layers - 1)) {
      if (window == 0) window = f.required("sliding_window");
      x.attention.sliding_window = window;
    }
    if (fam.global_layers && x.attention.sliding_window == 0) { // a full-attention layer
      if (!own_per_layer) {
        x.attention.head_dim = global_head_dim;
        if (global_kv > 0) x.attention.n_kv_heads = global_kv;
      }
      x.attention.k_eq_v = k_eq_v;
    }
    if (fam.global_layers) {
      x.per_layer_input = ple;
      if (i >= first_shared) { // reads the keys and values of the last earlier layer of its type
        x.attention.kv_shared = true;
        x.attention.k_eq_v = false;
        if (double_wide) x.ffn.d_ff = checked_mul<std::int64_t>(2, x.ffn.d_ff, fn, "double-wide intermediate_size");
      }
      if (moe_block.n_experts > 0) { // the dense MLP runs beside the experts: an always-active shared expert
        x.ffn.shared_d_ff = x.ffn.d_ff;
        x.ffn.d_ff = moe_block.d_ff;
        x.ffn.n_experts = moe_block.n_experts;
        x.ffn.top_k = moe_block.top_k;
        x.ffn.router_scales = true;
        x.n_norms += 3; // post_feedforward_layernorm_1 / _2, pre_feedforward_layernorm_2
      }
    }
    if (block_configs) read_block_config((*block_configs)[std::size_t(i)], std::size_t(i), f, x);
    if (fam.linear_attention &&
        (linear_at.empty() ? (i + 1) % interval != 0 : bool(linear_at[std::size_t(i)]))) {
      x.attention = gdn;
      x.attention.qkv = b.attention.qkv;
    }
    if (!mamba_at.empty() && mamba_at[std::size_t(i)]) x.attention = mamba;
    if (!pattern.empty()) {
      const char ch = pattern[std::size_t(i)];
      if (ch == 'M') x.attention = mamba;
      if (ch != '-') x.ffn.kind = ffn_kind::none;
      if (ch == '-') x.attention.kind = attention_kind::none;
    }
    if (shared_at(i)) x.attention.index_n_heads = x.attention.index_head_dim = 0; // the previous full layer's top-k
    overrides.apply(i, x);
    ext.apply(i, x);
    return x;
  };
  const std::vector<std::int64_t> starts = cuts.starts();
  for (std::size_t k = 0; k < starts.size(); ++k) {
    block_spec x = layer_at(starts[k]);
    x.repeat = (k + 1 < starts.size() ? starts[k + 1] : layers) - starts[k];
    if (!s.blocks.empty() && same_block(s.blocks.back(), x))
      s.blocks.back().repeat += x.repeat; // at most num_hidden_layers in all
    else
      s.blocks.push_back(x);
  }

  // Multi-token-prediction modules: reported apart (hf_model::mtp_*), never in the spec.
  if (fam.mtp_layers) {
    m.mtp_layers = f.optional(fam.mtp_layers, 0, 0);
    if (m.mtp_layers > hf_max_layer_runs)
      bad(fam.mtp_layers, "must be <= " + std::to_string(hf_max_layer_runs), *f.get(fam.mtp_layers));
    if (m.mtp_layers > 0) {
      m.mtp_block = b;
      if (is_moe(layers)) m.mtp_block.ffn = expert; // the kind the next layer would have
      m.mtp_block.repeat = m.mtp_layers;
      m.mtp_norms = fam.mtp_norms;
    }
  }
  // Family peculiarities the table does not express.
  if (fam.shared_indexer) { // mlp_layer_types, when given, must say what first_k_dense_replace says
    if (const json* v = f.get("mlp_layer_types")) {
      const auto kind = per_layer_kinds(*v, "mlp_layer_types", {"sparse", "dense"}, cuts);
      for (std::size_t i = 0; i < kind.size(); ++i)
        if (kind[i] != (is_moe(std::int64_t(i)) ? 0u : 1u))
          bad("mlp_layer_types[" + std::to_string(i) + "]",
              std::string("must be \"") + (is_moe(std::int64_t(i)) ? "sparse" : "dense") +
                  "\" as first_k_dense_replace and moe_layer_freq make layer " + std::to_string(i) +
                  " (nsc reads MoE layers from them)",
              (*v)[i]);
    }
  }
  if (fam.global_layers) {
    std::int64_t full = 0;
    for (const block_spec& x : s.blocks)
      if (x.attention.sliding_window == 0) full += x.repeat; // <= num_hidden_layers
    m.notes.push_back(std::to_string(full) + " of " + std::to_string(layers) + " layers are full attention (head_dim " +
                      std::to_string(global_head_dim) +
                      (k_eq_v ? ", attention_k_eq_v: no v_proj, the values are the key projection's output; keys and "
                                "values both cached"
                              : "") +
                      "); v_norm has no weight; every layer stores a layer_scalar buffer (1 value, in the checkpoint, "
                      "not a parameter: not counted)");
    if (const json* cap = f.get("final_logit_softcapping"); cap && cap->is_number())
      m.notes.push_back("final_logit_softcapping " + io::json_excerpt(*cap) + ": no parameters, no count changes");
    if (first_shared < layers) {
      // Gemma4TextAttention: a KV-shared layer attends the keys and values of the last layer before
      // first_shared with its layer type, which must exist and have its shape.
      std::string sources;
      std::int64_t at = 0;
      std::int64_t source_at[2] = {-2, -2}; // per type (full, sliding): the source layer, searched once
      block_spec source_block[2];
      for (const block_spec& x : s.blocks) {
        if (x.attention.kv_shared) {
          const bool slides = x.attention.sliding_window > 0;
          std::int64_t& j = source_at[slides];
          block_spec& src = source_block[slides];
          if (j == -2)
            for (j = first_shared - 1; j >= 0; --j) { // at most the layer_types list (or a 6-layer period) long
              src = layer_at(j);
              if ((src.attention.sliding_window > 0) == slides) break;
            }
          const std::string kind = slides ? "sliding" : "full";
          if (j < 0)
            bad("num_kv_shared_layers", "makes layer " + std::to_string(at) + " (" + kind +
                                            " attention) KV-shared, but no earlier layer of that type computes keys "
                                            "and values for it to read",
                *f.get("num_kv_shared_layers"));
          if (src.attention.kv_heads() != x.attention.kv_heads() || src.attention.head_size() != x.attention.head_size())
            bad("num_kv_shared_layers", "makes layer " + std::to_string(at) + " read the keys and values of layer " +
                                            std::to_string(j) + ", whose KV heads or head_dim differ",
                *f.get("num_kv_shared_layers"));
          const std::string src_text = "layer " + std::to_string(j) + " (" + kind + ")";
          if (sources.find(src_text) == std::string::npos) sources += (sources.empty() ? "" : " and ") + src_text;
        }
        at += x.repeat;
      }
      const std::int64_t n_shared = layers - first_shared;
      m.notes.push_back(
          "layers " + std::to_string(first_shared) + "-" + std::to_string(layers - 1) + " (" + std::to_string(n_shared) +
          " of " + std::to_string(layers) +
          ") are KV-shared (num_kv_shared_layers): no k_proj, v_proj or k_norm and no KV cache of their own; they "
          "attend the keys and values of " + sources + ", so their attention FLOPs are unchanged" +
          (double_wide ? "; use_double_wide_mlp: their MLP is 2 x intermediate_size wide" : std::string()) +
          "; the pruning space refuses them (a reader cannot be pruned apart from its source)");
    }
    if (ple > 0) {
      const std::int64_t width = checked_mul(layers, ple, fn, "per-layer embedding width");
      m.notes.push_back(
          "per-layer embeddings (hidden_size_per_layer_input " + std::to_string(ple) + "): embed_tokens_per_layer (" +
          std::to_string(s.embeddings.per_layer_vocab) + " x " + std::to_string(width) +
          ") is a lookup (no FLOPs, not in psi, as every embedding; its parameters are counted); "
          "per_layer_model_projection (" + std::to_string(width) + " x " + std::to_string(s.d_model) +
          ") and every layer's per_layer_input_gate and per_layer_projection are matmuls (in FLOPs and psi)");
    }
    if (moe_block.n_experts > 0)
      m.notes.push_back("Gemma 4 MoE block (enable_moe_block) in every layer: " + std::to_string(moe_block.n_experts) +
                        " experts of moe_intermediate_size " + std::to_string(moe_block.d_ff) + " (top " +
                        std::to_string(moe_block.top_k) +
                        ") beside the dense MLP of intermediate_size (always active: counted as a shared expert); "
                        "the router's proj is a matrix, its scale (hidden_size) and per_expert_scale (num_experts) "
                        "are parameters; 3 more RMSNorms per layer");
  }
  if (type == "falcon") { // FalconAttention / FalconDecoderLayer
    const bool new_arch = f.flag("new_decoder_architecture", false);
    std::int64_t kv_heads = 1; // multi_query: one K and one V head (query_key_value of hidden + 2 head_dim rows)
    if (new_arch || !f.flag("multi_query", true)) {
      kv_heads = f.optional("num_kv_heads", heads); // FalconConfig: num_attention_heads when null
      if (heads % kv_heads != 0)
        bad("num_kv_heads", "must divide num_attention_heads = " + std::to_string(heads), *f.get("num_kv_heads"));
    }
    // Two LayerNorms (input_layernorm + post_attention_layernorm, or ln_attn + ln_mlp), or one
    // input_layernorm shared by the parallel attention and MLP.
    const std::int64_t ln_parallel = f.optional("num_ln_in_parallel_attn", new_arch ? 2 : 1);
    const std::int64_t norms = !f.flag("parallel_attn", true) || ln_parallel == 2 ? 2 : 1;
    for (block_spec& x : s.blocks) {
      x.attention.n_kv_heads = kv_heads;
      x.n_norms = norms;
    }
    if (f.flag("alibi", false))
      m.notes.push_back("ALiBi positions (alibi: true): no parameters, no count changes");
  } else if (type == "bert") {
    s.embeddings.token_types = f.optional("type_vocab_size", 2, 0);
    s.embeddings.norm = norm_kind::layernorm;
    s.final_norm = norm_kind::none;
    s.lm_head = lm_head_kind::none;
    s.pooler = f.flag("add_pooling_layer", true);
  } else if (type == "opt") {
    s.embeddings.positions = checked_add<std::int64_t>(s.embeddings.positions, 2, fn, "position rows");
    s.embeddings.dim = f.optional("word_embed_proj_dim", s.d_model);
    const bool bias = f.flag("enable_bias", true);
    const bool before = f.flag("do_layer_norm_before", true);
    const bool remove_final = f.flag("_remove_final_layer_norm", false);
    const norm_kind ln = f.flag("layer_norm_elementwise_affine", true) ? norm_kind::layernorm : norm_kind::none;
    s.final_norm = before && !remove_final ? ln : norm_kind::none;
    for (block_spec& x : s.blocks) {
      x.norm = ln;
      x.attention.qkv_bias = x.attention.out_bias = x.ffn.bias = bias;
    }
  }
  return m;
}

/// Layer indices as compact ranges: "3, 7, 11-13".
inline std::string index_ranges(const std::vector<std::int64_t>& v) {
  std::string r;
  for (std::size_t k = 0; k < v.size();) {
    std::size_t e = k;
    while (e + 1 < v.size() && v[e + 1] == v[e] + 1) ++e;
    if (!r.empty()) r += ", ";
    r += std::to_string(v[k]);
    if (e > k) {
      r += '-';
      r += std::to_string(v[e]);
    }
    k = e + 1;
  }
  return r;
}

/// The notes of hf_model::notes for the structures of `s` (sinks, chunked, NoPE and DSA layers).
/// Counts are sums over the runs (checked); NoPE layers are listed by index up to 16384 layers.
inline std::vector<std::string> structure_notes(const transformer_spec& s) {
  std::int64_t sink_layers = 0, sink_params = 0, chunk_layers = 0, chunk = 0, nope_layers = 0, dsa_layers = 0, i = 0;
  std::int64_t shared_topk = 0; // DSA layers without an indexer (GLM-MoE-DSA "shared")
  std::vector<std::int64_t> nope; // indices, while the model is small enough to list them
  attention_spec index;           // the last DSA layer's indexer
  constexpr std::string_view q = "layers with a structure";
  for (const block_spec& b : s.blocks) {
    const attention_spec& a = b.attention;
    const std::int64_t r = b.repeat;
    if (!a.attends()) { // a removed / linear sublayer: its fields are inert
      i = checked_add(i, r, fn, q);
      continue;
    }
    if (a.sinks) {
      sink_layers = checked_add(sink_layers, r, fn, q);
      sink_params = checked_add(sink_params, checked_mul(a.n_heads, r, fn, "attention sink parameters"), fn,
                                "attention sink parameters");
    }
    if (a.chunk > 0) {
      chunk_layers = checked_add(chunk_layers, r, fn, q);
      chunk = a.chunk;
    }
    if (a.nope) {
      nope_layers = checked_add(nope_layers, r, fn, q);
      for (std::int64_t k = 0; k < r && i + k < hf_max_layer_runs; ++k) nope.push_back(i + k);
    }
    if (a.index_n_heads > 0) {
      dsa_layers = checked_add(dsa_layers, r, fn, q);
      index = a;
    } else if (a.index_topk > 0) {
      shared_topk = checked_add(shared_topk, r, fn, q);
    }
    i = checked_add(i, r, fn, q);
  }
  std::vector<std::string> out;
  if (sink_layers > 0)
    out.push_back("attention sinks: one learned logit per query head on " + std::to_string(sink_layers) +
                  " layers (" + std::to_string(sink_params) +
                  " parameters, counted; no matrix, not scored; no MACs; nothing cached)");
  if (chunk_layers > 0)
    out.push_back("chunked attention (chunk " + std::to_string(chunk) + " tokens) on " + std::to_string(chunk_layers) +
                  " layers: a query attends its chunk only, at most " + std::to_string(chunk) + " tokens cached");
  if (nope_layers > 0)
    out.push_back("NoPE layers (no rotary positions; global attention): " +
                  (std::int64_t(nope.size()) == nope_layers ? index_ranges(nope)
                                                            : std::to_string(nope_layers) + " layers"));
  if (dsa_layers > 0)
    out.push_back("DSA sparse attention on " + std::to_string(dsa_layers) + " layers: attends at most index_topk = " +
                  std::to_string(index.index_topk) + " keys; its indexer (" + std::to_string(index.index_n_heads) +
                  " heads of " + std::to_string(index.index_head_dim) +
                  ", weights counted) scores every key and caches a key of " + std::to_string(index.index_head_dim) +
                  " fp8 bytes + fp32 scales per token" +
                  (shared_topk > 0 ? "; " + std::to_string(shared_topk) +
                                         " more layers reuse the top-k of the previous indexer layer (indexer_types "
                                         "shared: no indexer weights, no indexer cache)"
                                   : std::string()));
  return out;
}

/// Parameters of Llama4VisionModel + Llama4MultiModalProjector from a llama4 vision_config and
/// the text hidden size, as transformers builds them: class_embedding (h), positional_embedding_vlm
/// ((image_size / patch_size)^2 + 1, h), patch_embedding Linear(c p^2, h) without bias,
/// layernorm_pre / _post (LayerNorm, 2 h each), per layer q/k/v/o Linear(h, h) with bias, fc1
/// Linear(h, I) and fc2 Linear(I, h) with bias, two LayerNorms; vision_adapter fc1
/// Linear(I, projector_input_dim) and fc2 Linear(projector_output_dim, projector_output_dim)
/// without bias; multi_modal_projector Linear(vision_output_dim, text hidden) without bias.
/// -1 when a field is missing or not a positive integer (the count is then not determined).
inline std::int64_t llama4_vision_params(const json& v, std::int64_t text_hidden) {
  auto get = [&](const char* k) -> std::int64_t {
    if (!present(v, k)) return -1;
    const auto i = as_integer(v[k]);
    return i && *i >= 1 && *i <= (std::int64_t(1) << 24) ? *i : -1;
  };
  const std::int64_t h = get("hidden_size"), I = get("intermediate_size"), L = get("num_hidden_layers"),
                     c = get("num_channels"), p = get("patch_size"), img = get("image_size"),
                     pin = get("projector_input_dim"), pout = get("projector_output_dim"),
                     out = get("vision_output_dim");
  for (std::int64_t x : {h, I, L, c, p, img, pin, pout, out})
    if (x < 0) return -1;
  __extension__ typedef __int128 i128; // every factor <= 2^24: no product below passes 2^127
  const i128 side = img / p;
  const i128 layer = 4 * (i128(h) * h + h) + (i128(h) * I + I) + (i128(I) * h + h) + 4 * i128(h);
  const i128 n = h + (side * side + 1) * h + i128(c) * p * p * h + 4 * i128(h) + L * layer + i128(I) * pin +
                 i128(pout) * pout + i128(out) * text_hidden;
  return n > i128(INT64_MAX) ? -1 : std::int64_t(n);
}

/// Parameters of Gemma4VisionModel + embed_vision from a gemma4 vision_config (Gemma4VisionConfig's
/// defaults for absent fields) and the text hidden size, as transformers builds them:
/// patch_embedder input_proj Linear(3 p^2, h) without bias and position_embedding_table (2,
/// position_embedding_size, h); per layer q_proj (H hd, h), k_proj and v_proj (KV hd, h), o_proj
/// (h, H hd) without bias, q_norm and k_norm RMSNorm(hd) (v_norm has no weight), gate/up (I, h),
/// down (h, I), 4 RMSNorms (h); embed_vision's embedding_projection Linear(h, text) (its pre-norm has
/// no weight). The clipped linears' bounds and std_bias / std_scale are buffers, not parameters.
/// -1 when a field is not a positive integer (the count is then not determined).
inline std::int64_t gemma4_vision_params(const json& v, std::int64_t text_hidden) {
  auto get = [&](const char* k, std::int64_t fallback) -> std::int64_t {
    if (!present(v, k)) return fallback;
    const auto i = as_integer(v[k]);
    return i && *i >= 1 && *i <= (std::int64_t(1) << 24) ? *i : -1;
  };
  const std::int64_t h = get("hidden_size", 768), I = get("intermediate_size", 3072), L = get("num_hidden_layers", 16),
                     H = get("num_attention_heads", 12), KV = get("num_key_value_heads", 12), hd = get("head_dim", 64),
                     p = get("patch_size", 16), P = get("position_embedding_size", 10240);
  for (std::int64_t x : {h, I, L, H, KV, hd, p, P})
    if (x < 0) return -1;
  __extension__ typedef __int128 i128; // every factor <= 2^24: no product below passes 2^127
  const i128 layer = 2 * i128(H) * hd * h + 2 * i128(KV) * hd * h + 3 * i128(h) * I + 2 * i128(hd) + 4 * i128(h);
  const i128 n = 3 * i128(p) * p * h + 2 * i128(P) * h + L * layer + i128(h) * text_hidden;
  return n > i128(INT64_MAX) ? -1 : std::int64_t(n);
}

/// Parameters of Gemma4AudioModel + embed_audio from a gemma4 audio_config (Gemma4AudioConfig's
/// defaults for absent fields) and the text hidden size: subsample_conv_projection (Conv2d(1, c0,
/// 3x3) and Conv2d(c0, c1, 3x3) without bias, each with a LayerNorm without bias (c0, c1),
/// input_proj_linear Linear((c0 / 4) c1, h)); per layer two feed-forwards (Linear(h, 4h),
/// Linear(4h, h), 2 RMSNorms), attention q/k/v/post Linear(h, h), relative_k_proj Linear(h, h),
/// per_dim_scale (h / heads), the light conv (linear_start Linear(h, 2h), linear_end Linear(h, h),
/// a depthwise Conv1d(h, K) without bias, 2 RMSNorms) and 3 RMSNorms; output_proj Linear(h, o)
/// with bias; embed_audio's embedding_projection Linear(o, text). -1 when not determined.
inline std::int64_t gemma4_audio_params(const json& a, std::int64_t text_hidden) {
  auto get = [&](const json& o, const char* k, std::int64_t fallback) -> std::int64_t {
    if (!present(o, k)) return fallback;
    const auto i = as_integer(o[k]);
    return i && *i >= 1 && *i <= (std::int64_t(1) << 24) ? *i : -1;
  };
  std::int64_t c0 = 128, c1 = 32;
  if (present(a, "subsampling_conv_channels")) {
    const json& ch = a["subsampling_conv_channels"];
    if (!ch.is_array() || ch.size() != 2) return -1;
    auto elem = [](const json& x) -> std::int64_t {
      const auto i = as_integer(x);
      return i && *i >= 1 && *i <= (std::int64_t(1) << 24) ? *i : -1;
    };
    c0 = elem(ch[0]);
    c1 = elem(ch[1]);
  }
  const std::int64_t h = get(a, "hidden_size", 1024), L = get(a, "num_hidden_layers", 12),
                     heads = get(a, "num_attention_heads", 8), K = get(a, "conv_kernel_size", 5),
                     o = get(a, "output_proj_dims", 1536);
  for (std::int64_t x : {c0, c1, h, L, heads, K, o})
    if (x < 0) return -1;
  __extension__ typedef __int128 i128;
  const i128 ff = 8 * i128(h) * h + 2 * i128(h);
  const i128 layer = 2 * ff + 8 * i128(h) * h + h / heads + i128(h) * K + 5 * i128(h);
  const i128 n = 9 * i128(c0) + c0 + 9 * i128(c1) * c0 + c1 + i128(c0 / 4) * c1 * h + L * layer + i128(h) * o + o +
                 i128(o) * text_hidden;
  return n > i128(INT64_MAX) ? -1 : std::int64_t(n);
}

/// Parameters of PixtralVisionModel + Mistral3MultiModalProjector from a mistral3 config (its
/// vision_config and top-level fields) and the text hidden size, as transformers builds them:
/// patch_conv Conv2d(num_channels, h, patch_size) without bias, ln_pre RMSNorm(h), per layer
/// attention_norm and ffn_norm RMSNorm(h), q/k/v/o Linear(h, h) and gate/up/down (h, I) without
/// bias; projector: norm RMSNorm(h), patch_merger Linear(h s^2, h) without bias (s =
/// spatial_merge_size, 2), linear_1 Linear(h x the vision_feature_layer entries (a list; an
/// integer: 1), text hidden) and linear_2 Linear(text, text), biased when
/// multimodal_projector_bias. -1 when a field is missing or not a positive integer.
inline std::int64_t pixtral_vision_params(const json& top, std::int64_t text_hidden) {
  if (!present(top, "vision_config") || !top["vision_config"].is_object()) return -1;
  const json& v = top["vision_config"];
  auto get = [&](const json& o, const char* k, std::int64_t fallback) -> std::int64_t {
    if (!present(o, k)) return fallback;
    const auto i = as_integer(o[k]);
    return i && *i >= 1 && *i <= (std::int64_t(1) << 24) ? *i : -1;
  };
  const std::int64_t h = get(v, "hidden_size", -1), I = get(v, "intermediate_size", -1),
                     L = get(v, "num_hidden_layers", -1), c = get(v, "num_channels", 3), p = get(v, "patch_size", -1),
                     s = get(top, "spatial_merge_size", 2);
  std::int64_t feature_layers = 1;
  if (present(top, "vision_feature_layer") && top["vision_feature_layer"].is_array())
    feature_layers = std::int64_t(top["vision_feature_layer"].size());
  for (std::int64_t x : {h, I, L, c, p, s, feature_layers})
    if (x < 1) return -1;
  if (present(top, "multimodal_projector_bias") && !top["multimodal_projector_bias"].is_boolean()) return -1;
  const bool bias = present(top, "multimodal_projector_bias") && top["multimodal_projector_bias"].get<bool>();
  __extension__ typedef __int128 i128; // every factor <= 2^24: no product below passes 2^127
  const i128 vd = i128(h) * feature_layers, t = text_hidden;
  const i128 layer = 4 * i128(h) * h + 3 * i128(h) * I + 2 * i128(h);
  const i128 n = i128(c) * p * p * h + h + L * layer + h + i128(h) * s * s * h + vd * t + t * t + (bias ? 2 * t : 0);
  return n > i128(INT64_MAX) ? -1 : std::int64_t(n);
}

/// Parameters of Qwen3_5VisionModel (Qwen3.5 / Qwen3.6 vision tower and merger) from a qwen3_5 /
/// qwen3_5_moe vision_config, as transformers builds them (absent fields: Qwen3_5VisionConfig's
/// defaults): patch_embed Conv3d(in_channels, h, (temporal_patch_size, p, p)) with bias,
/// pos_embed Embedding(num_position_embeddings, h); per block (depth) norm1, norm2 LayerNorm(h),
/// attn qkv Linear(h, 3h) and proj Linear(h, h), mlp linear_fc1 Linear(h, I) and linear_fc2
/// Linear(I, h), all with bias; merger norm LayerNorm(h), linear_fc1 Linear(h s^2, h s^2),
/// linear_fc2 Linear(h s^2, out_hidden_size), with bias (s = spatial_merge_size). -1 when a
/// field is malformed or deepstack_visual_indexes is non-empty (Qwen3-VL's deepstack mergers:
/// not this tower).
inline std::int64_t qwen3_5_vision_params(const json& v) {
  auto get = [&](const char* k, std::int64_t fallback) -> std::int64_t {
    if (!present(v, k)) return fallback;
    const auto i = as_integer(v[k]);
    return i && *i >= 1 && *i <= (std::int64_t(1) << 24) ? *i : -1;
  };
  if (present(v, "deepstack_visual_indexes") &&
      !(v["deepstack_visual_indexes"].is_array() && v["deepstack_visual_indexes"].empty()))
    return -1;
  const std::int64_t L = get("depth", 27), h = get("hidden_size", 1152), I = get("intermediate_size", 4304),
                     c = get("in_channels", 3), p = get("patch_size", 16), t = get("temporal_patch_size", 2),
                     s = get("spatial_merge_size", 2), out = get("out_hidden_size", 3584),
                     pos = get("num_position_embeddings", 2304);
  for (std::int64_t x : {L, h, I, c, p, t, s, out, pos})
    if (x < 1) return -1;
  __extension__ typedef __int128 i128; // every factor <= 2^24: no product below passes 2^127
  const i128 hs = i128(h) * s * s;
  const i128 block = 4 * i128(h) + (i128(h) * 3 * h + 3 * h) + (i128(h) * h + h) + (i128(h) * I + I) + (i128(I) * h + h);
  const i128 n = i128(c) * t * p * p * h + h + i128(pos) * h + L * block + 2 * i128(h) + (hs * hs + hs) +
                 (hs * out + out);
  return n > i128(INT64_MAX) ? -1 : std::int64_t(n);
}

} // namespace detail::hf

/// The table of families read_hf_config understands (field names, defaults, structure).
inline const std::vector<detail::hf::family>& hf_families() { return detail::hf::families(); }

/// Whether model_type's modeling code reads transformers' per_layer_config (the per-layer
/// format's output): false for the families whose table entry says so (falcon, llama4,
/// deepseek, ...), true otherwise (an unknown type is not judged here).
inline bool hf_reads_per_layer_config(std::string_view model_type) {
  const detail::hf::family* f = detail::hf::find_family(model_type);
  return !f || f->per_layer_config;
}

/// Reads a Hugging Face config (a parsed config.json) into a transformer_spec; the fields read
/// per model_type and the nsc extensions are listed in the file comment. The spec's name is
/// `_name_or_path` if given, else the model_type. Scoring layouts are the spec defaults
/// (per-head Q/K/V, whole output projection): change them on the returned spec.
/// Throws std::invalid_argument "nsc::read_hf_config: ..." naming the field and the bad value,
/// std::domain_error when a count overflows 64 bits.
inline hf_model read_hf_config(const nlohmann::json& config) {
  namespace h = detail::hf;
  if (!config.is_object())
    throw_invalid_argument(h::fn, "the config must be a JSON object", io::json_excerpt(config));
  if (!h::present(config, "model_type"))
    throw_invalid_argument(h::fn, std::string("missing field 'model_type' (supported: ")
                                      .append(hf_supported_model_types)
                                      .append(")"));
  const nlohmann::json& t = config["model_type"];
  if (!t.is_string()) h::bad("model_type", "must be a string", t);
  std::string type = t.get<std::string>();
  const nlohmann::json* body = &config;
  const h::family* fam = h::find_family(type);
  bool nested = false;
  if ((!fam || type == "gemma3") && h::present(config, "text_config")) {
    const nlohmann::json& tc = config["text_config"];
    if (!tc.is_object()) h::bad("text_config", "must be an object", tc);
    std::string inner = type == "gemma3" || type == "gemma4" || type == "qwen3_5" || type == "qwen3_5_moe" ? type + "_text"
                        : type == "llama4"                                           ? "llama4_text"
                                                                                     : "";
    if (h::present(tc, "model_type")) {
      if (!tc["model_type"].is_string()) h::bad("text_config.model_type", "must be a string", tc["model_type"]);
      inner = tc["model_type"].get<std::string>();
    }
    if (const h::family* f2 = h::find_family(inner)) {
      fam = f2;
      body = &tc;
      type = inner;
      nested = true;
    }
  }
  if (!fam)
    throw_invalid_argument(h::fn,
                           std::string("unknown model_type; supported: ").append(hf_supported_model_types),
                           io::json_excerpt(t));
  hf_model m = h::read_family(*body, *fam, type);
  m.text_config = nested;
  {
    const std::vector<std::string> sn = h::structure_notes(m.spec);
    m.notes.insert(m.notes.begin(), sn.begin(), sn.end());
  }
  if (nested) {
    const std::string outer = t.get<std::string>();
    if (outer == "llama4" && h::present(config, "vision_config") && config["vision_config"].is_object())
      m.vision_params = h::llama4_vision_params(config["vision_config"], m.spec.d_model);
    if (outer == "mistral3") m.vision_params = h::pixtral_vision_params(config, m.spec.d_model);
    if (outer == "gemma4" && h::present(config, "vision_config") && config["vision_config"].is_object())
      m.vision_params = h::gemma4_vision_params(config["vision_config"], m.spec.d_model);
    if ((outer == "qwen3_5" || outer == "qwen3_5_moe") && h::present(config, "vision_config") &&
        config["vision_config"].is_object())
      m.vision_params = h::qwen3_5_vision_params(config["vision_config"]);
    const bool audio = h::present(config, "audio_config");
    if (outer == "gemma4" && audio && config["audio_config"].is_object())
      m.audio_params = h::gemma4_audio_params(config["audio_config"], m.spec.d_model);
    if (outer == "gemma4" && (m.vision_params >= 0 || m.audio_params >= 0)) {
      auto tower = [](const char* what, std::int64_t n) {
        return std::string(what) + (n >= 0 ? " (" + std::to_string(n) + " parameters)" : " (size not determined here)");
      };
      std::string towers = h::present(config, "vision_config") ? tower("the vision tower and projector", m.vision_params) : "";
      if (audio) towers += (towers.empty() ? "" : " and ") + tower("the audio tower and projector", m.audio_params);
      m.notes.push_back("multimodal config (" + outer + "): the text decoder (text_config) is scored and counted; " +
                        towers + " are not counted");
    } else
    m.notes.push_back("multimodal config (" + outer + "): the text decoder (text_config) is scored and counted; the "
                      "vision tower and projector" + std::string(audio ? " and the audio tower" : "") +
                      " are not counted" +
                      (m.vision_params >= 0 ? " (" + std::to_string(m.vision_params) + " parameters)"
                                            : std::string(" (their size is not determined here)")));
  }
  try { // a format nsc cannot read refuses weight bytes only (--weight-dtype still works)
    m.stored = h::read_stored_weights(config, *body, m.spec);
  } catch (const std::invalid_argument& e) {
    m.stored_error = e.what();
  }
  if (h::present(config, "_name_or_path") && config["_name_or_path"].is_string() &&
      !config["_name_or_path"].get<std::string>().empty())
    m.spec.name = config["_name_or_path"].get<std::string>();
  else
    m.spec.name = t.get<std::string>();
  validate(m.spec, h::fn); // a safety net: the field checks above should catch everything
  return m;
}

/// Reads a config.json file (see read_hf_config) through nsc/io/input_file.hpp (size limit,
/// depth limit, the path in every message). The spec's name is `_name_or_path` if given, else
/// the file's stem. Throws std::invalid_argument "nsc::read_hf_config: <path>: cannot open file
/// (no such file)", "...: <path>: is a directory, not a file", "...: <path>: invalid JSON: ..."
/// and read_hf_config's errors.
inline hf_model read_hf_config_file(const std::filesystem::path& file) {
  const nlohmann::json j = io::read_json_file(file, detail::hf::fn);
  hf_model m = read_hf_config(j);
  if (!detail::hf::present(j, "_name_or_path")) m.spec.name = file.stem().string();
  return m;
}

/// How a command stores the weights of a read config: as the checkpoint stores them
/// (m.checkpoint_weights(): quantization_config and torch_dtype, `source` naming them) when
/// `weight_dtype` is empty, else stored_as(parse_dtype(weight_dtype)) with source
/// "--weight-dtype <x>" (nsc score, prune and fit share this default). Throws
/// std::invalid_argument: the config's quantization_config cannot be read (m.stored_error; give
/// a dtype), or an unknown dtype name.
inline stored_weights hf_weight_storage(const hf_model& m, const std::string& weight_dtype) {
  if (weight_dtype.empty()) return m.checkpoint_weights();
  stored_weights s = stored_as(parse_dtype(weight_dtype));
  s.source = "--weight-dtype " + weight_dtype;
  return s;
}

/// The network of a read config at sequence length T: make_transformer(m.spec, T).
inline network hf_network(const hf_model& m, double seq_len) {
  return make_transformer(m.spec, seq_len);
}

/// The decoder blocks of a config's multi-token-prediction modules as a spec (no embedding,
/// final norm or head: those are shared with the main model; hf_mtp_network adds the rest).
/// An empty spec (no blocks) when the config has no MTP module.
inline transformer_spec hf_mtp_spec(const hf_model& m) {
  transformer_spec s;
  s.name = m.spec.name + " MTP";
  s.d_model = m.spec.d_model;
  s.final_norm = norm_kind::none;
  s.lm_head = lm_head_kind::none;
  s.lora = m.spec.lora;
  if (m.mtp_layers > 0) s.blocks = {m.mtp_block};
  return s;
}

/// The MTP modules as layers at sequence length T: "mtp.layers.<i>[-<j>]" (the decoder blocks),
/// "mtp.input" (eh_proj Linear(2 d -> d), part::other, and the module's own norms; repeat =
/// modules) and "mtp.head" (the shared LM head: its MACs, no parameters). Empty without MTP.
inline network hf_mtp_network(const hf_model& m, double seq_len) {
  network net;
  net.name = m.spec.name + " MTP";
  if (m.mtp_layers < 1) return net;
  net = make_transformer(hf_mtp_spec(m), seq_len);
  net.name = m.spec.name + " MTP";
  for (layer& l : net.layers) l.name = "mtp." + l.name;
  const std::int64_t d = m.spec.d_model;
  layer in;
  in.name = "mtp.input";
  in.repeat = m.mtp_layers;
  in.weights.push_back(linear("eh_proj", part::other, d, detail::checked_mul<std::int64_t>(2, d, detail::hf::fn, "eh_proj width")));
  in.norm_params = detail::checked_mul(m.mtp_norms, d, detail::hf::fn, "MTP norm parameters");
  net.layers.insert(net.layers.begin(), std::move(in));
  if (m.spec.embeddings.vocab_size > 0) {
    layer head;
    head.name = "mtp.head";
    head.repeat = m.mtp_layers;
    weight w = linear("lm_head", part::head, m.spec.embeddings.vocab_size, m.spec.embedding_dim());
    w.counted = false; // the main model's head
    w.scored = false;
    head.weights.push_back(std::move(w));
    net.layers.push_back(std::move(head));
  }
  return net;
}

/// Deployment figures of the MTP modules at workload `w` (one speculative step per token):
/// deploy(hf_mtp_spec(m), w) plus "mtp.input" (eh_proj stored at the plain dtype, as
/// DeepSeek-V3's checkpoint keeps it, and the norms; 2 d x d MACs per token) and "mtp.head"
/// (the shared head's vocab x d MACs per token, no bytes). All zero without MTP.
inline deployment hf_deploy_mtp(const hf_model& m, const workload& w) {
  if (m.mtp_layers < 1) {
    deployment none;
    none.load = w;
    return none;
  }
  deployment d = deploy(hf_mtp_spec(m), w);
  const std::int64_t plain = w.stored ? w.stored->plain_bytes : (w.weights == dtype::fp32 ? 4 : 2);
  const std::uint64_t dm = std::uint64_t(m.spec.d_model), n = std::uint64_t(m.mtp_layers);
  auto add = [&](std::string name, std::uint64_t macs, std::uint64_t bytes) {
    layer_deployment l;
    l.name = std::move(name);
    l.repeat = m.mtp_layers;
    l.linear_macs_per_token = macs;
    l.weight_bytes = bytes;
    l.prefill_macs = detail::mul128(macs, u128(w.seq_len), "MTP prefill MACs");
    l.decode_macs = macs;
    d.linear_macs_per_token = detail::to_u64(u128(d.linear_macs_per_token) + u128(macs) * n, "MTP MACs");
    d.prefill_macs = detail::add128(d.prefill_macs, detail::mul128(l.prefill_macs, n, "MTP prefill MACs"), "MTP prefill MACs");
    d.decode_macs = detail::to_u64(u128(d.decode_macs) + u128(macs) * n, "MTP decode MACs");
    d.weight_bytes = detail::to_u64(u128(d.weight_bytes) + u128(bytes) * n, "MTP weight bytes");
    d.memory_bytes = detail::to_u64(u128(d.weight_bytes) + d.kv_cache_bytes, "MTP memory bytes");
    if (l.name == "mtp.input") d.layers.insert(d.layers.begin(), std::move(l)); // the order of hf_mtp_network
    else d.layers.push_back(std::move(l));
  };
  for (layer_deployment& l : d.layers) l.name = "mtp." + l.name;
  const u128 eh = u128(2) * dm * dm;
  add("mtp.input", detail::to_u64(eh, "MTP MACs"),
      detail::to_u64((eh + u128(std::uint64_t(m.mtp_norms)) * dm) * u128(std::uint64_t(plain)), "MTP weight bytes"));
  add("mtp.head", detail::to_u64(u128(std::uint64_t(m.spec.embeddings.vocab_size)) * std::uint64_t(m.spec.embedding_dim()), "MTP MACs"), 0);
  return d;
}

/// Framework-faithful scoring of a Hugging Face model: every Linear drawn from
/// normal(0, initializer_range^2) (what HF's _init_weights does), the variance of the whole
/// tensor (variance_source::tensor; with a normal init the fans play no part), estimator `est`,
/// embeddings and heads not scored. Compare scoring{} (Xavier of each block, the paper's).
inline scoring hf_scoring(const hf_model& m, estimator est = estimator::mp) {
  scoring s;
  s.initialisation = init::normal(m.initializer_range);
  s.source = variance_source::tensor;
  s.est = est;
  s.score_embeddings = false;
  return s;
}

/// Returns `config` with the nsc extension fields written from `spec` so that a pruned model
/// reads back: "intermediate_sizes" (every block's d_ff), "expert_counts" (when a block is a
/// mixture of experts: its expert count, 0 for the others) and "lora_ranks" (one object per
/// layer with its non-zero ranks; the field is removed when no layer has an adapter). Other
/// fields are kept; the number of layers (a run counts repeat times) must equal the config's
/// layer count for it to read back, and may not exceed hf_max_layer_runs (the per-layer list
/// limit; std::invalid_argument "nsc::with_nsc_extensions: ...").
inline nlohmann::json with_nsc_extensions(nlohmann::json config, const transformer_spec& spec) {
  detail::check_layer_limit("nsc::with_nsc_extensions", "model", total_layers(spec), hf_max_layer_runs,
                            "list entries", "the per-layer list limit of read_hf_config");
  nlohmann::json sizes = nlohmann::json::array();
  nlohmann::json ranks = nlohmann::json::array();
  bool any_lora = false;
  for (const block_spec& b : spec.blocks) {
    nlohmann::json r = nlohmann::json::object();
    auto put = [&](const char* key, std::int64_t v) {
      if (v > 0) {
        r[key] = v;
        any_lora = true;
      }
    };
    put("q_proj", b.attention.lora_q);
    put("k_proj", b.attention.lora_k);
    put("v_proj", b.attention.lora_v);
    put("o_proj", b.attention.lora_o);
    put("gate_proj", b.ffn.lora_gate);
    put("up_proj", b.ffn.lora_up);
    put("down_proj", b.ffn.lora_down);
    for (std::int64_t k = 0; k < b.repeat; ++k) { // a run: one entry per layer
      sizes.push_back(b.ffn.d_ff);
      ranks.push_back(r);
    }
  }
  config["intermediate_sizes"] = std::move(sizes);
  nlohmann::json experts = nlohmann::json::array();
  bool any_moe = false;
  for (const block_spec& b : spec.blocks) {
    const bool moe = b.ffn.kind == ffn_kind::standard && b.ffn.n_experts > 0;
    for (std::int64_t k = 0; k < b.repeat; ++k) experts.push_back(moe ? b.ffn.n_experts : 0); // a run: one entry per layer
    any_moe = any_moe || moe;
  }
  if (any_moe)
    config["expert_counts"] = std::move(experts);
  else
    config.erase("expert_counts");
  if (any_lora)
    config["lora_ranks"] = std::move(ranks);
  else
    config.erase("lora_ranks");
  return config;
}

} // namespace nsc

#endif // NSC_IO_HF_CONFIG_HPP
