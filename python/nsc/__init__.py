"""nsc: Neural Spectral Capacity in Python.

Score an architecture from its specification alone and find the exactly optimal one under
budgets, with the answers of the ``nsc`` command line (its code runs in this process):

    score(config, ...)            nsc score: NSC, params, FLOPs, KV cache, memory
    prune(config, budgets, ...)   nsc prune: the best sub-model under budgets (+ .config)
    design(budgets, ...)          nsc design: the best decoder from scratch
    search(space, budgets, ...)   nsc search --space: any SPACE.json, exactly
    rank(table, target=..., ...)  nsc rank: NSC against a measured quality (DataFrame in)
    weights(checkpoint, ...)      nsc weights: psi_W of a checkpoint or a state dict
    cli(*args) / check_cli        any nsc command, in-process

and native, vectorised functions (numpy in and out):

    psi_mp, psi_fs, psi           the closed forms over arrays of shapes
    psi_w(W, heads=...)           psi_W of a matrix (numpy / torch), GIL released
    solve(groups, budgets, ...)   the exact K-budget multiple-choice knapsack on any data

Bad input raises ValueError with the CLI's message; an impossible budget raises
:class:`Infeasible`.
"""
from ._core import __version__
from ._cli import (CliResult, Infeasible, Rank, Result, Score, Searched, Weights, check_cli, cli,
                   design, flags, prune, rank, score, search, weights, write_safetensors)
from ._native import Solution, psi, psi_fs, psi_mp, psi_w, solve

__all__ = [
    "__version__", "CliResult", "Infeasible", "Rank", "Result", "Score", "Searched", "Solution",
    "Weights", "check_cli", "cli", "design", "flags", "prune", "psi", "psi_fs", "psi_mp", "psi_w",
    "rank", "score", "search", "solve", "weights", "write_safetensors",
]
