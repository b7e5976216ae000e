#!/usr/bin/python3
"""Reference values of nsc/spectral/prefix_logdet.hpp by brute force (numpy slogdet of every subset).

Writes tests/data/prefix_logdet.json: three random matrices X_m (12 rows, 5 / 7 / 9 columns; row r
is column r of W), scaled 0.7, 1.3, 2.1, and
 * ordered: for the order `order`, p[k] = ln det(I + X_S X_S^T), S = the first k rows (X_0 alone);
 * greedy1: the greedy order of rows (unit 1) of the three matrices jointly: each step the row c
   maximising sum_m ln det(I + X_m[S + c] X_m[S + c]^T) (ties: lower c), and every prefix's sum;
 * greedy3: units of 3 rows (4 units) of X_1 with bonus b_u added to a unit's gain: each step the
   unit maximising b_u + ln det(I + X[S + u] X[S + u]^T), and prefixes (bonuses included);
 * round_robin: greedy3 with allowed units alternating between groups {0, 2} and {1, 3}.

Run: /usr/bin/python3 tests/reference/gen_prefix_logdet.py   (deterministic: seed 23)
"""
import json
import os

import numpy as np

rng = np.random.default_rng(23)
X = [rng.standard_normal((12, c)) * s for c, s in ((5, 0.7), (7, 1.3), (9, 2.1))]


def ld(M, rows):
    if not rows:
        return 0.0
    A = M[rows]
    return float(np.linalg.slogdet(np.eye(len(rows)) + A @ A.T)[1])


def greedy(mats, unit, bonus, allowed):
    U = mats[0].shape[0] // unit
    rows = lambda S: [u * unit + i for u in S for i in range(unit)]
    S, pre = [], [0.0]
    for t in range(U):
        best, bv = None, -np.inf
        for u in range(U):
            if u in S or not allowed(u, t):
                continue
            v = sum(ld(M, rows(S + [u])) for M in mats) + sum(bonus[x] for x in S + [u])
            if v > bv:
                bv, best = v, u
        if best is None:
            break
        S.append(best)
        pre.append(bv)
    return S, pre


order = [int(x) for x in rng.permutation(12)]
ordered = [ld(X[0], order[:k]) for k in range(13)]
g1 = greedy(X, 1, [0.0] * 12, lambda u, t: True)
bonus = [float(b) for b in rng.uniform(0, 3, 4)]
g3 = greedy([X[1]], 3, bonus, lambda u, t: True)
rr = greedy([X[1]], 3, bonus, lambda u, t: (u % 2 == 0) == (t % 2 == 0))
out = {"X": [m.tolist() for m in X], "order": order, "ordered": ordered,
       "greedy1": {"order": g1[0], "prefix": g1[1]},
       "greedy3": {"bonus": bonus, "order": g3[0], "prefix": g3[1]},
       "round_robin": {"order": rr[0], "prefix": rr[1]}}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "prefix_logdet.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
print(path, g1[0], g3[0], rr[0])
