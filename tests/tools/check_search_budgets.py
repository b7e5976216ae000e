#!/usr/bin/python3
"""End-to-end check of `nsc search --space F.json --budget NAME=VALUE ... --json [--top 5]`
against brute force in Python on random instances (a fresh seed per run unless given):
the optimum value, feasibility of the reported selection, the five best values (one per multiset
of identical groups' options, with its count of orderings, the default without --positions),
the Pareto set (non-dominated filtering) and infeasible vectors (exit code 1, "status":
"infeasible").
Usage: check_search_budgets.py NSC_BINARY WORKDIR [SEED] [COUNT]"""
import itertools
import json
import os
import random
import subprocess
import sys

nsc, work = sys.argv[1], sys.argv[2]
seed = int(sys.argv[3]) if len(sys.argv) > 3 else random.SystemRandom().randrange(1 << 30)
count = int(sys.argv[4]) if len(sys.argv) > 4 else 150
rng = random.Random(seed)
os.makedirs(work, exist_ok=True)
names_pool = ["params", "kv_bytes", "flops", "latency"]
failures = 0
for trial in range(count):
    K = rng.randint(1, 3)
    names = sorted(rng.sample(names_pool, K))
    G = rng.randint(1, 5)
    groups = []
    for g in range(G):
        if g > 0 and rng.random() < 0.4:  # a copy of an earlier group (identical groups: ties)
            groups.append({"name": f"g{g}", "options": groups[rng.randrange(g)]["options"]})
            continue
        opts = []
        for j in range(rng.randint(1, 4)):
            cost = {n: rng.choice([0, rng.randint(0, 9), rng.randint(0, 30)]) for n in names}
            opts.append({"name": f"o{j}", "value": rng.choice([rng.randint(0, 5), rng.randint(-20, 100)]),
                         "cost": cost})
        groups.append({"name": f"g{g}", "options": opts})
    space = {"groups": groups}
    path = os.path.join(work, f"space_{trial}.json")
    with open(path, "w") as f:
        json.dump(space, f)
    budget = {n: rng.randint(0, 12 * G) for n in names}
    args = [nsc, "search", "--space", path, "--json", "--top", "5", "--front"]
    for n in names:
        args += ["--budget", f"{n}={budget[n]}"]
    sels = []
    for ch in itertools.product(*[range(len(g["options"])) for g in groups]):
        c = {n: sum(groups[g]["options"][ch[g]]["cost"][n] for g in range(G)) for n in names}
        v = sum(groups[g]["options"][ch[g]]["value"] for g in range(G))
        sels.append((c, v, ch))
    feas = [s for s in sels if all(s[0][n] <= budget[n] for n in names)]
    out = subprocess.run(args, capture_output=True, text=True)
    if not feas:
        ok = out.returncode == 1 and json.loads(out.stdout)["status"] == "infeasible" and "infeasible" in out.stderr
        if not ok:
            print("FAIL infeasible", trial, out.returncode, out.stdout, out.stderr)
            failures += 1
        continue
    if out.returncode != 0:
        print("FAIL exit", trial, out.returncode, out.stderr)
        failures += 1
        continue
    j = json.loads(out.stdout)
    best = max(s[1] for s in feas)
    got = j["best"]
    chosen = [int(c["option"][1:]) for c in got["choice"]]
    cost = {n: sum(groups[g]["options"][chosen[g]]["cost"][n] for g in range(G)) for n in names}
    # identical groups (same values and costs, in order): a selection is the multiset per class
    sig = [json.dumps([(o["value"], o["cost"]) for o in gr["options"]], sort_keys=True) for gr in groups]
    classes = {}
    for g in range(G):
        classes.setdefault(sig[g], []).append(g)
    def ms_key(ch):
        return tuple(tuple(sorted(ch[g] for g in members)) for members in classes.values())
    multisets = {}
    for c, v, ch in feas:
        k = ms_key(ch)
        multisets[k] = (v, multisets.get(k, (v, 0))[1] + 1)
    ranked = sorted(multisets.items(), key=lambda kv: -kv[1][0])
    top = [v for _, (v, n) in ranked[:5]]
    def orderings(ch):
        return multisets[ms_key(ch)][1]
    # Pareto set: per distinct cost vector the best value, then non-dominated
    by_cost = {}
    for c, v, _ in feas:
        key = tuple(c[n] for n in names)
        by_cost[key] = max(by_cost.get(key, v), v)
    pareto = sorted(k for k, v in by_cost.items()
                    if not any(k2 != k and all(a <= b for a, b in zip(k2, k)) and v2 >= v for k2, v2 in by_cost.items()))
    front = sorted(tuple(int(p["costs"][n]) for n in names) for p in j["front"])
    checks = [
        got["nsc"] == best,
        all(cost[n] <= budget[n] for n in names),
        all(int(got["costs"][n]) == cost[n] for n in names),
        [t["nsc"] for t in j["top"]] == top,
        len({ms_key([int(c["option"][1:]) for c in t["choice"]]) for t in j["top"]}) == len(j["top"]),
        all(t["orderings"] == orderings([int(c["option"][1:]) for c in t["choice"]]) for t in j["top"]),
        front == pareto,
    ]
    if not all(checks):
        print("FAIL", trial, checks, path, budget, got, best, top, [t["nsc"] for t in j["top"]])
        failures += 1
print(f"seed {seed}: {count} random spaces, {failures} failures")
sys.exit(1 if failures else 0)
