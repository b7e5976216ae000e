"""The native, vectorised half: psi over arrays of shapes, psi_W of arrays, the exact K-budget
knapsack on any data. No CLI process and no JSON: numpy in, numpy out."""
from __future__ import annotations

import numbers
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core
from ._cli import Infeasible, _frame

ArrayLike = Any
_SCALARS = (int, float)  # exact types: bool and numpy scalars take the array path


def psi_mp(rows: ArrayLike, cols: ArrayLike, variance: ArrayLike) -> Any:
    """psi_MP(m, n, v): the Marchenko-Pastur closed form of sum_i ln(1 + s_i^2) for a
    rows x cols matrix of i.i.d. entries of variance v (docs/reference.md "psi_mp"). Broadcasts over numpy
    arrays (a float for scalar arguments, an ndarray otherwise).

    >>> round(nsc.psi_mp(4096, 4096, 1 / 4096), 6)
    2377.554489
    >>> nsc.psi_mp([1, 10, 100], 100, 0.01).round(4)
    array([ 0.6919,  6.8075, 58.0458])
    """
    if type(rows) in _SCALARS and type(cols) in _SCALARS and type(variance) in _SCALARS:
        return _core.psi_mp_scalar(rows, cols, variance)
    return _core.psi_mp(rows, cols, variance)


def psi_fs(rows: ArrayLike, cols: ArrayLike, variance: ArrayLike, kurtosis_excess: ArrayLike = 0.0) -> Any:
    """psi_FS: psi_MP with the finite-size mean correction for entries of the given excess
    kurtosis (0 normal, -1.2 uniform). Broadcasts like :func:`psi_mp`.

    >>> round(nsc.psi_fs(4096, 4096, 1 / 4096), 6)
    2377.475636
    """
    if type(rows) in _SCALARS and type(cols) in _SCALARS and type(variance) in _SCALARS \
            and type(kurtosis_excess) in _SCALARS:
        return _core.psi_fs_scalar(rows, cols, variance, kurtosis_excess)
    return _core.psi_fs(rows, cols, variance, kurtosis_excess)


def psi(rows: ArrayLike, cols: ArrayLike, init: str = "xavier_normal", *, estimator: str = "mp",
        gain: Optional[float] = None, mode: str = "fan_in", std: float = 0.02,
        trunc: Tuple[float, float] = (-2.0, 2.0)) -> Any:
    """psi of a rows x cols weight (rows = out features = fan_out, cols = in features =
    fan_in, a PyTorch Linear(cols, rows)) under an initialisation, as ``nsc psi``: init one of
    xavier_normal, xavier_uniform, kaiming_normal, kaiming_uniform, torch_default, normal,
    truncated_normal, orthogonal; estimator "mp" or "fs". Broadcasts over arrays of shapes.

    >>> round(nsc.psi(4096, 11008, "xavier_normal"), 4)
    3420.6812
    >>> nsc.psi(np.array([64, 128]), 4096, "normal", std=0.02, estimator="fs").round(3)
    array([ 61.895, 123.406])
    """
    if not (isinstance(trunc, (tuple, list)) and len(trunc) == 2):
        raise ValueError(f"nsc.psi: trunc must be two bounds (A, B) in units of std (got {trunc!r})")
    return _core.psi(rows, cols, init, estimator, gain, mode, float(std), (float(trunc[0]), float(trunc[1])))


def _matrix(W: Any) -> np.ndarray:
    if "torch" in type(W).__module__ and hasattr(W, "detach"):
        t = W.detach().cpu()
        if str(t.dtype) in ("torch.bfloat16",):
            t = t.float()
        W = t.numpy()
    a = np.asarray(W)
    if a.dtype.kind not in "fiub":
        raise ValueError(f"nsc.psi_w: W must hold real numbers (got dtype {a.dtype})")
    if a.ndim != 2:
        raise ValueError(f"nsc.psi_w: W must be 2-D (got shape {a.shape})")
    return a


def psi_w(W: Any, *, heads: Optional[int] = None, axis: int = 0, method: str = "auto",
          blocks: bool = False) -> Any:
    """psi_W(W) = sum_i ln(1 + s_i^2) of an actual matrix (numpy array of float64 / float32 /
    float16, or a torch tensor), computed in double by the Eigen backend with the GIL released.
    ``heads=h`` splits W into h equal blocks along `axis` (0: rows, PyTorch's (out, in) layout
    of a Q/K/V projection) and sums psi_W of each; ``blocks=True`` returns the per-block values.
    method: auto (Cholesky when its error estimate allows, else eigenvalues, else SVD),
    cholesky, gram or svd.

    >>> abs(nsc.psi_w(np.diag([1.0, 2.0, 3.0])) - np.log(2 * 5 * 10)) < 1e-14
    True
    >>> nsc.psi_w(np.eye(4, dtype=np.float32), heads=2, blocks=True)
    array([1.38629436, 1.38629436])
    """
    a = _matrix(W)
    if heads is None:
        h = 1
    elif isinstance(heads, numbers.Integral) and not isinstance(heads, bool):
        h = int(heads)
    else:
        raise ValueError(f"nsc.psi_w: heads must be an integer >= 1 (got {heads!r})")
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise ValueError(f"nsc.psi_w: axis must be 0 or 1 (got {axis!r})")
    values, _ = _core.psi_w(a, method, h, int(axis))
    return values if blocks else float(values.sum())


# ---- the K-budget knapsack -----------------------------------------------------------------

class Solution:
    """An exact optimum of :func:`solve`: ``value``, ``cost`` (one total per budget),
    ``choice`` (the option index per group), ``front`` / ``top`` (lists of dicts with value,
    cost, choice; empty unless asked for), ``solver`` (the algorithm that ran)."""

    def __init__(self, d: Dict[str, Any], names: Optional[List[str]]) -> None:
        self.value: float = d["value"]
        self.cost: List[int] = list(d["cost"])
        self.choice: List[int] = list(d["choice"])
        self.budget: List[int] = list(d["budget"])
        self.solver: str = d["solver"]
        self.front: List[Dict[str, Any]] = d.get("front", [])
        self.top: List[Dict[str, Any]] = d.get("top", [])
        self.budget_names = names

    def to_dict(self) -> Dict[str, Any]:
        return {"value": self.value, "cost": self.cost, "choice": self.choice, "budget": self.budget,
                "solver": self.solver, "front": self.front, "top": self.top}

    def _rows(self, pts: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
        names = self.budget_names or [f"cost{k}" for k in range(len(self.budget))]
        return [{"value": p["value"], **dict(zip(names, p["cost"])), "choice": p["choice"]} for p in pts]

    def to_pandas(self, which: str = "front") -> Any:
        """One row per Pareto point (``which="front"``) or per selection of the k best ("top")."""
        if which not in ("front", "top"):
            raise ValueError(f"Solution.to_pandas: which must be 'front' or 'top' (got {which!r})")
        return _frame(self._rows(self.front if which == "front" else self.top))

    def __repr__(self) -> str:
        return f"Solution(value={self.value!r}, cost={self.cost!r}, choice={self.choice!r}, solver={self.solver!r})"


def _costs(c: Any, n: int, K: int, g: int) -> np.ndarray:
    try:
        f = np.asarray(c, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"nsc.solve: group {g}: costs must be numbers") from None
    if f.ndim == 1 and K == 1:
        f = f.reshape(-1, 1)
    if f.shape != (n, K):
        raise ValueError(f"nsc.solve: group {g}: costs must have shape ({n}, {K}), one per option and budget "
                         f"(got {np.shape(c)})")
    if not np.all(np.isfinite(f)) or np.any(f != np.round(f)) or np.any(np.abs(f) >= 2.0**63):
        raise ValueError(f"nsc.solve: group {g}: costs must be finite 64-bit integers")
    raw = np.asarray(c)
    # integer input converted exactly (float64 would round costs above 2^53)
    return raw.astype(np.int64).reshape(n, K) if raw.dtype.kind in "iu" else f.astype(np.int64)


def _group(group: Any, K: int, g: int) -> Tuple[np.ndarray, np.ndarray]:
    if isinstance(group, Mapping):
        if "values" not in group or "costs" not in group:
            raise ValueError(f"nsc.solve: group {g}: a dict group needs 'values' and 'costs'")
        values, costs = group["values"], group["costs"]
    elif hasattr(group, "columns") and hasattr(group, "to_numpy"):  # a pandas DataFrame
        cols = list(group.columns)
        if "value" not in cols:
            raise ValueError(f"nsc.solve: group {g}: a DataFrame group needs a 'value' column and one column per budget")
        values = group["value"].to_numpy()
        costs = group[[c for c in cols if c != "value"]].to_numpy()
    elif isinstance(group, tuple) and len(group) == 2 and not isinstance(group[0], tuple):
        values, costs = group
    elif isinstance(group, Sequence):
        pairs = list(group)
        if not all(isinstance(p, (tuple, list)) and len(p) == 2 for p in pairs):
            raise ValueError(f"nsc.solve: group {g}: options must be (value, cost) pairs")
        values = [p[0] for p in pairs]
        costs = [p[1] if isinstance(p[1], (list, tuple, np.ndarray)) else [p[1]] for p in pairs]
    else:
        raise ValueError(f"nsc.solve: group {g}: expected a list of (value, cost) pairs, "
                         f"a dict {{'values', 'costs'}} or a (values, costs) tuple (got {type(group).__name__})")
    try:
        v = np.asarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"nsc.solve: group {g}: values must be numbers") from None
    if v.size == 0:
        raise ValueError(f"nsc.solve: group {g}: a group needs at least one option")
    return v, _costs(costs, v.size, K, g)


def solve(groups: Sequence[Any], budgets: Union[Mapping[str, Any], Sequence[Any], numbers.Real], *,
          front: bool = False, top: int = 0, min_distance: int = 0, method: str = "auto",
          max_table_bytes: int = 1 << 30, max_enumerated: int = 200000) -> Solution:
    """The exact multiple-choice knapsack under K budgets (nsc/search/multi_knapsack.hpp):
    choose one option per group to maximise the total value with every total cost <= its
    budget. Each group is a list of (value, cost) pairs (cost an int or K ints), a
    ``{"values": [...], "costs": [[...]]}`` dict, a ``(values, costs)`` tuple of arrays, or a
    DataFrame with a ``value`` column and one column per budget. `budgets`: a number, a list of
    K numbers, or a dict name -> bound (then the names label ``to_pandas`` columns).
    ``front=True`` adds the Pareto set (every budget vector at once), ``top=k`` the k best
    distinct selections, ``min_distance=D`` keeps only selections differing in >= D groups (a
    diverse pool). Raises :class:`Infeasible` when nothing fits.

    >>> s = nsc.solve([[(1, 1), (3, 2)], [(2, 1), (5, 3)]], 4)
    >>> s.value, s.choice, s.cost
    (6.0, [0, 1], [4])
    >>> [p["value"] for p in nsc.solve([[(1, 1), (3, 2)], [(2, 1), (5, 3)]], 4, top=3).top]
    [6.0, 5.0, 3.0]
    """
    names: Optional[List[str]] = None
    if isinstance(budgets, Mapping):
        names = [str(k) for k in budgets]
        b = list(budgets.values())
    elif isinstance(budgets, numbers.Real):
        b = [budgets]
    else:
        b = list(budgets)
    if not 1 <= len(b) <= 8:
        raise ValueError(f"nsc.solve: 1 to 8 budgets are supported (got {len(b)})")
    bi: List[int] = []
    for x in b:
        if not isinstance(x, numbers.Real) or isinstance(x, bool) or not np.isfinite(float(x)) \
                or float(x) != np.floor(float(x)) or abs(float(x)) >= 2.0**63:
            raise ValueError(f"nsc.solve: budgets must be finite integers (got {x!r})")
        bi.append(int(x))
    if isinstance(groups, (str, bytes)) or not isinstance(groups, Sequence):
        raise ValueError(f"nsc.solve: groups must be a list of groups (got {type(groups).__name__})")
    if not isinstance(top, numbers.Integral) or top < 0:
        raise ValueError(f"nsc.solve: top must be an integer >= 0 (got {top!r})")
    if not isinstance(min_distance, numbers.Integral) or min_distance < 0:
        raise ValueError(f"nsc.solve: min_distance must be an integer >= 0 (got {min_distance!r})")
    if min_distance and not top:
        raise ValueError("nsc.solve: min_distance needs top=k")
    g = [_group(x, len(bi), i) for i, x in enumerate(groups)]
    d = _core.solve(g, bi, bool(front), int(top), int(min_distance), method, int(max_table_bytes), int(max_enumerated))
    if d["status"] != "optimal":
        raise Infeasible(f"nsc.solve: no selection meets every budget {bi}")
    return Solution(d, names)
