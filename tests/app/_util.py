"""Shared helpers of the application-layer tests."""

from __future__ import annotations

import os
import sys

import numpy as np

from onlineboost.app import cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def env():
    return {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}


def cmd(*args):
    return [sys.executable, "-m", "onlineboost", "run", *args]


def csv_stream(n=60, seed=0, d=3):
    """CSV text of a seeded regression stream with columns a, b, c, y."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.tanh(X[:, 0] - 0.5 * X[:, 1])
    names = "abcdefgh"[:d]
    lines = [",".join((*names, "y"))]
    lines += [",".join(repr(float(v)) for v in (*X[i], y[i])) for i in range(n)]
    return "\n".join(lines) + "\n"


def run(argv, capsys=None):
    """`onlineboost run ARGV` in process: (exit status, stderr text or None)."""
    code = cli.main(["run", *map(str, argv)])
    err = capsys.readouterr().err if capsys is not None else None
    return code, err


def answers(path):
    with open(path) as f:
        return [line.rstrip("\n").split(",") for line in f]
