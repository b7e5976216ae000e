"""conftest.py of the assembled package directory (CMake copies it to ${NSC_PYTHON_DIR}): the
docstring examples of nsc run with `nsc` and `np` imported, from the source tree (their paths,
e.g. examples/configs/llama-7b.json, are relative to it)."""
import os
from pathlib import Path

import numpy as np
import pytest

import nsc

SOURCE = os.environ.get("NSC_SOURCE_DIR")


@pytest.fixture(autouse=True)
def _doctest_env(doctest_namespace, monkeypatch):
    doctest_namespace["nsc"] = nsc
    doctest_namespace["np"] = np
    if SOURCE:
        monkeypatch.chdir(Path(SOURCE))
