#!/usr/bin/python3
"""Writes the safetensors test checkpoints of tests/test_safetensors.cpp and their numpy reference.

Run with Debian's /usr/bin/python3 (numpy only) from the repository root:

    /usr/bin/python3 tests/reference/gen_safetensors.py

Files are written by hand, exactly as the format specifies (8-byte little-endian header length
N, N bytes of JSON header, the raw little-endian data buffer; tensors row-major), so the C++
reader is checked against an independent writer. BF16 values are float32 rounded to nearest
even by integer arithmetic; F16 by numpy's astype(float16) (also nearest even).

Outputs, under tests/data/safetensors/:
  bare.safetensors              matrices of known spectra (U diag(s) V^T) in F64, F32, F16, BF16,
                                a 1-D bias, an I8 tensor and __metadata__; no config
  llama_sharded/                tiny llama (GQA) config.json + model.safetensors.index.json and two
                                shards of mixed dtypes (F32, BF16, F16)
  gpt2/, phi3/, gpt_neox/, deepseek_v3/, mixtral/   tiny checkpoints with fused / transposed /
                                interleaved / MLA / expert layouts, one file each + config.json
  hostile/*.safetensors, hostile_index_*/           files breaking one rule each
  reference.csv                 checkpoint,tensor,kind,head,row0,rows,col0,cols,psi_w: numpy SVD
                                (float64) of the STORED values (after dtype rounding) of every
                                scored block, in the PyTorch (out, in) orientation
The reference psi is sum(log1p(s**2)) over numpy.linalg.svd's singular values of the block.
"""
import json
import os
import shutil
import struct

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "safetensors")
rng = np.random.default_rng(20261201)
REF = []


def bf16_bits(x):
    """float32 -> bfloat16 bit patterns, round to nearest even."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    r = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return r.astype(np.uint16)


def bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def encode(arr, dtype):
    """(raw little-endian bytes, stored values in float64) of a float64 array in `dtype`."""
    a = np.asarray(arr, dtype=np.float64)
    if dtype == "F64":
        s = a.astype("<f8")
        return s.tobytes(), s.astype(np.float64)
    if dtype == "F32":
        s = a.astype("<f4")
        return s.tobytes(), s.astype(np.float64)
    if dtype == "F16":
        s = a.astype("<f2")
        return s.tobytes(), s.astype(np.float64)
    if dtype == "BF16":
        b = bf16_bits(a.astype(np.float32)).astype("<u2")
        return b.tobytes(), bf16_value(b)
    if dtype == "I8":
        s = np.clip(np.round(a * 100), -128, 127).astype(np.int8)
        return s.tobytes(), s.astype(np.float64)
    raise ValueError(dtype)


def write_safetensors(path, tensors, metadata=None):
    """tensors: list of (name, dtype, shape, raw bytes). Returns nothing; writes the file."""
    header = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    off = 0
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [off, off + len(raw)]}
        off += len(raw)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)  # the reference writer pads to 8 bytes with spaces
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for _, _, _, raw in tensors:
            f.write(raw)


def write_raw(path, header_bytes, data, length=None):
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header_bytes) if length is None else length))
        f.write(header_bytes)
        f.write(data)


def with_spectrum(m, n, s):
    qa, _ = np.linalg.qr(rng.standard_normal((m, m)))
    qb, _ = np.linalg.qr(rng.standard_normal((n, n)))
    d = np.zeros((m, n))
    for i, v in enumerate(s):
        d[i, i] = v
    return qa @ d @ qb.T


def psi(block):
    s = np.linalg.svd(block, compute_uv=False)
    return float(np.sum(np.log1p(s * s)))


def ref(ck, tensor, kind, head, w, r0, nr, c0, nc):
    REF.append((ck, tensor, kind, head, r0, nr, c0, nc, psi(w[r0:r0 + nr, c0:c0 + nc])))


class Writer:
    """Collects tensors of one file; `add` stores W (out, in) and returns the stored values."""

    def __init__(self):
        self.tensors = []

    def add(self, name, w, dtype, transposed=False):
        raw, stored = encode(w.T if transposed else w, dtype)
        self.tensors.append((name, dtype, (w.T if transposed else w).shape, raw))
        return stored.T if transposed else stored


def heads(ck, name, kind, w, count, size, start=0, stride=None):
    stride = size if stride is None else stride
    for h in range(count):
        ref(ck, name, kind, h, w, start + h * stride, size, 0, w.shape[1])


def whole(ck, name, kind, w):
    ref(ck, name, kind, -1, w, 0, w.shape[0], 0, w.shape[1])


def rand(m, n, std=0.05):
    return rng.standard_normal((m, n)) * std


def write_config(d, cfg):
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)


def main():
    if os.path.isdir(ROOT):
        shutil.rmtree(ROOT)
    os.makedirs(ROOT)

    # ---- bare: known spectra in every dtype -------------------------------------------------
    wr = Writer()
    specs = [("w_f64", "F64", 48, 32, np.geomspace(0.05, 4.0, 32)),
             ("w_f32", "F32", 32, 48, np.geomspace(0.1, 3.0, 32)),
             ("w_f16", "F16", 40, 24, np.geomspace(0.2, 2.0, 24)),
             ("w_bf16", "BF16", 24, 40, np.geomspace(0.2, 6.0, 24)),
             ("spiked_f32", "F32", 64, 40, np.r_[30.0, np.geomspace(0.1, 1.0, 39)])]
    for name, dt, m, n, s in specs:
        stored = wr.add(name, with_spectrum(m, n, s), dt)
        whole("bare", name, "other", stored)
    raw, _ = encode(rng.standard_normal(48), "F32")
    wr.tensors.append(("bias", "F32", (48,), raw))
    raw, _ = encode(rng.standard_normal((4, 5)) * 0.3, "I8")
    wr.tensors.append(("quantised", "I8", (4, 5), raw))
    write_safetensors(os.path.join(ROOT, "bare.safetensors"), wr.tensors, {"format": "pt", "note": "nsc test"})

    # ---- llama, sharded, mixed dtypes -------------------------------------------------------
    d = os.path.join(ROOT, "llama_sharded")
    os.makedirs(d)
    hid, H, KV, hd, ff, layers = 64, 4, 2, 16, 96, 2
    write_config(d, {"model_type": "llama", "hidden_size": hid, "num_attention_heads": H,
                     "num_key_value_heads": KV, "intermediate_size": ff, "num_hidden_layers": layers,
                     "vocab_size": 40, "initializer_range": 0.02, "tie_word_embeddings": False})
    shards = [Writer(), Writer()]
    weight_map = {}
    ck = "llama_sharded"

    def put(shard, name, w, dt):
        weight_map[name] = f"model-0000{shard + 1}-of-00002.safetensors"
        return shards[shard].add(name, w, dt)

    e = put(0, "model.embed_tokens.weight", rand(40, hid), "F32")
    whole(ck, "model.embed_tokens.weight", "other", e)
    for l in range(layers):
        sh = l  # layer 0 in shard 1 (F32 / F16), layer 1 in shard 2 (BF16 / F16)
        adt = "F32" if l == 0 else "BF16"
        p = f"model.layers.{l}."
        q = put(sh, p + "self_attn.q_proj.weight", rand(H * hd, hid), adt)
        heads(ck, p + "self_attn.q_proj.weight", "q_proj", q, H, hd)
        k = put(sh, p + "self_attn.k_proj.weight", rand(KV * hd, hid), adt)
        heads(ck, p + "self_attn.k_proj.weight", "k_proj", k, KV, hd)
        v = put(sh, p + "self_attn.v_proj.weight", rand(KV * hd, hid), "F16")
        heads(ck, p + "self_attn.v_proj.weight", "v_proj", v, KV, hd)
        o = put(sh, p + "self_attn.o_proj.weight", rand(hid, H * hd), adt)
        whole(ck, p + "self_attn.o_proj.weight", "o_proj", o)
        for nm, shp in (("gate_proj", (ff, hid)), ("up_proj", (ff, hid)), ("down_proj", (hid, ff))):
            w = put(sh, p + "mlp." + nm + ".weight", rand(*shp), "F16" if nm == "up_proj" else adt)
            whole(ck, p + "mlp." + nm + ".weight", nm, w)
        raw, _ = encode(np.ones(hid), "F32")
        weight_map[p + "input_layernorm.weight"] = f"model-0000{sh + 1}-of-00002.safetensors"
        shards[sh].tensors.append((p + "input_layernorm.weight", "F32", (hid,), raw))
    lm = put(1, "lm_head.weight", rand(40, hid), "BF16")
    whole(ck, "lm_head.weight", "other", lm)
    for i, wr2 in enumerate(shards):
        write_safetensors(os.path.join(d, f"model-0000{i + 1}-of-00002.safetensors"), wr2.tensors, {"format": "pt"})
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f, indent=1)

    # ---- gpt2: Conv1D stored (in, out), fused c_attn -----------------------------------------
    d = os.path.join(ROOT, "gpt2")
    os.makedirs(d)
    hid, H, ff = 48, 4, 96
    hd = hid // H
    write_config(d, {"model_type": "gpt2", "n_embd": hid, "n_head": H, "n_layer": 1, "n_inner": ff,
                     "n_positions": 16, "vocab_size": 30})
    wr = Writer()
    ck = "gpt2"
    w = wr.add("h.0.attn.c_attn.weight", rand(3 * hid, hid), "F32", transposed=True)
    heads(ck, "h.0.attn.c_attn.weight", "q_proj", w, H, hd, 0)
    heads(ck, "h.0.attn.c_attn.weight", "k_proj", w, H, hd, hid)
    heads(ck, "h.0.attn.c_attn.weight", "v_proj", w, H, hd, 2 * hid)
    w = wr.add("h.0.attn.c_proj.weight", rand(hid, hid), "F32", transposed=True)
    whole(ck, "h.0.attn.c_proj.weight", "o_proj", w)
    w = wr.add("h.0.mlp.c_fc.weight", rand(ff, hid), "F32", transposed=True)
    whole(ck, "h.0.mlp.c_fc.weight", "up_proj", w)
    w = wr.add("h.0.mlp.c_proj.weight", rand(hid, ff), "F32", transposed=True)
    whole(ck, "h.0.mlp.c_proj.weight", "down_proj", w)
    raw, _ = encode(np.zeros(3 * hid), "F32")
    wr.tensors.append(("h.0.attn.c_attn.bias", "F32", (3 * hid,), raw))
    write_safetensors(os.path.join(d, "model.safetensors"), wr.tensors)

    # ---- phi3: fused qkv_proj (GQA) and gate_up_proj ------------------------------------------
    d = os.path.join(ROOT, "phi3")
    os.makedirs(d)
    hid, H, KV, hd, ff = 64, 4, 2, 16, 80
    write_config(d, {"model_type": "phi3", "hidden_size": hid, "num_attention_heads": H,
                     "num_key_value_heads": KV, "intermediate_size": ff, "num_hidden_layers": 1,
                     "vocab_size": 30})
    wr = Writer()
    ck = "phi3"
    n = "model.layers.0.self_attn.qkv_proj.weight"
    w = wr.add(n, rand((H + 2 * KV) * hd, hid), "BF16")
    heads(ck, n, "q_proj", w, H, hd, 0)
    heads(ck, n, "k_proj", w, KV, hd, H * hd)
    heads(ck, n, "v_proj", w, KV, hd, (H + KV) * hd)
    n = "model.layers.0.self_attn.o_proj.weight"
    whole(ck, n, "o_proj", wr.add(n, rand(hid, H * hd), "BF16"))
    n = "model.layers.0.mlp.gate_up_proj.weight"
    w = wr.add(n, rand(2 * ff, hid), "BF16")
    ref(ck, n, "gate_proj", -1, w, 0, ff, 0, hid)
    ref(ck, n, "up_proj", -1, w, ff, ff, 0, hid)
    n = "model.layers.0.mlp.down_proj.weight"
    whole(ck, n, "down_proj", wr.add(n, rand(hid, ff), "BF16"))
    write_safetensors(os.path.join(d, "model.safetensors"), wr.tensors)

    # ---- gpt_neox: query_key_value interleaved per head ---------------------------------------
    d = os.path.join(ROOT, "gpt_neox")
    os.makedirs(d)
    hid, H, ff = 48, 3, 64
    hd = hid // H
    write_config(d, {"model_type": "gpt_neox", "hidden_size": hid, "num_attention_heads": H,
                     "intermediate_size": ff, "num_hidden_layers": 1, "vocab_size": 30})
    wr = Writer()
    ck = "gpt_neox"
    n = "gpt_neox.layers.0.attention.query_key_value.weight"
    w = wr.add(n, rand(3 * hid, hid), "F16")
    for h in range(H):
        ref(ck, n, "q_proj", h, w, 3 * h * hd, hd, 0, hid)
        ref(ck, n, "k_proj", h, w, 3 * h * hd + hd, hd, 0, hid)
        ref(ck, n, "v_proj", h, w, 3 * h * hd + 2 * hd, hd, 0, hid)
    n = "gpt_neox.layers.0.attention.dense.weight"
    whole(ck, n, "o_proj", wr.add(n, rand(hid, hid), "F16"))
    n = "gpt_neox.layers.0.mlp.dense_h_to_4h.weight"
    whole(ck, n, "up_proj", wr.add(n, rand(ff, hid), "F16"))
    n = "gpt_neox.layers.0.mlp.dense_4h_to_h.weight"
    whole(ck, n, "down_proj", wr.add(n, rand(hid, ff), "F16"))
    write_safetensors(os.path.join(d, "model.safetensors"), wr.tensors)

    # ---- deepseek_v3: MLA and routed + shared experts -----------------------------------------
    d = os.path.join(ROOT, "deepseek_v3")
    os.makedirs(d)
    hid, H, nope, rope, vd, qr, kvr, ff, E = 32, 2, 8, 4, 8, 24, 16, 20, 2
    write_config(d, {"model_type": "deepseek_v3", "hidden_size": hid, "num_attention_heads": H,
                     "num_key_value_heads": H, "qk_nope_head_dim": nope, "qk_rope_head_dim": rope,
                     "v_head_dim": vd, "q_lora_rank": qr, "kv_lora_rank": kvr,
                     "moe_intermediate_size": ff, "n_routed_experts": E, "num_hidden_layers": 1,
                     "vocab_size": 30})
    wr = Writer()
    ck = "deepseek_v3"
    p = "model.layers.0."
    n = p + "self_attn.q_a_proj.weight"
    whole(ck, n, "q_a_proj", wr.add(n, rand(qr, hid), "F32"))
    n = p + "self_attn.q_b_proj.weight"
    w = wr.add(n, rand(H * (nope + rope), qr), "F32")
    heads(ck, n, "q_proj", w, H, nope + rope)
    n = p + "self_attn.kv_a_proj_with_mqa.weight"
    whole(ck, n, "kv_a_proj_with_mqa", wr.add(n, rand(kvr + rope, hid), "F32"))
    n = p + "self_attn.kv_b_proj.weight"
    w = wr.add(n, rand(H * (nope + vd), kvr), "F32")
    for h in range(H):
        ref(ck, n, "k_proj", h, w, h * (nope + vd), nope, 0, kvr)
        ref(ck, n, "v_proj", h, w, h * (nope + vd) + nope, vd, 0, kvr)
    n = p + "self_attn.o_proj.weight"
    whole(ck, n, "o_proj", wr.add(n, rand(hid, H * vd), "F32"))
    for e in range(E):
        for nm, shp in (("gate_proj", (ff, hid)), ("up_proj", (ff, hid)), ("down_proj", (hid, ff))):
            n = f"{p}mlp.experts.{e}.{nm}.weight"
            whole(ck, n, nm, wr.add(n, rand(*shp), "BF16"))
    for nm, shp in (("gate_proj", (ff, hid)), ("up_proj", (ff, hid)), ("down_proj", (hid, ff))):
        n = f"{p}mlp.shared_experts.{nm}.weight"
        whole(ck, n, "shared_expert." + nm, wr.add(n, rand(*shp), "BF16"))
    n = p + "mlp.gate.weight"
    whole(ck, n, "router", wr.add(n, rand(E, hid), "F32"))
    write_safetensors(os.path.join(d, "model.safetensors"), wr.tensors)

    # ---- mixtral: experts w1/w2/w3 (scored by nsc score --weights) ----------------------------
    d = os.path.join(ROOT, "mixtral")
    os.makedirs(d)
    hid, H, KV, ff, E = 32, 4, 2, 48, 2
    hd = hid // H
    write_config(d, {"model_type": "mixtral", "hidden_size": hid, "num_attention_heads": H,
                     "num_key_value_heads": KV, "intermediate_size": ff, "num_hidden_layers": 1,
                     "num_local_experts": E, "num_experts_per_tok": 1, "vocab_size": 30})
    wr = Writer()
    ck = "mixtral"
    p = "model.layers.0."
    n = p + "self_attn.q_proj.weight"
    heads(ck, n, "q_proj", wr.add(n, rand(H * hd, hid), "F32"), H, hd)
    for nm in ("k_proj", "v_proj"):
        n = p + "self_attn." + nm + ".weight"
        heads(ck, n, nm, wr.add(n, rand(KV * hd, hid), "F32"), KV, hd)
    n = p + "self_attn.o_proj.weight"
    whole(ck, n, "o_proj", wr.add(n, rand(hid, H * hd), "F32"))
    for e in range(E):
        for wn, kind, shp in (("w1", "gate_proj", (ff, hid)), ("w3", "up_proj", (ff, hid)), ("w2", "down_proj", (hid, ff))):
            n = f"{p}block_sparse_moe.experts.{e}.{wn}.weight"
            whole(ck, n, kind, wr.add(n, rand(*shp), "F32"))
    n = p + "block_sparse_moe.gate.weight"
    whole(ck, n, "router", wr.add(n, rand(E, hid), "F32"))
    write_safetensors(os.path.join(d, "model.safetensors"), wr.tensors)

    # ---- hostile files: one broken rule each --------------------------------------------------
    h = os.path.join(ROOT, "hostile")
    os.makedirs(h)
    good_raw, _ = encode(rand(4, 3), "F32")  # 48 bytes

    def hdr(obj):
        return json.dumps(obj, separators=(",", ":")).encode()

    t = {"a": {"dtype": "F32", "shape": [4, 3], "data_offsets": [0, 48]}}
    write_raw(os.path.join(h, "valid.safetensors"), hdr(t), good_raw)
    write_raw(os.path.join(h, "truncated.safetensors"), hdr(t), good_raw[:30])
    with open(os.path.join(h, "too_short.safetensors"), "wb") as f:
        f.write(b"\x10\x00\x00")
    write_raw(os.path.join(h, "header_length_1e15.safetensors"), hdr(t), good_raw, length=10**15)
    write_raw(os.path.join(h, "header_past_end.safetensors"), hdr(t), good_raw, length=len(hdr(t)) + 200)
    write_raw(os.path.join(h, "header_not_json.safetensors"), b"{\"a\": [1, 2", good_raw)
    write_raw(os.path.join(h, "header_not_object.safetensors"), b"[1,2,3]", b"")
    write_raw(os.path.join(h, "deep_json.safetensors"), b"[" * 5000 + b"]" * 5000, b"")
    write_raw(os.path.join(h, "offsets_past_end.safetensors"),
              hdr({"a": {"dtype": "F32", "shape": [4, 3], "data_offsets": [0, 4800]}}), good_raw)
    write_raw(os.path.join(h, "begin_after_end.safetensors"),
              hdr({"a": {"dtype": "F32", "shape": [0], "data_offsets": [48, 0]}}), good_raw)
    write_raw(os.path.join(h, "overlap.safetensors"),
              hdr({"a": {"dtype": "F32", "shape": [4, 3], "data_offsets": [0, 48]},
                   "b": {"dtype": "F32", "shape": [2, 3], "data_offsets": [24, 48]}}), good_raw)
    write_raw(os.path.join(h, "gap.safetensors"),
              hdr({"a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
                   "b": {"dtype": "F32", "shape": [1, 3], "data_offsets": [36, 48]}}), good_raw)
    write_raw(os.path.join(h, "trailing_bytes.safetensors"),
              hdr({"a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}}), good_raw)
    write_raw(os.path.join(h, "shape_dtype_mismatch.safetensors"),
              hdr({"a": {"dtype": "F64", "shape": [4, 3], "data_offsets": [0, 48]}}), good_raw)
    write_raw(os.path.join(h, "shape_overflow.safetensors"),
              hdr({"a": {"dtype": "F64", "shape": [2**62, 2**62], "data_offsets": [0, 48]}}), good_raw)
    write_raw(os.path.join(h, "negative_shape.safetensors"),
              hdr({"a": {"dtype": "F32", "shape": [-4, -3], "data_offsets": [0, 48]}}), good_raw)
    write_raw(os.path.join(h, "unknown_dtype.safetensors"),
              hdr({"a": {"dtype": "F128", "shape": [4, 3], "data_offsets": [0, 48]}}), good_raw)
    write_raw(os.path.join(h, "missing_offsets.safetensors"),
              hdr({"a": {"dtype": "F32", "shape": [4, 3]}}), good_raw)
    write_raw(os.path.join(h, "bad_metadata.safetensors"),
              hdr({"__metadata__": {"k": 5}, "a": {"dtype": "F32", "shape": [4, 3], "data_offsets": [0, 48]}}), good_raw)
    nan = np.array([[1.0, 2.0, np.nan], [0.5, np.inf, 1.0], [1, 2, 3], [4, 5, 6]], dtype="<f4")
    write_raw(os.path.join(h, "nan_entries.safetensors"), hdr(t), nan.tobytes())
    i8 = np.arange(12, dtype=np.int8).tobytes()
    write_raw(os.path.join(h, "int8_only.safetensors"),
              hdr({"q": {"dtype": "I8", "shape": [4, 3], "data_offsets": [0, 12]}}), i8)

    def index_dir(name, weight_map, files):
        dd = os.path.join(ROOT, name)
        os.makedirs(dd)
        for fname, obj, data in files:
            write_raw(os.path.join(dd, fname), hdr(obj), data)
        with open(os.path.join(dd, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {}, "weight_map": weight_map}, f)

    index_dir("hostile_index_outside", {"a": "../hostile/valid.safetensors"}, [])
    index_dir("hostile_index_absolute", {"a": "/etc/passwd"}, [])
    index_dir("hostile_index_duplicate", {"a": "s1.safetensors", "b": "s2.safetensors"},
              [("s1.safetensors", t, good_raw),
               ("s2.safetensors", {"a": {"dtype": "F32", "shape": [4, 3], "data_offsets": [0, 48]},
                                   "b": {"dtype": "F32", "shape": [0], "data_offsets": [48, 48]}}, good_raw)])
    index_dir("hostile_index_wrong_shard", {"a": "s1.safetensors", "b": "s1.safetensors"},
              [("s1.safetensors", t, good_raw)])
    index_dir("hostile_index_missing_file", {"a": "nowhere.safetensors"}, [])

    # ---- numpy reference ----------------------------------------------------------------------
    with open(os.path.join(ROOT, "reference.csv"), "w") as f:
        f.write("checkpoint,tensor,kind,head,row0,rows,col0,cols,psi_w\n")
        for row in REF:
            f.write(",".join(str(x) for x in row[:-1]) + "," + repr(row[-1]) + "\n")
    total = sum(os.path.getsize(os.path.join(dp, fn)) for dp, _, fns in os.walk(ROOT) for fn in fns)
    print(f"wrote {len(REF)} reference blocks, {total} bytes under {ROOT}")


if __name__ == "__main__":
    main()
