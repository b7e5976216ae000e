#!/usr/bin/python3
"""Benchmark psi_W of real-sized matrices: nsc's routes against numpy, in one run, on the same values.

    /usr/bin/python3 scripts/bench_numpy_psi_w.py --build build [--workdir /tmp/nsc_bench_psi_w] [--quick]

1. Writes two synthetic checkpoints (safetensors, written by hand as tests/reference/
   gen_safetensors.py does): one 4096 x 11008 matrix (an FFN down_proj of LLaMA-7B, F32,
   entries N(0, 0.02^2), HF's init), and a whole LLaMA-7B-shaped layer (q, k, v, o 4096 x 4096,
   gate and up 11008 x 4096, down 4096 x 11008; F32).
2. Times nsc on them: build/benchmarks/bench_psi_w (Eigen header-only, one thread; routes
   cholesky and gram, the latter being the eigenvalue route of the previous release),
   bench_psi_w_omp (header-only + OpenMP) and bench_psi_w_blas (NSC_USE_BLAS: OpenBLAS), each on
   the matrix and on the layer (psi_w_report: read, convert, psi_W of the 7 whole matrices).
3. Times numpy (linked to Debian's OpenBLAS, all cores) on the stored values converted to
   float64: G = W W^T on the smaller side, then slogdet(I + G) (LU) or cholesky(I + G); and
   numpy.linalg.svd(W, compute_uv=False) (the matrix only).
4. Prints a Markdown table (seconds, speed-up against the previous header-only route, relative
   difference of psi against numpy's SVD) and a projection for a LLaMA-7B checkpoint
   (32 layers x the layer time; the embedding and LM head are not projection matrices).
--quick uses 1024 x 2752 and a 1024-wide layer (a smoke test of the script).

    /usr/bin/python3 scripts/bench_numpy_psi_w.py --synthetic-checkpoint DIR

writes instead a small synthetic llama-style checkpoint (8 layers, d 256, 8 heads, 4 KV heads,
FFN 688, BF16, sharded in two files with an index, config.json) for the README's
`nsc weights` example and plot: every matrix is N(0, 0.02^2) plus a rank-8 term whose
singular values grow with depth (5 (l + 1) / 8; stronger on q/k), a made-up stand-in for what
training adds, not a real model.
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import time

import numpy as np


def write(path, tensors):
    header, off, blobs = {}, 0, []
    for name, a in tensors:
        b = np.ascontiguousarray(a, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [off, off + len(b)]}
        off += len(b)
        blobs.append(b)
    h = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def psi_numpy(w, how):
    g = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
    g[np.diag_indices_from(g)] += 1.0
    if how == "slogdet":
        return np.linalg.slogdet(g)[1]
    return 2.0 * np.sum(np.log(np.diag(np.linalg.cholesky(g))))


def timed(f):
    t = time.perf_counter()
    v = f()
    return time.perf_counter() - t, float(v)


def run(binary, *args):
    out = subprocess.run([binary, *args], check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def bf16(a):
    u = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")


def synthetic_checkpoint(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(11)
    d, H, KV, ff, L = 256, 8, 4, 688, 8
    hd = d // H
    cfg = {"model_type": "llama", "hidden_size": d, "num_attention_heads": H, "num_key_value_heads": KV,
           "intermediate_size": ff, "num_hidden_layers": L, "vocab_size": 512, "initializer_range": 0.02}
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    shards = [[], []]
    for l in range(L):
        for name, (m, n) in (("self_attn.q_proj", (H * hd, d)), ("self_attn.k_proj", (KV * hd, d)),
                             ("self_attn.v_proj", (KV * hd, d)), ("self_attn.o_proj", (d, H * hd)),
                             ("mlp.gate_proj", (ff, d)), ("mlp.up_proj", (ff, d)), ("mlp.down_proj", (d, ff))):
            w = rng.standard_normal((m, n)) * 0.02
            u, _ = np.linalg.qr(rng.standard_normal((m, 8)))
            v, _ = np.linalg.qr(rng.standard_normal((n, 8)))
            gain = 5.0 * (l + 1) / L * (2.0 if name[-6:] in ("q_proj", "k_proj") else 1.0)
            w += (u * (gain * np.linspace(1.0, 0.3, 8))) @ v.T
            shards[l * 2 // L].append((f"model.layers.{l}.{name}.weight", w))
    weight_map = {}
    for i, ts in enumerate(shards):
        fname = f"model-0000{i + 1}-of-00002.safetensors"
        header, off, blobs = {}, 0, []
        for name, a in ts:
            b = bf16(a).tobytes()
            header[name] = {"dtype": "BF16", "shape": list(a.shape), "data_offsets": [off, off + len(b)]}
            off += len(b)
            blobs.append(b)
            weight_map[name] = fname
        h = json.dumps(header).encode()
        with open(os.path.join(out, fname), "wb") as f:
            f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
    with open(os.path.join(out, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f, indent=1)
    print(f"wrote {out}")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--synthetic-checkpoint", default=None)
    ap.add_argument("--build", default="build")
    ap.add_argument("--workdir", default="/tmp/nsc_bench_psi_w")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--layer-variants", default="header-only,header-only+OpenMP,OpenBLAS",
                    help="nsc builds that also time the whole layer (comma-separated variant names)")
    a = ap.parse_args()
    if a.synthetic_checkpoint:
        return synthetic_checkpoint(a.synthetic_checkpoint)
    os.makedirs(a.workdir, exist_ok=True)
    d, f = (1024, 2752) if a.quick else (4096, 11008)
    rng = np.random.default_rng(7)
    mat_path = os.path.join(a.workdir, "matrix.safetensors")
    layer_path = os.path.join(a.workdir, "layer.safetensors")
    w = (rng.standard_normal((d, f), dtype=np.float32) * np.float32(0.02))
    write(mat_path, [("model.layers.0.mlp.down_proj.weight", w)])
    shapes = [("q_proj", (d, d)), ("k_proj", (d, d)), ("v_proj", (d, d)), ("o_proj", (d, d)),
              ("gate_proj", (f, d)), ("up_proj", (f, d)), ("down_proj", (d, f))]
    layer = [(f"model.layers.0.{'self_attn' if n[0] in 'qkvo' else 'mlp'}.{n}.weight",
              rng.standard_normal(s, dtype=np.float32) * np.float32(0.02)) for n, s in shapes]
    write(layer_path, layer)
    w64 = w.astype(np.float64)

    rows = []  # (what, route, seconds, psi)
    bins = [("bench_psi_w", ["gram", "cholesky"]), ("bench_psi_w_omp", ["cholesky"]), ("bench_psi_w_blas", ["cholesky"])]
    for b, routes in bins:
        path = os.path.join(a.build, "benchmarks", b)
        if not os.path.exists(path):
            print(f"(skipping {b}: not built)", file=sys.stderr)
            continue
        args = [mat_path]
        for r in routes:
            args += ["--route", r]
        variant = None
        for r in run(path, *args):
            variant = r["variant"]
            rows.append(("matrix", f"nsc {r['variant']}, {r['used']}", r["seconds"], r["psi_w"]))
            print(rows[-1], file=sys.stderr, flush=True)
        if variant in a.layer_variants.split(","):
            r = run(path, layer_path, "--report")[0]
            rows.append(("layer", f"nsc {r['variant']}, cholesky (nsc weights' route)", r["seconds"], r["psi_w"]))
            print(rows[-1], file=sys.stderr, flush=True)
    for how in ("slogdet", "cholesky"):
        s, v = timed(lambda: psi_numpy(w64, how))
        rows.append(("matrix", f"numpy + OpenBLAS, W W^T then {how}", s, v))
        print(rows[-1], file=sys.stderr, flush=True)
        layer64 = [x.astype(np.float64) for _, x in layer]
        s, v = timed(lambda: sum(psi_numpy(x, how) for x in layer64))
        rows.append(("layer", f"numpy + OpenBLAS, W W^T then {how}", s, v))
        print(rows[-1], file=sys.stderr, flush=True)
    s, v = timed(lambda: np.sum(np.log1p(np.linalg.svd(w64, compute_uv=False) ** 2)))
    rows.append(("matrix", "numpy + OpenBLAS, svd(compute_uv=False)", s, v))
    ref = v

    base = next((r[2] for r in rows if r[0] == "matrix" and r[1].endswith("header-only, gram")), None)
    layer_ref = next(r[3] for r in rows if r[0] == "layer" and "slogdet" in r[1])
    print(f"psi_W of one {d} x {f} matrix and of one LLaMA-7B-shaped layer (7 matrices), one run,"
          f" {os.cpu_count()} cores\n")
    print("| workload | route | seconds | vs previous header-only | psi_W | rel. diff |")
    print("|---|---|---:|---:|---:|---:|")
    for what, route, s, v in rows:
        refv = ref if what == "matrix" else layer_ref
        speed = f"{base / s:.1f}x" if base and what == "matrix" else ""
        print(f"| {what} | {route} | {s:.2f} | {speed} | {v:.10g} | {abs(v - refv) / abs(refv):.1e} |")
    print("\n(rel. diff: against numpy's SVD for the matrix, numpy's slogdet for the layer)")
    print("\nProjected LLaMA-7B checkpoint (224 projection matrices = 32 such layers):")
    for what, route, s, v in rows:
        if what == "layer":
            print(f"  {route}: {32 * s / 60:.1f} min (measured layer x 32)")
    # A layer's Gram products cost (4 d / f + 3) times the matrix's (d^2 f flops each for the
    # FFN, d^3 for the attention projections): variants whose layer was not timed are projected.
    factor = 4.0 * d / f + 3.0
    timed_layers = {r[1].split(",")[0] for r in rows if r[0] == "layer"}
    for what, route, s, v in rows:
        if what == "matrix" and route.startswith("nsc") and route.endswith("cholesky") and route.split(",")[0] not in timed_layers:
            print(f"  {route.split(',')[0]}, cholesky: ~{32 * factor * s / 60:.1f} min (matrix time x {factor:.2f} flops ratio x 32, not measured)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
