#!/usr/bin/python3
"""Test tool: converts a pruned DeciLM checkpoint written by `nsc prune ... --emit-format decilm
--emit-checkpoint OUT` (F32 safetensors) to a GGUF file of llama.cpp's `deci` architecture, with
no tokenizer (tokenizer.ggml.model = "no_vocab", as llama.cpp's own dummy-model tests), so that
llama.cpp can load it and compute logits for token ids.

Usage: /usr/bin/python3 gguf_from_pruned.py OUT_DIR MODEL.gguf

Written from the format (../shared/docs/deployment.md "GGUF in brief"): magic "GGUF", version 3,
tensor and key counts, typed key/values, tensor infos (dims innermost first, ggml type F32 = 0,
offsets aligned to 32), the data. Per-layer keys as llama.cpp's deci converter writes them:
deci.attention.head_count / head_count_kv / feed_forward_length arrays (0 heads for a layer
without attention), q_proj and k_proj rows permuted per head (HF's rotate-half RoPE layout to
llama.cpp's adjacent pairs: reshape(n, 2, hd / 2, in).swapaxes(1, 2)).
"""
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
from check_pruned_checkpoint import layer_shapes, read_safetensors_dir  # noqa: E402

ALIGN = 32


def s(x):
    b = x.encode()
    return struct.pack("<Q", len(b)) + b


def kv(key, typ, val):
    out = s(key) + struct.pack("<I", typ)
    if typ == 4:
        out += struct.pack("<I", val)
    elif typ == 6:
        out += struct.pack("<f", val)
    elif typ == 8:
        out += s(val)
    elif typ == 9:  # array of INT32
        out += struct.pack("<IQ", 5, len(val)) + b"".join(struct.pack("<i", v) for v in val)
    elif typ == 96:  # array of FLOAT32
        out = s(key) + struct.pack("<I", 9) + struct.pack("<IQ", 6, len(val)) + b"".join(struct.pack("<f", v) for v in val)
    elif typ == 98:  # array of STRING
        out = s(key) + struct.pack("<I", 9) + struct.pack("<IQ", 8, len(val)) + b"".join(s(v) for v in val)
    else:
        raise ValueError(typ)
    return out


def permute(w, n):
    return w.reshape(n, 2, w.shape[0] // n // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def main():
    src, dst = sys.argv[1:3]
    cfg = json.load(open(os.path.join(src, "config.json")))
    if "block_configs" not in cfg:
        sys.exit("gguf_from_pruned: needs a DeciLM config (--emit-format decilm)")
    W = read_safetensors_dir(src)
    shapes = layer_shapes(cfg)
    d, L = cfg["hidden_size"], cfg["num_hidden_layers"]
    hd = d // cfg["num_attention_heads"]
    V = cfg["vocab_size"]
    NV = max(V, 3 + 256 + 1)
    heads = [x["h"] or 0 for x in shapes]
    kvh = [x["k"] or 0 for x in shapes]
    ffn = [x["w"] or 0 for x in shapes]
    meta = [kv("general.architecture", 8, "deci"), kv("general.name", 8, "nsc-pruned"),
            kv("general.alignment", 4, ALIGN), kv("deci.block_count", 4, L),
            kv("deci.context_length", 4, cfg.get("max_position_embeddings", 2048)),
            kv("deci.embedding_length", 4, d), kv("deci.feed_forward_length", 9, ffn),
            kv("deci.attention.head_count", 9, heads), kv("deci.attention.head_count_kv", 9, kvh),
            kv("deci.attention.layer_norm_rms_epsilon", 6, cfg["rms_norm_eps"]),
            kv("deci.rope.freq_base", 6, cfg.get("rope_theta", 10000.0)),
            kv("deci.attention.key_length", 4, hd), kv("deci.attention.value_length", 4, hd),
            kv("deci.rope.dimension_count", 4, hd), kv("deci.vocab_size", 4, NV),
            # a placeholder SentencePiece vocabulary of NV >= V ids (<unk>, <s>, </s>, the 256 byte
            # pieces <0xXX>, then "\u2581t<id>"): node-llama-cpp tokenizes text at load, which
            # "no_vocab" refuses and which needs the byte pieces; ids >= V get zero embedding and
            # LM-head rows (logit 0), so the first V logits are the model's up to the softmax shift
            kv("tokenizer.ggml.model", 8, "llama"),
            kv("tokenizer.ggml.tokens", 98, ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)] +
               [f"\u2581t{i}" for i in range(259, NV)]),
            kv("tokenizer.ggml.scores", 96, [0.0] * NV),
            kv("tokenizer.ggml.token_type", 9, [2, 3, 3] + [6] * 256 + [1] * (NV - 259)),
            kv("tokenizer.ggml.unknown_token_id", 4, 0), kv("tokenizer.ggml.bos_token_id", 4, 1),
            kv("tokenizer.ggml.eos_token_id", 4, 2)]
    names = {"input_layernorm.weight": "attn_norm.weight", "self_attn.q_proj.weight": "attn_q.weight",
             "self_attn.k_proj.weight": "attn_k.weight", "self_attn.v_proj.weight": "attn_v.weight",
             "self_attn.o_proj.weight": "attn_output.weight", "post_attention_layernorm.weight": "ffn_norm.weight",
             "mlp.gate_proj.weight": "ffn_gate.weight", "mlp.up_proj.weight": "ffn_up.weight",
             "mlp.down_proj.weight": "ffn_down.weight"}
    def pad(t):  # rows V..NV-1 zero
        return np.concatenate([t, np.zeros((NV - V, t.shape[1]))]) if NV > V else t

    tensors = [("token_embd.weight", pad(W["model.embed_tokens.weight"]))]
    for l in range(L):
        p = f"model.layers.{l}."
        for hf, gg in names.items():
            if p + hf not in W:
                continue
            t = W[p + hf]
            if hf == "self_attn.q_proj.weight":
                t = permute(t, heads[l])
            if hf == "self_attn.k_proj.weight":
                t = permute(t, kvh[l])
            tensors.append((f"blk.{l}.{gg}", t))
    tensors.append(("output_norm.weight", W["model.norm.weight"]))
    tensors.append(("output.weight", pad(W.get("lm_head.weight", W["model.embed_tokens.weight"]))))
    info, data, off = b"", b"", 0
    for name, t in tensors:
        a = np.ascontiguousarray(t, dtype="<f4")
        info += s(name) + struct.pack("<I", a.ndim) + b"".join(struct.pack("<Q", x) for x in reversed(a.shape))
        info += struct.pack("<IQ", 0, off)
        blob = a.tobytes()
        blob += b"\0" * ((ALIGN - len(blob) % ALIGN) % ALIGN)
        data += blob
        off += len(blob)
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(meta)) + b"".join(meta) + info
    head += b"\0" * ((ALIGN - len(head) % ALIGN) % ALIGN)
    with open(dst, "wb") as f:
        f.write(head + data)
    print(f"{dst}: deci, {L} layers, heads {heads}, KV heads {kvh}, FFN {ffn}, {len(tensors)} tensors")


if __name__ == "__main__":
    main()
