#!/usr/bin/python3
"""Independent reference for nsc's Hugging Face reader and deployment accounting.

For every bundled config (examples/configs/*.json) this script lists the parameter tensors the
transformers modeling file of its model_type instantiates (name, shape, role), by its own code
written from the modeling files (LlamaForCausalLM, Gemma2/3, Phi3, Qwen3, Qwen2Moe, Qwen3Moe,
DeepseekV2/V3 (remote code modeling_deepseek.py), GPTNeoX, Olmo2, DeciLM, GPT2, BERT, OPT), and
from that list alone derives

  params_total, params_active (MoE: top-k routed experts + shared experts), and, at the workload
  below, KV-cache bytes, weight bytes per dtype, FLOPs of decode and prefill,

by the conventions stated in README "Conventions: params, FLOPs, KV cache, memory":
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
           "nemotron-nas": deci, "gpt2": gpt2, "bert": bert, "opt": opt,
           "nemotron_h": nemotron_h, "qwen3_next": qwen3_next}


def build(c):
    t = c["model_type"]
    if t == "gemma3" and "text_config" in c:
        c = dict(c["text_config"])
        t = c.get("model_type", "gemma3_text")
        defaults = {"vocab_size": 262208, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
                    "sliding_window": 4096, "sliding_window_pattern": 6}
        for k, v in defaults.items():
            c.setdefault(k, v)
    return READERS[t](c, t), c


def keys(T, W, conv):
    """Sum over T queries of the keys each attends."""
    if conv == "full":
        return T * (T if W is None else min(T, W))
    if W is None or T <= W:
        return T * (T + 1) // 2
    return W * (W + 1) // 2 + (T - W) * W


def deployment(m, T, C, B, kv_bytes, state_bytes=2, conv_bytes=2):
    lin = m.linear_macs() + getattr(m, "tied_head_macs", 0)
    out = {"linear_macs_per_token": lin}
    out["kv_cache_bytes_per_token"] = sum(l["kv_elems"] for l in m.layers) * kv_bytes
    # state-space layers (issue 18): a fixed state per sequence, in the cache; recurrence MACs per token
    state = B * sum(l.get("conv_state", 0) * conv_bytes + l.get("ssm_state", 0) * state_bytes for l in m.layers)
    smacs = sum(l.get("state_macs", 0) for l in m.layers)
    out["state_bytes"] = state
    out["kv_cache_bytes"] = B * kv_bytes * sum(
        l["kv_elems"] * (C if l["window"] is None else min(C, l["window"])) for l in m.layers) + state
    out["decode_flops"] = 2 * (lin + smacs + sum(l["per_key"] * (C if l["window"] is None else min(C, l["window"]))
                                                 for l in m.layers))
    for conv in ("full", "causal"):
        out["prefill_flops_" + conv] = 2 * (T * (lin + smacs) + getattr(m, "per_sequence_macs", 0) + sum(l["per_key"] * keys(T, l["window"], conv) for l in m.layers))
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

# Issue 18 (part b): exact totals quoted by third parties (no exact figure on the hub pages we
# could read; the hub shows rounded sizes). qwen3-coder-next: Qwen/Qwen3-Coder-Next's total and
# active parameters as quoted in a public parser's test ("published total minus inactive expert
# tensors"); nemotron-h-8b-base-8k: a public tensor-by-tensor breakdown of the checkpoint
# ("8,100,852,736"). Checked like PUBLISHED, reported with their provenance in the README.
PUBLISHED.update({"qwen3-coder-next": 79674391296, "nemotron-h-8b-base-8k": 8100852736})

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
        r["layer_kv_bytes_per_token"] = [l["kv_elems"] * WORKLOAD["kv_bytes"] for l in m.layers]
        r["layer_window"] = [l["window"] or 0 for l in m.layers]
        if name in PUBLISHED:
            r["published_total"] = PUBLISHED[name]
            if PUBLISHED[name] != r["params_total"]:
                print("MISMATCH", name, r["params_total"], PUBLISHED[name])
                bad += 1
        out["models"][name] = r
        print("%-26s total %16d active %16d kv/token %8d" % (name, r["params_total"], r["params_active"],
                                                              r["kv_cache_bytes_per_token"]))
    hub, mtp, scales = deepseek_v3_hub_total(json.load(open(os.path.join(CONFIGS, "deepseek-v3.json"))))
    print("deepseek-v3 hub total", hub, "= instantiated + MTP layer", mtp, "+ fp8 scales", scales)
    assert hub == 684531386000, hub
    out["deepseek_v3_hub"] = {"total": hub, "mtp_layer": mtp, "fp8_scales": scales}
    with open(os.path.join(HERE, "family_params.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
