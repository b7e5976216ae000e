#!/usr/bin/env python3
"""Plot an NSC-DP Pareto front: NSC against #Params and, when known, against TFLOPs.

    python3 scripts/plot_front.py FRONT.json|FRONT.csv -o front.png [--title TEXT]

Input (written by the nsc tool):
  * JSON: one object as printed by `nsc prune ... --front --json` (or `nsc search ... --front
    --json`): the chosen model's "nsc", "params" (and "tflops") at the top level, the list
    "front" of {"nsc", "params"[, "tflops"]} points, optionally "unpruned" {nsc, params, tflops}
    and "budget" (with "budget_kind": "params" or "macs").
  * CSV: `nsc prune ... --front --format csv`: columns kind,params,tflops,nsc,... with kind
    one of chosen, unpruned, front.

  * Generic JSON (`nsc prune --space generic --front --json`, `nsc design --front --json`): the
    chosen model's "nsc", "params_total", "params_non_embedding", "params_active",
    "flops_per_token", "kv_cache_bytes", "memory_bytes" at the top level, "front" a list of such
    objects (nsc design: one per feasible (hidden, depth) configuration, with "hidden_size",
    "num_hidden_layers" and "pareto"), "budgets" {cost name: limit} (prefill_flops in FLOPs of
    one prefill of "seq_len" tokens), optionally "unpruned".

Output: a PNG with one panel per cost (NSC vs params; NSC vs TFLOPs when the points have it),
the front as a step line (the best NSC reachable for every budget), the chosen point and the
unpruned model marked, and the budget drawn. Generic input: NSC against params (first panel)
and against every other budgeted cost, the points coloured by the first budgeted cost other
than params (else KV bytes), each budget drawn as a line in its panel, the running best NSC as
a step line, the chosen point and the unpruned model marked. Needs matplotlib (Debian:
python3-matplotlib).
"""
import argparse
import csv
import json
import sys


def load(path):
    """Returns (front, chosen, unpruned, meta): lists/dicts with keys nsc, params, tflops."""
    if path.endswith(".csv"):
        front, chosen, unpruned = [], None, None
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                p = {"nsc": float(row["nsc"]), "params": float(row["params"]),
                     "tflops": float(row["tflops"]) if row.get("tflops") not in (None, "") else None}
                kind = row.get("kind", "front")
                if kind == "chosen":
                    chosen = p
                elif kind == "unpruned":
                    unpruned = p
                else:
                    front.append(p)
        return front, chosen, unpruned, {}
    with open(path) as f:
        j = json.load(f)
    def point(d):
        return {"nsc": float(d["nsc"]), "params": float(d["params"]),
                "tflops": float(d["tflops"]) if d.get("tflops") is not None else None}
    front = [point(p) for p in j.get("front", [])]
    chosen = point(j) if "nsc" in j and "params" in j else None
    unpruned = point(j["unpruned"]) if isinstance(j.get("unpruned"), dict) else None
    meta = {k: j.get(k) for k in ("budget", "budget_kind", "band", "model", "seq_len", "search",
                                  "space")}
    return front, chosen, unpruned, meta


def fmt_params(v, scale, unit):
    digits = 6 if unit == "B" else 2 if unit == "M" else 0
    return f"{v / scale:.{digits}f}{unit}"


def scale_of(values):
    top = max(values) if values else 1
    if top >= 1e9:
        return 1e9, "B"
    if top >= 1e6:
        return 1e6, "M"
    if top >= 1e3:
        return 1e3, "k"
    return 1, ""


# Generic fronts: the costs a point carries, their labels, and the budget naming each.
GENERIC_COSTS = [
    ("params_total", "#Params (total)", "params"),
    ("params_non_embedding", "#Params (non-embedding)", "params_non_embedding"),
    ("params_active", "#Params (active)", "params_active"),
    ("flops_per_token", "prefill FLOPs / token", "prefill_flops"),
    ("kv_cache_bytes", "KV-cache bytes", "kv_bytes"),
    ("memory_bytes", "memory bytes (weights + KV)", "memory"),
]


def plot_generic(j, output, title, plt, FuncFormatter):
    """NSC against params and every other budgeted cost; colour = another budgeted cost."""
    front = list(j.get("front", []))
    chosen = j if "nsc" in j and "params_total" in j else None
    unpruned = j.get("unpruned") if isinstance(j.get("unpruned"), dict) else None
    budgets = j.get("budgets") or {}
    seq = float(j.get("seq_len") or (j.get("workload") or {}).get("seq_len") or 1)
    limit = {}
    for key, _, bname in GENERIC_COSTS:
        if bname in budgets:
            limit[key] = float(budgets[bname]) / (seq if bname == "prefill_flops" else 1.0)
    panels = ["params_total"] + [k for k, _, _ in GENERIC_COSTS if k in limit and k != "params_total"][:3]
    label = {k: l for k, l, _ in GENERIC_COSTS}
    everything = front + [p for p in (chosen, unpruned) if p]
    if not everything:
        sys.exit("plot_front.py: no points")
    colour_key = next((k for k in panels[1:]), None)
    if colour_key is None:
        for k in ("kv_cache_bytes", "memory_bytes", "flops_per_token"):
            if len({p.get(k) for p in front}) > 1:
                colour_key = k
                break
    scales = {k: scale_of([float(p[k]) for p in everything if p.get(k) is not None]) for k in label}
    for k in ("kv_cache_bytes", "memory_bytes"):  # bytes: GB, MB, kB (not "B" for billions)
        f, u = scales[k]
        scales[k] = (f, {"B": "GB", "M": "MB", "k": "kB", "": "bytes"}[u])
    nscale, nunit = scale_of([float(p["nsc"]) for p in everything])
    plt.rcParams.update({"font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10})
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels) + (1.2 if colour_key else 0), 4.8),
                             squeeze=False)
    design = any("hidden_size" in p for p in front)
    sc = None
    for ax, key in zip(axes[0], panels):
        sx, ux = scales[key]
        pts = sorted(front, key=lambda p: float(p[key]))
        xs = [float(p[key]) / sx for p in pts]
        ys = [float(p["nsc"]) / nscale for p in pts]
        if pts:
            best, step_x, step_y = None, [], []
            for x, y in zip(xs, ys):  # the best NSC reachable at each cost (this cost alone)
                if best is None or y > best:
                    best = y
                    step_x.append(x)
                    step_y.append(y)
            ax.step(step_x, step_y, where="post", color="#888888", lw=1.0, zorder=2,
                    label="best NSC at this cost or less")
            kw = dict(s=16 if len(pts) < 400 else 6, zorder=3, edgecolor="none")
            if colour_key:
                cs, _ = scales[colour_key]
                sc = ax.scatter(xs, ys, c=[float(p[colour_key]) / cs for p in pts], cmap="viridis", **kw,
                                label=("configurations" if design else "Pareto set") + f" ({len(pts)})")
            else:
                ax.scatter(xs, ys, color="#4c72b0", **kw,
                           label=("configurations" if design else "Pareto set") + f" ({len(pts)})")
            if design:  # the Pareto-optimal configurations ringed
                px = [x for x, p in zip(xs, pts) if p.get("pareto")]
                py = [y for y, p in zip(ys, pts) if p.get("pareto")]
                ax.scatter(px, py, s=46, facecolor="none", edgecolor="black", lw=0.8, zorder=4,
                           label=f"Pareto-optimal ({len(px)})")
        if unpruned and unpruned.get(key) is not None:
            ax.scatter([float(unpruned[key]) / sx], [float(unpruned["nsc"]) / nscale], marker="D", s=70,
                       color="#555555", edgecolor="black", zorder=5, label="unpruned model")
        if chosen and chosen.get(key) is not None:
            text = f"NSC {float(chosen['nsc']):,.1f}"
            if "hidden_size" in chosen:
                text = f"hidden {chosen['hidden_size']} x {chosen['num_hidden_layers']} layers\n" + text
            ax.scatter([float(chosen[key]) / sx], [float(chosen["nsc"]) / nscale], marker="*", s=260,
                       color="#dd8452", edgecolor="black", linewidth=0.8, zorder=6, label="NSC-DP choice")
            all_y = ys + [float(chosen["nsc"]) / nscale]
            lo_y, hi_y = min(all_y), max(all_y)
            high = hi_y > lo_y and (float(chosen["nsc"]) / nscale - lo_y) / (hi_y - lo_y) > 0.75
            ax.annotate(text, (float(chosen[key]) / sx, float(chosen["nsc"]) / nscale), textcoords="offset points",
                        xytext=(-40, -60) if high else (-18, 30), ha="right", fontsize=8.5,
                        bbox=dict(boxstyle="round,pad=0.3", fc="white", ec="#dd8452", alpha=0.95),
                        arrowprops=dict(arrowstyle="-", color="#dd8452"))
        if key in limit:
            bx = limit[key] / sx
            ax.axvline(bx, color="#c44e52", ls="--", lw=1.1, zorder=1, label=f"budget {bx:.4g}{ux}")
            right = max([bx * 1.02] + [x * 1.02 for x in xs])
            ax.axvspan(bx, right, color="#c44e52", alpha=0.06, zorder=0)
            ax.set_xlim(right=right)
        ax.set_xlabel(label[key] + (f" ({ux})" if ux else ""))
        ax.set_ylabel(f"NSC ({nunit})" if nunit else "NSC")
        ax.set_title(f"NSC against {label[key]}")
        ax.grid(True, alpha=0.3)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.4g}"))
        ax.legend(loc="lower right", fontsize=8, framealpha=0.95)
    if sc is not None:
        cs, cu = scales[colour_key]
        cb = fig.colorbar(sc, ax=list(axes[0]), pad=0.01, fraction=0.04)
        cb.set_label(label[colour_key] + (f" ({cu})" if cu else "") + (" (budgeted)" if colour_key in limit else ""))
    what = "design space" if design else "Pareto set"
    fig.suptitle(f"NSC-DP {what}: {title}", fontsize=12, fontweight="bold")
    if sc is None:
        fig.tight_layout()
    fig.savefig(output, dpi=130, bbox_inches="tight")
    print(f"plot_front.py: wrote {output}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input", help="front JSON or CSV written by nsc")
    ap.add_argument("-o", "--output", required=True, help="PNG to write")
    ap.add_argument("--title", default=None, help="figure title")
    args = ap.parse_args(argv)

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter
    except ImportError:
        sys.exit("plot_front.py: matplotlib is needed (Debian: apt-get install python3-matplotlib)")

    if not args.input.endswith(".csv"):
        with open(args.input) as f:
            j = json.load(f)
        if "params_total" in j or any("params_total" in p for p in j.get("front", [])):
            plot_generic(j, args.output, args.title or j.get("model") or "NSC-DP", plt, FuncFormatter)
            return
    front, chosen, unpruned, meta = load(args.input)
    if not front and chosen is None:
        sys.exit("plot_front.py: no points in " + args.input)
    front.sort(key=lambda p: p["params"])
    has_tflops = all(p["tflops"] is not None for p in front) and (front or chosen)
    panels = [("params", "#Params")] + ([("tflops", "TFLOPs")] if has_tflops else [])

    everything = front + [p for p in (chosen, unpruned) if p]
    pscale, punit = scale_of([p["params"] for p in everything])
    nscale, nunit = scale_of([p["nsc"] for p in everything])

    plt.rcParams.update({"font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10})
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 4.6), squeeze=False)
    seq = meta.get("seq_len")
    for ax, (key, label) in zip(axes[0], panels):
        sx = pscale if key == "params" else 1.0
        xs = [p[key] / sx for p in front]
        ys = [p["nsc"] / nscale for p in front]
        if front:
            ax.step(xs, ys, where="post", color="#4c72b0", lw=1.3, alpha=0.9, zorder=2,
                    label=f"Pareto front ({len(front)} points)")
            ax.scatter(xs, ys, s=9, color="#4c72b0", zorder=3)
        if unpruned:
            ax.scatter([unpruned[key] / sx], [unpruned["nsc"] / nscale], marker="D", s=70,
                       color="#555555", edgecolor="black", zorder=5, label="unpruned model")
            ax.annotate(f"unpruned: {fmt_params(unpruned['params'], pscale, punit)}"
                        + (f", {unpruned['tflops']:.3f} TFLOPs" if unpruned.get("tflops") else "")
                        + f"\nNSC {unpruned['nsc']:,.1f}",
                        (unpruned[key] / sx, unpruned["nsc"] / nscale), textcoords="offset points",
                        xytext=(4, -92), ha="right", fontsize=8.5, color="#333333",
                        arrowprops=dict(arrowstyle="-", color="#777777", lw=0.8))
        if chosen:
            # Text above-left of the point, or below-left when the point is near the top.
            ys_all = ys + [chosen["nsc"] / nscale] + ([unpruned["nsc"] / nscale] if unpruned else [])
            lo_y, hi_y = min(ys_all), max(ys_all)
            high = hi_y > lo_y and (chosen["nsc"] / nscale - lo_y) / (hi_y - lo_y) > 0.75
            ax.scatter([chosen[key] / sx], [chosen["nsc"] / nscale], marker="*", s=260,
                       color="#dd8452", edgecolor="black", linewidth=0.8, zorder=6,
                       label="NSC-DP choice")
            ax.annotate(f"{fmt_params(chosen['params'], pscale, punit)} params"
                        + (f", {chosen['tflops']:.3f} TFLOPs" if chosen.get("tflops") else "")
                        + f"\nNSC {chosen['nsc']:,.1f}",
                        (chosen[key] / sx, chosen["nsc"] / nscale), textcoords="offset points",
                        xytext=(-4, -115) if high else (-18, 36), ha="right", fontsize=9,
                        bbox=dict(boxstyle="round,pad=0.3", fc="white", ec="#dd8452", alpha=0.95),
                        arrowprops=dict(arrowstyle="-", color="#dd8452"))
        budget, kind = meta.get("budget"), meta.get("budget_kind") or "params"
        band = meta.get("band")
        if band and key == "params":  # a params band (Transformer-XL): shade the allowed range
            ax.axvspan(band[0] / pscale, band[1] / pscale, color="#55a868", alpha=0.15, zorder=0,
                       label=f"band {band[0] / pscale:.4g}-{band[1] / pscale:.4g}{punit}")
        elif budget is not None:
            bx = None
            if key == "params" and kind == "params":
                bx = float(budget) / pscale
            elif key == "tflops" and kind == "macs":
                bx = float(budget) / 1e12
            if bx is not None:
                ax.axvline(bx, color="#c44e52", ls="--", lw=1.1, zorder=1,
                           label=f"budget {bx:.4g}{punit if key == 'params' else ' TFLOPs'}")
                ax.axvspan(bx, ax.get_xlim()[1], color="#c44e52", alpha=0.06, zorder=0)
                ax.set_xlim(right=ax.get_xlim()[1])
        if key == "params":
            ax.set_xlabel(f"#Params ({punit})" if punit else "#Params")
        else:
            ax.set_xlabel("TFLOPs" + (f" (multiply-accumulates, T = {seq})" if seq else ""))
        ax.set_ylabel(f"NSC ({nunit})" if nunit else "NSC")
        ax.set_title(f"NSC against {label}")
        ax.grid(True, alpha=0.3)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.3g}"))
        ax.legend(loc="lower right", fontsize=8.5, framealpha=0.95)
    title = args.title or meta.get("model") or meta.get("search") or "NSC-DP"
    fig.suptitle(f"NSC-DP Pareto front: {title}", fontsize=12, fontweight="bold")
    fig.tight_layout()
    fig.savefig(args.output, dpi=130)
    print(f"plot_front.py: wrote {args.output}")


if __name__ == "__main__":
    main()
