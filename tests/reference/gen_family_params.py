#!/usr/bin/python3
"""Independent reference for nsc's Hugging Face reader and deployment accounting.

For every bundled config (examples/configs/*.json) this script lists the parameter tensors the
transformers modeling file of its model_type instantiates (name, shape, role), by its own code
written from the modeling files (LlamaForCausalLM, Gemma2/3, Phi3, Qwen3, Qwen2Moe, Qwen3Moe,
DeepseekV2/V3 (remote code modeling_deepseek.py), GPTNeoX, Olmo2, DeciLM, GPT2, BERT, OPT), and
from that list alone derives

  params_total, params_active (MoE: top-k routed experts + shared experts), and, at the workload
  below, KV-cache bytes, weight bytes per dtype, FLOPs of decode and prefill,

by the conventions stated in docs/reference.md "Conventions: params, FLOPs, KV cache, memory":
  * FLOPs = 2 x MACs. Linear MACs per token = out x in of every matmul weight actually used by a
    token (MoE: top-k of the routed experts + shared experts + the router; a tied LM head counts);
    embedding lookups are free.
  * attention products per attended key: n_heads (d_qk + d_v) MACs (QK^T and AV); a query at
    position p attends min(p, W) keys causally (W the sliding window, else infinity); "full"
    attention attends min(T, W) keys for every query (the paper's LoNAS convention).
    Decode of one token at context C attends min(C, W) keys.
  * KV cache per token and layer: 2 x n_kv x head_dim elements (MLA: kv_lora_rank +
    qk_rope_head_dim), none for no-op / linear attention; a sliding-window layer caches at most
    W tokens; total = batch x sum over layers of min(C, W) x per-token bytes.
    BERT's pooler runs once per prefill (not per token).
  * weight bytes: fp32 4, bf16/fp16 2 per parameter; fp8/int8: attention/FFN matrices 1 byte per
    element, int4: 0.5 byte per element (packed per matrix, rounded up) plus one fp16 scale per
    group of 128 input elements of each row; embeddings, LM head, routers, norms and biases stay
    at 2 bytes for the quantised dtypes.

Published totals (model cards / safetensors metadata) are checked here too; where they differ
from the instantiated count the reason is computed (DeepSeek-V3: MTP layer + fp8 scales).
Writes tests/reference/family_params.json. Run: /usr/bin/python3 tests/reference/gen_family_params.py
"""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CONFIGS = os.path.join(ROOT, "examples", "configs")

# role: "mat" quantisable matrix (attention / FFN / other Linear), "embed", "head", "router",
# "norm", "bias". Each entry: (name, shape, role, copies, active_copies, is_matmul)


class Model:
    def __init__(self):
        self.p = []          # (name, out, in, role, copies, active, matmul)
        self.layers = []     # per decoder layer: dict(kv_elems, per_key, window)

    def lin(self, name, out, inp, role="mat", bias=False, copies=1, active=None, matmul=True):
        a = copies if active is None else active
        self.p.append((name, out, inp, role, copies, a, matmul))
        if bias:
            self.p.append((name + ".bias", out, 1, "bias", copies, a, False))

    def norm(self, name, n, bias=False):
        self.p.append((name, n, 1, "norm", 1, 1, False))
        if bias:
            self.p.append((name + ".bias", n, 1, "norm", 1, 1, False))

    def total(self):
        return sum(o * i * c for (_, o, i, _, c, _, _) in self.p)

    def active(self):
        return sum(o * i * a for (_, o, i, _, _, a, _) in self.p)

    def linear_macs(self):
        return sum(o * i * a for (_, o, i, _, _, a, m) in self.p if m)

    def weight_bytes(self, dtype):
        if dtype in ("fp32",):
            return 4 * self.total()
        if dtype in ("bf16", "fp16"):
            return 2 * self.total()
        b = 0
        for (_, o, i, role, c, _, _) in self.p:
            if role != "mat":
                b += 2 * o * i * c
            elif dtype in ("fp8", "int8"):
                b += o * i * c
            elif dtype == "int4":
                b += c * ((o * i + 1) // 2 + 2 * o * ((i + 127) // 128))
            else:
                raise ValueError(dtype)
        return b


def g(c, k, d=None):
    v = c.get(k)
    return d if v is None else v


def llama_like(c, t):
    """LlamaForCausalLM and its relatives, written from each modeling file."""
    m = Model()
    d = c["hidden_size"]
    L = c["num_hidden_layers"]
    H = c["num_attention_heads"]
    kv = g(c, "num_key_value_heads", H)
    hd_default = {"gemma": 256, "gemma2": 256, "gemma3_text": 256, "qwen3": 128, "qwen3_moe": 128}.get(t)
    hd = g(c, "head_dim", hd_default if hd_default else d // H)
    if t == "phi3":
        hd = d // H
    V = c["vocab_size"]
    tie = g(c, "tie_word_embeddings", t.startswith("gemma"))
    ab = g(c, "attention_bias", False)
    qkv_b = ab or t in ("qwen2", "qwen2_moe")
    o_b = ab
    mlp_b = g(c, "mlp_bias", False) if t == "llama" else False
    m.lin("embed_tokens", V, d, "embed", matmul=False)
    # sliding layers
    W = g(c, "sliding_window")
    lt = c.get("layer_types")
    sliding = [False] * L
    if lt:
        sliding = [x == "sliding_attention" for x in lt]
    elif t in ("mistral", "mixtral", "phi3") and W:
        sliding = [True] * L
    elif t in ("qwen2", "qwen3", "qwen2_moe", "qwen3_moe") and g(c, "use_sliding_window", False):
        sliding = [i >= g(c, "max_window_layers", 0) for i in range(L)]
    elif t == "gemma2":
        sliding = [i % 2 == 0 for i in range(L)]
    elif t == "gemma3_text":
        pat = g(c, "sliding_window_pattern", 6)
        sliding = [(i + 1) % pat != 0 for i in range(L)]
    for i in range(L):
        pre = "layers.%d." % i
        if t == "phi3":  # fused qkv_proj and gate_up_proj: split here only by role
            m.lin(pre + "qkv_proj", (H + 2 * kv) * hd, d, bias=False)
        else:
            m.lin(pre + "q_proj", H * hd, d, bias=qkv_b)
            m.lin(pre + "k_proj", kv * hd, d, bias=qkv_b)
            m.lin(pre + "v_proj", kv * hd, d, bias=qkv_b)
        m.lin(pre + "o_proj", d, H * hd, bias=o_b)
        if t in ("qwen3", "qwen3_moe", "gemma3_text"):
            m.norm(pre + "q_norm", hd)
            m.norm(pre + "k_norm", hd)
        if t == "olmo2":
            m.norm(pre + "q_norm", H * hd)
            m.norm(pre + "k_norm", kv * hd)
        n_norms = 4 if t in ("gemma2", "gemma3_text") else 2
        for j in range(n_norms):
            m.norm(pre + "norm%d" % j, d)
        moe = False
        if t == "mixtral":
            E, k, w = c["num_local_experts"], c["num_experts_per_tok"], c["intermediate_size"]
            m.lin(pre + "gate", E, d, "router")
            for nm in ("w1", "w3"):
                m.lin(pre + "experts." + nm, w, d, copies=E, active=k)
            m.lin(pre + "experts.w2", d, w, copies=E, active=k)
            moe = True
        elif t in ("qwen2_moe", "qwen3_moe"):
            E = g(c, "num_experts", 0)
            step = g(c, "decoder_sparse_step", 1)
            if i not in g(c, "mlp_only_layers", []) and E > 0 and (i + 1) % step == 0:
                k, w = c["num_experts_per_tok"], c["moe_intermediate_size"]
                m.lin(pre + "gate", E, d, "router")
                m.lin(pre + "experts.gate_proj", w, d, copies=E, active=k)
                m.lin(pre + "experts.up_proj", w, d, copies=E, active=k)
                m.lin(pre + "experts.down_proj", d, w, copies=E, active=k)
                if t == "qwen2_moe":
                    s = c["shared_expert_intermediate_size"]
                    m.lin(pre + "shared_expert.gate_proj", s, d)
                    m.lin(pre + "shared_expert.up_proj", s, d)
                    m.lin(pre + "shared_expert.down_proj", d, s)
                    m.lin(pre + "shared_expert_gate", 1, d, "router")
                moe = True
        if not moe:
            w = c["intermediate_size"]
            if t == "phi3":
                m.lin(pre + "gate_up_proj", 2 * w, d)
            else:
                m.lin(pre + "gate_proj", w, d, bias=mlp_b)
                m.lin(pre + "up_proj", w, d, bias=mlp_b)
            m.lin(pre + "down_proj", d, w, bias=mlp_b)
        m.layers.append(dict(kv_elems=2 * kv * hd, per_key=2 * H * hd, window=W if sliding[i] else None))
    m.norm("norm", d)
    if tie:  # a tied head costs its MACs but no parameters
        m.tied_head_macs = V * d
    else:
        m.lin("lm_head", V, d, "head")
    return m


def deepseek(c, t):
    """modeling_deepseek.py (DeepseekV2 / DeepseekV3ForCausalLM), MTP layers not instantiated."""
    m = Model()
    d, L, H, V = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"], c["vocab_size"]
    ql, kl = c.get("q_lora_rank"), c["kv_lora_rank"]
    nope, rope, vd = c["qk_nope_head_dim"], c["qk_rope_head_dim"], c["v_head_dim"]
    m.lin("embed_tokens", V, d, "embed", matmul=False)
    for i in range(L):
        pre = "layers.%d." % i
        if ql:
            m.lin(pre + "q_a_proj", ql, d)
            m.norm(pre + "q_a_layernorm", ql)
            m.lin(pre + "q_b_proj", H * (nope + rope), ql)
        else:
            m.lin(pre + "q_proj", H * (nope + rope), d)
        m.lin(pre + "kv_a_proj_with_mqa", kl + rope, d)
        m.norm(pre + "kv_a_layernorm", kl)
        m.lin(pre + "kv_b_proj", H * (nope + vd), kl)
        m.lin(pre + "o_proj", d, H * vd)
        m.norm(pre + "input_layernorm", d)
        m.norm(pre + "post_attention_layernorm", d)
        E = c.get("n_routed_experts")
        if E is not None and i >= g(c, "first_k_dense_replace", 0) and i % g(c, "moe_layer_freq", 1) == 0:
            k, w = c["num_experts_per_tok"], c["moe_intermediate_size"]
            m.lin(pre + "gate.weight", E, d, "router")
            if c.get("topk_method") == "noaux_tc":
                m.p.append((pre + "gate.e_score_correction_bias", E, 1, "bias", 1, 1, False))
            for nm in ("gate_proj", "up_proj"):
                m.lin(pre + "experts." + nm, w, d, copies=E, active=k)
            m.lin(pre + "experts.down_proj", d, w, copies=E, active=k)
            ns = g(c, "n_shared_experts", 0)
            if ns:
                s = w * ns
                m.lin(pre + "shared_experts.gate_proj", s, d)
                m.lin(pre + "shared_experts.up_proj", s, d)
                m.lin(pre + "shared_experts.down_proj", d, s)
        else:
            w = c["intermediate_size"]
            m.lin(pre + "mlp.gate_proj", w, d)
            m.lin(pre + "mlp.up_proj", w, d)
            m.lin(pre + "mlp.down_proj", d, w)
        m.layers.append(dict(kv_elems=kl + rope, per_key=H * (nope + rope + vd), window=None))
    m.norm("norm", d)
    m.lin("lm_head", V, d, "head")
    return m


def gpt_neox(c, t):
    m = Model()
    d, L, H, V, w = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"], c["vocab_size"], c["intermediate_size"]
    ab = g(c, "attention_bias", True)
    m.lin("embed_in", V, d, "embed", matmul=False)
    for i in range(L):
        pre = "layers.%d." % i
        m.norm(pre + "input_layernorm", d, bias=True)
        m.norm(pre + "post_attention_layernorm", d, bias=True)
        m.lin(pre + "attention.query_key_value", 3 * d, d, bias=ab)
        m.lin(pre + "attention.dense", d, d, bias=ab)
        m.lin(pre + "mlp.dense_h_to_4h", w, d, bias=True)
        m.lin(pre + "mlp.dense_4h_to_h", d, w, bias=True)
        m.layers.append(dict(kv_elems=2 * d, per_key=2 * d, window=None))
    m.norm("final_layer_norm", d, bias=True)
    if g(c, "tie_word_embeddings", False):
        m.tied_head_macs = V * d
    else:
        m.lin("embed_out", V, d, "head")
    return m


def deci(c, t):
    """DeciLM (nemotron-nas) modeling_decilm.py."""
    m = Model()
    d, L, H, V = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"], c["vocab_size"]
    hd = d // H
    m.lin("embed_tokens", V, d, "embed", matmul=False)
    for i, bc in enumerate(c["block_configs"]):
        pre = "layers.%d." % i
        a, f = bc["attention"], bc["ffn"]
        kv_elems = per_key = 0
        win = None
        if not a.get("no_op"):
            m.norm(pre + "input_layernorm", d)
            if a.get("replace_with_linear"):
                m.lin(pre + "self_attn.linear_attn", d, d)
            else:
                kv = H // a["n_heads_in_group"]
                m.lin(pre + "q_proj", H * hd, d)
                m.lin(pre + "k_proj", kv * hd, d)
                m.lin(pre + "v_proj", kv * hd, d)
                m.lin(pre + "o_proj", d, H * hd)
                kv_elems, per_key = 2 * kv * hd, 2 * H * hd
                win = a.get("window_length")
        if not f.get("no_op"):
            m.norm(pre + "post_attention_layernorm", d)
            if f.get("replace_with_linear"):
                m.lin(pre + "mlp.linear_mlp", d, d)
            else:
                if f.get("intermediate_size") is not None:
                    w = f["intermediate_size"]
                else:
                    w = int(2 * f["ffn_mult"] * d / 3)
                    if w % 256:
                        w += 256 - w % 256
                m.lin(pre + "gate_proj", w, d)
                m.lin(pre + "up_proj", w, d)
                m.lin(pre + "down_proj", d, w)
        m.layers.append(dict(kv_elems=kv_elems, per_key=per_key, window=win))
    m.norm("norm", d)
    m.lin("lm_head", V, d, "head")
    return m


def gpt2(c, t):
    m = Model()
    d, L, H, V, P = c["n_embd"], c["n_layer"], c["n_head"], c["vocab_size"], c["n_positions"]
    w = g(c, "n_inner", 4 * d)
    m.lin("wte", V, d, "embed", matmul=False)
    m.lin("wpe", P, d, "embed", matmul=False)
    for i in range(L):
        pre = "h.%d." % i
        m.norm(pre + "ln_1", d, bias=True)
        m.lin(pre + "attn.c_attn", 3 * d, d, bias=True)
        m.lin(pre + "attn.c_proj", d, d, bias=True)
        m.norm(pre + "ln_2", d, bias=True)
        m.lin(pre + "mlp.c_fc", w, d, bias=True)
        m.lin(pre + "mlp.c_proj", d, w, bias=True)
        m.layers.append(dict(kv_elems=2 * d, per_key=2 * d, window=None))
    m.norm("ln_f", d, bias=True)
    m.tied_head_macs = V * d
    return m


def bert(c, t):
    m = Model()
    d, L, V, P, w = c["hidden_size"], c["num_hidden_layers"], c["vocab_size"], c["max_position_embeddings"], c["intermediate_size"]
    m.lin("word_embeddings", V, d, "embed", matmul=False)
    m.lin("position_embeddings", P, d, "embed", matmul=False)
    m.lin("token_type_embeddings", g(c, "type_vocab_size", 2), d, "embed", matmul=False)
    m.norm("embeddings.LayerNorm", d, bias=True)
    for i in range(L):
        pre = "layer.%d." % i
        for nm in ("query", "key", "value"):
            m.lin(pre + nm, d, d, bias=True)
        m.lin(pre + "attention.output.dense", d, d, bias=True)
        m.norm(pre + "attention.output.LayerNorm", d, bias=True)
        m.lin(pre + "intermediate.dense", w, d, bias=True)
        m.lin(pre + "output.dense", d, w, bias=True)
        m.norm(pre + "output.LayerNorm", d, bias=True)
        m.layers.append(dict(kv_elems=2 * d, per_key=2 * d, window=None))
    m.lin("pooler.dense", d, d, bias=True, matmul=False)  # once per sequence: not a per-token MAC
    m.per_sequence_macs = d * d
    return m


def opt(c, t):
    m = Model()
    d, L, V, w = c["hidden_size"], c["num_hidden_layers"], c["vocab_size"], c["ffn_dim"]
    P = c["max_position_embeddings"] + 2
    e = g(c, "word_embed_proj_dim", d)
    b = g(c, "enable_bias", True)
    ln = g(c, "layer_norm_elementwise_affine", True)
    m.lin("embed_tokens", V, e, "embed", matmul=False)
    m.lin("embed_positions", P, d, "embed", matmul=False)
    if e != d:
        m.lin("project_in", d, e)
        m.lin("project_out", e, d)
    for i in range(L):
        pre = "layers.%d." % i
        for nm in ("q_proj", "k_proj", "v_proj", "out_proj"):
            m.lin(pre + nm, d, d, bias=b)
        if ln:
            m.norm(pre + "self_attn_layer_norm", d, bias=True)
            m.norm(pre + "final_layer_norm", d, bias=True)
        m.lin(pre + "fc1", w, d, bias=b)
        m.lin(pre + "fc2", d, w, bias=b)
        m.layers.append(dict(kv_elems=2 * d, per_key=2 * d, window=None))
    if g(c, "do_layer_norm_before", True) and not g(c, "_remove_final_layer_norm", False) and ln:
        m.norm("final_layer_norm", d, bias=True)
    m.tied_head_macs = V * e
    return m



# ---------------------------------------------------------------------------------------------
# Issue 18a: families that need at most small structural additions (one table entry each in
# nsc's hf_families()), their multi-token-prediction (MTP) modules, and the stored bytes of
# quantised checkpoints. Written from the modeling files (transformers: granite, granitemoe,
# smollm3, ministral / mistral, glm4, glm4_moe, minimax_m2, olmoe, phimoe, starcoder2; remote
# code: MiMo's modeling_mimo.py, DeepSeek-V3 / Kimi K2's modeling_deepseek.py) and the
# quantizers' storage layouts (transformers FP8 / MXFP4, AutoAWQ, AutoGPTQ, compressed-tensors).
# ---------------------------------------------------------------------------------------------
ATTN_NAMES = ("q_proj", "k_proj", "v_proj", "o_proj", "q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj")


def family_18a(c, t):
    """One decoder of the issue-18a families, parameter by parameter."""
    if t == "kimi_k2":
        return deepseek(c, t)
    m = Model()
    d, L, H, V = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"], c["vocab_size"]
    kv = g(c, "num_key_value_heads", H)
    hd = d // H if t in ("olmoe", "phimoe", "starcoder2") else g(c, "head_dim", d // H)
    tie = g(c, "tie_word_embeddings", t in ("smollm3", "starcoder2"))
    layer_norm = t in ("phimoe", "starcoder2")  # LayerNorm: weight and bias
    ab = g(c, "attention_bias", False)
    if t == "starcoder2":
        qkv_b = o_b = mlp_b = g(c, "use_bias", True)
    elif t in ("glm4", "glm4_moe"):
        qkv_b, o_b, mlp_b = ab, False, False
    elif t == "mimo":  # Qwen2Attention: q, k, v biased, o not
        qkv_b, o_b, mlp_b = True, False, False
    elif t in ("minimax_m2",):
        qkv_b = o_b = mlp_b = False
    else:
        qkv_b = o_b = ab
        mlp_b = g(c, "mlp_bias", False) if t in ("granite", "smollm3") else False
    W = g(c, "sliding_window")
    window_every = t in ("ministral", "ministral3", "phimoe", "starcoder2") and W
    # MinistralConfig (issue 18h): layer_types, when given, picks each layer (default: every layer
    # sliding_attention when sliding_window is set)
    lt = c.get("layer_types") if t in ("ministral", "ministral3") else None
    m.lin("embed_tokens", V, d, "embed", matmul=False)

    def block(pre, i, with_kv=True):
        m.lin(pre + "self_attn.q_proj", H * hd, d, bias=qkv_b)
        m.lin(pre + "self_attn.k_proj", kv * hd, d, bias=qkv_b)
        m.lin(pre + "self_attn.v_proj", kv * hd, d, bias=qkv_b)
        m.lin(pre + "self_attn.o_proj", d, H * hd, bias=o_b)
        if t == "glm4_moe" and g(c, "use_qk_norm", False):
            m.norm(pre + "self_attn.q_norm", hd)
            m.norm(pre + "self_attn.k_norm", hd)
        if (t == "minimax_m2" and g(c, "use_qk_norm", False)) or t == "olmoe":
            m.norm(pre + "self_attn.q_norm", H * hd)
            m.norm(pre + "self_attn.k_norm", kv * hd)
        for nm in (("input_layernorm", "post_self_attn_layernorm", "post_attention_layernorm", "post_mlp_layernorm")
                   if t == "glm4" else ("input_layernorm", "post_attention_layernorm")):
            m.norm(pre + nm, d, bias=layer_norm)
        if t == "glm4_moe" and i >= g(c, "first_k_dense_replace", 0):
            E, k, w = c["n_routed_experts"], c["num_experts_per_tok"], c["moe_intermediate_size"]
            m.lin(pre + "mlp.gate.weight", E, d, "router")
            m.p.append((pre + "mlp.gate.e_score_correction_bias", E, 1, "bias", 1, 1, False))
            for nm in ("gate_proj", "up_proj"):
                m.lin(pre + "mlp.experts." + nm, w, d, copies=E, active=k)
            m.lin(pre + "mlp.experts.down_proj", d, w, copies=E, active=k)
            s = w * g(c, "n_shared_experts", 0)
            if s:
                m.lin(pre + "mlp.shared_experts.gate_proj", s, d)
                m.lin(pre + "mlp.shared_experts.up_proj", s, d)
                m.lin(pre + "mlp.shared_experts.down_proj", d, s)
        elif t in ("minimax_m2", "phimoe", "olmoe"):
            E = c["num_experts"] if t == "olmoe" else c["num_local_experts"]
            k, w = c["num_experts_per_tok"], c["intermediate_size"]
            m.lin(pre + "block_sparse_moe.gate", E, d, "router")
            if t == "minimax_m2" and g(c, "use_routing_bias", False):
                m.p.append((pre + "block_sparse_moe.e_score_correction_bias", E, 1, "bias", 1, 1, False))
            m.lin(pre + "block_sparse_moe.experts.w1", w, d, copies=E, active=k)
            m.lin(pre + "block_sparse_moe.experts.w3", w, d, copies=E, active=k)
            m.lin(pre + "block_sparse_moe.experts.w2", d, w, copies=E, active=k)
        elif t == "granitemoe":
            E, k, w = c["num_local_experts"], c["num_experts_per_tok"], c["intermediate_size"]
            m.lin(pre + "block_sparse_moe.router.layer", E, d, "router")
            m.lin(pre + "block_sparse_moe.experts.input_linear", 2 * w, d, copies=E, active=k)
            m.lin(pre + "block_sparse_moe.experts.output_linear", d, w, copies=E, active=k)
        elif t == "starcoder2":
            w = c["intermediate_size"]
            m.lin(pre + "mlp.c_fc", w, d, bias=mlp_b)
            m.lin(pre + "mlp.c_proj", d, w, bias=mlp_b)
        else:
            w = c["intermediate_size"]
            m.lin(pre + "mlp.gate_proj", w, d, bias=mlp_b)
            m.lin(pre + "mlp.up_proj", w, d, bias=mlp_b)
            m.lin(pre + "mlp.down_proj", d, w, bias=mlp_b)
        if with_kv:
            sliding = window_every and (lt is None or i >= len(lt) or lt[i] == "sliding_attention")
            m.layers.append(dict(kv_elems=2 * kv * hd, per_key=2 * H * hd, window=W if sliding else None))

    for i in range(L):
        block("layers.%d." % i, i)
    m.norm("norm", d, bias=layer_norm)
    if tie:
        m.tied_head_macs = V * d
    else:
        m.lin("lm_head", V, d, "head", bias=t == "phimoe" and g(c, "lm_head_bias", False))
    m.block = block  # for the MTP module
    return m


def mtp_18a(c, t):
    """Parameters of the MTP modules (num_nextn_predict_layers), the shared embedding and head
    not counted: per module the decoder block of layer index L (DeepSeek / GLM: a MoE layer;
    MiMo: a dense Qwen2 layer), eh_proj / input_proj Linear(2d -> d) and 3 RMSNorms (DeepSeek,
    GLM: enorm, hnorm, shared_head.norm; MiMo: token_layernorm, hidden_layernorm,
    final_layernorm). Also returns the block's KV elements per token and its matrices."""
    n = g(c, "num_nextn_predict_layers", 0)
    if not n:
        return None
    one = dict(c)
    L = c["num_hidden_layers"]
    one["num_hidden_layers"] = L + 1
    full = READERS[t](one, t)
    base = READERS[t](c, t)
    block = [p for p in full.p if p[0].startswith("layers.%d." % L)]
    d = c["hidden_size"]
    per = sum(o * i * cp for (_, o, i, _, cp, _, _) in block) + 2 * d * d + 3 * d
    act = sum(o * i * a for (_, o, i, _, _, a, _) in block) + 2 * d * d + 3 * d
    return dict(modules=n, params=n * per, params_active=n * act,
                kv_bytes_per_token=n * 2 * full.layers[L]["kv_elems"], block=block)


def role_18a(name, role):
    """nsc's weight roles for a quantisation scheme."""
    if role in ("embed", "head", "router"):
        return {"embed": "embedding", "head": "head", "router": "router"}[role]
    if role != "mat":
        return "plain"
    if "shared_expert" in name:
        return "shared_experts"
    if "experts." in name:
        return "experts"
    if any(name.endswith(a) for a in ATTN_NAMES) or "self_attn" in name or "query_key_value" in name:
        return "attention"
    return "dense_ffn"


def stored_bytes(m, q, plain=2):
    """Bytes of a checkpoint stored with scheme q (a dict: bits, pack 'elements' | 'int32_in' |
    'int32_out', block (rows, cols) with 0 = whole dimension, scale bytes, zero bits, g_idx,
    per-matrix extra bytes, the quantised roles); everything else at `plain` bytes."""
    total = 0
    for (name, o, i, role, cp, _, _) in m.p:
        r = role_18a(name, role)
        if r not in q["roles"]:
            total += plain * o * i * cp
            continue
        bits = q["bits"]
        if q["pack"] == "elements":
            packed = -(-o * i * bits // 8)
        elif q["pack"] == "int32_in":
            packed = o * 4 * -(-i * bits // 32)
        else:
            packed = i * 4 * -(-o * bits // 32)
        br, bc = q["block"]
        rows = -(-o // br) if br else 1
        cols = -(-i // bc) if bc else 1
        one = packed + rows * cols * q["scale"]
        if q.get("zero"):
            one += cols * 4 * -(-rows * q["zero"] // 32)
        if q.get("g_idx"):
            one += 4 * i
        one += q.get("extra", 0)
        total += cp * one
    return total


# Quantisation schemes of the tests: name -> (config file, nsc-visible scheme as above)
ALL_MATS = ("attention", "dense_ffn", "experts", "shared_experts")
QUANT_CASES = {
    # DeepSeek-V3 as published: fp8 e4m3, one float32 weight_scale_inv per 128 x 128 block
    "deepseek-v3": dict(bits=8, pack="elements", block=(128, 128), scale=4, roles=ALL_MATS),
    "kimi-k2-instruct": dict(bits=8, pack="elements", block=(128, 128), scale=4, roles=ALL_MATS),
    # MiniMax-M2: fp8 blocks, modules_to_not_convert gate, e_score_correction_bias, lm_head
    "minimax-m2.7": dict(bits=8, pack="elements", block=(128, 128), scale=4, roles=ALL_MATS),
}
# Synthetic quantization_config variants on bundled configs (tests/test_hf_families.cpp builds
# the same configs): AWQ gemm int4 group 128 with zero points (fp16 scales, qzeros int32 along
# the output), GPTQ int4 group 128 (qweight int32 along the input, qzeros, fp16 scales, g_idx),
# compressed-tensors pack-quantized int4 group 32 (weight_packed, bf16 scales, weight_shape),
# compressed-tensors float-quantized fp8 per channel, mxfp4 (experts only, e8m0 per 32).
SYNTHETIC_QUANT = {
    "awq": ("qwen3-8b", dict(bits=4, pack="int32_out", block=(1, 128), scale=2, zero=4, roles=ALL_MATS)),
    "gptq": ("qwen3-8b", dict(bits=4, pack="int32_in", block=(1, 128), scale=2, zero=4, g_idx=True, roles=ALL_MATS)),
    "ct_w4a16": ("qwen3-30b-a3b", dict(bits=4, pack="int32_in", block=(1, 32), scale=2, extra=16,
                                        roles=ALL_MATS + ("other",))),
    "ct_fp8_channel": ("llama-3-8b", dict(bits=8, pack="elements", block=(1, 0), scale=2, roles=ALL_MATS)),
    "mxfp4": ("mixtral-8x7b", dict(bits=4, pack="elements", block=(1, 32), scale=1, roles=("experts",))),
}

# Published exact totals of the issue-18a bundles, and their scope. (name -> (total, scope))
PUBLISHED_18A = {
    # ibm-granite/granite-3.3-8b-instruct: the hub's safetensors.total (tied embeddings)
    "granite-3.3-8b-instruct": (8170864640, "hub safetensors.total"),
    # HuggingFaceTB/SmolLM3-3B: the hub's safetensors.total; its index: total_size 6,150,197,248 = 2 x
    "smollm3-3b": (3075098624, "hub safetensors.total"),
    # ibm-granite/granite-3.1-1b-a400m-instruct: model.safetensors.index.json total_size
    # 5,338,513,408 bytes of float32 (torch_dtype float32)
    "granite-3.1-1b-a400m-instruct": (1334628352, "index total_size / 4 (float32)"),
    # zai-org/GLM-5: the hub's safetensors total as a public model table lists it (total_params
    # 753,864,139,008): the model (78 indexer layers) + its MTP layer 78 (with its indexer; the
    # embedding and head are shared, not stored again)
    "glm-5": (753864139008, "hub safetensors total: model + 1 MTP module"),
    # XiaomiMiMo MiMo-7B: model.safetensors.index.json total_size 15,666,819,072 bytes of bf16, which
    # holds the main model and its MTP module (model.mtp_layers.0)
    "mimo-7b": (7833409536, "index total_size / 2 (bf16): main model + 1 MTP module"),
    # zai-org/GLM-4.5-Air: the hub's safetensors.total counts layer 46 (the MTP module) with its
    # own embed_tokens and shared_head.head copies; the model without MTP (106,852,251,264) is
    # PrimeIntellect/INTELLECT-3's hub total
    "glm-4.5-air": (110468824832, "hub safetensors.total: main model + 1 MTP module + its embedding and head copies"),
    # MiniMaxAI/MiniMax-M2.7: the hub's safetensors.total (the MTP modules are not in the checkpoint)
    "minimax-m2.7": (228689764864, "hub safetensors.total"),
    # microsoft/Phi-3.5-MoE-instruct: the hub's total (as quoted with Phi-3.5-mini's 3,821,079,552)
    "phi-3.5-moe-instruct": (41873153344, "hub safetensors.total"),
    # allenai/OLMoE-1B-7B-0924-Instruct: parameterCount of its safetensors headers
    "olmoe-1b-7b-0924-instruct": (6919161856, "safetensors headers parameterCount"),
}

# ---------------------------------------------------------------------------------------------
# Issue 18 (part b): state-space layers. Written from transformers' / NVIDIA's modeling files:
#   NemotronHForCausalLM (modeling_nemotron_h.py): backbone.embeddings, per layer one RMSNorm
#   (norm) and one mixer picked by hybrid_override_pattern ('M' NemotronHMamba2Mixer, '*'
#   NemotronHAttention, '-' NemotronHMLP (up_proj, down_proj; relu2)), norm_f, lm_head.
#   NemotronHMamba2Mixer: in_proj Linear(d, I + conv_dim + H) (z, xBC, dt), conv1d depthwise
#   Conv1d(conv_dim, conv_dim, K, groups=conv_dim) + bias (use_conv_bias), dt_bias, A_log, D (H
#   each), norm MambaRMSNormGated(I), out_proj Linear(I, d); I = H P, conv_dim = I + 2 G N.
# Layer dicts carry the fixed-size state per sequence: conv_state = conv_dim (K - 1) (vLLM's
# conv cache), ssm_state = H P N; state_macs per token = conv_dim K + 2 H P N (depthwise conv
# taps; outer product x B^T and readout C^T h of the recurrent form).
# ---------------------------------------------------------------------------------------------
def mamba2_mixer(m, pre, d, H, P, N, G, K, conv_bias, bias):
    I = H * P
    conv_dim = I + 2 * G * N
    m.lin(pre + "in_proj", I + conv_dim + H, d, bias=bias)
    m.p.append((pre + "conv1d.weight", conv_dim, K, "conv", 1, 1, False))
    if conv_bias:
        m.p.append((pre + "conv1d.bias", conv_dim, 1, "conv", 1, 1, False))
    for n in ("dt_bias", "A_log", "D"):
        m.p.append((pre + n, H, 1, "conv", 1, 1, False))
    m.norm(pre + "norm", I)
    m.lin(pre + "out_proj", d, I, bias=bias)
    return dict(kv_elems=0, per_key=0, window=None, conv_state=conv_dim * (K - 1), ssm_state=H * P * N,
                state_macs=conv_dim * K + 2 * H * P * N)


def nemotron_h(c, t):
    m = Model()
    d, V = c["hidden_size"], g(c, "vocab_size", 131072)
    h, kv = c["num_attention_heads"], g(c, "num_key_value_heads", c["num_attention_heads"])
    hd = g(c, "attention_head_dim", g(c, "head_dim", d // h))
    pattern = c["hybrid_override_pattern"]
    assert len(pattern) == c["num_hidden_layers"]
    ab, mb = g(c, "attention_bias", False), g(c, "mlp_bias", False)
    m.lin("embeddings", V, d, role="embed", matmul=False)
    for i, ch in enumerate(pattern):
        pre = "layers.%d.mixer." % i
        m.norm("layers.%d.norm" % i, d)
        if ch == "M":
            m.layers.append(mamba2_mixer(m, pre, d, c["mamba_num_heads"], c["mamba_head_dim"], c["ssm_state_size"],
                                         c["n_groups"], c["conv_kernel"], g(c, "use_conv_bias", True),
                                         g(c, "use_bias", False)))
        elif ch == "*":
            m.lin(pre + "q_proj", h * hd, d, bias=ab)
            m.lin(pre + "k_proj", kv * hd, d, bias=ab)
            m.lin(pre + "v_proj", kv * hd, d, bias=ab)
            m.lin(pre + "o_proj", d, h * hd, bias=ab)
            m.layers.append(dict(kv_elems=2 * kv * hd, per_key=2 * h * hd, window=None))
        elif ch == "-":
            m.lin(pre + "up_proj", c["intermediate_size"], d, bias=mb)
            m.lin(pre + "down_proj", d, c["intermediate_size"], bias=mb)
            m.layers.append(dict(kv_elems=0, per_key=0, window=None))
        else:
            raise ValueError(ch)
    m.norm("norm_f", d)
    if g(c, "tie_word_embeddings", False):
        m.tied_head_macs = V * d
    else:
        m.lin("lm_head", V, d, role="head")
    return m


def gated_deltanet_mixer(m, pre, c, d):
    """Qwen3NextGatedDeltaNet (modeling_qwen3_next.py): in_proj_qkvz Linear(d, 2 key_dim + 2 value_dim),
    in_proj_ba Linear(d, 2 HV), conv1d depthwise over conv_dim = 2 key_dim + value_dim (kernel K, no
    bias), dt_bias and A_log (HV), norm RMSNormGated(dv), out_proj Linear(value_dim, d); no biases.
    State per sequence: conv_dim (K - 1) conv + HV dk dv recurrent; MACs: conv_dim K + 3 HV dk dv."""
    HK, dk = c["linear_num_key_heads"], c["linear_key_head_dim"]
    HV, dv = c["linear_num_value_heads"], c["linear_value_head_dim"]
    K = g(c, "linear_conv_kernel_dim", 4)
    key_dim, value_dim = HK * dk, HV * dv
    conv_dim = 2 * key_dim + value_dim
    m.lin(pre + "in_proj_qkvz", 2 * key_dim + 2 * value_dim, d)
    m.lin(pre + "in_proj_ba", 2 * HV, d)
    m.p.append((pre + "conv1d.weight", conv_dim, K, "conv", 1, 1, False))
    m.p.append((pre + "dt_bias", HV, 1, "conv", 1, 1, False))
    m.p.append((pre + "A_log", HV, 1, "conv", 1, 1, False))
    m.norm(pre + "norm", dv)
    m.lin(pre + "out_proj", d, value_dim)
    return dict(kv_elems=0, per_key=0, window=None, conv_state=conv_dim * (K - 1), ssm_state=HV * dk * dv,
                state_macs=conv_dim * K + 3 * HV * dk * dv)


def qwen3_next(c, t):
    """Qwen3NextForCausalLM: per layer input/post-attention RMSNorms, a Gated DeltaNet or a gated
    Qwen3NextAttention (q_proj of 2 H hd rows: queries and output gate; q_norm, k_norm (hd)), and a
    Qwen3NextSparseMoeBlock (gate, experts, shared_expert, shared_expert_gate) or a dense MLP."""
    m = Model()
    d, L, V = c["hidden_size"], c["num_hidden_layers"], c["vocab_size"]
    H, kv, hd = c["num_attention_heads"], g(c, "num_key_value_heads", c["num_attention_heads"]), g(c, "head_dim", 256)
    ab = g(c, "attention_bias", False)
    lt = c.get("layer_types") or ["full_attention" if (i + 1) % g(c, "full_attention_interval", 4) == 0
                                  else "linear_attention" for i in range(L)]
    m.lin("embed_tokens", V, d, "embed", matmul=False)
    for i in range(L):
        pre = "layers.%d." % i
        m.norm(pre + "input_layernorm", d)
        m.norm(pre + "post_attention_layernorm", d)
        if lt[i] == "linear_attention":
            layer = gated_deltanet_mixer(m, pre + "linear_attn.", c, d)
        else:
            gate = 2 if g(c, "attn_output_gate", True) else 1
            m.lin(pre + "self_attn.q_proj", gate * H * hd, d, bias=ab)
            m.lin(pre + "self_attn.k_proj", kv * hd, d, bias=ab)
            m.lin(pre + "self_attn.v_proj", kv * hd, d, bias=ab)
            m.lin(pre + "self_attn.o_proj", d, H * hd, bias=ab)
            m.norm(pre + "self_attn.q_norm", hd)
            m.norm(pre + "self_attn.k_norm", hd)
            layer = dict(kv_elems=2 * kv * hd, per_key=2 * H * hd, window=None)
        E = g(c, "num_experts", 0)
        if E > 0 and i not in g(c, "mlp_only_layers", []) and (i + 1) % g(c, "decoder_sparse_step", 1) == 0:
            k, w, sw = c["num_experts_per_tok"], c["moe_intermediate_size"], c["shared_expert_intermediate_size"]
            m.lin(pre + "mlp.gate", E, d, "router")
            for nm, o, inp in (("gate_proj", w, d), ("up_proj", w, d), ("down_proj", d, w)):
                m.lin(pre + "mlp.experts." + nm, o, inp, copies=E, active=k)
            for nm, o, inp in (("gate_proj", sw, d), ("up_proj", sw, d), ("down_proj", d, sw)):
                m.lin(pre + "mlp.shared_expert." + nm, o, inp)
            m.lin(pre + "mlp.shared_expert_gate", 1, d, "router")
        else:
            w = c["intermediate_size"]
            for nm, o, inp in (("gate_proj", w, d), ("up_proj", w, d), ("down_proj", d, w)):
                m.lin(pre + "mlp." + nm, o, inp)
        m.layers.append(layer)
    m.norm("norm", d)
    if g(c, "tie_word_embeddings", False):
        m.tied_head_macs = V * d
    else:
        m.lin("lm_head", V, d, "head")
    return m




READERS = {"llama": llama_like, "mistral": llama_like, "mixtral": llama_like, "qwen2": llama_like,
           "qwen3": llama_like, "qwen2_moe": llama_like, "qwen3_moe": llama_like, "phi3": llama_like,
           "olmo2": llama_like, "gemma": llama_like, "gemma2": llama_like, "gemma3_text": llama_like,
           "deepseek_v2": deepseek, "deepseek_v3": deepseek, "gpt_neox": gpt_neox,
           "nemotron-nas": deci, "gpt2": gpt2, "bert": bert, "opt": opt}
READERS.update({t: family_18a for t in ("kimi_k2", "granite", "smollm3", "ministral", "ministral3", "glm4",
                                        "glm4_moe", "minimax_m2", "granitemoe", "olmoe", "phimoe",
                                        "starcoder2", "mimo")})
# ---------------------------------------------------------------------------------------------
# Issue 18c: attention sinks, chunked attention, NoPE layers, interleaved dense / MoE layers
# (gpt_oss, llama4), written from modeling_gpt_oss.py and modeling_llama4.py. A layer dict may
# carry "chunk" (chunked attention: a query attends the keys of its chunk; at most chunk cached).
# ---------------------------------------------------------------------------------------------


def gpt_oss(c, t):
    """GptOssForCausalLM: q/k/v/o with bias (attention_bias), self_attn.sinks (one logit per
    head), input/post-attention RMSNorm, mlp.router Linear(d, E) with bias, experts.gate_up_proj
    (E, d, 2I) + gate_up_proj_bias (E, 2I), experts.down_proj (E, I, d) + down_proj_bias (E, d),
    final norm, untied lm_head; layer_types (default: even layers sliding)."""
    m = Model()
    d, L, H = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"]
    kv, hd, V = c["num_key_value_heads"], c["head_dim"], c["vocab_size"]
    E, k, I = c["num_local_experts"], c["num_experts_per_tok"], c["intermediate_size"]
    ab = g(c, "attention_bias", True)
    lt = c.get("layer_types") or ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(L)]
    m.lin("embed_tokens", V, d, "embed", matmul=False)
    for i in range(L):
        pre = "layers.%d." % i
        m.lin(pre + "q_proj", H * hd, d, bias=ab)
        m.lin(pre + "k_proj", kv * hd, d, bias=ab)
        m.lin(pre + "v_proj", kv * hd, d, bias=ab)
        m.lin(pre + "o_proj", d, H * hd, bias=ab)
        m.p.append((pre + "sinks", H, 1, "sink", 1, 1, False))
        m.norm(pre + "input_layernorm", d)
        m.norm(pre + "post_attention_layernorm", d)
        m.lin(pre + "router", E, d, "router", bias=True)
        m.lin(pre + "experts.gate_up_proj", 2 * I, d, copies=E, active=k)
        m.p.append((pre + "experts.gate_up_proj_bias", 2 * I, 1, "bias", E, k, False))
        m.lin(pre + "experts.down_proj", d, I, copies=E, active=k)
        m.p.append((pre + "experts.down_proj_bias", d, 1, "bias", E, k, False))
        W = c["sliding_window"] if lt[i] == "sliding_attention" else None
        m.layers.append(dict(kv_elems=2 * kv * hd, per_key=2 * H * hd, window=W))
    m.norm("norm", d)
    m.lin("lm_head", V, d, "head")
    return m


def llama4(c, t):
    """Llama4ForCausalLM (text decoder of Llama4ForConditionalGeneration): q/k/v/o without bias,
    the L2 qk_norm has no weights; layer i is Llama4TextMoe iff i in moe_layers (default
    range(step - 1, L, step)): router Linear(d, E) without bias, experts.gate_up_proj (E, d, 2I),
    experts.down_proj (E, I, d), shared_expert Llama4TextMLP(I); else Llama4TextMLP of
    intermediate_size_mlp. no_rope_layers[i] == 0: NoPE (global attention); the other layers use
    chunked attention of attention_chunk_size. Untied lm_head."""
    m = Model()
    d, L, H = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"]
    kv, hd, V = c["num_key_value_heads"], c["head_dim"], c["vocab_size"]
    E, k, I, Im = c["num_local_experts"], c["num_experts_per_tok"], c["intermediate_size"], c["intermediate_size_mlp"]
    step = g(c, "interleave_moe_layer_step", 1)
    moe_layers = c.get("moe_layers")
    if moe_layers is None:
        moe_layers = list(range(step - 1, L, step))
    nr = c.get("no_rope_layers") or [int((i + 1) % g(c, "no_rope_layer_interval", 4) != 0) for i in range(L)]
    chunk = g(c, "attention_chunk_size", 8192) if "attention_chunk_size" not in c or c["attention_chunk_size"] is not None else None
    m.lin("embed_tokens", V, d, "embed", matmul=False)
    for i in range(L):
        pre = "layers.%d." % i
        m.lin(pre + "q_proj", H * hd, d)
        m.lin(pre + "k_proj", kv * hd, d)
        m.lin(pre + "v_proj", kv * hd, d)
        m.lin(pre + "o_proj", d, H * hd)
        m.norm(pre + "input_layernorm", d)
        m.norm(pre + "post_attention_layernorm", d)
        if i in moe_layers:
            m.lin(pre + "router", E, d, "router")
            m.lin(pre + "experts.gate_up_proj", 2 * I, d, copies=E, active=k)
            m.lin(pre + "experts.down_proj", d, I, copies=E, active=k)
            m.lin(pre + "shared_expert.gate_proj", I, d)
            m.lin(pre + "shared_expert.up_proj", I, d)
            m.lin(pre + "shared_expert.down_proj", d, I)
        else:
            m.lin(pre + "gate_proj", Im, d)
            m.lin(pre + "up_proj", Im, d)
            m.lin(pre + "down_proj", d, Im)
        m.layers.append(dict(kv_elems=2 * kv * hd, per_key=2 * H * hd, window=None,
                             chunk=chunk if nr[i] == 1 else None, nope=nr[i] == 0))
    m.norm("norm", d)
    m.lin("lm_head", V, d, "head")
    return m


def llama4_vision(v, text_hidden):
    """Llama4VisionModel + Llama4MultiModalProjector, tensor by tensor."""
    h, I, L = v["hidden_size"], v["intermediate_size"], v["num_hidden_layers"]
    p, side = v["patch_size"], v["image_size"] // v["patch_size"]
    t = [h, (side * side + 1) * h, v["num_channels"] * p * p * h, 2 * h, 2 * h]  # class, positions, patches, LN pre/post
    for _ in range(L):
        t += [h * h + h] * 4 + [h * I + I, I * h + h, 2 * h, 2 * h]
    t += [I * v["projector_input_dim"], v["projector_output_dim"] ** 2, v["vision_output_dim"] * text_hidden]
    return sum(t)


def deepseek_v32(c, t):
    """DeepSeek-V3.2 (inference/model.py of deepseek-ai/DeepSeek-V3.2-Exp): DeepSeek-V3 plus, per
    layer, the lightning indexer: wq_b Linear(q_lora_rank, n_i d_i), wk Linear(dim, d_i), k_norm
    LayerNorm(d_i) (weight and bias), weights_proj Linear(dim, n_i), all without bias. The
    attention attends the index_topk best keys; the indexer scores every key with n_i (d_i + 1)
    MACs and caches one key per token: d_i fp8 bytes + one fp32 scale per 128 (k_cache,
    k_scale_cache)."""
    m = deepseek(c, t)
    d, L, ql = c["hidden_size"], c["num_hidden_layers"], c["q_lora_rank"]
    ni, di, topk = c["index_n_heads"], c["index_head_dim"], c["index_topk"]
    for i in range(L):
        pre = "layers.%d.indexer." % i
        m.lin(pre + "wq_b", ni * di, ql)
        m.lin(pre + "wk", di, d)
        m.norm(pre + "k_norm", di, bias=True)
        m.lin(pre + "weights_proj", ni, d)
        m.layers[i].update(topk=topk, indexer_per_key=ni * (di + 1), indexer_bytes=di + 4 * ((di + 127) // 128))
    return m


READERS.update({"gpt_oss": gpt_oss, "llama4_text": llama4, "deepseek_v32": deepseek_v32})
READERS.update({"nemotron_h": nemotron_h, "qwen3_next": qwen3_next})


# ---------------------------------------------------------------------------------------------
# Issue 18d: cohere (CohereForCausalLM), cohere2 (Cohere2ForCausalLM), internlm2 (remote code
# modeling_internlm2.py), seed_oss (SeedOssForCausalLM), granitemoehybrid
# (GraniteMoeHybridForCausalLM). Written from the modeling files:
#   Cohere: per layer one CohereLayerNorm(d) (weight only, no bias) before the parallel attention
#     and MLP; q/k/v/o Linear(bias=attention_bias); q_norm / k_norm CohereLayerNorm((H, hd)) and
#     ((kv, hd)) when use_qk_norm; gate/up/down without bias; final CohereLayerNorm(d); lm_head tied
#     by default. Cohere2: the same without qk norms; layer i is sliding (sliding_window) unless
#     (i + 1) % sliding_window_pattern == 0 (or layer_types).
#   InternLM2: tok_embeddings, per layer attention.wqkv Linear(d, (H + 2 kv) hd, bias=config.bias),
#     attention.wo Linear(H hd, d, bias=config.bias), feed_forward w1, w3 Linear(d, I), w2 Linear(I, d)
#     without bias, attention_norm and ffn_norm RMSNorm(d); norm; output Linear(d, V) (untied).
#   SeedOss: q/k/v Linear(bias=attention_bias), o_proj Linear(bias=attention_out_bias), MLP
#     Linear(bias=mlp_bias), 2 RMSNorms per layer.
#   GraniteMoeHybrid: per layer input_layernorm and post_attention_layernorm RMSNorm(d); the mixer
#     by layer_types: "attention" q/k/v/o Linear(bias=attention_bias), hd = d / H, or "mamba" a
#     Mamba-2 mixer (mamba2_mixer above: in_proj, conv1d, dt_bias, A_log, D, gated norm, out_proj);
#     shared_mlp input_linear Linear(d, 2 S), output_linear Linear(S, d) (S =
#     shared_intermediate_size); num_local_experts E > 0: block_sparse_moe router.layer Linear(d, E)
#     and experts input_linear (E, 2 I, d), output_linear (E, d, I) (top num_experts_per_tok).
# ---------------------------------------------------------------------------------------------
def lm_head(m, tie, V, d):
    """The LM head: tied (its MACs only, no parameters) or its own Linear(d, V)."""
    if tie:
        m.tied_head_macs = V * d
    else:
        m.lin("lm_head", V, d, "head")
    return m


def family_18d(c, t):
    m = Model()
    d, L, H, V = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"], c["vocab_size"]
    kv = g(c, "num_key_value_heads", H)
    hd = d // H if t in ("internlm2", "granitemoehybrid") else g(c, "head_dim", d // H)
    tie = g(c, "tie_word_embeddings", t in ("cohere", "cohere2"))
    m.lin("embed_tokens", V, d, "embed", matmul=False)
    lt = c.get("layer_types")
    W = g(c, "sliding_window", 4096) if t == "cohere2" else None
    pat = g(c, "sliding_window_pattern", 4)
    for i in range(L):
        pre = "layers.%d." % i
        window = None
        if t == "cohere2":
            sliding = lt[i] == "sliding_attention" if lt else (i + 1) % pat != 0
            window = W if sliding else None
        if t == "granitemoehybrid" and lt[i] == "mamba":
            nh, dh = c["mamba_n_heads"], g(c, "mamba_d_head", "auto")
            if dh == "auto":
                dh = g(c, "mamba_expand", 2) * d // nh
            m.layers.append(mamba2_mixer(m, pre + "mamba.", d, nh, dh, g(c, "mamba_d_state", 256), g(c, "mamba_n_groups", 1),
                                         g(c, "mamba_d_conv", 4), g(c, "mamba_conv_bias", True), g(c, "mamba_proj_bias", False)))
        elif t == "internlm2":
            b = g(c, "bias", True)
            m.lin(pre + "attention.wq", H * hd, d, bias=b)  # the rows of wqkv, with their bias
            m.lin(pre + "attention.wk", kv * hd, d, bias=b)
            m.lin(pre + "attention.wv", kv * hd, d, bias=b)
            m.lin(pre + "attention.wo", d, H * hd, bias=b)
            m.layers.append(dict(kv_elems=2 * kv * hd, per_key=2 * H * hd, window=None))
        else:
            ab = g(c, "attention_bias", False)
            ob = g(c, "attention_out_bias", False) if t == "seed_oss" else ab
            m.lin(pre + "self_attn.q_proj", H * hd, d, bias=ab)
            m.lin(pre + "self_attn.k_proj", kv * hd, d, bias=ab)
            m.lin(pre + "self_attn.v_proj", kv * hd, d, bias=ab)
            m.lin(pre + "self_attn.o_proj", d, H * hd, bias=ob)
            if t == "cohere" and g(c, "use_qk_norm", False):
                m.norm(pre + "self_attn.q_norm", H * hd)
                m.norm(pre + "self_attn.k_norm", kv * hd)
            m.layers.append(dict(kv_elems=2 * kv * hd, per_key=2 * H * hd, window=window))
        norms = ("input_layernorm",) if t in ("cohere", "cohere2") else ("input_layernorm", "post_attention_layernorm")
        for nm in norms:
            m.norm(pre + nm, d)
        if t == "granitemoehybrid":
            S, E = c["shared_intermediate_size"], g(c, "num_local_experts", 0)
            if E:
                I, k = c["intermediate_size"], c["num_experts_per_tok"]
                m.lin(pre + "block_sparse_moe.router.layer", E, d, "router")
                m.lin(pre + "block_sparse_moe.experts.input_linear", 2 * I, d, copies=E, active=k)
                m.lin(pre + "block_sparse_moe.experts.output_linear", d, I, copies=E, active=k)
                m.lin(pre + "shared_mlp.input_linear", 2 * S, d)
                m.lin(pre + "shared_mlp.output_linear", d, S)
            else:
                m.lin(pre + "shared_mlp.input_linear", 2 * S, d)
                m.lin(pre + "shared_mlp.output_linear", d, S)
        else:
            I = c["intermediate_size"]
            mb = g(c, "mlp_bias", False) if t == "seed_oss" else False
            for nm in ("gate_proj", "up_proj"):
                m.lin(pre + "mlp." + nm, I, d, bias=mb)
            m.lin(pre + "mlp.down_proj", d, I, bias=mb)
    m.norm("norm", d)
    return lm_head(m, tie, V, d)


READERS.update({t: family_18d for t in ("cohere", "cohere2", "internlm2", "seed_oss", "granitemoehybrid")})


# ---------------------------------------------------------------------------------------------
# Issue 18e families, written from their modeling files:
#   falcon (FalconForCausalLM): word_embeddings (V, d); per layer self_attention.query_key_value
#     Linear(d, (H + 2 kv) hd, bias=bias) with hd = d / H and kv = num_kv_heads (null: H) when
#     new_decoder_architecture or not multi_query, else 1 (multi_query: d + 2 hd rows); dense
#     Linear(d, d, bias); mlp dense_h_to_4h Linear(d, F, bias), dense_4h_to_h Linear(F, d, bias), F =
#     ffn_hidden_size (null: 4 d); LayerNorms (weight + bias): input_layernorm +
#     post_attention_layernorm when not parallel_attn; else ln_attn + ln_mlp when
#     num_ln_in_parallel_attn == 2 (null: 2 for new_decoder_architecture), else input_layernorm;
#     ln_f; lm_head tied unless tie_word_embeddings is false.
#   internlm3 (remote code InternLM3ForCausalLM): q/k/v Linear(bias=qkv_bias), o_proj and
#     gate/up/down Linear(bias=bias), head_dim from the config, 2 RMSNorms per layer, untied.
#   ernie4_5 (Ernie4_5ForCausalLM): q/k/v/o and gate/up/down Linear(bias=use_bias), 2 RMSNorms,
#     tied by default.
#   exaone4 (Exaone4ForCausalLM): q/k/v/o without bias, q_norm / k_norm RMSNorm(head_dim),
#     post_attention_layernorm + post_feedforward_layernorm, unbiased MLP; layer_types, else layer
#     i slides (window sliding_window, 4096) iff (i + 1) % sliding_window_pattern (4) != 0; no
#     sliding layer when sliding_window is null.
#   hunyuan_v1_dense (HunYuanDenseV1ForCausalLM): q/k/v/o Linear(bias=attention_bias),
#     query_layernorm / key_layernorm RMSNorm(head_dim), unbiased MLP, 2 RMSNorms.
# ---------------------------------------------------------------------------------------------
def family_18e(c, t):
    m = Model()
    d, L, H, V = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"], c["vocab_size"]
    m.lin("embed_tokens", V, d, "embed", matmul=False)
    if t == "falcon":
        hd = d // H
        new = g(c, "new_decoder_architecture", False)
        kv = g(c, "num_kv_heads", H) if (new or not g(c, "multi_query", True)) else 1
        b = g(c, "bias", False)
        F = g(c, "ffn_hidden_size", 4 * d)
        nln = g(c, "num_ln_in_parallel_attn", 2 if new else None)
        norms = 2 if (not g(c, "parallel_attn", True) or nln == 2) else 1
        for i in range(L):
            pre = "h.%d." % i
            m.lin(pre + "self_attention.query_key_value.q", H * hd, d, bias=b)  # the rows of the fused matrix
            m.lin(pre + "self_attention.query_key_value.k", kv * hd, d, bias=b)
            m.lin(pre + "self_attention.query_key_value.v", kv * hd, d, bias=b)
            m.lin(pre + "self_attention.dense", d, d, bias=b)
            m.lin(pre + "mlp.dense_h_to_4h", F, d, bias=b)
            m.lin(pre + "mlp.dense_4h_to_h", d, F, bias=b)
            for k in range(norms):
                m.norm(pre + "ln%d" % k, d, bias=True)
            m.layers.append(dict(kv_elems=2 * kv * hd, per_key=2 * H * hd, window=None))
        m.norm("ln_f", d, bias=True)
        tie = g(c, "tie_word_embeddings", True)
    else:
        kv = g(c, "num_key_value_heads", H)
        hd = g(c, "head_dim", d // H)
        I = c["intermediate_size"]
        if t == "internlm3":
            qb, ob, mb = g(c, "qkv_bias", False), g(c, "bias", False), g(c, "bias", False)
        elif t == "ernie4_5":
            qb = ob = mb = g(c, "use_bias", False)
        elif t == "hunyuan_v1_dense":
            qb = ob = g(c, "attention_bias", False)
            mb = False
        else:  # exaone4
            qb = ob = mb = False
        lt = c.get("layer_types")
        W = g(c, "sliding_window", 4096) if t == "exaone4" and not ("sliding_window" in c and c["sliding_window"] is None) else None
        pat = g(c, "sliding_window_pattern", 4)
        for i in range(L):
            pre = "layers.%d." % i
            m.lin(pre + "self_attn.q_proj", H * hd, d, bias=qb)
            m.lin(pre + "self_attn.k_proj", kv * hd, d, bias=qb)
            m.lin(pre + "self_attn.v_proj", kv * hd, d, bias=qb)
            m.lin(pre + "self_attn.o_proj", d, H * hd, bias=ob)
            if t in ("exaone4", "hunyuan_v1_dense"):
                m.norm(pre + "self_attn.q_norm", hd)
                m.norm(pre + "self_attn.k_norm", hd)
            for nm in ("gate_proj", "up_proj"):
                m.lin(pre + "mlp." + nm, I, d, bias=mb)
            m.lin(pre + "mlp.down_proj", d, I, bias=mb)
            m.norm(pre + "norm_a", d)
            m.norm(pre + "norm_b", d)
            window = None
            if W is not None:
                sliding = lt[i] == "sliding_attention" if lt else (i + 1) % pat != 0
                window = W if sliding else None
            m.layers.append(dict(kv_elems=2 * kv * hd, per_key=2 * H * hd, window=window))
        m.norm("norm", d)
        tie = g(c, "tie_word_embeddings", t == "ernie4_5")
    return lm_head(m, tie, V, d)


READERS.update({t: family_18e for t in ("falcon", "internlm3", "ernie4_5", "exaone4", "hunyuan_v1_dense")})


# Gemma 4 (modeling_gemma4.py: Gemma4TextAttention, Gemma4TextMLP, Gemma4TextRouter, Gemma4TextExperts,
# Gemma4TextDecoderLayer, Gemma4TextModel), the text decoder of Gemma4ForConditionalGeneration:
# embed_tokens (V, d), tied head; per layer q_proj (H hd, d), q_norm RMSNorm(hd), o_proj (d, H hd),
# and, unless the layer is KV-shared, k_norm RMSNorm(hd), k_proj (kv hd, d), v_proj (kv hd, d)
# (none with attention_k_eq_v on a full layer); v_norm has no weight; no bias. A full layer
# (layer_types "full_attention"; the last layer always) has hd = global_head_dim and, with
# attention_k_eq_v, kv = num_global_key_value_heads. KV sharing (num_kv_shared_layers n > 0):
# layers i >= L - n have no k/v projections nor k_norm and cache nothing; they attend the keys of
# the last earlier non-shared layer of their type (so their attention products are unchanged);
# use_double_wide_mlp doubles intermediate_size on exactly those layers. mlp gate/up (I, d), down
# (d, I); input, post_attention, pre_feedforward, post_feedforward RMSNorms. enable_moe_block adds
# to every layer the router (norm without weight, proj (E, d), scale (d), per_expert_scale (E)),
# the experts gate_up_proj (E, 2 Im, d) and down_proj (E, d, Im) (top_k_experts active) and three
# RMSNorms (post_feedforward_layernorm_1 / _2, pre_feedforward_layernorm_2): the dense MLP runs beside
# the experts on every token. Per-layer embeddings (hidden_size_per_layer_input p > 0):
# embed_tokens_per_layer (V_ple, L p) (a lookup), per_layer_model_projection (L p, d) (a matmul per
# token), per_layer_projection_norm RMSNorm(p); per layer per_layer_input_gate (p, d),
# per_layer_projection (d, p), post_per_layer_input_norm RMSNorm(d). The layer_scalar buffer (1 per
# layer) is not a parameter.
def gemma4_layer_types(c):
    L = c["num_hidden_layers"]
    lt = list(c.get("layer_types") or ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(L)])
    lt[-1] = "full_attention"
    return lt


def gemma4(c, t):
    m = Model()
    d, L, H, V, I = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"], c["vocab_size"], c["intermediate_size"]
    lt = gemma4_layer_types(c)
    keqv = c.get("attention_k_eq_v", False)
    n_shared = c.get("num_kv_shared_layers") or 0
    first_shared = L - n_shared
    p = c.get("hidden_size_per_layer_input", 256)  # Gemma4TextConfig's default; None: no PLE
    p = p or 0
    moe = c.get("enable_moe_block", False)
    m.lin("embed_tokens", V, d, "embed", matmul=False)
    if p:
        m.lin("embed_tokens_per_layer", c.get("vocab_size_per_layer_input", 262144), L * p, "embed", matmul=False)
        m.lin("per_layer_model_projection", L * p, d)
        m.norm("per_layer_projection_norm", p)
    for i in range(L):
        pre = "layers.%d." % i
        full = lt[i] == "full_attention"
        shared = n_shared > 0 and i >= first_shared
        hd = c["global_head_dim"] if full else c["head_dim"]
        kv = c["num_global_key_value_heads"] if (full and keqv) else c["num_key_value_heads"]
        m.lin(pre + "self_attn.q_proj", H * hd, d)
        m.norm(pre + "self_attn.q_norm", hd)
        if not shared:
            m.norm(pre + "self_attn.k_norm", hd)
            m.lin(pre + "self_attn.k_proj", kv * hd, d)
            if not (full and keqv):
                m.lin(pre + "self_attn.v_proj", kv * hd, d)
        m.lin(pre + "self_attn.o_proj", d, H * hd)
        Ii = I * (2 if (c.get("use_double_wide_mlp") and shared) else 1)
        for nm in ("gate_proj", "up_proj"):
            m.lin(pre + "mlp." + nm, Ii, d)
        m.lin(pre + "mlp.down_proj", d, Ii)
        norms = ["input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"]
        if moe:
            E, K, Im = c["num_experts"], c["top_k_experts"], c["moe_intermediate_size"]
            m.lin(pre + "router.proj", E, d, "router")
            m.norm(pre + "router.scale", d)
            m.norm(pre + "router.per_expert_scale", E)
            m.lin(pre + "experts.gate_up_proj.gate", Im, d, copies=E, active=K)
            m.lin(pre + "experts.gate_up_proj.up", Im, d, copies=E, active=K)
            m.lin(pre + "experts.down_proj", d, Im, copies=E, active=K)
            norms += ["post_feedforward_layernorm_1", "post_feedforward_layernorm_2", "pre_feedforward_layernorm_2"]
        if p:
            m.lin(pre + "per_layer_input_gate", p, d)
            m.lin(pre + "per_layer_projection", d, p)
            norms.append("post_per_layer_input_norm")
        for nm in norms:
            m.norm(pre + nm, d)
        m.layers.append(dict(kv_elems=0 if shared else 2 * kv * hd, per_key=2 * H * hd,
                             window=None if full else c["sliding_window"]))
    m.norm("norm", d)
    return lm_head(m, c.get("tie_word_embeddings", True), V, d)


def gemma4_kv_source(c, i):
    """The layer whose keys and values KV-shared layer i attends: the last layer before the
    first shared one with i's layer type (Gemma4TextAttention.store_full_length_kv)."""
    lt = gemma4_layer_types(c)
    first = c["num_hidden_layers"] - (c.get("num_kv_shared_layers") or 0)
    return max(j for j in range(first) if lt[j] == lt[i])


def gemma4_vision(top):
    """Gemma4VisionModel + embed_vision (Gemma4MultimodalEmbedder): patch_embedder input_proj
    Linear(3 p^2, h) and position_embedding_table (2, P, h); per layer q (H hd, h), k, v (KV hd, h),
    o (h, H hd) without bias, q_norm, k_norm RMSNorm(hd) (v_norm without weight), mlp gate/up
    (I, h), down (h, I), 4 RMSNorms(h); embedding_projection Linear(h, text) (its pre-norm has no
    weight). Clipped-linear bounds and std_bias / std_scale are buffers, not parameters."""
    v, text = top["vision_config"], top["text_config"]["hidden_size"]
    h, I, L = v.get("hidden_size", 768), v.get("intermediate_size", 3072), v.get("num_hidden_layers", 16)
    H, KV, hd = v.get("num_attention_heads", 12), v.get("num_key_value_heads", 12), v.get("head_dim", 64)
    p, P = v.get("patch_size", 16), v.get("position_embedding_size", 10240)
    layer = H * hd * h + 2 * KV * hd * h + h * H * hd + 3 * h * I + 2 * hd + 4 * h
    return 3 * p * p * h + 2 * P * h + L * layer + h * text


def gemma4_audio(top):
    """Gemma4AudioModel + embed_audio: subsample_conv_projection (Conv2d(1, c0, 3x3) + LayerNorm(c0)
    without bias, Conv2d(c0, c1, 3x3) + LayerNorm(c1), input_proj_linear ((c0 // 4) c1 -> h)); per
    layer two feed-forwards (ffw_layer_1 (4h, h), ffw_layer_2 (h, 4h), 2 RMSNorms), attention q, k,
    v, post (h, h), relative_k_proj (h, h), per_dim_scale (h / heads), lconv1d linear_start (2h, h),
    linear_end (h, h), depthwise conv (h, K), 2 RMSNorms, and 3 RMSNorms; output_proj Linear(h, o)
    with bias; embedding_projection Linear(o, text)."""
    a, text = top["audio_config"], top["text_config"]["hidden_size"]
    h, L, heads, K = a.get("hidden_size", 1024), a.get("num_hidden_layers", 12), a.get("num_attention_heads", 8), a.get("conv_kernel_size", 5)
    c0, c1 = a.get("subsampling_conv_channels", [128, 32])
    o = a.get("output_proj_dims", 1536)
    sub = c0 * 9 + c0 + c1 * c0 * 9 + c1 + (c0 // 4) * c1 * h
    ff = 4 * h * h + 4 * h * h + 2 * h
    layer = 2 * ff + 5 * h * h + h // heads + 3 * h * h + h * K + 2 * h + 3 * h
    return sub + L * layer + h * o + o + o * text


READERS["gemma4_text"] = gemma4


def glm_moe_dsa(c, t):
    """GlmMoeDsaForCausalLM (modular_glm_moe_dsa.py): DeepSeek-V3.2's layers (deepseek_v32 above;
    the router's e_score_correction_bias always, Glm4Moe's router), except that a layer whose
    indexer_types entry is "shared" has no indexer (self.indexer = None) and reuses the previous
    full layer's top-k. indexer_types absent: index_topk_pattern (F / S), else layer i is full iff
    max(i - index_skip_topk_offset + 1, 0) % index_topk_freq == 0 (offset 2, freq 1)."""
    c = dict(c)
    c["topk_method"] = "noaux_tc"
    m = deepseek_v32(c, t)
    L = c["num_hidden_layers"]
    types = c.get("indexer_types")
    if types is None and c.get("index_topk_pattern") is not None:
        types = ["full" if ch == "F" else "shared" for ch in c["index_topk_pattern"]]
    if types is None:
        freq, off = g(c, "index_topk_freq", 1), g(c, "index_skip_topk_offset", 2)
        types = ["full" if max(i - off + 1, 0) % freq == 0 else "shared" for i in range(L)]
    for i in range(L):
        if types[i] == "shared":
            pre = "layers.%d.indexer." % i
            m.p = [e for e in m.p if not e[0].startswith(pre)]
            del m.layers[i]["indexer_per_key"], m.layers[i]["indexer_bytes"]
    return m


READERS["glm_moe_dsa"] = glm_moe_dsa


def ernie4_5_moe(c, t):
    """Ernie4_5_MoeForCausalLM (modular_ernie4_5_moe.py): Ernie4_5's attention (q/k/v/o
    Linear(bias=use_bias)) and 2 RMSNorms per layer; layer i has the sparse block iff (i + 1) %
    moe_layer_interval == 0 and moe_layer_start_index <= i <= moe_layer_end_index (-1: the last
    layer): gate Linear(d, E) without bias, moe_statics.e_score_correction_bias (1, E), E experts
    gate/up/down Linear(bias=use_bias) of moe_intermediate_size (top moe_k), shared_experts one MLP
    of moe_intermediate_size x moe_num_shared_experts; else the dense MLP of intermediate_size;
    lm_head Linear(d, V, bias=use_bias), tied by default."""
    m = Model()
    d, L, H, V = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"], c["vocab_size"]
    kv, hd, b = g(c, "num_key_value_heads", H), g(c, "head_dim", d // H), g(c, "use_bias", False)
    E, k, MI, S = g(c, "moe_num_experts", 64), g(c, "moe_k", 6), g(c, "moe_intermediate_size", 1536), g(c, "moe_num_shared_experts", 2)
    first, last, step = g(c, "moe_layer_start_index", 1), g(c, "moe_layer_end_index", -1), g(c, "moe_layer_interval", 1)
    last = L - 1 if last == -1 else last
    m.lin("embed_tokens", V, d, "embed", matmul=False)
    for i in range(L):
        pre = "layers.%d." % i
        m.lin(pre + "self_attn.q_proj", H * hd, d, bias=b)
        m.lin(pre + "self_attn.k_proj", kv * hd, d, bias=b)
        m.lin(pre + "self_attn.v_proj", kv * hd, d, bias=b)
        m.lin(pre + "self_attn.o_proj", d, H * hd, bias=b)
        m.norm(pre + "input_layernorm", d)
        m.norm(pre + "post_attention_layernorm", d)
        if E and (i + 1) % step == 0 and first <= i <= last:
            m.lin(pre + "mlp.gate", E, d, "router")
            m.p.append((pre + "mlp.moe_statics.e_score_correction_bias", E, 1, "bias", 1, 1, False))
            for nm in ("gate_proj", "up_proj"):
                m.lin(pre + "mlp.experts." + nm, MI, d, bias=b, copies=E, active=k)
            m.lin(pre + "mlp.experts.down_proj", d, MI, bias=b, copies=E, active=k)
            if S:
                for nm in ("gate_proj", "up_proj"):
                    m.lin(pre + "mlp.shared_experts." + nm, MI * S, d, bias=b)
                m.lin(pre + "mlp.shared_experts.down_proj", d, MI * S, bias=b)
        else:
            I = c["intermediate_size"]
            for nm in ("gate_proj", "up_proj"):
                m.lin(pre + "mlp." + nm, I, d, bias=b)
            m.lin(pre + "mlp.down_proj", d, I, bias=b)
        m.layers.append(dict(kv_elems=2 * kv * hd, per_key=2 * H * hd, window=None))
    m.norm("norm", d)
    if g(c, "tie_word_embeddings", True):
        m.tied_head_macs = V * d
    else:
        m.lin("lm_head", V, d, "head", bias=b)
    return m


READERS["ernie4_5_moe"] = ernie4_5_moe


def hunyuan_v1_moe(c, t):
    """HunYuanMoEV1ForCausalLM (modeling_hunyuan_v1_moe.py): LlamaAttention (q/k/v/o
    Linear(bias=attention_bias)) with query_layernorm / key_layernorm RMSNorm(head_dim), 2 RMSNorms;
    every layer's mlp is HunYuanMoEV1Moe: gate.wg Linear(d, E) without bias (E = num_experts, an
    integer or this layer's list entry), experts = MixtralExperts (gate_up_proj (E, 2 I, d),
    down_proj (E, d, I), I = intermediate_size; top moe_topk), shared_mlp gate/up/down of
    intermediate_size; lm_head tied when tie_word_embeddings (false by default, as Llama)."""
    m = Model()
    d, L, H, V = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"], c["vocab_size"]
    kv, hd, ab, I = g(c, "num_key_value_heads", H), g(c, "head_dim", d // H), g(c, "attention_bias", False), c["intermediate_size"]
    at = lambda v, i: v[i] if isinstance(v, list) else v
    m.lin("embed_tokens", V, d, "embed", matmul=False)
    for i in range(L):
        pre = "layers.%d." % i
        E, k = at(c["num_experts"], i), at(c["moe_topk"], i)
        for nm, o in (("q_proj", H * hd), ("k_proj", kv * hd), ("v_proj", kv * hd)):
            m.lin(pre + "self_attn." + nm, o, d, bias=ab)
        m.lin(pre + "self_attn.o_proj", d, H * hd, bias=ab)
        m.norm(pre + "self_attn.query_layernorm", hd)
        m.norm(pre + "self_attn.key_layernorm", hd)
        m.norm(pre + "input_layernorm", d)
        m.norm(pre + "post_attention_layernorm", d)
        m.lin(pre + "mlp.gate.wg", E, d, "router")
        m.lin(pre + "mlp.experts.gate_up_proj", 2 * I, d, copies=E, active=k)
        m.lin(pre + "mlp.experts.down_proj", d, I, copies=E, active=k)
        for nm in ("gate_proj", "up_proj"):
            m.lin(pre + "mlp.shared_mlp." + nm, I, d)
        m.lin(pre + "mlp.shared_mlp.down_proj", d, I)
        m.layers.append(dict(kv_elems=2 * kv * hd, per_key=2 * H * hd, window=None))
    m.norm("norm", d)
    return lm_head(m, g(c, "tie_word_embeddings", False), V, d)


READERS["hunyuan_v1_moe"] = hunyuan_v1_moe


# Falcon-H1 (modeling_falcon_h1.py: FalconH1Attention, FalconH1Mixer, FalconH1MLP, FalconH1DecoderLayer,
# FalconH1Model; configuration_falcon_h1.py defaults): embed_tokens (V, d); per layer input_layernorm and
# pre_ff_layernorm RMSNorm(d); self_attn q (H hd, d), k, v (kv hd, d), o (d, H hd), bias attention_bias;
# beside it (same normed input, outputs summed) the mamba mixer: I = mamba_d_ssm (null: mamba_expand d),
# P = mamba_d_head ("auto": I // heads), conv_dim = I + 2 G N, in_proj (I + conv_dim + Hm, d) with bias
# mamba_proj_bias, conv1d depthwise (conv_dim, 1, K) + bias mamba_conv_bias, dt_bias, A_log, D (Hm each),
# norm RMSNormGated(I) only when mamba_rms_norm, out_proj (d, I) with bias projectors_bias; the MLP
# gate_proj, up_proj (F, d), down_proj (d, F), bias mlp_bias; final_layernorm; lm_head unless tied.
# mup_vector is a non-persistent buffer. Cache per layer: keys and values per token AND the conv state
# conv_dim (K - 1) (vLLM) + the SSM state Hm P N per sequence.
FALCON_H1_DEFAULTS = {"vocab_size": 128000, "num_key_value_heads": 8, "mamba_d_ssm": 1024, "mamba_n_heads": 128,
                      "mamba_d_head": "auto", "mamba_n_groups": 1, "mamba_d_state": 256, "mamba_d_conv": 4,
                      "mamba_expand": 2, "mamba_conv_bias": True, "mamba_proj_bias": False, "mamba_rms_norm": False,
                      "projectors_bias": False, "attention_bias": False, "mlp_bias": False,
                      "tie_word_embeddings": False}


def falcon_h1(c, t):
    c = dict(c)
    for k, v in FALCON_H1_DEFAULTS.items():
        if k not in c:
            c[k] = v
    m = Model()
    d, L, H, V, F = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"], c["vocab_size"], c["intermediate_size"]
    kv = c["num_key_value_heads"] or H
    hd = c.get("head_dim") or d // H
    ab, mb = c["attention_bias"], c["mlp_bias"]
    I = c["mamba_d_ssm"] if c["mamba_d_ssm"] is not None else c["mamba_expand"] * d
    Hm, G, N, K = c["mamba_n_heads"], c["mamba_n_groups"], c["mamba_d_state"], c["mamba_d_conv"]
    P = I // Hm if c["mamba_d_head"] == "auto" else c["mamba_d_head"]
    assert Hm * P == I
    conv_dim = I + 2 * G * N
    m.lin("embed_tokens", V, d, "embed", matmul=False)
    for i in range(L):
        pre = "layers.%d." % i
        m.norm(pre + "input_layernorm", d)
        m.lin(pre + "self_attn.q_proj", H * hd, d, bias=ab)
        m.lin(pre + "self_attn.k_proj", kv * hd, d, bias=ab)
        m.lin(pre + "self_attn.v_proj", kv * hd, d, bias=ab)
        m.lin(pre + "self_attn.o_proj", d, H * hd, bias=ab)
        m.lin(pre + "mamba.in_proj", I + conv_dim + Hm, d, bias=c["mamba_proj_bias"])
        m.p.append((pre + "mamba.conv1d.weight", conv_dim, K, "conv", 1, 1, False))
        if c["mamba_conv_bias"]:
            m.p.append((pre + "mamba.conv1d.bias", conv_dim, 1, "conv", 1, 1, False))
        for n in ("dt_bias", "A_log", "D"):
            m.p.append((pre + "mamba." + n, Hm, 1, "conv", 1, 1, False))
        if c["mamba_rms_norm"]:
            m.norm(pre + "mamba.norm", I)
        m.lin(pre + "mamba.out_proj", d, I, bias=c["projectors_bias"])
        m.norm(pre + "pre_ff_layernorm", d)
        for nm in ("gate_proj", "up_proj"):
            m.lin(pre + "feed_forward." + nm, F, d, bias=mb)
        m.lin(pre + "feed_forward.down_proj", d, F, bias=mb)
        m.layers.append(dict(kv_elems=2 * kv * hd, per_key=2 * H * hd, window=None, conv_state=conv_dim * (K - 1),
                             ssm_state=Hm * P * N, state_macs=conv_dim * K + 2 * Hm * P * N))
    m.norm("final_layernorm", d)
    return lm_head(m, c["tie_word_embeddings"], V, d)


READERS["falcon_h1"] = falcon_h1
# Qwen3.5 text decoders (modeling_qwen3_5.py / modeling_qwen3_5_moe.py): Qwen3-Next's layers (in_proj_qkv +
# in_proj_z = in_proj_qkvz, in_proj_b + in_proj_a = in_proj_ba); Qwen3_5MoeTextConfig has every layer MoE.
READERS["qwen3_5_text"] = qwen3_next
READERS["qwen3_5_moe_text"] = qwen3_next


def qwen3_5_vision(v):
    """Qwen3_5VisionModel (modeling_qwen3_5.py): patch_embed Conv3d(c, h, (t, p, p), bias), pos_embed
    Embedding(P, h); per block norm1, norm2 LayerNorm(h), attn.qkv Linear(h, 3h), attn.proj Linear(h, h),
    mlp.linear_fc1 Linear(h, I), mlp.linear_fc2 Linear(I, h), all biased; merger (use_postshuffle_norm
    False) norm LayerNorm(h), linear_fc1 Linear(h s^2, h s^2), linear_fc2 Linear(h s^2, out), biased."""
    h, I, L = v["hidden_size"], v["intermediate_size"], v["depth"]
    c, p, t, s, out, P = v["in_channels"], v["patch_size"], v["temporal_patch_size"], v["spatial_merge_size"], \
        v["out_hidden_size"], v["num_position_embeddings"]
    assert not v.get("deepstack_visual_indexes")
    block = 2 * (2 * h) + (3 * h * h + 3 * h) + (h * h + h) + (h * I + I) + (I * h + h)
    hs = h * s * s
    return c * t * p * p * h + h + P * h + L * block + 2 * h + (hs * hs + hs) + (hs * out + out)


def qwen3_5_mtp(tc):
    """Qwen3.5's MTP module (mtp.* in the checkpoint, not instantiated by transformers): one full-attention
    decoder layer of the next layer's kind (dense MLP or MoE), fc Linear(2d, d) without bias and three
    RMSNorms (pre_fc_norm_hidden, pre_fc_norm_embedding, norm); embedding and head shared."""
    one = dict(tc)
    one["num_hidden_layers"] = 1
    one["layer_types"] = ["full_attention"]
    m = qwen3_next(one, "")
    d, V = tc["hidden_size"], tc["vocab_size"]
    return m.total() - 2 * V * d - d + 2 * d * d + 3 * d


def build(c):
    t = c["model_type"]
    if t == "gemma3" and "text_config" in c:
        c = dict(c["text_config"])
        t = c.get("model_type", "gemma3_text")
        defaults = {"vocab_size": 262208, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
                    "sliding_window": 4096, "sliding_window_pattern": 6}
        for k, v in defaults.items():
            c.setdefault(k, v)
    if t == "llama4":  # issue 18c: the text decoder of Llama4ForConditionalGeneration
        c = dict(c["text_config"])
        t = c.get("model_type", "llama4_text")
    if t == "gemma4":  # issue 18e: the text decoder of Gemma4ForConditionalGeneration
        c = dict(c["text_config"])
        t = c.get("model_type", "gemma4_text")
    if t in ("qwen3_5", "qwen3_5_moe"):  # issue 18f: the text decoder of Qwen3_5(Moe)ForConditionalGeneration
        c = dict(c["text_config"])
        t = c.get("model_type", t + "_text")
    if t == "mistral3":  # issue 18e: the text decoder of Mistral3ForConditionalGeneration
        c = dict(c["text_config"])
        t = c.get("model_type", "mistral")
    return READERS[t](c, t), c


def keys(T, W, conv, chunk=None):
    """Sum over T queries of the keys each attends (chunk: a query at position p attends the
    (p - 1) % chunk + 1 keys of its chunk so far causally; min(T, chunk) with full attention)."""
    if chunk:
        if conv == "full":
            return T * min(T, chunk)
        return sum((p - 1) % chunk + 1 for p in range(1, T + 1))
    if conv == "full":
        return T * (T if W is None else min(T, W))
    if W is None or T <= W:
        return T * (T + 1) // 2
    return W * (W + 1) // 2 + (T - W) * W


def deployment(m, T, C, B, kv_bytes, state_bytes=2, conv_bytes=2):
    lin = m.linear_macs() + getattr(m, "tied_head_macs", 0)
    out = {"linear_macs_per_token": lin}
    out["kv_cache_bytes_per_token"] = sum(l["kv_elems"] * kv_bytes + l.get("indexer_bytes", 0) for l in m.layers)
    # state-space layers (issue 18): a fixed state per sequence, in the cache; recurrence MACs per token
    state = B * sum(l.get("conv_state", 0) * conv_bytes + l.get("ssm_state", 0) * state_bytes for l in m.layers)
    smacs = sum(l.get("state_macs", 0) for l in m.layers)
    out["state_bytes"] = state
    cap = lambda l: l["window"] or l.get("chunk")  # tokens cached
    att = lambda l: cap(l) or l.get("topk")       # keys a query attends at most (DSA: index_topk)
    # DSA: every token cached, latent (KV dtype) + the indexer key (fp8 + scales, fixed bytes)
    out["kv_cache_bytes"] = B * sum(
        (l["kv_elems"] * kv_bytes + l.get("indexer_bytes", 0)) * (C if cap(l) is None else min(C, cap(l)))
        for l in m.layers) + state
    out["decode_flops"] = 2 * (lin + smacs + sum(l["per_key"] * (C if att(l) is None else min(C, att(l))) +
                                                 l.get("indexer_per_key", 0) * C for l in m.layers))
    for conv in ("full", "causal"):
        out["prefill_flops_" + conv] = 2 * (T * (lin + smacs) + getattr(m, "per_sequence_macs", 0) + sum(
            l["per_key"] * keys(T, l["window"] or l.get("topk"), conv, l.get("chunk")) +
            l.get("indexer_per_key", 0) * keys(T, None, conv) for l in m.layers))
    for dt in ("fp32", "bf16", "fp8", "int4"):
        out["weight_bytes_" + dt] = m.weight_bytes(dt)
    out["memory_bytes_bf16"] = out["weight_bytes_bf16"] + out["kv_cache_bytes"]
    return out


# Published totals: model cards / safetensors metadata ("params" shown on the hub).
PUBLISHED = {
    "gemma-2b": 2506172416, "gemma-2-2b": 2614341888, "gemma-2-9b": 9241705984,
    "gemma-3-1b-it": 999885952, "phi-3-mini-4k-instruct": 3821079552, "qwen3-8b": 8190735360,
    "qwen3-30b-a3b": 30532122624, "qwen1.5-moe-a2.7b": 14315784192, "deepseek-v3": 671026419200,
    "pythia-160m": 162322944, "olmo-2-1124-7b": 7298617344, "llama-7b": 6738415616,
    "llama-3-8b": 8030261248, "llama-3.1-70b": 70553706496, "mistral-7b": 7241732096, "mixtral-8x7b": 46702792704,
    "qwen2-7b": 7615616512, "gpt2": 124439808, "gpt2-medium": 354823168, "bert-base-uncased": 109482240,
}
# Issue 18c. gpt-oss: general.parameter_count of ggml-org's GGUF conversions (llama.cpp counts
# every tensor element of the dequantised model; the hub's mxfp4 safetensors count packed bytes).
PUBLISHED.update({"gpt-oss-20b": 20914757184, "gpt-oss-120b": 116829156672})
# Llama 4 Scout: the hub's safetensors total of meta-llama/Llama-4-Scout-17B-16E(-Instruct),
# 108,641,793,536 BF16 parameters, is text decoder + vision tower + projector; the text decoder
# alone is checked (the vision part is computed by llama4_vision and must close the gap).
LLAMA4_HUB = {"llama-4-scout-17b-16e": 108641793536}
# Mistral Small 3.1 (issue 18e): 24,011,361,280 (the published total of Mistral-Small-3.1/3.2-24B
# in public model tables and keras-hub's preset metadata) = the text decoder 23,572,403,200 (GGUF
# general.parameter_count of the text-only conversions, a provider's paramCount) + the Pixtral
# vision tower and projector (pixtral_vision below).
MISTRAL3_HUB = {"mistral-small-3.1-24b-instruct-2503": 24011361280}
PUBLISHED.update({"mistral-small-3.1-24b-instruct-2503": 23572403200})


def pixtral_vision(top, text_hidden):
    """PixtralVisionModel + Mistral3MultiModalProjector (modeling_pixtral.py, modeling_mistral3.py):
    patch_conv Conv2d(c, h, p, p, bias=False), ln_pre RMSNorm(h); per layer attention_norm,
    ffn_norm RMSNorm(h), attention q/k/v/o Linear(h, h, bias=False), feed_forward gate/up (I, h),
    down (h, I) without bias; projector norm RMSNorm(h), patch_merger.merging_layer Linear(h s^2, h,
    bias=False), linear_1 Linear(h, text), linear_2 Linear(text, text) (bias: multimodal_projector_bias)."""
    v = top["vision_config"]
    h, I, L, c, p = v["hidden_size"], v["intermediate_size"], v["num_hidden_layers"], v.get("num_channels", 3), v["patch_size"]
    s, b = top.get("spatial_merge_size", 2), top.get("multimodal_projector_bias", False)
    tower = c * p * p * h + h + L * (2 * h + 4 * h * h + 3 * h * I)
    proj = h + (h * s * s) * h + h * text_hidden + text_hidden * text_hidden + (2 * text_hidden if b else 0)
    return tower + proj

# Issue 18 (part b): exact totals quoted by third parties (no exact figure on the hub pages we
# could read; the hub shows rounded sizes). qwen3-coder-next: Qwen/Qwen3-Coder-Next's total and
# active parameters as quoted in a public parser's test ("published total minus inactive expert
# tensors"); nemotron-h-8b-base-8k: a public tensor-by-tensor breakdown of the checkpoint
# ("8,100,852,736"). Checked like PUBLISHED, reported with their provenance in the README.
PUBLISHED.update({"qwen3-coder-next": 79674391296, "nemotron-h-8b-base-8k": 8100852736})
# Issue 18d. aya-expanse-8b (CohereForAI/aya-expanse-8b) and internlm2_5-7b-chat: the hub's
# safetensors parameter_count (HfApi.get_safetensors_metadata) as listed in a public benchmark's
# model table; granite-4.0-micro: the hub's safetensors.total as listed in a public audit
# script; seed-oss-36b-instruct: its model.safetensors.index.json (bf16) as a public config
# snapshot of ByteDance-Seed/Seed-OSS-36B-Instruct lists it.
PUBLISHED.update({"aya-expanse-8b": 8028033024, "internlm2_5-7b-chat": 7737708544, "granite-4.0-micro": 3402836480,
                  "seed-oss-36b-instruct": 36151104512})
# Issue 18e. falcon-40b-instruct: the hub's safetensors total of tiiuae/falcon-40b (same shapes), as a
# public model catalogue lists it (total_parameters_source: safetensors); falcon-7b-instruct:
# tiiuae/falcon-7b's model_size in a public training benchmark table. Both count the LM head,
# which the checkpoints store as its own tensor although FalconForCausalLM ties it to the
# embedding: published = instantiated + vocab x hidden (checked in main). ernie-4.5-0.3b-pt: a
# third-party count (params=360748032 for family ernie, L=18, d=1024) of baidu/ERNIE-4.5-0.3B-PT.
# Kimi K2 (issue 18e): moonshotai/Kimi-K2-Instruct's instantiated model, 1,026,408,232,448, is a
# serving provider's paramCount (Fireworks) and a third-party safetensors-header recount's "logical
# parameters" of the checkpoint. The hub's figures are that plus 3,416 (= 61 x 56) stored elements
# that are not parameters of the module tree (Instruct: 1,026,408,235,864; Base: + the fp8
# weight_scale_inv 62,495,192 too: 1,026,470,731,056). The same recount's payload, 1,029,173,256,720
# bytes, is nsc's stored bytes + 52,912 = the routers' e_score_correction_bias kept in float32
# (60 MoE layers x 384 x 2 more bytes) + those 3,416 elements in bf16 (checked in main).
KIMI_K2 = {"instantiated": 1026408232448, "hub_instruct": 1026408235864, "hub_base": 1026470731056,
           "payload_bytes": 1029173256720}
PUBLISHED.update({"kimi-k2-instruct": KIMI_K2["instantiated"]})
PUBLISHED_STORED_HEAD = {"falcon-7b-instruct": 7217189760, "falcon-40b-instruct": 41835970560}
PUBLISHED.update({"ernie-4.5-0.3b-pt": 360748032})
# Issue 18f. Falcon-H1: 521,411,104 (tiiuae/Falcon-H1-0.5B-Base, measured from the checkpoint in two
# public engine reports; the instruct model has the same shapes) and 7,585,648,736
# (tiiuae/Falcon-H1-7B-Base, same public audit, whose table also lists both).
PUBLISHED.update({"falcon-h1-0.5b-instruct": 521411104, "falcon-h1-7b-base": 7585648736})
# Qwen3.5 (issue 18f): the text decoders of Qwen/Qwen3.5-27B and Qwen3.5-35B-A3B (Qwen3.6-27B /
# -35B-A3B have the same shapes): 26,895,998,464 and 34,660,610,688 = llama.cpp's n_params of their
# GGUF conversions (text only) in public server logs; + the vision tower (qwen3_5_vision) = the
# model transformers builds, 27,356,728,560 (the hub's safetensors BF16 count of 27B fine-tunes,
# keras-hub's preset params) and 35,107,181,936 (a Transformers meta-init audit of
# Qwen3_5MoeForConditionalGeneration, keras-hub's preset); the 27B checkpoint's 27,781,427,952
# adds the MTP module, 424,699,392 (a public loader's excluded_auxiliary_mtp_parameters).
PUBLISHED.update({"qwen3.5-27b": 26895998464, "qwen3.5-35b-a3b": 34660610688})
# glm-4-9b-0414 (zai-org/GLM-4-9B-0414): the official safetensors count 9,400,279,040 as a public
# deployment note and a public model table quote it; starcoder2-15b (bigcode/starcoder2-15b, its config
# has tie_word_embeddings false): the hub's safetensors metadata 15,957,889,024 (a public model card).
PUBLISHED.update({"glm-4-9b-0414": 9400279040, "starcoder2-15b": 15957889024})
QWEN35_HUB = {"qwen3.5-27b": (27356728560, 27781427952), "qwen3.5-35b-a3b": (35107181936, None)}
# Issue 18h: the families that had no exact published total. exaone-4.0-32b:
# LGAI-EXAONE/EXAONE-4.0-32B's model.safetensors.index.json metadata.total_size / 2 (bf16, no
# quantisation, no MTP, untied head), as a public architecture brief of the EXAONE family quotes it
# ("32,003,216,384"). hunyuan-a13b-instruct: tencent/Hunyuan-A13B-Instruct's safetensors headers,
# 80,393,183,232, as a public parameter ledger quotes them (tied head, 64 experts + 1 shared).
# ministral-8b-instruct-2410: mistralai/Ministral-8B-Instruct-2410's hub safetensors.total (a public
# licence-audit table of hub totals). granite-4.0-h-small: ibm-granite/granite-4.0-h-small's hub
# safetensors total (a public KV planner's registry, whose trimmed copy of the hub config the bundled
# file follows; also llama.cpp's n_params of its GGUF conversion): the Mamba-2 path of granitemoehybrid.
PUBLISHED.update({"exaone-4.0-32b": 32003216384, "hunyuan-a13b-instruct": 80393183232,
                  "ministral-8b-instruct-2410": 8019808256, "granite-4.0-h-small": 32207337984})
# ministral-3-3b-instruct-2512 (mistral3 wrapper, ministral3 text decoder, Pixtral vision tower): the hub's
# safetensors.total of mistralai/Ministral-3-3B-Instruct-2512, 3,849,090,048 (BF16 822,899,712 + F8_E4M3
# 3,026,190,336, as public reports of the hub API quote it), split by a public size preflight into the
# language model 3,429,006,336 and the vision tower + projector 420,083,712. The F8_E4M3 elements are
# exactly the 26 decoder layers' matrices; the BF16 ones the tied embedding, every norm and the tower.
MISTRAL3_HUB["ministral-3-3b-instruct-2512"] = 3849090048
PUBLISHED.update({"ministral-3-3b-instruct-2512": 3429006336})
MINISTRAL3_DTYPES = {"BF16": 822899712, "F8_E4M3": 3026190336}
# cohere2 (no exact total of Command R7B found): CohereLabs/tiny-aya-global (Cohere2ForCausalLM, tied head), the
# parameters of a public from-scratch implementation that loads every tensor of the released checkpoint with
# its shape checked (3,349,227,520 printed by its notebook).
PUBLISHED.update({"tiny-aya-global": 3349227520})
# Granite-4.0-H-Micro (ibm-granite/granite-4.0-h-micro): granite-4.0-h-small's file with hidden 2048, the
# dense shared_mlp of 8192, no experts, 64 Mamba heads of 64: 3,191,396,096 = the general.parameter_count
# of its GGUF conversion (a public Ollama metadata test).
GRANITE4H_MICRO = {"changes": {"hidden_size": 2048, "shared_intermediate_size": 8192, "num_local_experts": 0,
                               "num_experts_per_tok": 0, "mamba_n_heads": 64}, "published": 3191396096}

# Gemma 4 (issue 18): the published totals count the whole Gemma4ForConditionalGeneration, so each is
# checked as text decoder + towers (gemma4_vision, gemma4_audio above, from vision_config / audio_config).
# gemma-4-26b-a4b-it: google/gemma-4-26B-A4B(-it)'s model.safetensors.index.json metadata
# total_parameters (25,805,933,872, as a public loader test copies it; also a public model panel's
# param_count) = text + vision. gemma-4-e2b-it: 5,104,297,504 = the parameters of
# Gemma4ForConditionalGeneration built from google/gemma-4-E2B-it's config.json (revision 3e22461f),
# as a public study asserts = text + vision + audio. The text decoder alone: the 26B-A4B's GGUF
# n_params 25,233,142,046 (llama.cpp's server listing) = nsc's text count + 286 stored elements that
# are not parameters (30 layer_scalar buffers + a 256-entry rope_freqs table of the proportional
# rope: global_head_dim / 2), checked in main.
GEMMA4_HUB = {"gemma-4-26b-a4b-it": (25805933872, "text + vision"), "gemma-4-e2b-it": (5104297504, "text + vision + audio")}
# Issue 18h. gemma-4-e4b-it: 7,941,100,832 = the parameters of Gemma4ForConditionalGeneration built from
# google/gemma-4-E4B-it's config (revision ee0ef602, transformers 5.6.2 meta-model count in one public
# study; the same figure from a second public probe) = text + vision + audio. The same study counts
# google/gemma-4-31B-it at 31,273,086,512: nsc's text decoder + the vision tower of the 26B-A4B's
# vision_config projected to the 31B's hidden size (checked in main: the 31B file holds no vision_config).
GEMMA4_HUB["gemma-4-e4b-it"] = (7941100832, "text + vision + audio")
GEMMA4_31B_META = 31273086512
GEMMA4_GGUF = {"gemma-4-26b-a4b-it": 25233142046}

WORKLOAD = dict(T=4096, C=32768, B=8, kv_bytes=2)


def deepseek_v3_hub_total(c):
    """The hub's 684,531,386,000 for deepseek-ai/DeepSeek-V3: the instantiated model plus the
    multi-token-prediction layer 61 (with its own copies of the embedding and the head) plus the
    float32 weight_scale_inv tensors of the fp8 checkpoint (one per 128 x 128 block)."""
    m, _ = build(c)
    d, V, E = c["hidden_size"], c["vocab_size"], c["n_routed_experts"]
    one = dict(c)
    one["num_hidden_layers"] = 1
    one["first_k_dense_replace"] = 0
    layer = build(one)[0].total() - 2 * V * d - d  # one MoE decoder layer
    mtp = layer + 2 * d + 2 * d * d + d + 2 * V * d  # enorm, hnorm, eh_proj, shared_head.norm, embed, head
    blocks = lambda o, i: math.ceil(o / 128) * math.ceil(i / 128)
    scales = 0
    for (name, o, i, role, cp, _, _) in m.p:
        if role == "mat":
            scales += cp * blocks(o, i)
    # the MTP layer's matrices (eh_proj is not quantised in the checkpoint)
    for (name, o, i, role, cp, _, _) in build(one)[0].p:
        if role == "mat":
            scales += cp * blocks(o, i)
    return m.total() + mtp + scales, mtp, scales


# Deep uniform variants (issue 13, layers with a multiplicity): a bundled config with
# num_hidden_layers = N. Every figure is a sum over layers plus a constant, and the layers past
# the config's own depth L are copies of layer L - 1 (uniform configs; DeepSeek-V3's MoE layers
# after first_k_dense_replace), so v(N) = v(L) + (N - L) (v(L + 1) - v(L)) exactly, with both
# v(L) and v(L + 1) built layer by layer above. Values are decimal strings (some pass 2^64).
DEEP = [("llama-7b", 2000000), ("llama-7b", 10000000), ("llama-7b", 1000000000000),
        ("llama-3.1-70b", 2000000), ("mistral-7b", 10000000), ("deepseek-v3", 10000000)]


def figures(c):
    m, _ = build(c)
    r = {"params_total": m.total(), "params_active": m.active()}
    r.update(deployment(m, **WORKLOAD))
    return r


def deep(name, n):
    c = json.load(open(os.path.join(CONFIGS, name + ".json")))
    L = c["num_hidden_layers"]
    a = figures(c)
    c1 = dict(c)
    c1["num_hidden_layers"] = L + 1
    b = figures(c1)
    return {k: str(a[k] + (n - L) * (b[k] - a[k])) for k in a}


def main():
    out = {"workload": WORKLOAD, "models": {}}
    out["deep"] = [dict(config=name, layers=n, **deep(name, n)) for name, n in DEEP]
    bad = 0
    for fn in sorted(os.listdir(CONFIGS)):
        if not fn.endswith(".json"):
            continue
        name = fn[:-5]
        c = json.load(open(os.path.join(CONFIGS, fn)))
        m, body = build(c)
        r = {"params_total": m.total(), "params_active": m.active(), "layers": len(m.layers)}
        r.update(deployment(m, **WORKLOAD))
        r["layer_kv_bytes_per_token"] = [l["kv_elems"] * WORKLOAD["kv_bytes"] + l.get("indexer_bytes", 0) for l in m.layers]
        r["layer_window"] = [l["window"] or 0 for l in m.layers]
        mt = mtp_18a(body, body["model_type"]) if body.get("model_type") in READERS else None
        if mt:
            r["mtp"] = {k: v for k, v in mt.items() if k != "block"}
        if name in PUBLISHED_18A:  # issue 18a: the scope may add the MTP modules
            pub, scope = PUBLISHED_18A[name]
            got = r["params_total"] + (r["mtp"]["params"] if "MTP" in scope else 0)
            if "head copies" in scope:  # the hub's MTP layer stores the embedding and head again
                got += 2 * body["vocab_size"] * body["hidden_size"]
            r["published_total"], r["published_scope"] = pub, scope
            if got != pub:
                print("MISMATCH", name, got, pub)
                bad += 1
        if any(l.get("chunk") or l.get("nope") for l in m.layers):  # issue 18c: chunked / NoPE layers
            r["layer_chunk"] = [l.get("chunk") or 0 for l in m.layers]
            r["layer_nope"] = [bool(l.get("nope")) for l in m.layers]
        if name in PUBLISHED:
            r["published_total"] = PUBLISHED[name]
            if PUBLISHED[name] != r["params_total"]:
                print("MISMATCH", name, r["params_total"], PUBLISHED[name])
                bad += 1
        out["models"][name] = r
        print("%-26s total %16d active %16d kv/token %8d" % (name, r["params_total"], r["params_active"],
                                                              r["kv_cache_bytes_per_token"]))
    ck = json.load(open(os.path.join(CONFIGS, "kimi-k2-instruct.json")))
    mk, _ = build(ck)
    blocks = lambda o, i: -(-o // 128) * -(-i // 128)
    scales_k = sum(cp * blocks(o, i) for (n, o, i, r, cp, _, _) in mk.p if r == "mat")
    extra = KIMI_K2["hub_instruct"] - mk.total()
    bytes_k = stored_bytes(mk, QUANT_CASES["kimi-k2-instruct"])
    moe_layers = ck["num_hidden_layers"] - ck["first_k_dense_replace"]
    f32_bias = moe_layers * ck["n_routed_experts"] * 2
    print("kimi-k2: hub - instantiated =", extra, "= 61 x", extra // 61, "; Base - Instruct =",
          KIMI_K2["hub_base"] - KIMI_K2["hub_instruct"], "= fp8 scales", scales_k,
          "; payload - nsc bytes =", KIMI_K2["payload_bytes"] - bytes_k, "= f32 bias", f32_bias, "+ 2 x", extra)
    out["kimi_k2_hub"] = dict(KIMI_K2, fp8_scales=scales_k, extra_elements=extra, nsc_stored_bytes=bytes_k,
                              f32_bias_bytes=f32_bias)
    if not (extra == 3416 == 61 * 56 and KIMI_K2["hub_base"] == KIMI_K2["hub_instruct"] + scales_k and
            KIMI_K2["payload_bytes"] == bytes_k + f32_bias + 2 * extra):
        bad += 1
    for name, pub in PUBLISHED_STORED_HEAD.items():  # issue 18e: tied head stored as its own tensor
        c = json.load(open(os.path.join(CONFIGS, name + ".json")))
        r = out["models"][name]
        r["published_total_stored_head"] = pub
        stored = r["params_total"] + c["vocab_size"] * c["hidden_size"]
        print(name, "instantiated", r["params_total"], "+ stored head copy =", stored, "published", pub)
        if stored != pub:
            bad += 1
    # Multimodal wrappers: the text decoder + the vision tower and projector = the published total.
    towers = [(n, t, lambda c: llama4_vision(c["vision_config"], c["text_config"]["hidden_size"]))
              for n, t in LLAMA4_HUB.items()]
    towers += [(n, t, lambda c: pixtral_vision(c, c["text_config"]["hidden_size"])) for n, t in MISTRAL3_HUB.items()]
    towers += [(n, t[0], lambda c: qwen3_5_vision(c["vision_config"])) for n, t in QWEN35_HUB.items()]
    for name, hub_total, tower in towers:
        c = json.load(open(os.path.join(CONFIGS, name + ".json")))
        vision = tower(c)
        r = out["models"][name]
        r["vision_params"] = vision
        r["published_total_with_vision"] = hub_total
        print(name, "text", r["params_total"], "+ vision", vision, "=", r["params_total"] + vision, "hub", hub_total)
        if r["params_total"] + vision != hub_total:
            bad += 1
    # Gemma 4: towers from the config, and the KV source of every KV-shared layer.
    for fn in sorted(os.listdir(CONFIGS)):
        name = fn[:-5]
        c = json.load(open(os.path.join(CONFIGS, fn)))
        if c.get("model_type") != "gemma4":
            continue
        r = out["models"][name]
        r["vision_params"] = gemma4_vision(c) if c.get("vision_config") else -1
        r["audio_params"] = gemma4_audio(c) if c.get("audio_config") else -1
        t = c["text_config"]
        n_shared = t.get("num_kv_shared_layers") or 0
        r["kv_sources"] = {str(i): gemma4_kv_source(t, i) for i in range(t["num_hidden_layers"] - n_shared, t["num_hidden_layers"])}
        towers_sum = r["params_total"] + max(r["vision_params"], 0) + max(r["audio_params"], 0)
        print(name, "text", r["params_total"], "active", r["params_active"], "+ vision", r["vision_params"], "+ audio",
              r["audio_params"], "=", towers_sum)
        if name in GEMMA4_HUB:
            pub, scope = GEMMA4_HUB[name]
            r["published_total_with_towers"], r["published_towers_scope"] = pub, scope
            if towers_sum != pub:
                print("MISMATCH", name, towers_sum, pub)
                bad += 1
        if name in GEMMA4_GGUF:
            extra = GEMMA4_GGUF[name] - r["params_total"]
            r["gguf_n_params"] = GEMMA4_GGUF[name]
            print(name, "GGUF n_params - text =", extra, "= layers", t["num_hidden_layers"], "+ rope_freqs", t["global_head_dim"] // 2)
            if extra != t["num_hidden_layers"] + t["global_head_dim"] // 2:
                bad += 1
    for name, (with_vision, checkpoint) in QWEN35_HUB.items():  # issue 18f: + the MTP module = the checkpoint
        if checkpoint is None:
            continue
        c = json.load(open(os.path.join(CONFIGS, name + ".json")))
        mtp = qwen3_5_mtp(c["text_config"])
        out["models"][name]["mtp_checkpoint_params"] = mtp
        out["models"][name]["published_checkpoint_total"] = checkpoint
        print(name, "text + vision", with_vision, "+ MTP", mtp, "=", with_vision + mtp, "checkpoint", checkpoint)
        if with_vision + mtp != checkpoint:
            bad += 1
    # Issue 18h: Gemma 4 31B with the 26B-A4B's vision tower; Granite-4.0-H-Micro; Ministral 3's dtypes.
    c31 = json.load(open(os.path.join(CONFIGS, "gemma-4-31b-it.json")))
    c26 = json.load(open(os.path.join(CONFIGS, "gemma-4-26b-a4b-it.json")))
    v31 = gemma4_vision(dict(c31, vision_config=c26["vision_config"]))
    t31 = out["models"]["gemma-4-31b-it"]["params_total"]
    print("gemma-4-31b-it text", t31, "+ vision (26B-A4B's vision_config)", v31, "=", t31 + v31, "meta-model", GEMMA4_31B_META)
    out["gemma4_31b_meta"] = {"text": t31, "vision_26b_config": v31, "published": GEMMA4_31B_META}
    if t31 + v31 != GEMMA4_31B_META:
        bad += 1
    ch = json.load(open(os.path.join(CONFIGS, "granite-4.0-h-small.json")))
    mm, _ = build(dict(ch, **GRANITE4H_MICRO["changes"]))
    print("granite-4.0-h-micro (variant of h-small)", mm.total(), "published", GRANITE4H_MICRO["published"])
    out["granite4h_micro"] = dict(GRANITE4H_MICRO, params_total=mm.total(), params_active=mm.active())
    if mm.total() != GRANITE4H_MICRO["published"]:
        bad += 1
    cm = json.load(open(os.path.join(CONFIGS, "ministral-3-3b-instruct-2512.json")))
    mm3, _ = build(cm)
    f8 = sum(cp * o * i for (name, o, i, role, cp, _, _) in mm3.p if role == "mat" and not name.startswith(("embed", "lm_head")))
    rest = out["models"]["ministral-3-3b-instruct-2512"]["vision_params"] + mm3.total() - f8
    print("ministral-3-3b layer matrices", f8, "(hub F8_E4M3", MINISTRAL3_DTYPES["F8_E4M3"], ") rest", rest, "(hub BF16",
          MINISTRAL3_DTYPES["BF16"], ")")
    out["ministral3_dtypes"] = dict(MINISTRAL3_DTYPES, nsc_layer_matrices=f8, nsc_rest=rest)
    if (f8, rest) != (MINISTRAL3_DTYPES["F8_E4M3"], MINISTRAL3_DTYPES["BF16"]):
        bad += 1
    # DeepSeek-V3.2-Exp (and -Speciale): the hub's 685,396,921,376 = the instantiated model + the
    # MTP layer 61 (with its own indexer) + the fp8 weight_scale_inv of every quantised matrix
    # (the indexer's wq_b and wk too; weights_proj is stored in bf16).
    c32 = json.load(open(os.path.join(CONFIGS, "deepseek-v3.2-exp.json")))
    m32, _ = build(c32)
    one = dict(c32)
    one["num_hidden_layers"] = 1
    one["first_k_dense_replace"] = 0
    m1, _ = build(one)
    d, V = c32["hidden_size"], c32["vocab_size"]
    mtp32 = (m1.total() - 2 * V * d - d) + 2 * d + 2 * d * d + d + 2 * V * d
    blocks = lambda o, i: -(-o // 128) * -(-i // 128)
    quantised = lambda name, role: role == "mat" and not name.endswith("weights_proj")
    sc32 = sum(cp * blocks(o, i) for (name, o, i, role, cp, _, _) in m32.p + m1.p if quantised(name, role))
    hub32 = m32.total() + mtp32 + sc32
    print("deepseek-v3.2-exp hub total", hub32, "= instantiated", m32.total(), "+ MTP layer", mtp32, "+ fp8 scales", sc32)
    assert hub32 == 685396921376, hub32
    out["deepseek_v32_hub"] = {"total": hub32, "mtp_layer": mtp32, "fp8_scales": sc32}
    hub, mtp, scales = deepseek_v3_hub_total(json.load(open(os.path.join(CONFIGS, "deepseek-v3.json"))))
    print("deepseek-v3 hub total", hub, "= instantiated + MTP layer", mtp, "+ fp8 scales", scales)
    assert hub == 684531386000, hub
    out["deepseek_v3_hub"] = {"total": hub, "mtp_layer": mtp, "fp8_scales": scales}
    # Issue 18a: stored bytes of quantised checkpoints (served model, MTP modules not included).
    q = {}
    for name, scheme in QUANT_CASES.items():
        path = os.path.join(CONFIGS, name + ".json")
        if os.path.exists(path):
            m, _ = build(json.load(open(path)))
            q[name] = stored_bytes(m, scheme)
    for case, (name, scheme) in SYNTHETIC_QUANT.items():
        m, _ = build(json.load(open(os.path.join(CONFIGS, name + ".json"))))
        q[case] = stored_bytes(m, scheme)
    out["stored_bytes"] = q
    print("stored bytes", q)
    with open(os.path.join(HERE, "family_params.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
