#!/usr/bin/python3
"""Writes a random BF16 safetensors checkpoint with the shapes of a Hugging Face llama config
(or gemma2 / gemma3_text: four norms; deepseek_v2 / deepseek_v3 / kimi_k2: MLA and DeepSeek's MoE;
gpt_oss: fused 3-D experts, in MXFP4 (U8 blocks and scales) when its quantization_config says mxfp4)
(default examples/configs/llama-3-8b.json: 8.03e9 parameters, 16 GB), sharded like the hub's
(about 5 GB per file, with model.safetensors.index.json), for timing and memory measurements of
`nsc prune --weights ... --emit-checkpoint` and `nsc weights` at real size. Never commit the
output.

Usage: /usr/bin/python3 make_synthetic_checkpoint.py OUT_DIR [CONFIG.json]

Entries: windows of one pool of 2^27 N(0, 0.02^2) values (float32 truncated to BF16, seed 8)
at a random start per tensor; norms 1.
"""
import json
import os
import shutil
import struct
import sys
import zlib

import numpy as np


POOL = None


def main():
    global POOL
    POOL = ((np.random.default_rng(8).standard_normal(1 << 27, dtype=np.float32) * np.float32(0.02)).view(np.uint32) >> 16).astype("<u2")
    out = sys.argv[1]
    cfg_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "..", "examples", "configs", "llama-3-8b.json")
    cfg = json.load(open(cfg_path))
    wrapper = "language_model." if cfg.get("model_type") == "llama4" else ""  # Llama4ForConditionalGeneration's text decoder
    cfg = cfg["text_config"] if wrapper else cfg
    d, H, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    K, F, V = cfg.get("num_key_value_heads", H), cfg["intermediate_size"], cfg["vocab_size"]
    hd = cfg.get("head_dim") or d // H
    t = [("model.embed_tokens.weight", (V, d))]
    mt = cfg.get("model_type", "llama")
    for l in range(L):
        p = f"model.layers.{l}."
        if mt in ("deepseek_v2", "deepseek_v3", "kimi_k2"):  # multi-head latent attention + DeepSeek's MoE
            qk, R, C, rp = cfg["qk_nope_head_dim"] + cfg["qk_rope_head_dim"], cfg.get("q_lora_rank"), cfg["kv_lora_rank"], cfg["qk_rope_head_dim"]
            t += [(p + "input_layernorm.weight", (d,))]
            t += ([(p + "self_attn.q_a_proj.weight", (R, d)), (p + "self_attn.q_a_layernorm.weight", (R,)),
                   (p + "self_attn.q_b_proj.weight", (H * qk, R))] if R else [(p + "self_attn.q_proj.weight", (H * qk, d))])
            t += [(p + "self_attn.kv_a_proj_with_mqa.weight", (C + rp, d)), (p + "self_attn.kv_a_layernorm.weight", (C,)),
                  (p + "self_attn.kv_b_proj.weight", (H * (cfg["qk_nope_head_dim"] + cfg["v_head_dim"]), C)),
                  (p + "self_attn.o_proj.weight", (d, H * cfg["v_head_dim"])), (p + "post_attention_layernorm.weight", (d,))]
            if cfg.get("n_routed_experts") and l >= cfg.get("first_k_dense_replace", 0):
                E, Fe = cfg["n_routed_experts"], cfg["moe_intermediate_size"]
                S = cfg.get("n_shared_experts", 0) * Fe
                t += [(p + "mlp.gate.weight", (E, d))]
                if cfg.get("topk_method") == "noaux_tc":
                    t += [(p + "mlp.gate.e_score_correction_bias", (E,))]
                for e in range(E):
                    x = p + f"mlp.experts.{e}."
                    t += [(x + "gate_proj.weight", (Fe, d)), (x + "up_proj.weight", (Fe, d)), (x + "down_proj.weight", (d, Fe))]
                if S:
                    x = p + "mlp.shared_experts."
                    t += [(x + "gate_proj.weight", (S, d)), (x + "up_proj.weight", (S, d)), (x + "down_proj.weight", (d, S))]
            else:
                t += [(p + "mlp.gate_proj.weight", (F, d)), (p + "mlp.up_proj.weight", (F, d)), (p + "mlp.down_proj.weight", (d, F))]
            continue
        if mt in ("llama4_text", "ernie4_5_moe", "hunyuan_v1_moe"):  # issue 19l's MoE layouts
            t += moe19l_layer(cfg, l, p)
            continue
        if mt == "gpt_oss":  # biased attention, sinks, router bias, fused 3-D experts (MXFP4 when quantization_config says so)
            E, x = cfg["num_local_experts"], p + "mlp.experts."
            t += [(p + "input_layernorm.weight", (d,)), (p + "post_attention_layernorm.weight", (d,)),
                  (p + "self_attn.q_proj.weight", (H * hd, d)), (p + "self_attn.q_proj.bias", (H * hd,)),
                  (p + "self_attn.k_proj.weight", (K * hd, d)), (p + "self_attn.k_proj.bias", (K * hd,)),
                  (p + "self_attn.v_proj.weight", (K * hd, d)), (p + "self_attn.v_proj.bias", (K * hd,)),
                  (p + "self_attn.o_proj.weight", (d, H * hd)), (p + "self_attn.o_proj.bias", (d,)),
                  (p + "self_attn.sinks", (H,)), (p + "mlp.router.weight", (E, d)), (p + "mlp.router.bias", (E,)),
                  (x + "gate_up_proj_bias", (E, 2 * F)), (x + "down_proj_bias", (E, d))]
            if cfg.get("quantization_config", {}).get("quant_method") == "mxfp4":  # [E, out, in / 32, 16] and [E, out, in / 32]
                t += [(x + "gate_up_proj_blocks", (E, 2 * F, d // 32, 16), "U8"), (x + "gate_up_proj_scales", (E, 2 * F, d // 32), "U8"),
                      (x + "down_proj_blocks", (E, d, F // 32, 16), "U8"), (x + "down_proj_scales", (E, d, F // 32), "U8")]
            else:
                t += [(x + "gate_up_proj", (E, d, 2 * F)), (x + "down_proj", (E, F, d))]
            continue
        if mt in ("gemma2", "gemma3_text"):  # four norms; gemma3: per-head q_norm / k_norm
            t += [(p + "pre_feedforward_layernorm.weight", (d,)), (p + "post_feedforward_layernorm.weight", (d,))]
            if mt == "gemma3_text":
                t += [(p + "self_attn.q_norm.weight", (hd,)), (p + "self_attn.k_norm.weight", (hd,))]
        t += [(p + "input_layernorm.weight", (d,)), (p + "self_attn.q_proj.weight", (H * hd, d)),
              (p + "self_attn.k_proj.weight", (K * hd, d)), (p + "self_attn.v_proj.weight", (K * hd, d)),
              (p + "self_attn.o_proj.weight", (d, H * hd)), (p + "post_attention_layernorm.weight", (d,)),
              (p + "mlp.gate_proj.weight", (F, d)), (p + "mlp.up_proj.weight", (F, d)),
              (p + "mlp.down_proj.weight", (d, F))]
    t += [("model.norm.weight", (d,))]
    tied = cfg.get("tie_word_embeddings")
    if not (tied if tied is not None else mt.startswith("gemma")):  # gemma's config classes tie by default
        t += [("lm_head.weight", (V, d))]
    t = [(wrapper + x[0],) + x[1:] for x in t]
    t = [x if len(x) == 3 else x + ("BF16",) for x in t]  # (name, shape, dtype)
    shards, cur, size = [], [], 0
    for name, shape, dt in t:
        b = int(np.prod(shape)) * (1 if dt == "U8" else 2)
        if cur and size + b > 5_000_000_000:
            shards.append(cur)
            cur, size = [], 0
        cur.append((name, shape, dt))
        size += b
    shards.append(cur)
    os.makedirs(out, exist_ok=True)
    shutil.copy(cfg_path, os.path.join(out, "config.json"))
    wm, total = {}, 0
    for i, sh in enumerate(shards):
        fn = f"model-{i + 1:05d}-of-{len(shards):05d}.safetensors"
        header, off = {"__metadata__": {"format": "pt"}}, 0
        for name, shape, dt in sh:
            n = int(np.prod(shape)) * (1 if dt == "U8" else 2)
            header[name] = {"dtype": dt, "shape": list(shape), "data_offsets": [off, off + n]}
            off += n
            wm[name] = fn
        total += off
        h = json.dumps(header).encode()
        h += b" " * ((8 - (8 + len(h)) % 8) % 8)
        with open(os.path.join(out, fn), "wb") as f:
            f.write(struct.pack("<Q", len(h)) + h)
            for name, shape, dt in sh:
                n = int(np.prod(shape))
                if dt == "U8":  # MXFP4: random e2m1 pairs; scales 2^-3 (124)
                    rng = np.random.default_rng([8, zlib.crc32(name.encode())])
                    f.write(np.full(n, 124, dtype=np.uint8).tobytes() if name.endswith("_scales") else
                            rng.integers(0, 256, n, dtype=np.uint8).tobytes())
                    continue
                if len(shape) == 1:
                    f.write(np.full(n, 0x3F80, dtype="<u2").tobytes())  # BF16 1.0
                    continue
                # windows of one 2^27-entry pool at a per-tensor random start (fast to write: the
                # timings and memory measured do not depend on the values)
                start = int(np.random.default_rng([8, zlib.crc32(name.encode())]).integers(0, POOL.size))
                for s in range(0, n, 1 << 24):
                    k = min(1 << 24, n - s)
                    i = (start + s) % (POOL.size - k)
                    f.write(POOL[i:i + k].tobytes())
        print(fn, off, "bytes", flush=True)
    json.dump({"metadata": {"total_size": total}, "weight_map": wm}, open(os.path.join(out, "model.safetensors.index.json"), "w"))


def moe19l_layer(cfg, l, p):
    """Layer l's tensors of llama4_text (feed_forward.*: fused experts [E, d, 2F] / [E, F, d], router, shared expert;
    dense layers of intermediate_size_mlp), ernie4_5_moe (mlp.gate, moe_statics [1, E], experts, shared_experts;
    dense layers outside moe_layer_start_index .. moe_layer_end_index) or hunyuan_v1_moe (mlp.gate.wg, experts,
    shared_mlp; query_layernorm / key_layernorm), without biases."""
    mt, d, H = cfg["model_type"], cfg["hidden_size"], cfg["num_attention_heads"]
    K, hd = cfg.get("num_key_value_heads", H), cfg.get("head_dim") or d // H
    t = [(p + "input_layernorm.weight", (d,)), (p + "self_attn.q_proj.weight", (H * hd, d)),
         (p + "self_attn.k_proj.weight", (K * hd, d)), (p + "self_attn.v_proj.weight", (K * hd, d)),
         (p + "self_attn.o_proj.weight", (d, H * hd)), (p + "post_attention_layernorm.weight", (d,))]
    mlp = lambda x, F: [(x + "gate_proj.weight", (F, d)), (x + "up_proj.weight", (F, d)), (x + "down_proj.weight", (d, F))]
    if mt == "llama4_text":
        E, F = cfg["num_local_experts"], cfg["intermediate_size"]
        moe = l in cfg["moe_layers"] if cfg.get("moe_layers") is not None else (l + 1) % cfg.get("interleave_moe_layer_step", 1) == 0
        if not moe:
            return t + mlp(p + "feed_forward.", cfg["intermediate_size_mlp"])
        x = p + "feed_forward."
        return t + [(x + "router.weight", (E, d)), (x + "experts.gate_up_proj", (E, d, 2 * F)),
                    (x + "experts.down_proj", (E, F, d))] + mlp(x + "shared_expert.", F)
    if mt == "ernie4_5_moe":
        E, Fe = cfg["moe_num_experts"], cfg["moe_intermediate_size"]
        end = cfg["moe_layer_end_index"] if cfg["moe_layer_end_index"] >= 0 else cfg["num_hidden_layers"] - 1
        if not (cfg["moe_layer_start_index"] <= l <= end and (l + 1) % cfg.get("moe_layer_interval", 1) == 0):
            return t + mlp(p + "mlp.", cfg["intermediate_size"])
        t += [(p + "mlp.gate.weight", (E, d)), (p + "mlp.moe_statics.e_score_correction_bias", (1, E))]
        for e in range(E):
            t += mlp(p + f"mlp.experts.{e}.", Fe)
        return t + mlp(p + "mlp.shared_experts.", Fe * cfg["moe_num_shared_experts"])
    E, F = cfg["num_experts"], cfg["intermediate_size"]
    t += [(p + "self_attn.query_layernorm.weight", (hd,)), (p + "self_attn.key_layernorm.weight", (hd,)),
          (p + "mlp.gate.wg.weight", (E, d))]
    for e in range(E):
        t += mlp(p + f"mlp.experts.{e}.", F)
    return t + mlp(p + "mlp.shared_mlp.", F)


if __name__ == "__main__":
    main()
