"""pytest suite of the Python package nsc (python/): every API against the nsc CLI's JSON on the
same inputs (the CLI run as its own process: $NSC_CLI, else build/bin/nsc), the closed forms
against tests/data's mpmath references, psi_w against numpy's SVD, solve against brute force,
pandas in and out, and every error path (bad input raises, never crashes the interpreter).

Run: ctest --test-dir build -R python (CMake, NSC_BUILD_PYTHON=ON), or with the package
installed: /usr/bin/python3 -m pytest tests/python (set NSC_CLI to compare against a CLI)."""
import csv
import itertools
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import nsc

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "examples" / "configs"
LLAMA7B = CONFIGS / "llama-7b.json"


def _cli_path():
    env = os.environ.get("NSC_CLI")
    if env:
        return env
    p = ROOT / "build" / "bin" / "nsc"
    return str(p) if p.exists() else None


CLI = _cli_path()
needs_cli = pytest.mark.skipif(CLI is None, reason="no nsc CLI binary (set NSC_CLI)")

# fields that measure the run, not the answer
TIMING = {"time_seconds", "time_ms", "timing_ms", "seconds", "stats", "solve_seconds", "emitted_config", "plot"}


def strip_timing(x):
    if isinstance(x, dict):
        return {k: strip_timing(v) for k, v in x.items() if k not in TIMING and "time" not in k}
    if isinstance(x, list):
        return [strip_timing(v) for v in x]
    return x


def cli_json(*args, code=0):
    """The CLI as a separate process: its JSON answer (and exit code checked)."""
    r = subprocess.run([CLI, *map(str, args), "--json"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == code, r.stderr
    return json.loads(r.stdout) if code == 0 else r.stderr


# ---- score ---------------------------------------------------------------------------------

@needs_cli
@pytest.mark.parametrize("cfg,opts", [
    ("llama-7b.json", {}),
    ("llama-3.1-70b.json", {"context": 8192, "batch": 4, "kv_dtype": "fp8", "weight_dtype": "int4"}),
    ("mixtral-8x7b.json", {"estimator": "fs", "init": "hf", "attention": "causal"}),
    ("gemma-2-2b.json", {"seq_len": 1024, "qkv": "merged", "score_embeddings": True}),
])
def test_score_matches_cli(cfg, opts):
    s = nsc.score(CONFIGS / cfg, **opts)
    assert s.to_dict() == cli_json("score", CONFIGS / cfg, *nsc.flags(opts))


def test_score_inputs_dict_path_object(tmp_path):
    d = json.loads(LLAMA7B.read_text())
    by_path = nsc.score(str(LLAMA7B))
    by_dict = nsc.score(d)

    class HFConfig:  # what transformers' PretrainedConfig offers
        def to_dict(self):
            return dict(d)

    by_obj = nsc.score(HFConfig())
    assert by_path.nsc == by_dict.nsc == by_obj.nsc
    assert by_path.params_total == by_dict.params_total == 6738415616
    assert by_dict.layers_total == 32 and isinstance(by_dict.layers, list)


def test_score_pandas():
    pd = pytest.importorskip("pandas")
    s = nsc.score(LLAMA7B, context=2048)
    one = s.to_pandas()
    assert isinstance(one, pd.DataFrame) and len(one) == 1
    assert one.loc[0, "params_total"] == s.params_total and one.loc[0, "context"] == 2048
    layers = s.to_pandas(layers=True)
    assert list(layers["repeat"]) == [l["repeat"] for l in s.layers]
    assert layers["nsc"].mul(layers["repeat"]).sum() == pytest.approx(s.nsc, rel=1e-12)


def test_score_errors():
    with pytest.raises(ValueError, match="no-such-file"):
        nsc.score("no-such-file.json")
    with pytest.raises(ValueError):
        nsc.score({"model_type": "llama", "hidden_size": -4})
    with pytest.raises(ValueError, match="kv-dtype"):
        nsc.score(LLAMA7B, kv_dtype="fp7")
    with pytest.raises(ValueError, match="not-a-flag"):
        nsc.score(LLAMA7B, not_a_flag=3)
    with pytest.raises(TypeError):
        nsc.score(42)
    with pytest.raises(AttributeError, match="no field"):
        nsc.score(LLAMA7B).no_such_field


# ---- prune / design / search ------------------------------------------------------------------

@needs_cli
def test_prune_matches_cli(tmp_path):
    p = nsc.prune(LLAMA7B, {"params": 5.7e9}, space="lonas", front=True)
    out = tmp_path / "cli.json"
    ref = cli_json("prune", LLAMA7B, "--space", "lonas", "--params", "5.7e9", "--front", "--emit-config", out)
    assert strip_timing(p.to_dict()) == strip_timing(ref)
    assert p.config == json.loads(out.read_text())
    assert p.params <= 5.7e9 and len(p.front) == p.front_points
    p.save(tmp_path / "pruned.json")
    assert json.loads((tmp_path / "pruned.json").read_text()) == p.config
    assert len(p.front_to_pandas()) == len(p.front)


@needs_cli
def test_prune_generic_two_budgets_matches_cli():
    budgets = {"params": 6e9, "memory": 14e9}
    p = nsc.prune(LLAMA7B, budgets, context=4096, emit_config=False)
    ref = cli_json("prune", LLAMA7B, "--space", "generic", "--params", "6e9", "--memory", "14e9", "--context", 4096)
    assert strip_timing(p.to_dict()) == strip_timing(ref)
    assert p.config is None
    with pytest.raises(ValueError, match="no config"):
        p.save("unused.json")


def test_prune_infeasible_and_bad_budget():
    with pytest.raises(nsc.Infeasible, match="params"):
        nsc.prune(LLAMA7B, {"params": 1e6}, space="lonas")
    with pytest.raises(ValueError):
        nsc.prune(LLAMA7B, {"parms": 1e9})
    with pytest.raises(TypeError):
        nsc.prune(LLAMA7B, [1e9])


@needs_cli
def test_design_matches_cli(tmp_path):
    d = nsc.design({"params": 1e9}, vocab=32000)
    out = tmp_path / "cli.json"
    ref = cli_json("design", "--params", "1e9", "--vocab", 32000, "--emit-config", out)
    assert strip_timing(d.to_dict()) == strip_timing(ref)
    assert d.config == json.loads(out.read_text())
    assert nsc.score(d.config).params_total == d.params_total


def test_design_infeasible():
    with pytest.raises(nsc.Infeasible):
        nsc.design({"params": 10})


SPACE = {"name": "toy", "groups": [
    {"name": "a", "options": [{"value": 1, "cost": 1}, {"value": 3, "cost": 2}]},
    {"name": "b", "options": [{"value": 2, "cost": 1}, {"value": 5, "cost": 3}]},
]}


@needs_cli
@pytest.mark.parametrize("space", ["ffn_widths_groups.json", "kv_ffn_groups.json", "gqa_transformer.json"])
def test_search_matches_cli(space):
    path = ROOT / "examples" / "spaces" / space
    r = nsc.search(json.loads(path.read_text()), front=True, top=3)
    ref = cli_json("search", "--space", path, "--front", "--top", 3)
    assert strip_timing(r.to_dict()) == strip_timing(ref)


def test_search_toy_and_errors(tmp_path):
    r = nsc.search(SPACE, {"cost": 4})
    assert r.nsc == 6
    with pytest.raises(nsc.Infeasible):
        nsc.search(SPACE, {"cost": 1})
    with pytest.raises(ValueError):
        nsc.search({"groups": "nope"}, {"cost": 4})
    with pytest.raises(ValueError):
        nsc.search(SPACE, {"cost": 4}, min_distance=2)  # --min-distance needs --top


# ---- rank ----------------------------------------------------------------------------------

def gpt_table():
    rows = []
    for e, l, h, loss in [(64, 2, 4, 4.1), (128, 2, 4, 3.8), (128, 4, 4, 3.5), (256, 4, 8, 3.3), (256, 6, 8, 3.1),
                          (64, 6, 2, 3.9), (192, 3, 6, 3.6)]:
        rows.append({"name": f"e{e}-l{l}", "arch": {"model_type": "gpt2", "n_embd": e, "n_layer": l, "n_head": h,
                                                    "vocab_size": 1000, "n_positions": 256}, "loss": loss})
    return rows


@needs_cli
def test_rank_dataframe_matches_cli(tmp_path):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(gpt_table())
    r = nsc.rank(df, target="loss", lower_is_better=True, bootstrap=200, seed=7, id_column="name")
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in gpt_table()))
    ref = cli_json("rank", "--table", path, "--target", "loss", "--lower-is-better", "--bootstrap", 200,
                   "--seed", 7, "--id-column", "name")
    mine, theirs = strip_timing(r.to_dict()), strip_timing(ref)
    assert mine.pop("table") is None and theirs.pop("table") == str(path)
    assert mine == theirs
    frame = r.to_pandas()
    assert set(frame["scorer"]) >= {"nsc", "params", "flops"}
    assert frame.set_index("scorer").loc["nsc", "tau_b"] == r.nsc["tau_b"]


@needs_cli
def test_rank_csv_path_and_family():
    table = ROOT / "tests" / "data" / "rank_table_gpt.csv"
    header = next(csv.reader(open(table)))
    target = [c for c in header if c not in ("arch", "name", "id")][-1]
    r = nsc.rank(str(table), target=target, bootstrap=0)
    ref = cli_json("rank", "--table", table, "--target", target, "--bootstrap", 0)
    assert strip_timing(r.to_dict()) == strip_timing(ref)


def test_rank_errors():
    with pytest.raises(ValueError, match="target"):
        nsc.rank(gpt_table())
    with pytest.raises(ValueError, match="not both"):
        nsc.rank()
    with pytest.raises(ValueError):
        nsc.rank(gpt_table(), target="no_such_column")
    with pytest.raises(TypeError):
        nsc.rank(12, target="loss")


# ---- weights --------------------------------------------------------------------------------

def svd_psi(W):
    s = np.linalg.svd(np.asarray(W, dtype=np.float64), compute_uv=False)
    return float(np.sum(np.log1p(s * s)))


@needs_cli
def test_weights_state_dict_matches_cli_and_numpy(tmp_path):
    rng = np.random.default_rng(1)
    sd = {"a.weight": rng.normal(0, 0.05, (64, 48)), "b.weight": rng.normal(0, 0.05, (32, 80)).astype(np.float32)}
    w = nsc.weights(sd)
    path = tmp_path / "m.safetensors"
    nsc.write_safetensors(sd, path)
    ref = cli_json("weights", path)
    mine, theirs = strip_timing(w.to_dict()), strip_timing(ref)
    for d in (mine, theirs):
        d.pop("checkpoint", None), d.pop("files", None)
        for m in d.get("matrices", []):
            m.pop("file", None)
    assert mine == theirs
    got = {m["name"]: m["psi_w"] for m in w.matrices}
    for k, v in sd.items():
        assert got[k] == pytest.approx(svd_psi(v), rel=1e-9)
    frame = w.to_pandas()
    assert sorted(frame["name"]) == sorted(sd)


def test_weights_errors(tmp_path):
    with pytest.raises(ValueError):
        nsc.weights(tmp_path / "missing.safetensors")
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\xff" * 16)
    with pytest.raises(ValueError):
        nsc.weights(bad)
    with pytest.raises(ValueError, match="dtype"):
        nsc.weights({"x": np.array([["a"]])})
    with pytest.raises(TypeError):
        nsc.weights(3.5)


# ---- psi_mp / psi_fs / psi -----------------------------------------------------------------------

def reference_rows():
    with open(ROOT / "tests" / "data" / "psi_mp_reference.csv") as f:
        return list(csv.DictReader(f))


def test_psi_mp_fs_vectorised_against_mpmath():
    rows = reference_rows()
    m, n, v = (np.array([float(r[k]) for r in rows]) for k in ("m", "n", "v"))
    for name, got in [("psi_mp", nsc.psi_mp(m, n, v)), ("psi_fs_k0", nsc.psi_fs(m, n, v)),
                      ("psi_fs_km1.2", nsc.psi_fs(m, n, v, -1.2))]:
        ref = np.array([float(r[name]) for r in rows])
        assert got.shape == ref.shape
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=0)
    # scalars in, float out; broadcasting like numpy
    assert isinstance(nsc.psi_mp(4096, 4096, 1 / 4096), float)
    grid = nsc.psi_mp(np.arange(1, 5)[:, None], np.array([8, 16, 32]), 0.01)
    assert grid.shape == (4, 3)
    assert grid[2, 1] == nsc.psi_mp(3, 16, 0.01)
    # the scalar fast path (Python int / float) and the array path give the same bits
    assert nsc.psi_mp(3, 16, 0.01) == nsc.psi_mp(np.float64(3), 16, 0.01) == nsc.psi_mp([3], 16, 0.01)[0]
    assert nsc.psi_fs(3, 16, 0.01, -1.2) == nsc.psi_fs(np.array(3.0), 16, 0.01, -1.2)


@needs_cli
@pytest.mark.parametrize("init,kw", [
    ("xavier_normal", {}), ("xavier_uniform", {"gain": 0.5}), ("kaiming_normal", {"mode": "fan_out"}),
    ("kaiming_uniform", {}), ("torch_default", {}), ("normal", {"std": 0.02}),
    ("truncated_normal", {"std": 0.01, "trunc": (-3, 2)}), ("orthogonal", {"gain": 2.0}),
])
def test_psi_matches_cli(init, kw):
    for rows, cols in [(4096, 4096), (128, 4096), (11008, 4096), (1, 7), (0, 5)]:
        ref = cli_json("psi", "--rows", rows, "--cols", cols, "--init", init, *nsc.flags(kw))
        assert nsc.psi(rows, cols, init, **kw) == ref["psi_mp"]
        assert nsc.psi(rows, cols, init, estimator="fs", **kw) == ref["psi_fs"]
    arr = nsc.psi(np.array([4096, 128]), np.array([4096, 4096]), init, **kw)
    assert list(arr) == [nsc.psi(4096, 4096, init, **kw), nsc.psi(128, 4096, init, **kw)]


def test_psi_errors():
    with pytest.raises(ValueError, match="psi_mp"):
        nsc.psi_mp(-1, 4, 0.1)
    with pytest.raises(ValueError, match="psi_mp"):
        nsc.psi_mp(np.array([1.0, -1.0]), 4, 0.1)
    with pytest.raises(ValueError):
        nsc.psi_fs(4, 4, float("inf"), 0)
    with pytest.raises(ValueError):
        nsc.psi_mp(np.array([4.0, np.nan]), 4, 0.1)
    with pytest.raises(ValueError):
        nsc.psi_fs(4, 4, 0.1, -3)  # excess kurtosis < -2
    with pytest.raises(ValueError, match="parse_init_kind"):
        nsc.psi(4, 4, "glorot")
    with pytest.raises(ValueError, match="estimator"):
        nsc.psi(4, 4, estimator="xx")
    with pytest.raises(ValueError, match="mode"):
        nsc.psi(4, 4, "kaiming_normal", mode="fan_mid")
    with pytest.raises(ValueError, match="trunc"):
        nsc.psi(4, 4, "truncated_normal", trunc=(1,))
    with pytest.raises(ValueError):
        nsc.psi_mp(np.zeros(3), np.zeros(4), 1.0)  # shapes do not broadcast
    with pytest.raises((ValueError, TypeError)):
        nsc.psi_mp("four", 4, 0.1)


# ---- psi_w ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,rel", [(np.float64, 1e-11), (np.float32, 1e-11), (np.float16, 1e-11)])
@pytest.mark.parametrize("shape", [(50, 30), (30, 50), (1, 9), (64, 64)])
def test_psi_w_against_numpy_svd(dtype, rel, shape):
    W = np.random.default_rng(3).normal(0, 0.3, shape).astype(dtype)
    ref = svd_psi(W.astype(np.float64))  # the same (rounded) entries, in double
    for method in ("auto", "cholesky", "gram", "svd"):
        assert nsc.psi_w(W, method=method) == pytest.approx(ref, rel=rel)
    assert nsc.psi_w(np.asfortranarray(W)) == pytest.approx(ref, rel=rel)
    assert nsc.psi_w(W.T) == pytest.approx(ref, rel=rel)
    assert nsc.psi_w(W[::2, ::-1]) == pytest.approx(svd_psi(W[::2, ::-1].astype(np.float64)), rel=rel)


def test_psi_w_heads():
    W = np.random.default_rng(4).normal(0, 0.1, (8 * 16, 96))
    blocks = nsc.psi_w(W, heads=8, blocks=True)
    assert blocks.shape == (8,)
    for h in range(8):
        assert blocks[h] == pytest.approx(svd_psi(W[16 * h:16 * (h + 1)]), rel=1e-11)
    assert nsc.psi_w(W, heads=8) == pytest.approx(blocks.sum(), rel=1e-15)
    cols = nsc.psi_w(W, heads=4, axis=1, blocks=True)
    for h in range(4):
        assert cols[h] == pytest.approx(svd_psi(W[:, 24 * h:24 * (h + 1)]), rel=1e-11)


def test_psi_w_torch():
    torch = pytest.importorskip("torch")
    W = torch.randn(40, 24, dtype=torch.float64) * 0.2
    ref = svd_psi(W.numpy())
    assert nsc.psi_w(W) == pytest.approx(ref, rel=1e-11)
    assert nsc.psi_w(W.float()) == pytest.approx(svd_psi(W.float().numpy()), rel=1e-11)
    bf = W.to(torch.bfloat16)
    assert nsc.psi_w(bf) == pytest.approx(svd_psi(bf.float().numpy()), rel=1e-11)
    Wg = W.clone().requires_grad_(True)
    assert nsc.psi_w(Wg) == pytest.approx(ref, rel=1e-11)


def test_psi_w_errors():
    with pytest.raises(ValueError, match="2-D"):
        nsc.psi_w(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="2-D"):
        nsc.psi_w(np.zeros(5))
    with pytest.raises(ValueError, match="real"):
        nsc.psi_w(np.zeros((2, 2), dtype=complex))
    with pytest.raises(ValueError, match="real"):
        nsc.psi_w([["a", "b"]])
    with pytest.raises(ValueError, match="psi_w"):
        nsc.psi_w(np.array([[1.0, np.inf]]))
    with pytest.raises(ValueError, match="heads"):
        nsc.psi_w(np.zeros((6, 4)), heads=4)
    with pytest.raises(ValueError, match="heads"):
        nsc.psi_w(np.zeros((6, 4)), heads=0)
    with pytest.raises(ValueError, match="heads"):
        nsc.psi_w(np.zeros((6, 4)), heads=2.5)
    with pytest.raises(ValueError, match="axis"):
        nsc.psi_w(np.zeros((6, 4)), axis=2)
    with pytest.raises(ValueError, match="method"):
        nsc.psi_w(np.zeros((6, 4)), method="qr")
    assert nsc.psi_w(np.zeros((0, 4))) == 0.0


# ---- solve --------------------------------------------------------------------------------------

def brute_force(groups, budget):
    """Every selection: (value, cost vector, choice), feasible ones only."""
    out = []
    for choice in itertools.product(*(range(len(g)) for g in groups)):
        value = sum(groups[i][j][0] for i, j in enumerate(choice))
        cost = [sum(groups[i][j][1][k] for i, j in enumerate(choice)) for k in range(len(budget))]
        if all(c <= b for c, b in zip(cost, budget)):
            out.append((value, cost, list(choice)))
    return out


def random_instance(rng, K):
    G = int(rng.integers(1, 5))
    groups = [[(float(rng.integers(0, 20)), [int(rng.integers(0, 10)) for _ in range(K)])
               for _ in range(int(rng.integers(1, 4)))] for _ in range(G)]
    budget = [int(rng.integers(0, 10 * G)) for _ in range(K)]
    return groups, budget


def test_solve_against_brute_force():
    rng = np.random.default_rng(11)
    checked = 0
    for trial in range(300):
        K = 1 + trial % 3
        groups, budget = random_instance(rng, K)
        feasible = brute_force(groups, budget)
        if not feasible:
            with pytest.raises(nsc.Infeasible):
                nsc.solve(groups, budget)
            continue
        checked += 1
        best = max(v for v, _, _ in feasible)
        s = nsc.solve(groups, budget, front=True, top=5)
        assert s.value == best
        assert [sum(groups[i][j][1][k] for i, j in enumerate(s.choice)) for k in range(K)] == s.cost
        assert sum(groups[i][j][0] for i, j in enumerate(s.choice)) == best
        # the k best: the top values of the brute force, each a distinct feasible selection
        values = sorted((v for v, _, _ in feasible), reverse=True)
        assert [p["value"] for p in s.top] == values[:5]
        assert len({tuple(p["choice"]) for p in s.top}) == len(s.top)
        # the front: exactly the non-dominated (cost, value) points
        pts = {(tuple(c), v) for v, c, _ in feasible}
        front = {(tuple(c), v) for c, v in pts
                 if not any(all(c2[k] <= c[k] for k in range(K)) and v2 >= v and (c2, v2) != (c, v) for c2, v2 in pts)}
        assert {(tuple(p["cost"]), p["value"]) for p in s.front} == front
    assert checked > 100


def test_solve_diverse_pool_against_brute_force():
    rng = np.random.default_rng(5)
    for _ in range(50):
        groups, budget = random_instance(rng, 2)
        feasible = brute_force(groups, budget)
        if not feasible:
            continue
        s = nsc.solve(groups, budget, top=4, min_distance=2)
        kept = []
        for v, c, ch in sorted(feasible, key=lambda t: -t[0]):
            if all(sum(a != b for a, b in zip(ch, k)) >= 2 for _, _, k in kept):
                kept.append((v, c, ch))
            if len(kept) == 4:
                break
        assert [p["value"] for p in s.top] == [v for v, _, _ in kept]
        for p in s.top:
            for q in s.top:
                if p is not q:
                    assert sum(a != b for a, b in zip(p["choice"], q["choice"])) >= 2


def test_solve_input_forms_and_pandas():
    pd = pytest.importorskip("pandas")
    as_pairs = [[(1, [1, 2]), (3, [2, 1])], [(2, [1, 1]), (5, [3, 3])]]
    as_dicts = [{"values": [1, 3], "costs": [[1, 2], [2, 1]]}, {"values": [2, 5], "costs": [[1, 1], [3, 3]]}]
    as_arrays = [(np.array([1.0, 3.0]), np.array([[1, 2], [2, 1]])), (np.array([2.0, 5.0]), np.array([[1, 1], [3, 3]]))]
    as_frames = [pd.DataFrame({"value": [1, 3], "params": [1, 2], "flops": [2, 1]}),
                 pd.DataFrame({"value": [2, 5], "params": [1, 1], "flops": [3, 3]})]
    budgets = {"params": 5, "flops": 4}
    answers = [nsc.solve(g, budgets, front=True) for g in (as_pairs, as_dicts, as_arrays, as_frames)]
    assert len({(a.value, tuple(a.choice)) for a in answers}) == 1
    frame = answers[0].to_pandas()
    assert list(frame.columns) == ["value", "params", "flops", "choice"]
    assert len(frame) == len(answers[0].front)
    assert nsc.solve(as_pairs, [5, 4]).to_dict()["value"] == answers[0].value


def test_solve_large_integer_costs_exact():
    big = 2**60
    s = nsc.solve([[(1, big), (2, big + 1)]], big)
    assert s.choice == [0] and s.cost == [big]


def test_solve_errors():
    with pytest.raises(nsc.Infeasible):
        nsc.solve([[(1, 5)]], 4)
    with pytest.raises(ValueError, match="cost"):
        nsc.solve([[(1, -1)]], 4)  # the library's rule: costs >= 0
    with pytest.raises(ValueError, match="integers"):
        nsc.solve([[(1, 1.5)]], 4)
    with pytest.raises(ValueError, match="integers"):
        nsc.solve([[(1, 1)]], 4.5)
    with pytest.raises(ValueError, match="finite"):
        nsc.solve([[(float("nan"), 1)]], 4)
    with pytest.raises(ValueError, match="shape"):
        nsc.solve([[(1, [1, 2])]], 4)
    with pytest.raises(ValueError, match="at least one"):
        nsc.solve([[]], 4)
    with pytest.raises(ValueError, match="1 to 8"):
        nsc.solve([[(1, [1] * 9)]], [9] * 9)
    with pytest.raises(ValueError, match="groups"):
        nsc.solve("abc", 4)
    with pytest.raises(ValueError, match="top"):
        nsc.solve([[(1, 1)]], 4, top=-1)
    with pytest.raises(ValueError, match="k must be"):
        nsc.solve([[(1, 1)]], 4, top=5000)
    with pytest.raises(ValueError, match="min_distance"):
        nsc.solve([[(1, 1)]], 4, min_distance=2)
    with pytest.raises(ValueError, match="method"):
        nsc.solve([[(1, 1)]], 4, method="greedy")
    with pytest.raises(ValueError, match="bytes"):
        nsc.solve([[(i, i) for i in range(1000)]] * 3, 3000, method="dense", front=True, max_table_bytes=16)


# ---- the CLI, in-process ---------------------------------------------------------------------

def test_cli_in_process_exit_codes_and_capture(capfd):
    r = nsc.cli("--version")
    assert r.returncode == 0 and nsc.__version__ in r.stdout
    r = nsc.cli("score")
    assert r.returncode == 2 and "config" in r.stderr
    r = nsc.cli("frobnicate")
    assert r.returncode == 2
    with pytest.raises(ValueError):
        nsc.check_cli("search", "--space", "/nonexistent.json")
    # nothing leaked to the process's own stdout / stderr
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    # help text is reachable
    assert "--kv-dtype" in nsc.cli("score", "--help").stdout


def test_cli_many_calls_no_descriptor_leak():
    before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    for _ in range(200):
        nsc.cli("psi", "--rows", 3, "--cols", 4, "--init", "normal", "--json")
    if before is not None:
        assert len(os.listdir("/proc/self/fd")) <= before + 1


def test_python_m_nsc():
    r = subprocess.run([sys.executable, "-m", "nsc", "psi", "--rows", "4", "--cols", "4", "--init", "orthogonal", "--json"],
                       capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["psi_mp"] == pytest.approx(4 * math.log(2), rel=1e-15)
