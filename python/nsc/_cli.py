"""The nsc command line run in-process, and the result objects built from its JSON.

Every high-level function of the package (score, prune, design, rank, weights, search) maps its
keyword arguments to the flags of the matching ``nsc`` subcommand, runs it in this process
(``nsc._core.run``: the CLI's own code, linked into the extension) with ``--json`` and wraps the
JSON it prints. So ``nsc.score(cfg, context=8192)`` is ``nsc score cfg.json --context 8192
--json``, answer for answer, and a flag the CLI gains is reachable at once as a keyword
(``foo_bar=3`` -> ``--foo-bar 3``; ``True`` -> the bare flag; ``False`` / ``None`` -> left out; a
list or tuple -> comma-separated).
"""
from __future__ import annotations

import contextlib
import json
import math
import numbers
import os
import tempfile
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from . import _core


class Infeasible(Exception):
    """No answer exists: a budget nothing meets (the CLI's exit status 1)."""

    # Public as nsc.Infeasible: tracebacks and reprs name it so, not nsc._cli.Infeasible.
    __module__ = "nsc"


class CliResult:
    """What one ``nsc`` command printed: ``returncode``, ``stdout``, ``stderr`` (text)."""

    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr

    def __repr__(self) -> str:
        return f"CliResult(returncode={self.returncode}, stdout={len(self.stdout)} chars, stderr={len(self.stderr)} chars)"


def cli(*args: Any) -> CliResult:
    """Runs ``nsc ARGS...`` in this process and returns its exit code and output; never raises
    for a non-zero exit code (see :func:`check_cli` for that).

    >>> r = nsc.cli("psi", "--rows", 4096, "--cols", 4096, "--init", "xavier_normal")
    >>> r.returncode, r.stdout.splitlines()[1]
    (0, 'psi_mp          2377.5544888078402')
    """
    code, out, err = _core.run([_text(a) for a in args])
    return CliResult(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))


def _message(err: str) -> str:
    lines = [ln for ln in err.strip().splitlines() if ln.strip() and not ln.startswith("Run with --help")]
    for prefix in ("nsc: error: ", "nsc: infeasible: "):
        for ln in lines:
            if ln.startswith(prefix):
                return ln[len(prefix):]
    return "\n".join(lines) if lines else "no message"


def check_cli(*args: Any) -> str:
    """Runs ``nsc ARGS...`` in-process and returns its standard output; exit status 2 (bad
    input) raises ValueError with the CLI's message, 1 (no answer) raises :class:`Infeasible`.

    >>> nsc.check_cli("psi", "--rows", 0, "--cols", 5, "--init", "normal").splitlines()[1]
    'psi_mp          0'
    >>> nsc.check_cli("psi", "--rows", -1, "--cols", 5, "--init", "normal")
    Traceback (most recent call last):
    ...
    ValueError: --rows: must be an integer >= 0 (got -1)
    """
    r = cli(*args)
    if r.returncode == 0:
        return r.stdout
    if r.returncode == 1:
        raise Infeasible(_message(r.stderr))
    if r.returncode == 2:
        raise ValueError(_message(r.stderr))
    raise RuntimeError(f"nsc {_text(args[0]) if args else ''}: exit status {r.returncode}: {_message(r.stderr)}")


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        f = float(v)
        if math.isfinite(f) and f.is_integer() and abs(f) < 2**63:
            return str(int(f))
        return repr(f)
    return os.fspath(v) if isinstance(v, os.PathLike) else str(v)


def flags(options: Mapping[str, Any]) -> List[str]:
    """Keyword arguments -> CLI flags: ``context=8192`` -> ``--context 8192``, ``front=True``
    -> ``--front``, ``False`` / ``None`` left out, a list or tuple comma-separated.

    >>> nsc.flags({"kv_dtype": "fp8", "front": True, "plot": None, "trunc": (-2, 2)})
    ['--kv-dtype', 'fp8', '--front', '--trunc', '-2,2']
    """
    out: List[str] = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        name = "--" + key.replace("_", "-")
        if value is True:
            out.append(name)
        elif isinstance(value, (list, tuple)):
            out += [name, ",".join(_text(v) for v in value)]
        else:
            out += [name, _text(value)]
    return out


def run_json(args: Sequence[Any]) -> Dict[str, Any]:
    """Runs ``nsc ARGS... --json`` in-process and parses the one JSON object it prints."""
    text = check_cli(*args, "--json")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:  # pragma: no cover - the CLI prints one JSON object
        raise RuntimeError(f"nsc {_text(args[0])}: output is not JSON ({e}): {text[:200]!r}") from None


# ---- inputs ----------------------------------------------------------------------------------

def _as_mapping(config: Any) -> Optional[Mapping[str, Any]]:
    if isinstance(config, Mapping):
        return config
    to_dict = getattr(config, "to_dict", None)
    if callable(to_dict) and not isinstance(config, (str, bytes, os.PathLike)):
        d = to_dict()
        if not isinstance(d, Mapping):
            raise TypeError(f"config.to_dict() must return a dict (got {type(d).__name__})")
        return d
    return None


@contextlib.contextmanager
def config_file(config: Any, what: str = "config") -> Iterator[str]:
    """A path for `config`: a str / os.PathLike is used as is; a dict, or an object with
    ``to_dict()`` (a ``transformers`` config), is written to a temporary JSON file."""
    if isinstance(config, (str, os.PathLike)):
        yield os.fspath(config)
        return
    d = _as_mapping(config)
    if d is None:
        raise TypeError(f"{what} must be a path, a dict or an object with to_dict() (got {type(config).__name__})")
    with tempfile.TemporaryDirectory(prefix="nsc-") as tmp:
        path = os.path.join(tmp, "config.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(d, f, allow_nan=False, default=_json_default)
        yield path


def _json_default(o: Any) -> Any:
    item = getattr(o, "item", None)  # numpy scalars
    if callable(item):
        return item()
    tolist = getattr(o, "tolist", None)
    if callable(tolist):
        return tolist()
    raise TypeError(f"{type(o).__name__} is not JSON serialisable")


# ---- results ---------------------------------------------------------------------------------

class Result:
    """A command's JSON answer with attribute access: ``r.nsc`` is ``r.to_dict()["nsc"]``."""

    _data: Dict[str, Any]

    def __init__(self, data: Dict[str, Any]) -> None:
        object.__setattr__(self, "_data", data)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._data[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field {name!r} (fields: {', '.join(self._data)})") from None

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __dir__(self) -> List[str]:
        return sorted(set(super().__dir__()) | set(self._data))

    def keys(self) -> List[str]:
        return list(self._data)

    def to_dict(self) -> Dict[str, Any]:
        """The JSON object the CLI printed (a deep copy: safe to modify)."""
        return json.loads(json.dumps(self._data))

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self._data, **kwargs)

    def _scalars(self) -> Dict[str, Any]:
        return {k: v for k, v in self._data.items() if not isinstance(v, (dict, list))}

    def to_pandas(self) -> Any:
        """One row: every scalar field (nested lists and objects left out)."""
        import pandas as pd

        return pd.DataFrame([self._scalars()])

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in list(self._scalars().items())[:6])
        return f"{type(self).__name__}({shown}, ...)"


def _frame(rows: Any) -> Any:
    import pandas as pd

    return pd.DataFrame(rows if rows is not None else [])


class Score(Result):
    """``nsc score --json``: nsc, params_total, params_active, flops_per_token, kv_cache_bytes,
    memory_bytes, ... and ``layers`` (one entry per run of identical layers)."""

    def to_pandas(self, layers: bool = False) -> Any:
        """One row of totals, or (``layers=True``) one row per layer entry."""
        if layers:
            return _frame(self._data.get("layers"))
        return super().to_pandas()


class Searched(Result):
    """An optimum under budgets (prune / design / search): the answer's fields, ``front`` and
    ``top`` (lists, empty unless asked for), ``config`` (the emitted config.json, when the
    command emits one), ``save(path)``."""

    _config: Optional[Dict[str, Any]]

    def __init__(self, data: Dict[str, Any], config: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(data)
        object.__setattr__(self, "_config", config)

    @property
    def config(self) -> Optional[Dict[str, Any]]:
        """The answer as a config.json dict (``json.dump``-ready), or None."""
        return self._config

    @property
    def front(self) -> List[Dict[str, Any]]:
        return list(self._data.get("front") or [])

    @property
    def top(self) -> List[Dict[str, Any]]:
        return list(self._data.get("top") or [])

    def front_to_pandas(self) -> Any:
        return _frame(self.front)

    def top_to_pandas(self) -> Any:
        return _frame(self.top)

    def save(self, path: "str | os.PathLike[str]") -> None:
        """Writes ``config`` to `path` as JSON (ValueError when there is none)."""
        if self._config is None:
            raise ValueError(f"{type(self).__name__}.save: this answer has no config to save")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self._config, f, indent=2)
            f.write("\n")


class Rank(Result):
    """``nsc rank --json``: n, nsc / params / flops statistics (tau_b, rho, pw10_tau,
    partial_tau), the bootstrap comparisons when asked for."""

    def to_pandas(self) -> Any:
        """One row per scorer: nsc, then each baseline (params, flops, ...) with its statistics
        and, with a bootstrap, its comparison to NSC."""
        rows = []
        scorers = [("nsc", self._data.get("nsc"))]
        scorers += [(b.get("name"), b) for b in self._data.get("baselines") or [] if isinstance(b, dict)]
        scorers += [(k, v) for k, v in self._data.items() if k != "nsc" and isinstance(v, dict) and "tau_b" in v]
        for name, v in scorers:
            if isinstance(v, dict):
                row = {"scorer": name}
                row.update({k: x for k, x in v.items() if k != "name" and not isinstance(x, (dict, list))})
                rows.append(row)
        return _frame(rows)


class Weights(Result):
    """``nsc weights --json``: matrices, layers, total ({psi_w, psi_mp, ratio})."""

    def to_pandas(self, level: str = "matrices") -> Any:
        """One row per matrix (default) or per layer (``level="layers"``)."""
        if level not in ("matrices", "layers"):
            raise ValueError(f"Weights.to_pandas: level must be 'matrices' or 'layers' (got {level!r})")
        rows = []
        for r in self._data.get(level, []):
            row = {k: v for k, v in r.items() if not isinstance(v, (dict, list))}
            if "shape" in r:
                row["shape"] = tuple(r["shape"])
            rows.append(row)
        return _frame(rows)


def _budget_flags(budgets: Optional[Mapping[str, Any]], what: str) -> List[str]:
    if budgets is None:
        return []
    if not isinstance(budgets, Mapping):
        raise TypeError(f"{what}: budgets must be a dict such as {{'params': 40e9}} (got {type(budgets).__name__})")
    return flags(dict(budgets))


def _emit(kind: str, args: List[str], emit: bool) -> Tuple[Dict[str, Any], Optional[Dict[str, Any]]]:
    if not emit:
        return run_json(args), None
    with tempfile.TemporaryDirectory(prefix="nsc-") as tmp:
        path = os.path.join(tmp, "emitted.json")
        data = run_json(args + ["--emit-config", path])
        data.pop("emitted_config", None)  # the temporary path
        config = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                config = json.load(f)
        return data, config


def score(config: Any, **options: Any) -> Score:
    """Scores a model from its config (``nsc score``): a dict, a path to a config.json or a
    ``transformers`` config (anything with ``to_dict()``). Keywords are ``nsc score``'s flags:
    context, batch, seq_len, kv_dtype, weight_dtype, attention, estimator, init, qkv, o_proj,
    variance_source, score_embeddings, count_lora, weights (a checkpoint path), ...

    >>> s = nsc.score("examples/configs/llama-7b.json", context=4096)
    >>> round(s.nsc, 3), s.params_total, s.kv_cache_bytes
    (825759.805, 6738415616, 2147483648)
    """
    with config_file(config) as path:
        return Score(run_json(["score", path] + flags(options)))


def prune(config: Any, budgets: Optional[Mapping[str, Any]] = None, *, space: str = "generic",
          emit_config: bool = True, **options: Any) -> Searched:
    """The best sub-model of `config` under `budgets` (``nsc prune``): budgets is a dict of
    ``nsc prune``'s budget flags (params, params_non_embedding, active_params, flops, tflops,
    kv_bytes, memory), the other keywords its flags (context, batch, kv_dtype, weight_dtype,
    front, top, ...). ``.config`` is the pruned config.json (``emit_config=False``: none).

    >>> p = nsc.prune("examples/configs/llama-7b.json", {"params": 5.7e9}, space="lonas")
    >>> p.params <= 5.7e9, p.config["num_hidden_layers"]
    (True, 32)
    """
    with config_file(config) as path:
        args = ["prune", path, "--space", space] + _budget_flags(budgets, "nsc.prune") + flags(options)
        data, cfg = _emit("prune", args, emit_config)
        return Searched(data, cfg)


def design(budgets: Optional[Mapping[str, Any]] = None, *, emit_config: bool = True, **options: Any) -> Searched:
    """The best Llama-style decoder from scratch under `budgets` (``nsc design``): budgets as
    ``nsc design``'s flags (params, params_non_embedding, flops, kv_bytes, memory), the other
    keywords its flags (hidden_min, depth_max, vocab, head_dim, context, front, ...).

    >>> d = nsc.design({"params": 1e9}, vocab=32000)
    >>> d.params_total, d.hidden_size, d.num_hidden_layers, d.config["model_type"]
    (999794432, 1792, 48, 'nemotron-nas')
    """
    args = ["design"] + _budget_flags(budgets, "nsc.design") + flags(options)
    data, cfg = _emit("design", args, emit_config)
    return Searched(data, cfg)


def _table_file(table: Any, arch: str, tmp: str) -> str:
    """A DataFrame (or a list of row dicts) -> a JSON Lines file under `tmp`; relative paths in
    the architecture column are made absolute (the CLI reads them relative to the table)."""
    if isinstance(table, (str, os.PathLike)):
        return os.fspath(table)
    to_dict = getattr(table, "to_dict", None)
    if callable(to_dict) and hasattr(table, "columns"):
        rows = table.to_dict(orient="records")
    elif isinstance(table, Sequence) and all(isinstance(r, Mapping) for r in table):
        rows = [dict(r) for r in table]
    else:
        raise TypeError(f"nsc.rank: table must be a path, a pandas DataFrame or a list of dicts (got {type(table).__name__})")
    path = os.path.join(tmp, "table.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            cell = r.get(arch)
            if isinstance(cell, (str, os.PathLike)) and not os.fspath(cell).lstrip().startswith("{") \
                    and not os.path.isabs(os.fspath(cell)):
                r[arch] = os.path.abspath(os.fspath(cell))
            elif cell is not None and not isinstance(cell, (str, Mapping)):
                d = _as_mapping(cell)
                if d is not None:
                    r[arch] = d
            clean = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
            f.write(json.dumps(clean, default=_json_default) + "\n")
    return path


def rank(table: Any = None, *, arch: str = "arch", target: Optional[str] = None,
         lower_is_better: bool = False, family: Optional[str] = None, **options: Any) -> Rank:
    """How well NSC ranks architectures against a measured quality (``nsc rank``): `table` is
    a pandas DataFrame, a list of row dicts or a CSV / JSON Lines path whose `arch` column holds
    configs (dicts, paths or inline JSON) and whose `target` column the quality; or
    ``family="gpt2"`` etc. for a built-in family. Other keywords: bootstrap, seed, confidence,
    baseline, estimator, init, seq_len, params, id_column, ...

    >>> import pandas as pd
    >>> df = pd.DataFrame({"arch": [{"model_type": "gpt2", "n_embd": e, "n_layer": l, "n_head": 4,
    ...                              "vocab_size": 1000, "n_positions": 256}
    ...                             for e, l in [(64, 2), (128, 2), (128, 4), (256, 4)]],
    ...                    "loss": [4.1, 3.7, 3.5, 3.2]})
    >>> r = nsc.rank(df, target="loss", lower_is_better=True, bootstrap=0)
    >>> r.n, r.nsc["tau_b"]
    (4, 1.0)
    """
    if (table is None) == (family is None):
        raise ValueError("nsc.rank: give a table (DataFrame or path) or family=, not both and not neither")
    with tempfile.TemporaryDirectory(prefix="nsc-") as tmp:
        if family is not None:
            args = ["rank", "--family", family]
        else:
            if target is None:
                raise ValueError("nsc.rank: target= (the quality column) is required with a table")
            args = ["rank", "--table", _table_file(table, arch, tmp), "--arch-column", arch, "--target", target]
            if lower_is_better:
                args.append("--lower-is-better")
        data = run_json(args + flags(options))
        if table is not None and not isinstance(table, (str, os.PathLike)):
            data["table"] = None  # it was a temporary file
        return Rank(data)


_SAFETENSORS_DTYPES = {"float64": "F64", "float32": "F32", "float16": "F16", "bfloat16": "BF16",
                       "int64": "I64", "int32": "I32", "int16": "I16", "int8": "I8", "uint8": "U8", "bool": "BOOL"}


def _tensor_bytes(v: Any) -> Tuple[str, List[int], bytes]:
    """(safetensors dtype, shape, little-endian bytes) of a torch tensor or a numpy array."""
    import numpy as np

    if hasattr(v, "detach") and hasattr(v, "dtype") and "torch" in type(v).__module__:
        t = v.detach().cpu().contiguous()
        name = str(t.dtype).replace("torch.", "")
        if name == "bfloat16":
            import torch

            return "BF16", list(t.shape), t.view(torch.int16).numpy().astype("<i2").tobytes()
        v = t.numpy()
    a = np.ascontiguousarray(v)
    name = a.dtype.name
    if name not in _SAFETENSORS_DTYPES:
        raise ValueError(f"nsc.weights: tensor dtype {name} is not supported (float64/32/16, bfloat16, integers)")
    return _SAFETENSORS_DTYPES[name], list(a.shape), a.astype(a.dtype.newbyteorder("<")).tobytes()


def write_safetensors(state_dict: Mapping[str, Any], path: "str | os.PathLike[str]") -> None:
    """Writes a state dict (name -> torch tensor or numpy array) as one .safetensors file."""
    header: Dict[str, Any] = {}
    blobs = []
    offset = 0
    for name, v in state_dict.items():
        dtype, shape, data = _tensor_bytes(v)
        header[str(name)] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(len(h).to_bytes(8, "little"))
        f.write(h)
        for b in blobs:
            f.write(b)


def weights(checkpoint: Any, config: Any = None, **options: Any) -> Weights:
    """psi_W of every weight matrix of a checkpoint next to psi at initialisation
    (``nsc weights``): `checkpoint` is a .safetensors path / index / directory, or a state
    dict (name -> torch tensor or numpy array; written to a temporary .safetensors file);
    `config` a config.json path or dict (maps the tensors to nsc's blocks). Keywords: init,
    estimator, svd, accuracy, ...

    >>> import numpy as np
    >>> w = nsc.weights({"layer.weight": np.eye(3)})
    >>> round(w.total["psi_w"], 6) == round(3 * np.log(2), 6)
    True
    """
    with tempfile.TemporaryDirectory(prefix="nsc-") as tmp:
        if isinstance(checkpoint, (str, os.PathLike)):
            path = os.fspath(checkpoint)
        elif isinstance(checkpoint, Mapping):
            path = os.path.join(tmp, "model.safetensors")
            write_safetensors(checkpoint, path)
        else:
            raise TypeError(f"nsc.weights: checkpoint must be a path or a state dict (got {type(checkpoint).__name__})")
        args = ["weights", path]
        with contextlib.ExitStack() as stack:
            if config is not None:
                args += ["--config", stack.enter_context(config_file(config))]
            return Weights(run_json(args + flags(options)))


def search(space: Any, budgets: Optional[Mapping[str, Any]] = None, **options: Any) -> Searched:
    """The exact optimum of a search space (``nsc search --space``): `space` is the SPACE.json
    dict (or its path; examples/spaces/, docs/search.md "search spaces"), `budgets` a dict of
    cost name -> upper bound. Keywords: front, top, min_distance.

    >>> space = {"groups": [{"name": "a", "options": [{"value": 1, "cost": 1}, {"value": 3, "cost": 2}]},
    ...                     {"name": "b", "options": [{"value": 2, "cost": 1}, {"value": 5, "cost": 3}]}]}
    >>> r = nsc.search(space, {"cost": 4})
    >>> r.nsc
    6.0
    """
    args: List[str] = []
    for name, bound in (budgets or {}).items():
        args += ["--budget", f"{name}={_text(bound)}"]
    if budgets is not None and not isinstance(budgets, Mapping):
        raise TypeError(f"nsc.search: budgets must be a dict such as {{'params': 1e9}} (got {type(budgets).__name__})")
    with config_file(space, "space") as path:
        return Searched(run_json(["search", "--space", path] + args + flags(options)))
