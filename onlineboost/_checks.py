"""Argument checks shared across the package: each returns the checked value or raises a
`ValueError` naming the argument, before any state moves."""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["binary_label", "check_int", "check_real", "check_seed"]


def binary_label(y) -> float:
    """A binary label (True/False, 1/0 or 1/-1) as $\\pm 1$, else `ValueError` naming `y`.

    Examples
    --------
    >>> binary_label(True), binary_label(0), binary_label(-1)
    (1.0, -1.0, -1.0)
    """
    try:
        binary = y in (0, 1, -1)  # True == 1 and False == 0
    except (TypeError, ValueError):  # e.g. an array
        binary = False
    if binary:
        return 1.0 if y == 1 else -1.0
    raise ValueError(f"y must be a binary label (True/False, 1/0 or 1/-1), got {y!r}")


def check_int(name: str, value, low: int) -> int:
    """`value` as an int >= `low`, else a `ValueError` naming `name`.

    Examples
    --------
    >>> check_int("n_estimators", 3, 0)
    3
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def check_real(name: str, value, low: float, high: float = np.inf, low_open=False) -> float:
    """`value` as a finite float in `[low, high]` (`(low, high]` if `low_open`).

    Examples
    --------
    >>> check_real("learning_rate", 0.5, 0.0, low_open=True)
    0.5
    """
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and np.isfinite(value)
    if ok:
        ok = (value > low if low_open else value >= low) and value <= high
    if not ok:
        if high == np.inf:
            interval = f"{'>' if low_open else '>='} {low:g}"
        else:
            interval = f"in {'(' if low_open else '['}{low}, {high}]"
        raise ValueError(f"{name} must be a finite number {interval}, got {value!r}")
    return float(value)


def check_seed(seed):
    """`seed` if it is None or an integer, else `ValueError` naming `seed`.

    Examples
    --------
    >>> check_seed(3), check_seed(None)
    (3, None)
    """
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise ValueError(f"seed must be None or an integer, got {seed!r}")
    return seed
