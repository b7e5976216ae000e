#!/usr/bin/python3
"""Reference values for nsc/eval/ranking.hpp (tests/test_ranking.cpp).

Run from anywhere with the Debian Python (numpy, scipy, mpmath):

    /usr/bin/python3 tests/reference/gen_ranking_reference.py

Writes, deterministically (fixed seed):
  tests/data/ranking_reference_data.csv    dataset,x,y,c1,c2   (one row per observation)
  tests/data/ranking_reference_values.csv  dataset,n,rel,tau_b,rho,pw_tau,
                                           partial_tau_c1,partial_tau_c1c2,pairwise_accuracy

Inputs are written with repr() (shortest round-trip, so C++ strtod reads the same double);
expected values with 17 significant digits; "nan" means "undefined" (empty optional).

Independence from the code under test:
  tau_b      scipy.stats.kendalltau (variant 'b'), cross-checked against a brute-force
             O(n^2) pair count evaluated in 50-digit mpmath.
  rho        scipy.stats.spearmanr.
  pw_tau     brute force over all pairs: P = {i<j : |c_i - c_j| < rel*max(|c_i|,|c_j|)}
             (evaluated in double, as defined), tau = (C-D)/sqrt((|P|-Tx)(|P|-Ty)), the
             division and square roots in 50-digit mpmath, then rounded to double.
  partial    scipy.stats.rankdata + numpy.linalg.lstsq on [1, ranks of controls], residuals,
             scipy.stats.kendalltau. Checked with exact rational arithmetic (fractions):
             the float residuals must order and tie exactly like the exact ones (otherwise
             the reference would depend on rounding), no coincidental exact ties between
             different design rows, relative gap between distinct residuals > 1e-9. If
             the exact residual vector is zero (x or y an affine function of the control
             ranks) the value is "nan" (scipy would correlate rounding noise).
  accuracy   brute force: pairs with distinct truth, score ordered the same way count 1,
             score ties 1/2 (exact integer ratio).
"""

import math
import os
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import scipy.stats

mpmath.mp.dps = 50
HERE = os.path.dirname(os.path.abspath(__file__))
DATA_DIR = os.path.join(HERE, "..", "data")


def fmt(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "nan"
    return "%.17g" % v


def brute_pair_counts(x, y, c, rel):
    """All pairs i<j: (n0, tied_x, tied_y, C-D) overall and over the window P, plus the
    pairwise-accuracy numerator/denominator (x = score, y = truth), doubled."""
    n = len(x)
    tot = [0, 0, 0, 0]
    win = [0, 0, 0, 0]
    pa_num2 = 0
    pa_den2 = 0
    for i in range(n - 1):
        xj, yj, cj = x[i + 1:], y[i + 1:], c[i + 1:]
        sx = np.sign(xj - x[i]).astype(np.int64)
        sy = np.sign(yj - y[i]).astype(np.int64)
        w = np.abs(c[i] - cj) < rel * np.maximum(abs(c[i]), np.abs(cj))
        tot[0] += len(xj)
        tot[1] += int(np.count_nonzero(sx == 0))
        tot[2] += int(np.count_nonzero(sy == 0))
        tot[3] += int(np.sum(sx * sy))
        win[0] += int(np.count_nonzero(w))
        win[1] += int(np.count_nonzero(w & (sx == 0)))
        win[2] += int(np.count_nonzero(w & (sy == 0)))
        win[3] += int(np.sum((sx * sy)[w]))
        distinct = sy != 0
        pa_den2 += 2 * int(np.count_nonzero(distinct))
        pa_num2 += 2 * int(np.count_nonzero(distinct & (sx == sy))) + int(
            np.count_nonzero(distinct & (sx == 0)))
    return tot, win, (pa_num2, pa_den2)


def tau_exact(counts):
    pairs, tx, ty, s = counts
    if pairs - tx == 0 or pairs - ty == 0:
        return float("nan")
    return float(mpmath.mpf(s) / mpmath.sqrt(mpmath.mpf(pairs - tx)) / mpmath.sqrt(mpmath.mpf(pairs - ty)))


def exact_residuals(r, design):
    """Exact least-squares residual of r on the columns of `design` (lists of Fractions):
    unnormalised Gram-Schmidt in rational arithmetic."""
    basis = []
    for z in design:
        v = list(z)
        for b, bb in basis:
            coef = sum(bi * vi for bi, vi in zip(b, v)) / bb
            v = [vi - coef * bi for vi, bi in zip(v, b)]
        vv = sum(vi * vi for vi in v)
        if vv != 0:
            basis.append((v, vv))
    e = list(r)
    for b, bb in basis:
        coef = sum(bi * ei for bi, ei in zip(b, e)) / bb
        e = [ei - coef * bi for ei, bi in zip(e, b)]
    return e


def check_float_ties(e_float, e_exact, rows, label):
    """The float residuals must sort and tie exactly like the exact ones."""
    order = sorted(range(len(e_exact)), key=lambda i: e_exact[i])
    scale = max(abs(v) for v in e_exact)
    min_gap = math.inf
    for a, b in zip(order, order[1:]):
        if e_exact[a] == e_exact[b]:
            assert e_float[a] == e_float[b], f"{label}: exact tie broken by rounding"
            assert rows[a] == rows[b], f"{label}: coincidental exact tie between different rows"
        else:
            assert e_float[a] < e_float[b], f"{label}: float residual order differs from exact"
            min_gap = min(min_gap, float((e_exact[b] - e_exact[a]) / scale))
    assert min_gap > 1e-9, f"{label}: residual gap {min_gap} too small for a robust reference"


def partial_tau(x, y, controls, label):
    n = len(x)
    rx = scipy.stats.rankdata(x)
    ry = scipy.stats.rankdata(y)
    rc = [scipy.stats.rankdata(c) for c in controls]
    design = np.column_stack([np.ones(n)] + rc)
    exact_design = [[Fraction(1)] * n] + [[Fraction(v) for v in col] for col in rc]
    residuals = []
    for r, name in ((rx, "x"), (ry, "y")):
        beta = np.linalg.lstsq(design, r, rcond=None)[0]
        fit = np.zeros(n)
        for k in range(design.shape[1]):  # column by column: identical rows stay identical
            fit = fit + beta[k] * design[:, k]
        e = r - fit
        e_exact = exact_residuals([Fraction(v) for v in r], exact_design)
        if all(v == 0 for v in e_exact):
            return float("nan")
        rows = [tuple([r[i]] + [col[i] for col in rc]) for i in range(n)]
        check_float_ties(e, e_exact, rows, f"{label}/{name}")
        residuals.append(e)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(scipy.stats.kendalltau(residuals[0], residuals[1]).statistic)


def make_datasets(rng):
    ds = []

    def add(name, x, y, c1, c2, rel=0.10):
        ds.append((name, np.asarray(x, float), np.asarray(y, float), np.asarray(c1, float),
                   np.asarray(c2, float), rel))

    add("n2_concordant", [0.5, 1.5], [2.0, 3.0], [1.0, 1.05], [3.0, 1.0])
    add("n2_tied_x", [1.0, 1.0], [2.0, 3.0], [1.0, 1.05], [3.0, 1.0])
    add("n3_ties", [1.0, 2.0, 2.0], [3.0, 1.0, 2.0], [10.0, 10.5, 10.0], [1.0, 2.0, 3.0])
    add("n3_reversed", [1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [5.0, 5.2, 5.4], [4.0, 3.0, 9.0], 0.2)
    n = 25
    x = rng.permutation(n).astype(float)
    add("perfect", x, 2 * x + 1, 100 + rng.integers(0, 8, n), rng.normal(size=n))
    add("reversed", x, -x, 100 + rng.integers(0, 8, n), rng.normal(size=n))
    n = 40
    add("small_int_ties", rng.integers(0, 4, n), rng.integers(0, 3, n), rng.integers(8, 12, n),
        rng.integers(1, 5, n), 0.15)
    n = 300
    c1 = rng.choice([1.0, 1.05, 1.1, 1.2, 1.3, 1.5, 2.0, 2.1], n)
    x = rng.integers(0, 5, n) + c1
    add("many_ties", x, rng.integers(0, 7, n) + 0.5 * x, c1, np.round(c1 * rng.uniform(1, 3, n), 2))
    n = 200
    c1 = np.exp(rng.normal(0, 0.5, n))
    x = rng.normal(size=n) + np.log(c1)
    add("continuous", x, x + rng.normal(size=n), c1, c1 * np.exp(rng.normal(0, 0.2, n)))
    n = 150
    c1 = np.concatenate([rng.integers(-3, 4, 100).astype(float), rng.normal(0, 2, 50)])
    add("signed_controls", rng.integers(0, 6, n), rng.normal(size=n), c1, rng.integers(0, 4, n),
        0.3)
    n = 60
    add("constant_x", np.full(n, 2.0), rng.normal(size=n), rng.integers(1, 4, n),
        rng.normal(size=n))
    n = 80
    c1 = rng.integers(1, 20, n).astype(float)
    add("x_is_control", c1, rng.normal(size=n) + 0.1 * c1, c1, rng.normal(size=n))
    n = 120
    c1 = rng.integers(50, 60, n).astype(float)
    add("wide_window", rng.normal(size=n), rng.integers(0, 3, n), c1, c1 + rng.integers(0, 3, n),
        0.5)
    add("narrow_window", rng.normal(size=n), rng.integers(0, 3, n), c1, rng.normal(size=n), 0.01)
    # NATS-Bench-like: #Params with many ties, #FLOPs tied to it, accuracy with 2 decimals.
    n = 2000
    params = np.round(np.exp(rng.uniform(np.log(0.07), np.log(1.5), n)), 2)
    flops = np.round(params * rng.choice([8.0, 12.0, 16.0], n) + rng.integers(0, 3, n), 1)
    acc = np.round(80 + 5 * np.log(params) + rng.normal(0, 2, n), 2)
    score = np.round(np.log(params) + 0.5 * rng.normal(size=n), 4)
    add("nats_like_2000", score, acc, params, flops)
    return ds


def main():
    rng = np.random.default_rng(20240607)
    datasets = make_datasets(rng)
    data_lines = ["dataset,x,y,c1,c2"]
    value_lines = ["dataset,n,rel,tau_b,rho,pw_tau,partial_tau_c1,partial_tau_c1c2,pairwise_accuracy"]
    for name, x, y, c1, c2, rel in datasets:
        for row in zip(x, y, c1, c2):
            data_lines.append(",".join([name] + [repr(float(v)) for v in row]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tau_scipy = float(scipy.stats.kendalltau(x, y).statistic)
            rho = float(scipy.stats.spearmanr(x, y).statistic)
        tot, win, (pa_num2, pa_den2) = brute_pair_counts(x, y, c1, rel)
        tau_brute = tau_exact(tot)
        assert (math.isnan(tau_scipy) and math.isnan(tau_brute)) or abs(tau_scipy - tau_brute) <= 4e-16, \
            (name, tau_scipy, tau_brute)
        pw = tau_exact(win)
        p1 = partial_tau(x, y, [c1], name + "/c1")
        p12 = partial_tau(x, y, [c1, c2], name + "/c1c2")
        pa = pa_num2 / pa_den2 if pa_den2 else float("nan")
        value_lines.append(",".join([name, str(len(x)), repr(rel)] +
                                    [fmt(v) for v in (tau_scipy, rho, pw, p1, p12, pa)]))
        print(f"{name:16s} n={len(x):5d} |P|={win[0]:8d} tau={fmt(tau_scipy)} pw={fmt(pw)} "
              f"partial={fmt(p1)},{fmt(p12)}")
    os.makedirs(DATA_DIR, exist_ok=True)
    with open(os.path.join(DATA_DIR, "ranking_reference_data.csv"), "w") as f:
        f.write("\n".join(data_lines) + "\n")
    with open(os.path.join(DATA_DIR, "ranking_reference_values.csv"), "w") as f:
        f.write("\n".join(value_lines) + "\n")


if __name__ == "__main__":
    main()
