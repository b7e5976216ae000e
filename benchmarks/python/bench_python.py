"""Benchmarks of the Python package nsc against named peers, in one run (docs/python.md "Python").

  1. psi_mp per call, scalar: nsc.psi_mp against the paper's reference computation in Python
     (scipy.integrate.quad of p * ln(1 + lambda) against the Marchenko-Pastur density, what the
     paper's code runs; reference-conventions.md) and against the closed form typed in plain
     Python (math.md section 2, the direct Tulino-Verdu formula).
  2. psi_mp vectorised over N shapes: nsc.psi_mp(m, n, v) on numpy arrays against the same
     closed form written in numpy.
  3. score of a 70B config (Llama-3.1-70B): nsc.score in-process against one `nsc score --json`
     process (the CLI binary: $NSC_CLI, else build/bin/nsc).
  4. psi_w of a dense matrix against numpy: np.linalg.svd(W, compute_uv=False) and
     np.linalg.slogdet(I + W^T W) (numpy's cheapest exact route).

Run (after a build with NSC_BUILD_PYTHON=ON, or with the package installed):
  PYTHONPATH=build/python /usr/bin/python3 benchmarks/python/bench_python.py [--quick]
"""
import argparse
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import nsc

ROOT = Path(__file__).resolve().parents[2]


def best_time(fn, repeat=5, number=1):
    """The best of `repeat` timings of `number` calls, per call (seconds)."""
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def paper_psi_mp_quad(m, n, v):
    """The paper's reference: p * integral of ln(1 + lambda) f_MP(lambda) by scipy quad."""
    from scipy import integrate

    p, q = min(m, n), max(m, n)
    beta, x = p / q, v * q
    sb = math.sqrt(beta)
    a, b = x * (1 - sb) ** 2, x * (1 + sb) ** 2

    def f(lam):
        return math.log1p(lam) * math.sqrt(max((b - lam) * (lam - a), 0.0)) / (2 * math.pi * beta * x * lam)

    val, _ = integrate.quad(f, a, b, limit=200)
    return p * val


def closed_form_python(m, n, v):
    p, q = min(m, n), max(m, n)
    beta, x = p / q, v * q
    sb = math.sqrt(beta)
    F = (math.sqrt(x * (1 + sb) ** 2 + 1) - math.sqrt(x * (1 - sb) ** 2 + 1)) ** 2
    return q * (beta * math.log(1 + x - F / 4) + math.log(1 + x * beta - F / 4) - F / (4 * x))


def closed_form_numpy(m, n, v):
    p, q = np.minimum(m, n), np.maximum(m, n)
    beta, x = p / q, v * q
    sb = np.sqrt(beta)
    F = (np.sqrt(x * (1 + sb) ** 2 + 1) - np.sqrt(x * (1 - sb) ** 2 + 1)) ** 2
    return q * (beta * np.log(1 + x - F / 4) + np.log(1 + x * beta - F / 4) - F / (4 * x))


def row(name, seconds, peer_name=None, peer_seconds=None, unit="per call"):
    s = f"  {name:<44} {fmt(seconds):>10} {unit}"
    if peer_seconds is not None:
        s += f"   {peer_name}: {fmt(peer_seconds)}  ({peer_seconds / seconds:,.1f}x)"
    print(s)


def fmt(s):
    if s < 1e-6:
        return f"{s * 1e9:.0f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.2f} us"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.3f} s"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    args = ap.parse_args()
    N = 100_000 if args.quick else 1_000_000
    print(f"nsc {nsc.__version__}, Python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} cores")

    print("\n1. psi_mp, one shape per call (4096 x 11008, Xavier variance)")
    m, n = 4096, 11008
    v = 2 / (m + n)
    ours = nsc.psi_mp(m, n, v)
    quad = paper_psi_mp_quad(m, n, v)
    print(f"  values: nsc {ours:.15g}, paper quad {quad:.15g} (rel diff {abs(ours - quad) / ours:.1e}), "
          f"closed form in Python {closed_form_python(m, n, v):.15g}")
    t_nsc = best_time(lambda: nsc.psi_mp(m, n, v), number=20000)
    t_quad = best_time(lambda: paper_psi_mp_quad(m, n, v), number=200)
    t_py = best_time(lambda: closed_form_python(m, n, v), number=20000)
    row("nsc.psi_mp(m, n, v)", t_nsc, "paper's scipy quad", t_quad)
    row("", t_nsc, "closed form in plain Python", t_py)

    print(f"\n2. psi_mp vectorised over {N:,} shapes (numpy arrays in, out)")
    rng = np.random.default_rng(0)
    ms = rng.integers(1, 16384, N).astype(np.float64)
    ns = rng.integers(1, 16384, N).astype(np.float64)
    vs = 2 / (ms + ns)
    diff = np.max(np.abs(nsc.psi_mp(ms, ns, vs) - closed_form_numpy(ms, ns, vs)) / nsc.psi_mp(ms, ns, vs))
    t_vec = best_time(lambda: nsc.psi_mp(ms, ns, vs), repeat=3)
    t_np = best_time(lambda: closed_form_numpy(ms, ns, vs), repeat=3)
    row("nsc.psi_mp(arrays)", t_vec, "closed form in numpy", t_np, unit="per sweep")
    print(f"  = {N / t_vec / 1e6:.1f} M shapes/s (numpy: {N / t_np / 1e6:.1f} M/s; max rel diff {diff:.1e}: numpy's direct "
          "formula loses digits, math.md section 2)")

    print("\n3. nsc.score of Llama-3.1-70B (80 layers)")
    cfg = ROOT / "examples" / "configs" / "llama-3.1-70b.json"
    t_score = best_time(lambda: nsc.score(cfg), repeat=5, number=5)
    cli = os.environ.get("NSC_CLI") or str(ROOT / "build" / "bin" / "nsc")
    if os.path.exists(cli):
        t_proc = best_time(lambda: subprocess.run([cli, "score", str(cfg), "--json"], check=True,
                                                  capture_output=True), repeat=5)
        row("nsc.score(config) in-process", t_score, "one `nsc score --json` process", t_proc)
    else:
        row("nsc.score(config) in-process", t_score)
        print("  (no CLI binary for the process comparison: set NSC_CLI)")

    print("\n4. psi_w of a dense float64 matrix (Gaussian, std 0.02)")
    for shape in ([(256, 256), (1024, 1024)] if args.quick else [(256, 256), (1024, 1024), (4096, 1024)]):
        W = rng.normal(0, 0.02, shape)
        p = min(shape)
        a = nsc.psi_w(W)
        s = np.linalg.svd(W, compute_uv=False)
        ref = float(np.sum(np.log1p(s * s)))
        reps = 3 if p >= 1024 else 10
        t_w = best_time(lambda: nsc.psi_w(W), repeat=reps)
        t_svd = best_time(lambda: np.linalg.svd(W, compute_uv=False), repeat=reps)
        G = W.T @ W if shape[0] >= shape[1] else W @ W.T
        t_det = best_time(lambda: np.linalg.slogdet(np.eye(p) + (W.T @ W if shape[0] >= shape[1] else W @ W.T)),
                          repeat=reps)
        del G
        row(f"nsc.psi_w {shape[0]} x {shape[1]}", t_w, "np.linalg.svd", t_svd)
        row("", t_w, "np slogdet(I + W^T W)", t_det)
        print(f"  {'':<44} rel diff to the SVD: {abs(a - ref) / ref:.1e}")


if __name__ == "__main__":
    main()
