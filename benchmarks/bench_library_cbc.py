#!/usr/bin/python3
"""nsc against pulp + CBC (the MIP Puzzle / Puzzletron run) on a measured block library, side by
side in one run: the same queries, the same answers checked, wall time and peak memory of each.

    /usr/bin/python3 benchmarks/bench_library_cbc.py build/examples/nsc examples/libraries/synthetic_80x16.json

Queries (minimise metrics.kl_div, one variant per layer):
  single2  stats.memory_mib <= M, stats.runtime_ms <= R
  single3  the same and stats.num_params <= P
  range    stats.runtime_ms in [R/2, R] and memory <= M
  top10    the 10 best selections (CBC: re-solve with a no-good cut per earlier selection)
  pool3    3 solutions, each differing from all earlier ones in >= 20 layers (Puzzle's diversity
           cuts sum x_prev <= L - 20); nsc: --top 3 --min-distance 20 (the same sequential
           definition)
Each solver call runs in its own process under /usr/bin/time (wall, max RSS). CBC: Debian's
coinor-cbc through python3-pulp, no time limit, default gap. Answers must agree (objective within
1e-6 relative; CBC's tolerance)."""
import json
import shutil
import subprocess
import sys
import tempfile
import time

LIMIT_S = 120  # per solver call; a call past it is reported as failed


def timed(cmd):
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        t0 = time.monotonic()
        p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", tf.name] + cmd, capture_output=True, text=True,
                           timeout=LIMIT_S)
        wall = time.monotonic() - t0
        rss = int(tf.read().strip().splitlines()[-1]) / 1024.0
    return p, wall, rss


def cbc_solve(lib, budgets, k, distance):
    """k solutions in sequence, each the best at distance >= distance from all earlier ones."""
    import pulp
    layers = sorted(lib, key=int)
    sols = []
    for _ in range(k):
        m = pulp.LpProblem("lib", pulp.LpMinimize)
        x = {(l, v): pulp.LpVariable(f"x_{l}_{i}", cat="Binary") for l in layers for i, v in enumerate(sorted(lib[l]))}
        m += pulp.lpSum(lib[l][v]["metrics"]["kl_div"] * x[l, v] for (l, v) in x)
        for l in layers:
            m += pulp.lpSum(x[l, v] for v in lib[l]) == 1
        for field, lo, hi in budgets:
            s = pulp.lpSum(lib[l][v]["stats"][field] * x[l, v] for (l, v) in x)
            if hi is not None:
                m += s <= hi
            if lo is not None:
                m += s >= lo
        for prev in sols:
            m += pulp.lpSum(x[l, prev[l]] for l in layers) <= len(layers) - distance
        m.solve(pulp.COIN_CMD(path=shutil.which("cbc") or "/usr/bin/cbc", msg=0))
        if pulp.LpStatus[m.status] != "Optimal":
            break
        sols.append({l: v for l in layers for v in lib[l] if x[l, v].value() > 0.5})
    return [{"objective": sum(lib[l][s[l]]["metrics"]["kl_div"] for l in layers), "layers": s} for s in sols]


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--cbc":  # child process: one CBC query
        lib = json.load(open(sys.argv[2]))
        budgets = json.loads(sys.argv[3])
        print(json.dumps(cbc_solve(lib, budgets, int(sys.argv[4]), int(sys.argv[5]))))
        return
    nsc, path = sys.argv[1], sys.argv[2]
    lib = json.load(open(path))
    L = len(lib)
    tot = {f: sum(max(v["stats"][f] for v in lib[l].values()) for l in lib) for f in ("memory_mib", "runtime_ms", "num_params")}
    M, R, P = round(tot["memory_mib"] * 0.53), round(tot["runtime_ms"] * 0.7), round(tot["num_params"] * 0.55)
    queries = [
        ("single2", [("memory_mib", None, M), ("runtime_ms", None, R)], 1, 0),
        ("single3", [("memory_mib", None, M), ("runtime_ms", None, R), ("num_params", None, P)], 1, 0),
        ("range", [("memory_mib", None, M), ("runtime_ms", R // 2, R)], 1, 0),
        ("top10", [("memory_mib", None, M), ("runtime_ms", None, R)], 10, 1),
        ("pool3", [("memory_mib", None, M), ("runtime_ms", None, R)], 3, 20),
    ]
    print(f"library {path}: {L} layers x {len(lib['0'])} variants; budgets memory_mib <= {M}, runtime_ms <= {R}, num_params <= {P}")
    print(f"{'query':8} {'nsc wall':>10} {'nsc RSS':>9} {'CBC wall':>10} {'CBC RSS':>9} {'ratio':>8}  agree")
    for name, budgets, k, dist in queries:
        cmd = [nsc, "search", "--library", path, "--objective", "metrics.kl_div", "--minimize", "--json"]
        for f, lo, hi in budgets:
            cmd += ["--budget", f"stats.{f}=" + ("" if lo is None else f"{lo}..") + ("" if hi is None else str(hi))]
        if k > 1:
            cmd += ["--top", str(k)] + (["--min-distance", str(dist)] if dist > 1 else [])
        try:
            p, nw, nr = timed(cmd)
            if p.returncode != 0:
                raise RuntimeError(p.stderr.strip()[:300])
            nj = json.loads(p.stdout)
            nobj = [t["objective"] for t in nj["top"]] if k > 1 else [nj["objective"]]
        except Exception as e:  # noqa: BLE001 (report and go on)
            nobj, nw, nr = None, float("nan"), float("nan")
            print(f"  nsc failed: {e}")
        try:
            p, cw, cr = timed([sys.executable, __file__, "--cbc", path, json.dumps(budgets), str(k), str(dist)])
            cobj = [s["objective"] for s in json.loads(p.stdout)]
        except Exception as e:  # noqa: BLE001
            cobj, cw, cr = [], float("nan"), float("nan")
            print(f"  CBC failed: {e}")
        agree = nobj is not None and len(nobj) == len(cobj) and all(
            abs(a - b) <= 1e-6 * max(1.0, abs(b)) for a, b in zip(nobj, cobj))
        print(f"{name:8} {nw:9.3f}s {nr:7.1f}MB {cw:9.3f}s {cr:7.1f}MB {cw / nw:7.1f}x  {agree}"
              + ("" if agree else f"  nsc {nobj} CBC {cobj}"))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
