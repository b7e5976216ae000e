#!/usr/bin/python3
"""Tiny random checkpoints of nineteen families for the pruned-checkpoint tests (numpy only).

Writes tests/data/prune_ckpt/{llama,qwen3,mixtral,qwen2_moe,qwen3_moe,phi3,gemma,gemma3,deepseek_v2,deepseek_v3,
exaone4,glm4,glm4_moe,gemma2,granite,hunyuan,olmo2,olmoe,minimax_m2}/: config.json and the weights in F32 under
transformers' tensor names, written by this script's own safetensors writer (independent of
nsc's). Three storage layouts so that nsc's reader is exercised on each: llama as two shards
with a model.safetensors.index.json, qwen3 as one model.safetensors (tied LM head: no
lm_head.weight), mixtral as a directory of one file without an index (the others as qwen3).
qwen2_moe: q/k/v biases, a shared expert and its sigmoid gate, no top-k renormalisation;
qwen3_moe: q_norm / k_norm, a dense layer (mlp_only_layers), renormalised top-k; phi3: fused
qkv_proj and gate_up_proj; gemma: head_dim 16 != hidden / heads, tied; gemma3 (gemma3_text): four
norms per layer and per-head q_norm / k_norm; deepseek_v2 / deepseek_v3: multi-head latent
attention and DeepSeek's MoE (shared experts, a dense first layer; V3's e_score_correction_bias);
exaone4: post-norms only; glm4: four norms, fused gate_up_proj; glm4_moe: DeepSeek's MoE beside GQA;
gemma2: gemma3's norms without q/k norms, soft-capping; granite: llama's tensors with multipliers;
hunyuan (hunyuan_v1_dense): per-head query_layernorm / key_layernorm; olmo2 / olmoe: q_norm /
k_norm over the whole projection (olmo2 post-norms; olmoe qwen's MoE names; minimax_m2 mixtral's,
with the routing bias); OWN_CONFIGS: starcoder2, gpt_neox, falcon, opt, internlm2 and gpt2 (Conv1D) under their own
tensor names (model_own). (Families are appended: the earlier ones keep their random draws.)
main_fused() adds the fused-3-D-expert families with their own draws (seed 1919): gpt_oss (BF16),
gpt_oss_mxfp4 (its experts in MXFP4) and granitemoe (F32), see FUSED_CONFIGS. main_parallel() adds
issue 19j's families, each with a generator seeded by its name: cohere, cohere2 and falcon7b (one
norm shared by a parallel attention and MLP) and phimoe (LayerNorm, biases, sparsemixer MoE).

Run: /usr/bin/python3 tests/reference/gen_prune_checkpoints.py   (deterministic: seed 19)
"""
import json
import os
import struct
import zlib

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "prune_ckpt")


def write_safetensors(path, tensors):
    """tensors: list of (name, float32 array) in file order (write_safetensors_typed, below, all F32)."""
    write_safetensors_typed(path, [(name, a, "F32") for name, a in tensors])


def model(cfg, rng):
    d, H = cfg["hidden_size"], cfg["num_attention_heads"]
    K, hd = cfg.get("num_key_value_heads", H), cfg.get("head_dim", d // H)
    F, V, L = cfg["intermediate_size"], cfg["vocab_size"], cfg["num_hidden_layers"]

    def w(*shape, s=None):  # varied scales so that the importances differ
        s = s if s is not None else 1.0 / np.sqrt(shape[-1])
        return (rng.standard_normal(shape) * s * rng.uniform(0.5, 1.5, size=(shape[0],) + (1,) * (len(shape) - 1))).astype(np.float32)

    def norm(n):
        return (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)

    mt = cfg["model_type"]
    ds = mt.startswith("deepseek")
    t = [("model.embed_tokens.weight", w(V, d, s=1.0))]

    def deepseek_ffn(p, l):  # DeepseekV2MoE / DeepseekV3MoE / Glm4MoeMoE names; dense before first_k_dense_replace
        if l >= cfg["first_k_dense_replace"]:
            E, Fe = cfg["n_routed_experts"], cfg["moe_intermediate_size"]
            out = [(p + "mlp.gate.weight", w(E, d, s=1.0))]
            if cfg.get("topk_method") == "noaux_tc" or mt == "glm4_moe":
                out += [(p + "mlp.gate.e_score_correction_bias", w(E, s=0.3))]
            for e in range(E):
                x = p + f"mlp.experts.{e}."
                out += [(x + "gate_proj.weight", w(Fe, d)), (x + "up_proj.weight", w(Fe, d)), (x + "down_proj.weight", w(d, Fe))]
            S = cfg["n_shared_experts"] * Fe
            x = p + "mlp.shared_experts."
            return out + [(x + "gate_proj.weight", w(S, d)), (x + "up_proj.weight", w(S, d)), (x + "down_proj.weight", w(d, S))]
        return [(p + "mlp.gate_proj.weight", w(F, d)), (p + "mlp.up_proj.weight", w(F, d)), (p + "mlp.down_proj.weight", w(d, F))]

    for l in range(L):
        p = f"model.layers.{l}."
        if mt not in ("exaone4", "olmo2"):  # Exaone4DecoderLayer / Olmo2DecoderLayer: post-norms only
            t += [(p + "input_layernorm.weight", norm(d))]
        if ds:  # multi-head latent attention (DeepseekV2Attention / DeepseekV3Attention names)
            qk, R, C = cfg["qk_nope_head_dim"] + cfg["qk_rope_head_dim"], cfg["q_lora_rank"], cfg["kv_lora_rank"]
            if R:
                t += [(p + "self_attn.q_a_proj.weight", w(R, d)), (p + "self_attn.q_a_layernorm.weight", norm(R)),
                      (p + "self_attn.q_b_proj.weight", w(H * qk, R))]
            else:
                t += [(p + "self_attn.q_proj.weight", w(H * qk, d))]
            t += [(p + "self_attn.kv_a_proj_with_mqa.weight", w(C + cfg["qk_rope_head_dim"], d)),
                  (p + "self_attn.kv_a_layernorm.weight", norm(C)),
                  (p + "self_attn.kv_b_proj.weight", w(H * (cfg["qk_nope_head_dim"] + cfg["v_head_dim"]), C)),
                  (p + "self_attn.o_proj.weight", w(d, H * cfg["v_head_dim"])),
                  (p + "post_attention_layernorm.weight", norm(d))]
            t += deepseek_ffn(p, l)
            continue
        if mt == "phi3":
            t += [(p + "self_attn.qkv_proj.weight", w((H + 2 * K) * hd, d))]
        else:
            t += [(p + "self_attn.q_proj.weight", w(H * hd, d)),
                  (p + "self_attn.k_proj.weight", w(K * hd, d)),
                  (p + "self_attn.v_proj.weight", w(K * hd, d))]
        if mt in ("qwen2_moe", "glm4", "glm4_moe"):
            t += [(p + "self_attn.q_proj.bias", w(H * hd, s=0.3)), (p + "self_attn.k_proj.bias", w(K * hd, s=0.3)),
                  (p + "self_attn.v_proj.bias", w(K * hd, s=0.3))]
        t += [(p + "self_attn.o_proj.weight", w(d, H * hd))]
        if mt in ("qwen3", "qwen3_moe", "gemma3_text", "exaone4", "glm4_moe"):
            t += [(p + "self_attn.q_norm.weight", norm(hd)), (p + "self_attn.k_norm.weight", norm(hd))]
        if mt in ("olmo2", "olmoe", "minimax_m2"):  # q_norm / k_norm over the whole projection
            t += [(p + "self_attn.q_norm.weight", norm(H * hd)), (p + "self_attn.k_norm.weight", norm(K * hd))]
        if mt == "hunyuan_v1_dense":  # HunYuanDenseV1Attention: per-head norms under their own names
            t += [(p + "self_attn.query_layernorm.weight", norm(hd)), (p + "self_attn.key_layernorm.weight", norm(hd))]
        if mt == "glm4":  # Glm4DecoderLayer: input, post_self_attn, post_attention (before the MLP), post_mlp norms
            t += [(p + "post_self_attn_layernorm.weight", norm(d))]
        t += [(p + "post_attention_layernorm.weight", norm(d))]
        if mt in ("exaone4", "olmo2"):
            t += [(p + "post_feedforward_layernorm.weight", norm(d))]
        if mt == "glm4":
            t += [(p + "post_mlp_layernorm.weight", norm(d))]
        if mt in ("gemma2", "gemma3_text"):  # Gemma2DecoderLayer / Gemma3DecoderLayer: four norms (post-attention, pre / post feed-forward)
            t += [(p + "pre_feedforward_layernorm.weight", norm(d)), (p + "post_feedforward_layernorm.weight", norm(d))]
        if mt in ("qwen2_moe", "qwen3_moe", "olmoe") and l not in cfg.get("mlp_only_layers", []):
            E, Fe = cfg["num_experts"], cfg.get("moe_intermediate_size", F)  # olmoe: the experts' width is intermediate_size
            t += [(p + "mlp.gate.weight", w(E, d, s=1.0))]
            for e in range(E):
                x = p + f"mlp.experts.{e}."
                t += [(x + "gate_proj.weight", w(Fe, d)), (x + "up_proj.weight", w(Fe, d)), (x + "down_proj.weight", w(d, Fe))]
            if mt == "qwen2_moe":
                S = cfg["shared_expert_intermediate_size"]
                x = p + "mlp.shared_expert."
                t += [(x + "gate_proj.weight", w(S, d)), (x + "up_proj.weight", w(S, d)), (x + "down_proj.weight", w(d, S)),
                      (p + "mlp.shared_expert_gate.weight", w(1, d))]
        elif mt in ("phi3", "glm4"):
            t += [(p + "mlp.gate_up_proj.weight", w(2 * F, d)), (p + "mlp.down_proj.weight", w(d, F))]
        elif mt == "glm4_moe":
            t += deepseek_ffn(p, l)
        elif mt in ("mixtral", "minimax_m2"):
            E = cfg["num_local_experts"]
            t += [(p + "block_sparse_moe.gate.weight", w(E, d, s=1.0))]
            if mt == "minimax_m2":  # use_routing_bias
                t += [(p + "block_sparse_moe.e_score_correction_bias", w(E, s=0.3))]
            for e in range(E):
                x = p + f"block_sparse_moe.experts.{e}."
                t += [(x + "w1.weight", w(F, d)), (x + "w2.weight", w(d, F)), (x + "w3.weight", w(F, d))]
        else:
            t += [(p + "mlp.gate_proj.weight", w(F, d)), (p + "mlp.up_proj.weight", w(F, d)),
                  (p + "mlp.down_proj.weight", w(d, F))]
    t += [("model.norm.weight", norm(d))]
    if not cfg.get("tie_word_embeddings", False):
        t += [("lm_head.weight", w(V, d))]
    return t


CONFIGS = {
    "llama": {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
              "num_attention_heads": 8, "num_key_value_heads": 4, "intermediate_size": 96,
              "num_hidden_layers": 3, "vocab_size": 97, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
              "max_position_embeddings": 128, "hidden_act": "silu", "tie_word_embeddings": False,
              "attention_bias": False, "mlp_bias": False, "torch_dtype": "float32"},
    "qwen3": {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 48,
              "num_attention_heads": 6, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 80,
              "num_hidden_layers": 3, "vocab_size": 89, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
              "max_position_embeddings": 128, "hidden_act": "silu", "tie_word_embeddings": True,
              "attention_bias": False, "torch_dtype": "float32"},
    "mixtral": {"architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "hidden_size": 32,
                "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48,
                "num_local_experts": 6, "num_experts_per_tok": 2, "num_hidden_layers": 2, "vocab_size": 71,
                "rms_norm_eps": 1e-5, "rope_theta": 1000000.0, "max_position_embeddings": 128,
                "hidden_act": "silu", "tie_word_embeddings": False, "sliding_window": None,
                "torch_dtype": "float32"},
    "qwen2_moe": {"architectures": ["Qwen2MoeForCausalLM"], "model_type": "qwen2_moe", "hidden_size": 32,
                  "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 40,
                  "moe_intermediate_size": 16, "shared_expert_intermediate_size": 40, "num_experts": 4,
                  "num_experts_per_tok": 2, "norm_topk_prob": False, "decoder_sparse_step": 1, "mlp_only_layers": [],
                  "num_hidden_layers": 2, "vocab_size": 67, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
                  "max_position_embeddings": 128, "hidden_act": "silu", "tie_word_embeddings": False,
                  "use_sliding_window": False, "torch_dtype": "float32"},
    "qwen3_moe": {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 32,
                  "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "intermediate_size": 48,
                  "moe_intermediate_size": 24, "num_experts": 6, "num_experts_per_tok": 2, "norm_topk_prob": True,
                  "decoder_sparse_step": 1, "mlp_only_layers": [1], "num_hidden_layers": 3, "vocab_size": 73,
                  "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "max_position_embeddings": 128, "hidden_act": "silu",
                  "tie_word_embeddings": False, "attention_bias": False, "torch_dtype": "float32"},
    "phi3": {"architectures": ["Phi3ForCausalLM"], "model_type": "phi3", "hidden_size": 48, "num_attention_heads": 6,
             "num_key_value_heads": 2, "intermediate_size": 64, "num_hidden_layers": 2, "vocab_size": 79,
             "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "max_position_embeddings": 128,
             "original_max_position_embeddings": 128, "hidden_act": "silu", "tie_word_embeddings": False,
             "attention_bias": False, "sliding_window": None, "torch_dtype": "float32"},
    "gemma": {"architectures": ["GemmaForCausalLM"], "model_type": "gemma", "hidden_size": 32, "num_attention_heads": 4,
              "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 64, "num_hidden_layers": 2,
              "vocab_size": 61, "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "max_position_embeddings": 128,
              "hidden_act": "gelu_pytorch_tanh", "hidden_activation": "gelu_pytorch_tanh", "tie_word_embeddings": True,
              "attention_bias": False, "torch_dtype": "float32"},
    # appended: gemma3 (four norms per layer, per-head q_norm / k_norm, sliding and global layers),
    # deepseek_v2 (MLA with a direct q_proj, softmax routing without renormalisation, two shared
    # experts, a dense first layer) and deepseek_v3 (q_a_proj / q_b_proj, sigmoid routing with
    # e_score_correction_bias, renormalised and scaled top-k)
    "gemma3": {"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text", "hidden_size": 32,
               "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 64,
               "num_hidden_layers": 3, "vocab_size": 59, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
               "rope_local_base_freq": 10000.0, "query_pre_attn_scalar": 16, "sliding_window": 8,
               "sliding_window_pattern": 2, "max_position_embeddings": 128, "hidden_activation": "gelu_pytorch_tanh",
               "final_logit_softcapping": None, "attn_logit_softcapping": None, "tie_word_embeddings": True,
               "attention_bias": False, "torch_dtype": "float32"},
    "deepseek_v2": {"architectures": ["DeepseekV2ForCausalLM"], "model_type": "deepseek_v2", "hidden_size": 32,
                    "num_attention_heads": 4, "q_lora_rank": None, "kv_lora_rank": 16, "qk_nope_head_dim": 8,
                    "qk_rope_head_dim": 4, "v_head_dim": 8, "intermediate_size": 48, "moe_intermediate_size": 16,
                    "n_routed_experts": 6, "n_shared_experts": 2, "num_experts_per_tok": 2, "first_k_dense_replace": 1,
                    "moe_layer_freq": 1, "topk_method": "greedy", "n_group": 1, "topk_group": 1, "norm_topk_prob": False,
                    "routed_scaling_factor": 1.5, "scoring_func": "softmax", "num_hidden_layers": 3, "vocab_size": 53,
                    "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "max_position_embeddings": 128, "hidden_act": "silu",
                    "tie_word_embeddings": False, "attention_bias": False, "torch_dtype": "float32"},
    "deepseek_v3": {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "hidden_size": 32,
                    "num_attention_heads": 4, "q_lora_rank": 12, "kv_lora_rank": 16, "qk_nope_head_dim": 8,
                    "qk_rope_head_dim": 4, "v_head_dim": 8, "intermediate_size": 48, "moe_intermediate_size": 16,
                    "n_routed_experts": 6, "n_shared_experts": 1, "num_experts_per_tok": 2, "first_k_dense_replace": 1,
                    "moe_layer_freq": 1, "topk_method": "noaux_tc", "n_group": 1, "topk_group": 1, "norm_topk_prob": True,
                    "routed_scaling_factor": 2.5, "scoring_func": "sigmoid", "num_nextn_predict_layers": 0,
                    "num_hidden_layers": 3, "vocab_size": 47, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
                    "max_position_embeddings": 128, "hidden_act": "silu", "tie_word_embeddings": False,
                    "attention_bias": False, "torch_dtype": "float32"},
    # appended: exaone4 (post-attention / post-feedforward norms only, per-head q_norm / k_norm), glm4
    # (four norms, fused gate_up_proj, q/k/v biases), glm4_moe (GQA with q/k/v biases and q_norm / k_norm,
    # DeepSeek's MoE with sigmoid routing and e_score_correction_bias, a dense first layer)
    "exaone4": {"architectures": ["Exaone4ForCausalLM"], "model_type": "exaone4", "hidden_size": 32,
                "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "intermediate_size": 48,
                "num_hidden_layers": 3, "vocab_size": 43, "rms_norm_eps": 1e-5, "rope_theta": 1000000.0,
                "sliding_window": None, "max_position_embeddings": 128, "hidden_act": "silu",
                "tie_word_embeddings": False, "torch_dtype": "float32"},
    "glm4": {"architectures": ["Glm4ForCausalLM"], "model_type": "glm4", "hidden_size": 32, "num_attention_heads": 4,
             "num_key_value_heads": 2, "head_dim": 8, "intermediate_size": 48, "num_hidden_layers": 3, "vocab_size": 41,
             "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "partial_rotary_factor": 0.5, "attention_bias": True,
             "max_position_embeddings": 128, "hidden_act": "silu", "tie_word_embeddings": False, "torch_dtype": "float32"},
    "glm4_moe": {"architectures": ["Glm4MoeForCausalLM"], "model_type": "glm4_moe", "hidden_size": 32,
                 "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "intermediate_size": 48,
                 "moe_intermediate_size": 16, "n_routed_experts": 6, "n_shared_experts": 1, "num_experts_per_tok": 2,
                 "first_k_dense_replace": 1, "n_group": 1, "topk_group": 1, "norm_topk_prob": True,
                 "routed_scaling_factor": 2.5, "use_qk_norm": True, "attention_bias": True, "partial_rotary_factor": 0.5,
                 "num_nextn_predict_layers": 0, "num_hidden_layers": 3, "vocab_size": 37, "rms_norm_eps": 1e-5,
                 "rope_theta": 10000.0, "max_position_embeddings": 128, "hidden_act": "silu",
                 "tie_word_embeddings": False, "torch_dtype": "float32"},
    # appended: gemma2 (four norms, attention and final logit soft-capping, alternate sliding layers) and
    # granite (llama's tensors; embedding / attention / residual multipliers and logits scaling)
    "gemma2": {"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2", "hidden_size": 32, "num_attention_heads": 4,
               "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 64, "num_hidden_layers": 3, "vocab_size": 31,
               "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "query_pre_attn_scalar": 16, "sliding_window": 8,
               "attn_logit_softcapping": 5.0, "final_logit_softcapping": 3.0, "max_position_embeddings": 128,
               "hidden_activation": "gelu_pytorch_tanh", "tie_word_embeddings": True, "attention_bias": False,
               "torch_dtype": "float32"},
    "granite": {"architectures": ["GraniteForCausalLM"], "model_type": "granite", "hidden_size": 32, "num_attention_heads": 4,
                "num_key_value_heads": 2, "intermediate_size": 48, "num_hidden_layers": 3, "vocab_size": 29,
                "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "embedding_multiplier": 12.0, "attention_multiplier": 0.125,
                "residual_multiplier": 0.22, "logits_scaling": 8.0, "max_position_embeddings": 128, "hidden_act": "silu",
                "tie_word_embeddings": True, "attention_bias": False, "mlp_bias": False, "torch_dtype": "float32"},
    # appended: hunyuan_v1_dense (query_layernorm / key_layernorm, applied after RoPE)
    "hunyuan": {"architectures": ["HunYuanDenseV1ForCausalLM"], "model_type": "hunyuan_v1_dense", "hidden_size": 32,
                "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "intermediate_size": 48,
                "num_hidden_layers": 3, "vocab_size": 23, "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "use_qk_norm": True,
                "attention_bias": False, "mlp_bias": False, "max_position_embeddings": 128, "hidden_act": "silu",
                "tie_word_embeddings": True, "torch_dtype": "float32"},
    # appended: olmo2 (post-norms, q_norm / k_norm over the whole projection: heads kept) and olmoe
    # (the same norms before qwen's MoE names, softmax top-k without renormalisation)
    "olmo2": {"architectures": ["Olmo2ForCausalLM"], "model_type": "olmo2", "hidden_size": 32, "num_attention_heads": 4,
              "num_key_value_heads": 4, "intermediate_size": 48, "num_hidden_layers": 3, "vocab_size": 19,
              "rms_norm_eps": 1e-6, "rope_theta": 500000.0, "attention_bias": False, "max_position_embeddings": 128,
              "hidden_act": "silu", "tie_word_embeddings": False, "torch_dtype": "float32"},
    "olmoe": {"architectures": ["OlmoeForCausalLM"], "model_type": "olmoe", "hidden_size": 32, "num_attention_heads": 4,
              "num_key_value_heads": 4, "intermediate_size": 16, "num_experts": 6, "num_experts_per_tok": 2,
              "norm_topk_prob": False, "num_hidden_layers": 2, "vocab_size": 17, "rms_norm_eps": 1e-5,
              "rope_theta": 10000.0, "attention_bias": False, "max_position_embeddings": 128, "hidden_act": "silu",
              "tie_word_embeddings": False, "torch_dtype": "float32"},
    # appended: minimax_m2 (whole-projection q/k norms, mixtral's expert names, sigmoid routing with
    # block_sparse_moe.e_score_correction_bias)
    "minimax_m2": {"architectures": ["MiniMaxM2ForCausalLM"], "model_type": "minimax_m2", "hidden_size": 32,
                   "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "intermediate_size": 16,
                   "num_local_experts": 6, "num_experts_per_tok": 2, "use_qk_norm": True, "use_routing_bias": True,
                   "scoring_func": "sigmoid", "num_hidden_layers": 2, "vocab_size": 13, "rms_norm_eps": 1e-6,
                   "rope_theta": 5000000.0, "max_position_embeddings": 128, "hidden_act": "silu",
                   "tie_word_embeddings": False, "torch_dtype": "float32"},
}


# ---- Hybrid layers (issue 19i): each family with its own generator (seeded by its name), so that
# families added by other blocks keep their draws. nemotron_h: one mixer per layer (M Mamba-2, *
# attention without RoPE, - relu2 MLP) under the hub's "backbone." names.
HYBRID_CONFIGS = {
    "nemotron_h": {"architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h", "hidden_size": 32,
                   "hybrid_override_pattern": "M*M-M-", "num_hidden_layers": 6, "num_attention_heads": 4,
                   "num_key_value_heads": 2, "head_dim": 8, "attention_bias": False, "intermediate_size": 48,
                   "mlp_bias": False, "mlp_hidden_act": "relu2", "mamba_num_heads": 4, "mamba_head_dim": 8,
                   "n_groups": 2, "ssm_state_size": 8, "conv_kernel": 4, "use_conv_bias": True, "use_bias": False,
                   "mamba_hidden_act": "silu", "chunk_size": 16, "time_step_min": 0.001, "time_step_max": 0.1,
                   "layer_norm_epsilon": 1e-5, "vocab_size": 37, "tie_word_embeddings": False,
                   "max_position_embeddings": 128, "residual_in_fp32": False, "torch_dtype": "float32"},
    # qwen3_next: Gated DeltaNet layers (linear_attn.*, grouped in_proj_qkvz / in_proj_ba) and gated full
    # attention (q_proj: query and gate per head, q_norm / k_norm, partial RoPE), qwen's MoE with the shared
    # expert and its gate on every layer; (1 + w) RMSNorms
    "qwen3_next": {"architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next", "hidden_size": 32,
                   "num_hidden_layers": 4, "full_attention_interval": 2, "num_attention_heads": 4,
                   "num_key_value_heads": 2, "head_dim": 8, "partial_rotary_factor": 0.5, "attention_bias": False,
                   "linear_num_key_heads": 2, "linear_key_head_dim": 8, "linear_num_value_heads": 4,
                   "linear_value_head_dim": 8, "linear_conv_kernel_dim": 4, "intermediate_size": 48,
                   "num_experts": 6, "num_experts_per_tok": 2, "moe_intermediate_size": 16,
                   "shared_expert_intermediate_size": 24, "norm_topk_prob": True, "decoder_sparse_step": 1,
                   "mlp_only_layers": [], "hidden_act": "silu", "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
                   "vocab_size": 41, "tie_word_embeddings": False, "max_position_embeddings": 128,
                   "torch_dtype": "float32"},
    # falcon_h1: a Mamba-2 mixer beside the attention of every layer (mamba.*, no gated norm), the gated MLP under
    # feed_forward.* after pre_ff_layernorm; the muP multipliers 1
    "falcon_h1": {"architectures": ["FalconH1ForCausalLM"], "model_type": "falcon_h1", "hidden_size": 32,
                  "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8,
                  "attention_bias": False, "intermediate_size": 48, "mlp_bias": False, "hidden_act": "silu",
                  "mamba_n_heads": 4, "mamba_d_head": 8, "mamba_d_ssm": 32, "mamba_d_state": 8, "mamba_n_groups": 1,
                  "mamba_d_conv": 4, "mamba_conv_bias": True, "mamba_proj_bias": False, "projectors_bias": False,
                  "mamba_rms_norm": False, "mamba_chunk_size": 16, "time_step_limit": [0.0, float("inf")],
                  "embedding_multiplier": 1.0, "lm_head_multiplier": 1.0, "attention_in_multiplier": 1.0,
                  "attention_out_multiplier": 1.0, "key_multiplier": 1.0, "ssm_in_multiplier": 1.0,
                  "ssm_out_multiplier": 1.0, "mlp_multipliers": [1.0, 1.0], "ssm_multipliers": [1.0] * 5,
                  "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "vocab_size": 35, "tie_word_embeddings": False,
                  "max_position_embeddings": 128, "torch_dtype": "float32"},
    # granitemoehybrid without experts (as granite-4.0-micro, with Mamba-2 layers as Granite 4.0-H): a Mamba-2 or an
    # attention mixer (no RoPE) per layer, each followed by the fused gated shared_mlp; granite's multipliers; tied
    "granitemoehybrid": {"architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid",
                         "hidden_size": 32, "num_hidden_layers": 4, "layer_types": ["mamba", "attention", "mamba", "mamba"],
                         "num_attention_heads": 4, "num_key_value_heads": 2, "attention_bias": False,
                         "num_local_experts": 0, "shared_intermediate_size": 48, "hidden_act": "silu",
                         "mamba_n_heads": 4, "mamba_d_head": 8, "mamba_d_state": 8, "mamba_n_groups": 1, "mamba_d_conv": 4,
                         "mamba_expand": 1, "mamba_conv_bias": True, "mamba_proj_bias": False, "mamba_chunk_size": 16,
                         "position_embedding_type": "nope", "embedding_multiplier": 12.0, "attention_multiplier": 0.125,
                         "residual_multiplier": 0.22, "logits_scaling": 4.0, "rms_norm_eps": 1e-5, "vocab_size": 31,
                         "tie_word_embeddings": True, "normalization_function": "rmsnorm",
                         "max_position_embeddings": 128, "torch_dtype": "float32"},
    # DSA (DeepSeek-V3.2, GLM-5): deepseek_v3's MLA + MoE plus the lightning indexer (self_attn.indexer.*, kept
    # whole with its attention); glm_moe_dsa's "shared" layers have no indexer
    "deepseek_v32": dict(CONFIGS["deepseek_v3"], architectures=["DeepseekV32ForCausalLM"], model_type="deepseek_v32",
                         index_n_heads=2, index_head_dim=8, index_topk=16, vocab_size=39),
    "glm_moe_dsa": dict(CONFIGS["deepseek_v3"], architectures=["GlmMoeDsaForCausalLM"], model_type="glm_moe_dsa",
                        index_n_heads=2, index_head_dim=8, index_topk=16, indexer_types=["full", "shared", "full"],
                        vocab_size=33),
    # qwen3_5_moe (Qwen3.5's multimodal wrapper, the text decoder pruned): qwen3_next's layers with Qwen3.5's split
    # in_proj_qkv / in_proj_z / in_proj_b / in_proj_a under model.language_model.*, a vision and an MTP tensor copied
    "qwen3_5_moe": {"architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe",
                    "tie_word_embeddings": False,
                    "text_config": {"model_type": "qwen3_5_moe_text", "hidden_size": 32, "num_hidden_layers": 4,
                                    "layer_types": ["linear_attention", "full_attention", "linear_attention", "full_attention"],
                                    "full_attention_interval": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                                    "head_dim": 8, "attn_output_gate": True, "attention_bias": False,
                                    "linear_num_key_heads": 2, "linear_key_head_dim": 8, "linear_num_value_heads": 4,
                                    "linear_value_head_dim": 8, "linear_conv_kernel_dim": 4, "num_experts": 6,
                                    "num_experts_per_tok": 2, "moe_intermediate_size": 16,
                                    "shared_expert_intermediate_size": 24, "hidden_act": "silu", "rms_norm_eps": 1e-6,
                                    "vocab_size": 43, "tie_word_embeddings": False, "max_position_embeddings": 128,
                                    "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                                                        "partial_rotary_factor": 0.5},
                                    "dtype": "float32"},
                    "vision_config": {"model_type": "qwen3_5", "depth": 1, "hidden_size": 16, "hidden_act": "gelu_pytorch_tanh",
                                      "intermediate_size": 32, "num_heads": 2, "in_channels": 3, "patch_size": 4,
                                      "spatial_merge_size": 2, "temporal_patch_size": 2, "out_hidden_size": 32,
                                      "num_position_embeddings": 16, "deepstack_visual_indexes": []}},
}


def hybrid_model(cfg, rng):
    if cfg["model_type"] == "qwen3_5_moe":  # the text decoder's tensors under model.language_model.*, split projections
        t = [(n.replace("model.", "model.language_model.", 1), a) for n, a in hybrid_model(dict(cfg["text_config"], model_type="qwen3_next"), rng)]
        extra = [("model.visual.merger.linear_fc2.weight", (32, 16)), ("mtp.fc.weight", (32, 64))]
        return t + [(n, (0.1 * rng.standard_normal(sh)).astype(np.float32)) for n, sh in extra]
    if cfg["model_type"] in ("deepseek_v32", "glm_moe_dsa"):  # deepseek_v3's tensors + the indexers
        t = model(dict(cfg, model_type="deepseek_v3"), rng)
        n, ih, d = cfg["index_n_heads"], cfg["index_head_dim"], cfg["hidden_size"]
        for l, kind in enumerate(cfg.get("indexer_types", ["full"] * cfg["num_hidden_layers"])):
            if kind == "full":
                p = f"model.layers.{l}.self_attn.indexer."
                t += [(p + "wq_b.weight", (rng.standard_normal((n * ih, cfg["q_lora_rank"])) * 0.3).astype(np.float32)),
                      (p + "wk.weight", (rng.standard_normal((ih, d)) * 0.2).astype(np.float32)),
                      (p + "k_norm.weight", (1 + 0.1 * rng.standard_normal(ih)).astype(np.float32)),
                      (p + "k_norm.bias", (0.1 * rng.standard_normal(ih)).astype(np.float32)),
                      (p + "weights_proj.weight", (rng.standard_normal((n, d)) * 0.2).astype(np.float32))]
        return t
    d, V, L = cfg["hidden_size"], cfg["vocab_size"], cfg["num_hidden_layers"]

    def w(*shape, s=None):
        s = s if s is not None else 1.0 / np.sqrt(shape[-1])
        return (rng.standard_normal(shape) * s * rng.uniform(0.5, 1.5, size=(shape[0],) + (1,) * (len(shape) - 1))).astype(np.float32)

    def norm(n):
        return (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)

    def mamba2(p, H, P, G, N, K, conv_bias):  # NemotronHMamba2Mixer's parameters
        I, conv = H * P, H * P + 2 * G * N
        dt = np.exp(rng.uniform(np.log(cfg.get("time_step_min", 0.001)), np.log(cfg.get("time_step_max", 0.1)), H))
        t = [(p + "in_proj.weight", w(2 * I + 2 * G * N + H, d)), (p + "conv1d.weight", w(conv, 1, K, s=0.5))]
        if conv_bias:
            t += [(p + "conv1d.bias", w(conv, s=0.1))]
        return t + [(p + "A_log", np.log(rng.uniform(1, 8, H)).astype(np.float32)),
                    (p + "D", (1 + 0.3 * rng.standard_normal(H)).astype(np.float32)),
                    (p + "dt_bias", (dt + np.log(-np.expm1(-dt))).astype(np.float32)),
                    (p + "norm.weight", norm(I)), (p + "out_proj.weight", w(d, I))]

    def attention(p, H, K, hd):  # q, k, v, o projections without biases
        return [(p + "q_proj.weight", w(H * hd, d)), (p + "k_proj.weight", w(K * hd, d)),
                (p + "v_proj.weight", w(K * hd, d)), (p + "o_proj.weight", w(d, H * hd))]

    mt = cfg["model_type"]
    if mt == "nemotron_h":
        H, K, hd, F = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"], cfg["intermediate_size"]
        t = [("backbone.embeddings.weight", w(V, d, s=1.0))]
        for l, c in enumerate(cfg["hybrid_override_pattern"]):
            p = f"backbone.layers.{l}."
            t += [(p + "norm.weight", norm(d))]
            if c == "M":
                t += mamba2(p + "mixer.", cfg["mamba_num_heads"], cfg["mamba_head_dim"], cfg["n_groups"],
                            cfg["ssm_state_size"], cfg["conv_kernel"], cfg["use_conv_bias"])
            elif c == "*":
                t += attention(p + "mixer.", H, K, hd)
            else:
                t += [(p + "mixer.up_proj.weight", w(F, d)), (p + "mixer.down_proj.weight", w(d, F))]
        return t + [("backbone.norm_f.weight", norm(d)), ("lm_head.weight", w(V, d))]
    if mt == "qwen3_next":
        split = "layer_types" in cfg  # Qwen3.5: in_proj_qkv, in_proj_z, in_proj_b, in_proj_a
        H, K, hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
        HK, dk, HV, dv = (cfg["linear_num_key_heads"], cfg["linear_key_head_dim"], cfg["linear_num_value_heads"],
                          cfg["linear_value_head_dim"])
        E, Fe, S = cfg.get("num_experts"), cfg.get("moe_intermediate_size"), cfg.get("shared_expert_intermediate_size")

        def norm1(n):  # Qwen3NextRMSNorm scales by (1 + w)
            return (0.1 * rng.standard_normal(n)).astype(np.float32)
        t = [("model.embed_tokens.weight", w(V, d, s=1.0))]
        for l in range(L):
            p = f"model.layers.{l}."
            t += [(p + "input_layernorm.weight", norm1(d))]
            if (l + 1) % cfg["full_attention_interval"] == 0:
                t += [(p + "self_attn.q_proj.weight", w(2 * H * hd, d)), (p + "self_attn.k_proj.weight", w(K * hd, d)),
                      (p + "self_attn.v_proj.weight", w(K * hd, d)), (p + "self_attn.o_proj.weight", w(d, H * hd)),
                      (p + "self_attn.q_norm.weight", norm1(hd)), (p + "self_attn.k_norm.weight", norm1(hd))]
            else:
                x, conv = p + "linear_attn.", 2 * HK * dk + HV * dv
                dt = np.exp(rng.uniform(np.log(0.001), np.log(0.1), HV))
                t += ([(x + "in_proj_qkv.weight", w(2 * HK * dk + HV * dv, d)), (x + "in_proj_z.weight", w(HV * dv, d)),
                       (x + "in_proj_b.weight", w(HV, d)), (x + "in_proj_a.weight", w(HV, d))] if split else
                      [(x + "in_proj_qkvz.weight", w(2 * HK * dk + 2 * HV * dv, d)), (x + "in_proj_ba.weight", w(2 * HV, d))])
                t += [(x + "conv1d.weight", w(conv, 1, cfg["linear_conv_kernel_dim"], s=0.5)),
                      (x + "dt_bias", (dt + np.log(-np.expm1(-dt))).astype(np.float32)),
                      (x + "A_log", np.log(rng.uniform(1, 16, HV)).astype(np.float32)), (x + "norm.weight", norm(dv)),
                      (x + "out_proj.weight", w(d, HV * dv))]
            if E is None:  # the dense Qwen3.5 text decoder (qwen3_5_text): a gated MLP
                t += [(p + "post_attention_layernorm.weight", norm1(d)), (p + "mlp.gate_proj.weight", w(cfg["intermediate_size"], d)),
                      (p + "mlp.up_proj.weight", w(cfg["intermediate_size"], d)),
                      (p + "mlp.down_proj.weight", w(d, cfg["intermediate_size"]))]
                continue
            t += [(p + "post_attention_layernorm.weight", norm1(d)), (p + "mlp.gate.weight", w(E, d, s=1.0))]
            for e in range(E):
                x = p + f"mlp.experts.{e}."
                t += [(x + "gate_proj.weight", w(Fe, d)), (x + "up_proj.weight", w(Fe, d)), (x + "down_proj.weight", w(d, Fe))]
            x = p + "mlp.shared_expert."
            t += [(x + "gate_proj.weight", w(S, d)), (x + "up_proj.weight", w(S, d)), (x + "down_proj.weight", w(d, S)),
                  (p + "mlp.shared_expert_gate.weight", w(1, d))]
        return t + [("model.norm.weight", norm1(d)), ("lm_head.weight", w(V, d))]
    if mt == "falcon_h1":
        H, K, hd, F = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"], cfg["intermediate_size"]
        t = [("model.embed_tokens.weight", w(V, d, s=1.0))]
        for l in range(L):
            p = f"model.layers.{l}."
            t += [(p + "input_layernorm.weight", norm(d))]
            t += attention(p + "self_attn.", H, K, hd)
            t += [x for x in mamba2(p + "mamba.", cfg["mamba_n_heads"], cfg["mamba_d_head"], cfg["mamba_n_groups"],
                                    cfg["mamba_d_state"], cfg["mamba_d_conv"], True) if not x[0].endswith("norm.weight")]
            t += [(p + "pre_ff_layernorm.weight", norm(d)), (p + "feed_forward.gate_proj.weight", w(F, d)),
                  (p + "feed_forward.up_proj.weight", w(F, d)), (p + "feed_forward.down_proj.weight", w(d, F))]
        return t + [("model.final_layernorm.weight", norm(d)), ("lm_head.weight", w(V, d))]
    if mt == "granitemoehybrid":
        H, K, S = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["shared_intermediate_size"]
        hd = d // H
        t = [("model.embed_tokens.weight", w(V, d, s=1.0))]
        for l, kind in enumerate(cfg["layer_types"]):
            p = f"model.layers.{l}."
            t += [(p + "input_layernorm.weight", norm(d))]
            if kind == "mamba":
                t += mamba2(p + "mamba.", cfg["mamba_n_heads"], cfg["mamba_d_head"], cfg["mamba_n_groups"],
                            cfg["mamba_d_state"], cfg["mamba_d_conv"], cfg["mamba_conv_bias"])
            else:
                t += attention(p + "self_attn.", H, K, hd)
            t += [(p + "post_attention_layernorm.weight", norm(d)), (p + "shared_mlp.input_linear.weight", w(2 * S, d)),
                  (p + "shared_mlp.output_linear.weight", w(d, S))]
        return t + [("model.norm.weight", norm(d))]
    raise ValueError(mt)


def family_dir(name, cfg):
    """tests/data/prune_ckpt/<name>/, emptied, with the config written."""
    d = os.path.join(ROOT, name)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    return d


# Own-name families (appended: the earlier families keep their random draws): LayerNorm (weight and
# bias), biases on every Linear, a GELU / ReLU MLP without gate, under transformers' own names.
# starcoder2: Starcoder2DecoderLayer (self_attn.q/k/v/o_proj, mlp.c_fc / c_proj; sliding window);
# gpt_neox: GPTNeoXLayer (attention.query_key_value = per head [q; k; v], attention.dense,
# mlp.dense_h_to_4h / dense_4h_to_h, parallel residual, partial rotary); falcon (new decoder
# architecture): FalconDecoderLayer (self_attention.query_key_value = per KV head [its query heads;
# k; v], ln_attn / ln_mlp before the parallel attention and MLP); opt: OPTDecoderLayer (learned
# positions offset by 2, self_attn.out_proj, fc1 / fc2, self_attn_layer_norm / final_layer_norm).
def model_own(cfg, rng):
    mt = cfg["model_type"]
    cfg = dict(cfg, hidden_size=cfg.get("hidden_size", cfg.get("n_embd")), num_attention_heads=cfg.get("num_attention_heads", cfg.get("n_head")),
               num_hidden_layers=cfg.get("num_hidden_layers", cfg.get("n_layer")), intermediate_size=cfg.get("intermediate_size", cfg.get("n_inner")))
    d = cfg["hidden_size"]
    H = cfg["num_attention_heads"]
    K = cfg.get("num_key_value_heads", cfg.get("num_kv_heads", H)) if mt != "gpt_neox" else H
    hd = d // H
    F = cfg.get("intermediate_size") or cfg.get("ffn_hidden_size") or cfg.get("ffn_dim")
    V, L = cfg["vocab_size"], cfg["num_hidden_layers"]

    def w(*shape, s=None):
        s = s if s is not None else 1.0 / np.sqrt(shape[-1])
        return (rng.standard_normal(shape) * s * rng.uniform(0.5, 1.5, size=(shape[0],) + (1,) * (len(shape) - 1))).astype(np.float32)

    def ln(p):  # LayerNorm weight and bias
        return [(p + ".weight", (1.0 + 0.1 * rng.standard_normal(d)).astype(np.float32)),
                (p + ".bias", (0.1 * rng.standard_normal(d)).astype(np.float32))]

    def lin(p, o, i):
        return [(p + ".weight", w(o, i)), (p + ".bias", w(o, s=0.3))]

    pre = {"starcoder2": "model.layers.", "gpt_neox": "gpt_neox.layers.", "falcon": "transformer.h.",
           "opt": "model.decoder.layers.", "internlm2": "model.layers.", "gpt2": "transformer.h."}[mt]
    emb = {"starcoder2": "model.embed_tokens.weight", "gpt_neox": "gpt_neox.embed_in.weight",
           "falcon": "transformer.word_embeddings.weight", "opt": "model.decoder.embed_tokens.weight",
           "internlm2": "model.tok_embeddings.weight", "gpt2": "transformer.wte.weight"}[mt]
    t = [(emb, w(V, d, s=1.0))]
    if mt == "opt":
        t += [("model.decoder.embed_positions.weight", w(cfg["max_position_embeddings"] + 2, d, s=0.5))]
    if mt == "gpt2":
        t += [("transformer.wpe.weight", w(cfg["n_positions"], d, s=0.5))]
    for l in range(L):
        p = f"{pre}{l}."
        if mt == "starcoder2":
            t += ln(p + "input_layernorm") + lin(p + "self_attn.q_proj", H * hd, d) + lin(p + "self_attn.k_proj", K * hd, d) + \
                lin(p + "self_attn.v_proj", K * hd, d) + lin(p + "self_attn.o_proj", d, H * hd) + \
                ln(p + "post_attention_layernorm") + lin(p + "mlp.c_fc", F, d) + lin(p + "mlp.c_proj", d, F)
        elif mt == "gpt_neox":
            t += ln(p + "input_layernorm") + ln(p + "post_attention_layernorm") + \
                lin(p + "attention.query_key_value", 3 * H * hd, d) + lin(p + "attention.dense", d, H * hd) + \
                lin(p + "mlp.dense_h_to_4h", F, d) + lin(p + "mlp.dense_4h_to_h", d, F)
        elif mt == "falcon":
            t += ln(p + "ln_attn") + ln(p + "ln_mlp") + lin(p + "self_attention.query_key_value", (H + 2 * K) * hd, d) + \
                lin(p + "self_attention.dense", d, H * hd) + lin(p + "mlp.dense_h_to_4h", F, d) + lin(p + "mlp.dense_4h_to_h", d, F)
        elif mt == "gpt2":  # Conv1D: weights stored (in, out); c_attn's columns [q | k | v]
            conv = lambda p_, i, o: [(p_ + ".weight", w(o, i).T.copy()), (p_ + ".bias", w(o, s=0.3))]
            t += ln(p + "ln_1") + conv(p + "attn.c_attn", d, 3 * d) + conv(p + "attn.c_proj", d, d) + ln(p + "ln_2") + \
                conv(p + "mlp.c_fc", d, F) + conv(p + "mlp.c_proj", F, d)
        elif mt == "internlm2":  # RMSNorm; wqkv per KV head [its query heads; k; v], biased with wo; SwiGLU w1 / w3 / w2
            t += [(p + "attention_norm.weight", (1.0 + 0.1 * rng.standard_normal(d)).astype(np.float32))] + \
                lin(p + "attention.wqkv", (H + 2 * K) * hd, d) + lin(p + "attention.wo", d, H * hd) + \
                [(p + "ffn_norm.weight", (1.0 + 0.1 * rng.standard_normal(d)).astype(np.float32)),
                 (p + "feed_forward.w1.weight", w(F, d)), (p + "feed_forward.w3.weight", w(F, d)),
                 (p + "feed_forward.w2.weight", w(d, F))]
        else:
            t += lin(p + "self_attn.k_proj", H * hd, d) + lin(p + "self_attn.v_proj", H * hd, d) + \
                lin(p + "self_attn.q_proj", H * hd, d) + lin(p + "self_attn.out_proj", d, H * hd) + \
                ln(p + "self_attn_layer_norm") + lin(p + "fc1", F, d) + lin(p + "fc2", d, F) + ln(p + "final_layer_norm")
    if mt == "gpt2":
        t += ln("transformer.ln_f")
    elif mt == "internlm2":
        t += [("model.norm.weight", (1.0 + 0.1 * rng.standard_normal(d)).astype(np.float32))]
    else:
        t += ln({"starcoder2": "model.norm", "gpt_neox": "gpt_neox.final_layer_norm", "falcon": "transformer.ln_f",
                 "opt": "model.decoder.final_layer_norm"}[mt])
    if not cfg.get("tie_word_embeddings", True):
        t += [({"gpt_neox": "embed_out.weight", "internlm2": "output.weight"}.get(mt, "lm_head.weight"), w(V, d))]
    return t


OWN_CONFIGS = {
    "starcoder2": {"architectures": ["Starcoder2ForCausalLM"], "model_type": "starcoder2", "hidden_size": 32,
                   "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 64, "num_hidden_layers": 3,
                   "vocab_size": 37, "norm_epsilon": 1e-5, "use_bias": True, "hidden_act": "gelu_pytorch_tanh",
                   "rope_theta": 10000.0, "sliding_window": 8, "max_position_embeddings": 128, "tie_word_embeddings": True,
                   "torch_dtype": "float32"},
    "gpt_neox": {"architectures": ["GPTNeoXForCausalLM"], "model_type": "gpt_neox", "hidden_size": 32,
                 "num_attention_heads": 4, "intermediate_size": 64, "num_hidden_layers": 3, "vocab_size": 41,
                 "layer_norm_eps": 1e-5, "rotary_pct": 0.5, "rotary_emb_base": 10000, "use_parallel_residual": True,
                 "hidden_act": "gelu", "attention_bias": True, "max_position_embeddings": 128,
                 "tie_word_embeddings": False, "torch_dtype": "float32"},
    "falcon": {"architectures": ["FalconForCausalLM"], "model_type": "falcon", "hidden_size": 32, "num_attention_heads": 4,
               "num_kv_heads": 2, "new_decoder_architecture": True, "parallel_attn": True, "multi_query": True,
               "bias": True, "alibi": False, "ffn_hidden_size": 64, "num_hidden_layers": 3, "vocab_size": 43,
               "layer_norm_epsilon": 1e-5, "rope_theta": 10000.0, "max_position_embeddings": 128,
               "tie_word_embeddings": True, "torch_dtype": "float32"},
    "opt": {"architectures": ["OPTForCausalLM"], "model_type": "opt", "hidden_size": 32, "num_attention_heads": 4,
            "ffn_dim": 64, "num_hidden_layers": 3, "vocab_size": 47, "max_position_embeddings": 64,
            "word_embed_proj_dim": 32, "do_layer_norm_before": True, "enable_bias": True, "activation_function": "relu",
            "layer_norm_elementwise_affine": True, "tie_word_embeddings": True, "torch_dtype": "float32"},
    "internlm2": {"architectures": ["InternLM2ForCausalLM"], "model_type": "internlm2", "hidden_size": 32,
                  "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48, "num_hidden_layers": 3,
                  "vocab_size": 31, "bias": True, "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "hidden_act": "silu",
                  "max_position_embeddings": 128, "tie_word_embeddings": False, "torch_dtype": "float32"},
    "gpt2": {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": 32, "n_head": 4, "n_layer": 3,
             "n_inner": 64, "n_positions": 64, "vocab_size": 53, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new",
             "tie_word_embeddings": True, "torch_dtype": "float32"},
}


def main():
    rng = np.random.default_rng(19)
    families = [(n, c, model) for n, c in CONFIGS.items()] + [(n, c, model_own) for n, c in OWN_CONFIGS.items()]
    for name, cfg, make in families:
        d = family_dir(name, cfg)
        t = make(cfg, rng)
        if name == "llama":  # two shards and an index
            half = len(t) // 2
            files = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
            write_safetensors(os.path.join(d, files[0]), t[:half])
            write_safetensors(os.path.join(d, files[1]), t[half:])
            wm = {n: files[0] for n, _ in t[:half]}
            wm.update({n: files[1] for n, _ in t[half:]})
            total = sum(a.size * 4 for _, a in t)
            with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
                json.dump({"metadata": {"total_size": total}, "weight_map": wm}, f, indent=2)
                f.write("\n")
        else:
            write_safetensors(os.path.join(d, "model.safetensors"), t)
        print(name, sum(a.size for _, a in t), "parameters")
    for name, cfg in HYBRID_CONFIGS.items():  # issue 19i's block: a generator per family
        d = family_dir(name, cfg)
        t = hybrid_model(cfg, np.random.default_rng(zlib.crc32(name.encode())))
        write_safetensors(os.path.join(d, "model.safetensors"), t)
        print(name, sum(a.size for _, a in t), "parameters")
    # one tensor of a multi-token-prediction layer past the config's layers (the refusal's test)
    write_safetensors(os.path.join(ROOT, "deepseek_v3_mtp.safetensors"),
                      [("model.layers.3.enorm.weight", np.ones(32, dtype=np.float32))])


# ---- Fused 3-D expert tensors (one tensor per matrix holding every expert; own draws: seed 1919) ----
# gpt_oss: mlp.experts.gate_up_proj [E, d, 2F] (x @ W; gate = even columns, up = odd), gate_up_proj_bias
# [E, 2F], down_proj [E, F, d], down_proj_bias [E, d], router mlp.router.weight / bias, self_attn.sinks [H],
# q/k/v/o biases (GptOssForCausalLM), in BF16; gpt_oss_mxfp4: the same model with its experts as the
# released checkpoints store them: <name>_blocks [E, rows, cols / 32, 16] U8 (two e2m1 values a byte,
# low nibble first) and <name>_scales [E, rows, cols / 32] U8 (e8m0: 2^(s - 127)), rows = the
# output features (gate_up: 2F interleaved, down: d), i.e. the transpose of the BF16 layout;
# granitemoe: block_sparse_moe.input_linear.weight [E, 2F, d] ([gate; up] rows), output_linear.weight
# [E, d, F], router block_sparse_moe.router.layer.weight, granite's multipliers (F32).
FP4 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0])


def write_safetensors_typed(path, tensors):
    """tensors: list of (name, array, dtype) with dtype F32, BF16 (from float32, round to nearest even) or U8."""
    header, off, blobs = {"__metadata__": {"format": "pt"}}, 0, []
    for name, a, dt in tensors:
        if dt == "F32":
            b = np.ascontiguousarray(a, dtype="<f4").tobytes()
        elif dt == "BF16":
            u = np.ascontiguousarray(a, dtype="<f4").view("<u4").astype(np.uint64)
            b = (((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")).tobytes()
        else:
            b = np.ascontiguousarray(a, dtype=np.uint8).tobytes()
        header[name] = {"dtype": dt, "shape": list(a.shape), "data_offsets": [off, off + len(b)]}
        off += len(b)
        blobs.append(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - (8 + len(h)) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def mxfp4_random(rng, shape):
    """Random MXFP4 blocks [*shape, cols / 32, 16] and scales [*shape, cols / 32] of a [*shape, cols] matrix."""
    *lead, cols = shape
    blocks = rng.integers(0, 256, size=(*lead, cols // 32, 16), dtype=np.uint8)
    scales = rng.integers(122, 125, size=(*lead, cols // 32), dtype=np.uint8)  # 2^-5 .. 2^-3
    return blocks, scales


def fused_expert_model(cfg, rng, mxfp4=False):
    """(name, array, dtype) of a fused-3-D-expert family's checkpoint."""
    d, H, K = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd, F, V, L = cfg.get("head_dim", d // H), cfg["intermediate_size"], cfg["vocab_size"], cfg["num_hidden_layers"]
    E, mt = cfg["num_local_experts"], cfg["model_type"]
    dt = "BF16" if cfg["torch_dtype"] == "bfloat16" else "F32"

    def w(*shape, s=None):  # varied scales so that the importances differ (per leading row / expert)
        s = s if s is not None else 1.0 / np.sqrt(shape[-1] if len(shape) < 3 else shape[1])
        return (rng.standard_normal(shape) * s * rng.uniform(0.5, 1.5, size=(shape[0],) + (1,) * (len(shape) - 1))).astype(np.float32)

    def norm(n):
        return (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)

    t = [("model.embed_tokens.weight", w(V, d, s=1.0), dt)]
    bias = cfg.get("attention_bias", False)
    for l in range(L):
        p = f"model.layers.{l}."
        t += [(p + "input_layernorm.weight", norm(d), dt)]
        for m, n in (("q", H * hd), ("k", K * hd), ("v", K * hd)):
            t += [(p + f"self_attn.{m}_proj.weight", w(n, d), dt)]
            if bias:
                t += [(p + f"self_attn.{m}_proj.bias", w(n, s=0.3), dt)]
        t += [(p + "self_attn.o_proj.weight", w(d, H * hd), dt)]
        if bias:
            t += [(p + "self_attn.o_proj.bias", w(d, s=0.3), dt)]
        if mt == "gpt_oss":
            t += [(p + "self_attn.sinks", w(H, s=1.0), dt)]
        t += [(p + "post_attention_layernorm.weight", norm(d), dt)]
        if mt == "gpt_oss":
            x = p + "mlp.experts."
            t += [(p + "mlp.router.weight", w(E, d, s=1.0), dt), (p + "mlp.router.bias", w(E, s=0.5), dt)]
            if mxfp4:
                for n, shape in (("gate_up_proj", (E, 2 * F, d)), ("down_proj", (E, d, F))):
                    blocks, scales = mxfp4_random(rng, shape)
                    t += [(x + n + "_blocks", blocks, "U8"), (x + n + "_scales", scales, "U8")]
                t += [(x + "gate_up_proj_bias", w(E, 2 * F, s=0.3), dt), (x + "down_proj_bias", w(E, d, s=0.3), dt)]
            else:
                t += [(x + "gate_up_proj", w(E, d, 2 * F), dt), (x + "gate_up_proj_bias", w(E, 2 * F, s=0.3), dt),
                      (x + "down_proj", w(E, F, d), dt), (x + "down_proj_bias", w(E, d, s=0.3), dt)]
        else:  # granitemoe
            x = p + "block_sparse_moe."
            t += [(x + "input_linear.weight", w(E, 2 * F, d), dt), (x + "output_linear.weight", w(E, d, F), dt),
                  (x + "router.layer.weight", w(E, d, s=1.0), dt)]
    t += [("model.norm.weight", norm(d), dt)]
    if not cfg.get("tie_word_embeddings", False):
        t += [("lm_head.weight", w(V, d), dt)]
    return t


GPT_OSS = {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "hidden_size": 32, "num_attention_heads": 4,
           "num_key_value_heads": 2, "head_dim": 8, "intermediate_size": 16, "num_local_experts": 6,
           "num_experts_per_tok": 2, "experts_per_token": 2, "num_hidden_layers": 2,
           "layer_types": ["sliding_attention", "full_attention"], "sliding_window": 4, "swiglu_limit": 1.5,
           "vocab_size": 29, "rms_norm_eps": 1e-5, "rope_theta": 150000.0, "attention_bias": True,
           "max_position_embeddings": 128, "hidden_act": "silu", "tie_word_embeddings": False, "torch_dtype": "bfloat16"}
FUSED_CONFIGS = {
    # swiglu_limit 1.5 (the released 7.0 would never clamp at these sizes): the clamp is exercised
    "gpt_oss": GPT_OSS,
    # MXFP4 experts (d = 64 and F = 32: whole 32-value blocks), quantization_config as released
    "gpt_oss_mxfp4": dict(GPT_OSS, hidden_size=64, intermediate_size=32, num_local_experts=4, vocab_size=31,
                          quantization_config={"modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router",
                                                                          "model.embed_tokens", "lm_head"],
                                               "quant_method": "mxfp4"}),
    "granitemoe": {"architectures": ["GraniteMoeForCausalLM"], "model_type": "granitemoe", "hidden_size": 32,
                   "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 16, "num_local_experts": 6,
                   "num_experts_per_tok": 2, "num_hidden_layers": 2, "vocab_size": 27, "rms_norm_eps": 1e-6,
                   "rope_theta": 10000.0, "embedding_multiplier": 12.0, "attention_multiplier": 0.125,
                   "residual_multiplier": 0.22, "logits_scaling": 6.0, "attention_bias": False,
                   "max_position_embeddings": 128, "hidden_act": "silu", "tie_word_embeddings": True, "torch_dtype": "float32"},
}


def write_seeded_models(configs, model):
    """One tiny checkpoint per family of `configs`: model(name, cfg, rng) with rng seeded by the name (crc32), so a
    family's draws do not depend on the others', written as one F32 model.safetensors beside its config."""
    for name, cfg in configs.items():
        d = family_dir(name, cfg)
        t = model(name, cfg, np.random.default_rng(zlib.crc32(name.encode())))
        write_safetensors(os.path.join(d, "model.safetensors"), t)
        print(name, sum(a.size for _, a in t), "parameters")


def main_fused():
    rng = np.random.default_rng(1919)
    for name, cfg in FUSED_CONFIGS.items():
        d = family_dir(name, cfg)
        t = fused_expert_model(cfg, rng, mxfp4=name.endswith("mxfp4"))
        write_safetensors_typed(os.path.join(d, "model.safetensors"), t)
        print(name, sum(a.size for _, a, _ in t), "stored values")
    # gpt_oss_mxfp4 with its MXFP4 scales stored as F32 (the dtype refusal's test; own draws)
    t = fused_expert_model(FUSED_CONFIGS["gpt_oss_mxfp4"], np.random.default_rng(7), mxfp4=True)
    write_safetensors_typed(os.path.join(ROOT, "gpt_oss_mxfp4_f32_scales.safetensors"),
                            [(n, a, "F32" if n.endswith("_scales") else dt) for n, a, dt in t])


# ---- issue 19l: MoE layouts nsc prune reads (own draws: a generator per family, seeded by its name).
# hunyuan_v1_moe (HunYuanMoE): every layer MoE, router mlp.gate.wg, experts mlp.experts.<e>.{gate,up,down}_proj
# of intermediate_size, mlp.shared_mlp of intermediate_size, per-head query_layernorm / key_layernorm, q/k/v/o
# biases (attention_bias); ernie4_5_moe (Ernie4_5_MoeSparseMoeBlock): MoE layers moe_layer_start_index ..
# moe_layer_end_index every moe_layer_interval (dense mlp.* elsewhere), router mlp.gate with
# mlp.moe_statics.e_score_correction_bias [1, E], experts of moe_intermediate_size and mlp.shared_experts of
# moe_num_shared_experts widths, use_bias on every Linear (lm_head.bias beside the tied head).
MOE19L_CONFIGS = {
    "hunyuan_v1_moe": {"architectures": ["HunYuanMoEV1ForCausalLM"], "model_type": "hunyuan_v1_moe", "hidden_size": 32,
                       "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "attention_head_dim": 8,
                       "intermediate_size": 16, "num_experts": 6, "moe_topk": 2, "num_shared_expert": 1,
                       "use_mixed_mlp_moe": True, "use_qk_norm": True, "use_cla": False, "attention_bias": True,
                       "num_hidden_layers": 2, "vocab_size": 23, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
                       "max_position_embeddings": 128, "hidden_act": "silu", "tie_word_embeddings": True,
                       "torch_dtype": "float32"},
    "ernie4_5_moe": {"architectures": ["Ernie4_5_MoeForCausalLM"], "model_type": "ernie4_5_moe", "hidden_size": 32,
                     "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "intermediate_size": 48,
                     "moe_intermediate_size": 16, "moe_num_experts": 6, "moe_k": 2, "moe_num_shared_experts": 2,
                     "moe_layer_start_index": 1, "moe_layer_end_index": 2, "moe_layer_interval": 1, "moe_norm_min": 1e-12,
                     "use_bias": True, "num_hidden_layers": 4, "vocab_size": 29, "rms_norm_eps": 1e-5,
                     "rope_theta": 500000.0, "max_position_embeddings": 128, "hidden_act": "silu",
                     "tie_word_embeddings": True, "torch_dtype": "float32"},
}

# llama4 (Llama4ForConditionalGeneration; its text decoder Llama4ForCausalLM, model_type llama4_text): MoE layers
# (moe_layers) with feed_forward.router, fused experts feed_forward.experts.gate_up_proj [E, d, 2F] ([gate | up]
# columns, x @ W) and down_proj [E, F, d], feed_forward.shared_expert.{gate,up,down}_proj of the experts' width;
# dense layers feed_forward.{gate,up,down}_proj of intermediate_size_mlp; NoPE layers (no_rope_layers 0) with
# attention temperature tuning, chunked attention and the weightless L2 q/k norm on the RoPE layers. The wrapper
# stores the decoder under language_model.model.* (language_model.lm_head) beside vision_model.* and
# multi_modal_projector.* (copied whole by the pruner).
LLAMA4_TEXT_19L = {"model_type": "llama4_text", "hidden_size": 32, "num_attention_heads": 4, "num_key_value_heads": 2,
                   "head_dim": 8, "intermediate_size": 16, "intermediate_size_mlp": 48, "num_local_experts": 6,
                   "num_experts_per_tok": 2, "moe_layers": [0, 2], "interleave_moe_layer_step": 2,
                   "no_rope_layers": [1, 1, 1, 0], "use_qk_norm": True, "attn_temperature_tuning": True,
                   "floor_scale": 8, "attn_scale": 0.1, "attention_chunk_size": 8, "attention_bias": False,
                   "num_hidden_layers": 4, "vocab_size": 37, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
                   "max_position_embeddings": 128, "hidden_act": "silu", "tie_word_embeddings": False,
                   "torch_dtype": "float32"}
MOE19L_CONFIGS["llama4"] = {"architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4",
                            "text_config": LLAMA4_TEXT_19L, "tie_word_embeddings": False, "torch_dtype": "float32"}
MOE19L_CONFIGS["llama4_text"] = dict(LLAMA4_TEXT_19L, architectures=["Llama4ForCausalLM"], vocab_size=41)

# granitemoehybrid with experts (granite-4.0-h-small's layout, tiny): hybrid_model's Mamba-2 / attention layers and
# shared_mlp (now the always-active shared expert), plus block_sparse_moe.input_linear.weight [E, 2F, d] ([gate; up]
# rows), output_linear.weight [E, d, F] and router.layer.weight [E, d] per layer (drawn after hybrid_model's).
MOE19L_CONFIGS["granitemoehybrid_moe"] = dict(HYBRID_CONFIGS["granitemoehybrid"], num_local_experts=6, num_experts_per_tok=2,
                                              intermediate_size=16, shared_intermediate_size=24, vocab_size=33)


def moe19l_is_moe(cfg, l):
    """Whether layer l of a MOE19L_CONFIGS model is a MoE layer (the modeling files' rule)."""
    if cfg["model_type"] == "ernie4_5_moe":
        end = cfg["moe_layer_end_index"] if cfg["moe_layer_end_index"] >= 0 else cfg["num_hidden_layers"] - 1
        return cfg["moe_layer_start_index"] <= l <= end and (l + 1) % cfg["moe_layer_interval"] == 0
    if cfg["model_type"] == "llama4_text":
        return l in cfg["moe_layers"]
    return True


def moe19l_llama4(cfg, rng):
    """Llama4ForCausalLM's tensors (model.*, lm_head); the wrapper's under language_model.* plus two vision tensors."""
    if cfg["model_type"] == "llama4":
        t = [("language_model." + n, a) for n, a in moe19l_llama4(cfg["text_config"], rng)]
        return t + [("vision_model.patch_embedding.linear.weight", (0.1 * rng.standard_normal((16, 48))).astype(np.float32)),
                    ("multi_modal_projector.linear_1.weight", (0.1 * rng.standard_normal((32, 16))).astype(np.float32))]
    d, H, K, hd = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    E, F, Fd, V = cfg["num_local_experts"], cfg["intermediate_size"], cfg["intermediate_size_mlp"], cfg["vocab_size"]

    def w(*shape, s=None):
        s = s if s is not None else 1.0 / np.sqrt(shape[-1] if len(shape) < 3 else shape[1])
        return (rng.standard_normal(shape) * s * rng.uniform(0.5, 1.5, size=(shape[0],) + (1,) * (len(shape) - 1))).astype(np.float32)

    def norm(n):
        return (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)
    t = [("model.embed_tokens.weight", w(V, d, s=1.0))]
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        t += [(p + "input_layernorm.weight", norm(d)), (p + "self_attn.q_proj.weight", w(H * hd, d)),
              (p + "self_attn.k_proj.weight", w(K * hd, d)), (p + "self_attn.v_proj.weight", w(K * hd, d)),
              (p + "self_attn.o_proj.weight", w(d, H * hd)), (p + "post_attention_layernorm.weight", norm(d))]
        x = p + "feed_forward."
        if moe19l_is_moe(cfg, l):
            t += [(x + "router.weight", w(E, d, s=1.0)), (x + "experts.gate_up_proj", w(E, d, 2 * F, s=d ** -0.5)),
                  (x + "experts.down_proj", w(E, F, d, s=F ** -0.5)), (x + "shared_expert.gate_proj.weight", w(F, d)),
                  (x + "shared_expert.up_proj.weight", w(F, d)), (x + "shared_expert.down_proj.weight", w(d, F))]
        else:
            t += [(x + "gate_proj.weight", w(Fd, d)), (x + "up_proj.weight", w(Fd, d)), (x + "down_proj.weight", w(d, Fd))]
    return t + [("model.norm.weight", norm(d)), ("lm_head.weight", w(V, d))]


def moe19l_model(cfg, rng):
    """(name, float32 array) of a MOE19L_CONFIGS checkpoint under transformers' names."""
    if cfg["model_type"] in ("llama4", "llama4_text"):
        return moe19l_llama4(cfg, rng)
    if cfg["model_type"] == "granitemoehybrid":
        t = hybrid_model(cfg, rng)
        E, F, d = cfg["num_local_experts"], cfg["intermediate_size"], cfg["hidden_size"]
        scaled = lambda shape, s: (rng.standard_normal(shape) * s * rng.uniform(0.5, 1.5, size=(shape[0],) + (1,) * (len(shape) - 1))).astype(np.float32)
        for l in range(cfg["num_hidden_layers"]):
            x = f"model.layers.{l}.block_sparse_moe."
            t += [(x + "input_linear.weight", scaled((E, 2 * F, d), d ** -0.5)), (x + "output_linear.weight", scaled((E, d, F), F ** -0.5)),
                  (x + "router.layer.weight", scaled((E, d), 1.0))]
        return t
    mt, d, H, K = cfg["model_type"], cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd, V, L = cfg["head_dim"], cfg["vocab_size"], cfg["num_hidden_layers"]
    ernie = mt == "ernie4_5_moe"
    bias = cfg.get("use_bias", False) if ernie else cfg.get("attention_bias", False)

    def w(*shape, s=None):
        s = s if s is not None else 1.0 / np.sqrt(shape[-1])
        return (rng.standard_normal(shape) * s * rng.uniform(0.5, 1.5, size=(shape[0],) + (1,) * (len(shape) - 1))).astype(np.float32)

    def norm(n):
        return (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)

    def lin(p, o, i, b):
        return [(p + ".weight", w(o, i))] + ([(p + ".bias", w(o, s=0.3))] if b else [])

    def mlp(p, F, b):  # gate, up, down (biased: ernie's use_bias)
        return lin(p + "gate_proj", F, d, b) + lin(p + "up_proj", F, d, b) + lin(p + "down_proj", d, F, b)

    t = [("model.embed_tokens.weight", w(V, d, s=1.0))]
    for l in range(L):
        p = f"model.layers.{l}."
        t += [(p + "input_layernorm.weight", norm(d))]
        t += lin(p + "self_attn.q_proj", H * hd, d, bias) + lin(p + "self_attn.k_proj", K * hd, d, bias) + \
            lin(p + "self_attn.v_proj", K * hd, d, bias) + lin(p + "self_attn.o_proj", d, H * hd, bias)
        if not ernie:
            t += [(p + "self_attn.query_layernorm.weight", norm(hd)), (p + "self_attn.key_layernorm.weight", norm(hd))]
        t += [(p + "post_attention_layernorm.weight", norm(d))]
        if not moe19l_is_moe(cfg, l):
            t += mlp(p + "mlp.", cfg["intermediate_size"], bias)
        elif ernie:
            E, Fe = cfg["moe_num_experts"], cfg["moe_intermediate_size"]
            t += [(p + "mlp.gate.weight", w(E, d, s=1.0)),
                  (p + "mlp.moe_statics.e_score_correction_bias", (0.05 * rng.standard_normal((1, E))).astype(np.float32))]
            for e in range(E):
                t += mlp(p + f"mlp.experts.{e}.", Fe, bias)
            t += mlp(p + "mlp.shared_experts.", Fe * cfg["moe_num_shared_experts"], bias)
        else:
            E, F = cfg["num_experts"], cfg["intermediate_size"]
            t += [(p + "mlp.gate.wg.weight", w(E, d, s=1.0))]
            for e in range(E):
                t += mlp(p + f"mlp.experts.{e}.", F, False)
            t += mlp(p + "mlp.shared_mlp.", F, False)
    t += [("model.norm.weight", norm(d))]
    if not cfg["tie_word_embeddings"]:
        t += [("lm_head.weight", w(V, d))]
    if ernie and cfg["use_bias"]:
        t += [("lm_head.bias", w(V, s=0.3))]
    return t


def main_moe19l():
    write_seeded_models(MOE19L_CONFIGS, lambda name, cfg, rng: moe19l_model(cfg, rng))


# ---- Issue 19k's families (each with its own generator, seeded by its name) ----
# qwen3_5 (Qwen3_5ForConditionalGeneration, the dense text decoder pruned): qwen3_next's layers with Qwen3.5's
# split Gated DeltaNet projections and a gated MLP, under model.language_model.*; a vision and an MTP tensor copied
_MOE_ONLY = ("num_experts", "num_experts_per_tok", "moe_intermediate_size", "shared_expert_intermediate_size")
K19_CONFIGS = {"qwen3_5": dict(HYBRID_CONFIGS["qwen3_5_moe"], architectures=["Qwen3_5ForConditionalGeneration"], model_type="qwen3_5",
                               text_config=dict({k: v for k, v in HYBRID_CONFIGS["qwen3_5_moe"]["text_config"].items()
                                                 if k not in _MOE_ONLY}, model_type="qwen3_5_text", intermediate_size=48,
                                                vocab_size=45))}
# nemotron-nas (DeciLMForCausalLM): llama's names, block_configs with per-layer KV heads (n_heads_in_group) and FFN
# widths, no_op sublayers (no tensors, no norm) and replace_with_linear ones (self_attn.linear_attn / mlp.linear_mlp)
_DECI_A = lambda g: {"n_heads_in_group": g, "no_op": False, "replace_with_linear": False}
K19_CONFIGS["nemotron_nas"] = {
    "architectures": ["DeciLMForCausalLM"], "model_type": "nemotron-nas", "hidden_size": 32, "num_attention_heads": 4,
    "num_hidden_layers": 6, "num_key_value_heads": None, "intermediate_size": None, "hidden_act": "silu",
    "attention_bias": False, "mlp_bias": False, "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "rope_scaling": None,
    "max_position_embeddings": 128, "vocab_size": 47, "tie_word_embeddings": False, "torch_dtype": "float32",
    "block_configs": [
        {"attention": _DECI_A(2), "ffn": {"intermediate_size": 48, "no_op": False, "replace_with_linear": False}},
        {"attention": _DECI_A(1), "ffn": {"intermediate_size": 32, "no_op": False, "replace_with_linear": False}},
        {"attention": {"no_op": True, "replace_with_linear": False},
         "ffn": {"intermediate_size": 40, "no_op": False, "replace_with_linear": False}},
        {"attention": {"no_op": False, "replace_with_linear": True},
         "ffn": {"intermediate_size": 48, "no_op": False, "replace_with_linear": False}},
        {"attention": _DECI_A(4), "ffn": {"no_op": True, "replace_with_linear": False}},
        {"attention": _DECI_A(2), "ffn": {"no_op": False, "replace_with_linear": True}}]}

# gemma4 (Gemma4ForConditionalGeneration, the gemma-4-31B shape in small: the text decoder pruned): sliding layers of
# head_dim with num_key_value_heads, full layers of global_head_dim with num_global_key_value_heads and
# attention_k_eq_v (no v_proj), proportional RoPE on the full layers, layer_scalar per layer, tied embeddings
K19_CONFIGS["gemma4"] = {"architectures": ["Gemma4ForConditionalGeneration"], "model_type": "gemma4", "tie_word_embeddings": True, "text_config": {"model_type": "gemma4_text", "hidden_size": 32, "num_hidden_layers": 4, "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention"], "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "global_head_dim": 16, "num_global_key_value_heads": 1, "attention_k_eq_v": True, "attention_bias": False, "intermediate_size": 48, "hidden_activation": "gelu_pytorch_tanh", "hidden_size_per_layer_input": 0, "num_kv_shared_layers": 0, "enable_moe_block": False, "use_double_wide_mlp": False, "vocab_size": 49, "vocab_size_per_layer_input": 49, "final_logit_softcapping": 30.0, "rms_norm_eps": 1e-06, "sliding_window": 4, "max_position_embeddings": 128, "tie_word_embeddings": True, "dtype": "float32", "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}, "full_attention": {"rope_type": "proportional", "rope_theta": 1000000.0, "partial_rotary_factor": 0.25}}}}

# bert (BertForMaskedLM: the encoder under bert.encoder.layer.*, post-norm blocks with biases, the MLM head copied)
K19_CONFIGS["bert"] = {"architectures": ["BertForMaskedLM"], "model_type": "bert", "hidden_size": 32, "num_hidden_layers": 3,
                       "num_attention_heads": 4, "intermediate_size": 64, "hidden_act": "gelu", "vocab_size": 51,
                       "max_position_embeddings": 64, "type_vocab_size": 2, "layer_norm_eps": 1e-12,
                       "position_embedding_type": "absolute", "torch_dtype": "float32"}


def k19_model(name, cfg, rng):
    if name == "qwen3_5":
        t = [(n.replace("model.", "model.language_model.", 1), a)
             for n, a in hybrid_model(dict(cfg["text_config"], model_type="qwen3_next"), rng)]
        extra = [("model.visual.merger.linear_fc2.weight", (32, 16)), ("mtp.fc.weight", (32, 64))]
        return t + [(n, (0.1 * rng.standard_normal(sh)).astype(np.float32)) for n, sh in extra]
    if name == "nemotron_nas":
        d, H, V = cfg["hidden_size"], cfg["num_attention_heads"], cfg["vocab_size"]
        hd = d // H

        def w(*shape, s=None):
            s = s if s is not None else 1.0 / np.sqrt(shape[-1])
            return (rng.standard_normal(shape) * s * rng.uniform(0.5, 1.5, size=(shape[0],) + (1,) * (len(shape) - 1))).astype(np.float32)

        def norm(n):
            return (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)
        t = [("model.embed_tokens.weight", w(V, d, s=1.0))]
        for l, b in enumerate(cfg["block_configs"]):
            p, a, f = f"model.layers.{l}.", b["attention"], b["ffn"]
            if not a["no_op"]:
                t += [(p + "input_layernorm.weight", norm(d))]
                if a["replace_with_linear"]:
                    t += [(p + "self_attn.linear_attn.weight", w(d, d))]
                else:
                    K = H // a["n_heads_in_group"]
                    t += [(p + "self_attn.q_proj.weight", w(H * hd, d)), (p + "self_attn.k_proj.weight", w(K * hd, d)),
                          (p + "self_attn.v_proj.weight", w(K * hd, d)), (p + "self_attn.o_proj.weight", w(d, H * hd))]
            if not f["no_op"]:
                t += [(p + "post_attention_layernorm.weight", norm(d))]
                if f["replace_with_linear"]:
                    t += [(p + "mlp.linear_mlp.weight", w(d, d))]
                else:
                    F = f["intermediate_size"]
                    t += [(p + "mlp.gate_proj.weight", w(F, d)), (p + "mlp.up_proj.weight", w(F, d)),
                          (p + "mlp.down_proj.weight", w(d, F))]
        return t + [("model.norm.weight", norm(d)), ("lm_head.weight", w(V, d))]
    if name == "gemma4":
        c = cfg["text_config"]
        d, H, V, F = c["hidden_size"], c["num_attention_heads"], c["vocab_size"], c["intermediate_size"]

        def w(*shape, s=None):
            s = s if s is not None else 1.0 / np.sqrt(shape[-1])
            return (rng.standard_normal(shape) * s * rng.uniform(0.5, 1.5, size=(shape[0],) + (1,) * (len(shape) - 1))).astype(np.float32)

        def norm(n):  # Gemma4RMSNorm scales by w
            return (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)
        t = [("model.language_model.embed_tokens.weight", w(V, d, s=1.0))]
        for l, kind in enumerate(c["layer_types"]):
            p, full = f"model.language_model.layers.{l}.", kind == "full_attention"
            hd = c["global_head_dim"] if full else c["head_dim"]
            K = c["num_global_key_value_heads"] if full and c["attention_k_eq_v"] else c["num_key_value_heads"]
            t += [(p + "input_layernorm.weight", norm(d)), (p + "self_attn.q_proj.weight", w(H * hd, d)),
                  (p + "self_attn.k_proj.weight", w(K * hd, d))]
            if not (full and c["attention_k_eq_v"]):
                t += [(p + "self_attn.v_proj.weight", w(K * hd, d))]
            t += [(p + "self_attn.o_proj.weight", w(d, H * hd)), (p + "self_attn.q_norm.weight", norm(hd)),
                  (p + "self_attn.k_norm.weight", norm(hd)), (p + "post_attention_layernorm.weight", norm(d)),
                  (p + "pre_feedforward_layernorm.weight", norm(d)), (p + "mlp.gate_proj.weight", w(F, d)),
                  (p + "mlp.up_proj.weight", w(F, d)), (p + "mlp.down_proj.weight", w(d, F)),
                  (p + "post_feedforward_layernorm.weight", norm(d)),
                  (p + "layer_scalar", rng.uniform(0.5, 1.5, 1).astype(np.float32))]
        return t + [("model.language_model.norm.weight", norm(d))]
    if name == "bert":
        d, V, F, P = cfg["hidden_size"], cfg["vocab_size"], cfg["intermediate_size"], cfg["max_position_embeddings"]

        def w(*shape, s=None):
            s = s if s is not None else 1.0 / np.sqrt(shape[-1])
            return (rng.standard_normal(shape) * s * rng.uniform(0.5, 1.5, size=(shape[0],) + (1,) * (len(shape) - 1))).astype(np.float32)

        def ln(p):
            return [(p + ".weight", (1.0 + 0.1 * rng.standard_normal(d)).astype(np.float32)),
                    (p + ".bias", (0.1 * rng.standard_normal(d)).astype(np.float32))]

        def lin(p, o, i):
            return [(p + ".weight", w(o, i)), (p + ".bias", w(o, s=0.3))]
        t = [("bert.embeddings.word_embeddings.weight", w(V, d, s=1.0)), ("bert.embeddings.position_embeddings.weight", w(P, d, s=0.5)),
             ("bert.embeddings.token_type_embeddings.weight", w(2, d, s=0.5))] + ln("bert.embeddings.LayerNorm")
        for l in range(cfg["num_hidden_layers"]):
            p = f"bert.encoder.layer.{l}."
            t += (lin(p + "attention.self.query", d, d) + lin(p + "attention.self.key", d, d) + lin(p + "attention.self.value", d, d) +
                  lin(p + "attention.output.dense", d, d) + ln(p + "attention.output.LayerNorm") + lin(p + "intermediate.dense", F, d) +
                  lin(p + "output.dense", d, F) + ln(p + "output.LayerNorm"))
        return t + lin("bert.pooler.dense", d, d) + lin("cls.predictions.transform.dense", d, d) + \
            ln("cls.predictions.transform.LayerNorm") + [("cls.predictions.bias", w(V, s=0.1))]
    raise ValueError(name)


def main_19k():
    write_seeded_models(K19_CONFIGS, k19_model)


# ---- Issue 19j: parallel blocks with one shared norm, and phimoe (a generator per family, seeded by its name) ----
# cohere: CohereDecoderLayer (one input_layernorm, weight only, before the parallel attention and MLP; q_norm /
# k_norm of shape (heads, head_dim) / (KV heads, head_dim) with use_qk_norm; logit_scale; tied); cohere2: the same
# layer without q/k norms, sliding layers with RoPE and every sliding_window_pattern-th layer global without RoPE;
# falcon7b: falcon-7b's FalconDecoderLayer (parallel_attn, one input_layernorm with bias, multi_query: one K and V
# head, query_key_value = [q heads; k; v], no biases, tied); phimoe: PhimoeDecoderLayer (LayerNorm weight and bias,
# q/k/v/o biases, mixtral's block_sparse_moe names with sparsemixer routing, lm_head with a bias, untied).
PARALLEL_CONFIGS = {
    "cohere": {"architectures": ["CohereForCausalLM"], "model_type": "cohere", "hidden_size": 32, "num_attention_heads": 4,
               "num_key_value_heads": 2, "intermediate_size": 48, "num_hidden_layers": 3, "vocab_size": 41,
               "layer_norm_eps": 1e-5, "use_qk_norm": True, "logit_scale": 0.5, "rope_theta": 10000.0,
               "attention_bias": False, "hidden_act": "silu", "max_position_embeddings": 128,
               "tie_word_embeddings": True, "torch_dtype": "float32"},
    "cohere2": {"architectures": ["Cohere2ForCausalLM"], "model_type": "cohere2", "hidden_size": 32, "num_attention_heads": 4,
                "num_key_value_heads": 2, "intermediate_size": 48, "num_hidden_layers": 4, "vocab_size": 37,
                "layer_norm_eps": 1e-5, "logit_scale": 0.25, "rope_theta": 10000.0, "sliding_window": 4,
                "sliding_window_pattern": 2, "attention_bias": False, "hidden_act": "silu", "max_position_embeddings": 128,
                "tie_word_embeddings": True, "torch_dtype": "float32"},
    "falcon7b": {"architectures": ["FalconForCausalLM"], "model_type": "falcon", "hidden_size": 32, "num_attention_heads": 4,
                 "new_decoder_architecture": False, "parallel_attn": True, "multi_query": True, "bias": False,
                 "alibi": False, "num_hidden_layers": 3, "vocab_size": 43, "layer_norm_epsilon": 1e-5, "rope_theta": 10000.0,
                 "max_position_embeddings": 128, "tie_word_embeddings": True, "torch_dtype": "float32"},
    "phimoe": {"architectures": ["PhimoeForCausalLM"], "model_type": "phimoe", "hidden_size": 32, "num_attention_heads": 4,
               "num_key_value_heads": 2, "intermediate_size": 16, "num_local_experts": 4, "num_experts_per_tok": 2,
               "num_hidden_layers": 2, "vocab_size": 31, "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "rope_scaling": None,
               "attention_bias": True, "lm_head_bias": True, "router_jitter_noise": 0.01, "input_jitter_noise": 0.0,
               "sliding_window": None, "hidden_act": "silu", "max_position_embeddings": 128,
               "tie_word_embeddings": False, "torch_dtype": "float32"},
}


def parallel_model(cfg, rng):
    """(name, float32 array) of an issue-19j family's checkpoint."""
    mt, d, H, V, L = cfg["model_type"], cfg["hidden_size"], cfg["num_attention_heads"], cfg["vocab_size"], cfg["num_hidden_layers"]
    hd = d // H

    def w(*shape, s=None):
        s = s if s is not None else 1.0 / np.sqrt(shape[-1])
        return (rng.standard_normal(shape) * s * rng.uniform(0.5, 1.5, size=(shape[0],) + (1,) * (len(shape) - 1))).astype(np.float32)

    def norm(*n):
        return (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)

    def bias(n):
        return (0.1 * rng.standard_normal(n)).astype(np.float32)

    if mt == "falcon":  # multi_query: [H query heads; 1 key; 1 value] rows; ffn_hidden_size 4 d
        F = 4 * d
        t = [("transformer.word_embeddings.weight", w(V, d, s=1.0))]
        for l in range(L):
            p = f"transformer.h.{l}."
            t += [(p + "input_layernorm.weight", norm(d)), (p + "input_layernorm.bias", bias(d)),
                  (p + "self_attention.query_key_value.weight", w((H + 2) * hd, d)),
                  (p + "self_attention.dense.weight", w(d, H * hd)),
                  (p + "mlp.dense_h_to_4h.weight", w(F, d)), (p + "mlp.dense_4h_to_h.weight", w(d, F))]
        return t + [("transformer.ln_f.weight", norm(d)), ("transformer.ln_f.bias", bias(d))]
    K, F = cfg["num_key_value_heads"], cfg["intermediate_size"]
    t = [("model.embed_tokens.weight", w(V, d, s=1.0))]
    for l in range(L):
        p = f"model.layers.{l}."
        t += [(p + "input_layernorm.weight", norm(d))]
        if mt == "phimoe":
            t += [(p + "input_layernorm.bias", bias(d))]
        for m, n in (("q", H * hd), ("k", K * hd), ("v", K * hd)):
            t += [(p + f"self_attn.{m}_proj.weight", w(n, d))]
            if cfg.get("attention_bias"):
                t += [(p + f"self_attn.{m}_proj.bias", w(n, s=0.3))]
        t += [(p + "self_attn.o_proj.weight", w(d, H * hd))]
        if cfg.get("attention_bias"):
            t += [(p + "self_attn.o_proj.bias", w(d, s=0.3))]
        if cfg.get("use_qk_norm"):  # CohereLayerNorm((heads, head_dim)): one weight row per head
            t += [(p + "self_attn.q_norm.weight", norm(H, hd)), (p + "self_attn.k_norm.weight", norm(K, hd))]
        if mt == "phimoe":
            E = cfg["num_local_experts"]
            t += [(p + "post_attention_layernorm.weight", norm(d)), (p + "post_attention_layernorm.bias", bias(d)),
                  (p + "block_sparse_moe.gate.weight", w(E, d, s=1.0))]
            for e in range(E):
                x = p + f"block_sparse_moe.experts.{e}."
                t += [(x + "w1.weight", w(F, d)), (x + "w2.weight", w(d, F)), (x + "w3.weight", w(F, d))]
        else:
            t += [(p + "mlp.gate_proj.weight", w(F, d)), (p + "mlp.up_proj.weight", w(F, d)), (p + "mlp.down_proj.weight", w(d, F))]
    t += [("model.norm.weight", norm(d))]
    if mt == "phimoe":
        t += [("model.norm.bias", bias(d)), ("lm_head.weight", w(V, d)), ("lm_head.bias", bias(V))]
    return t


def main_parallel():
    write_seeded_models(PARALLEL_CONFIGS, lambda name, cfg, rng: parallel_model(cfg, rng))


if __name__ == "__main__":
    main()
    main_fused()
    main_moe19l()
    main_19k()
    main_parallel()
