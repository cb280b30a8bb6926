"""Argument checks shared across the package: each returns the checked value or raises a
`ValueError` naming the argument, before any state moves."""

from __future__ import annotations

import decimal
import math
import numbers

import numpy as np

__all__ = ["MAX_ABS_FEATURE", "accepts_sample_weight", "binary_label", "check_features",
           "check_int", "check_real", "check_seed", "check_target", "check_transformer",
           "check_tree_features"]


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
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral)
            or value < low):
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def check_real(name: str, value, low: float, high: float = np.inf, low_open=False) -> float:
    """`value` as a finite float in `[low, high]` (`(low, high]` if `low_open`).

    Examples
    --------
    >>> check_real("learning_rate", 0.5, 0.0, low_open=True)
    0.5
    """
    try:
        ok = (isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
              and not isinstance(value, decimal.Decimal) and math.isfinite(value))
    except OverflowError:  # an int beyond the float range
        ok = False
    if ok:
        ok = (value > low if low_open else value >= low) and value <= high
    if not ok:
        if high == np.inf:
            interval = f"{'>' if low_open else '>='} {low:g}"
        else:
            interval = f"in {'(' if low_open else '['}{low}, {high}]"
        raise ValueError(f"{name} must be a finite number {interval}, got {_short(value)}")
    return float(value)


def check_seed(seed):
    """`seed` if it is None or an integer >= 0 (numpy refuses negative seeds), else
    `ValueError` naming `seed`.

    Examples
    --------
    >>> check_seed(3), check_seed(None)
    (3, None)
    """
    if seed is not None and (isinstance(seed, (bool, np.bool_))
                             or not isinstance(seed, numbers.Integral) or seed < 0):
        raise ValueError(f"seed must be None or an integer >= 0, got {seed!r}")
    return seed


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:20] + "..." + text[-10:]


def _real(value, name: str) -> float:
    """One real number as a finite float, else `ValueError` naming `name`.

    Refused: bools, strings (numeric or not), bytes, None, complex numbers, `Decimal`, ints
    beyond the float range, NaN and inf. Accepted: int, float, numpy integer/floating scalars,
    `fractions.Fraction`.
    """
    if type(value) is not float:
        if (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real)
                or isinstance(value, decimal.Decimal)):
            raise ValueError(f"{name} must be a real number, got {value!r}")
        try:
            value = float(value)
        except (OverflowError, TypeError, ValueError):
            raise ValueError(f"{name} must be a finite real number, got {_short(value)}") from None
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return value


def check_transformer(name: str, value) -> None:
    """Refuse, by `name`, anything but a river transformer (`learn_one` and `transform_one`).

    >>> from river import preprocessing
    >>> check_transformer("scaler", preprocessing.StandardScaler())
    >>> check_transformer("scaler", 3)
    Traceback (most recent call last):
    ...
    ValueError: scaler must be a river transformer, got 3
    """
    if not (hasattr(value, "learn_one") and hasattr(value, "transform_one")):
        raise ValueError(f"{name} must be a river transformer, got {value!r}")


def check_features(x, name: str = "x") -> None:
    """`ValueError` naming `name[key]` unless `x` is a dict of finite real numbers.

    Plain floats take a fast path; anything else goes through the strict check, so numeric
    strings, bytes, bools, `Decimal`, complex, None and ints beyond the float range are refused
    (as river's models would fail on them).

    Examples
    --------
    >>> check_features({"a": 1.0, "b": 2})
    >>> check_features({"a": "1.5"})
    Traceback (most recent call last):
    ...
    ValueError: x['a'] must be a real number, got '1.5'
    """
    if not isinstance(x, dict):
        raise ValueError(f"{name} must be a dict of features, got {type(x).__name__}")
    values = x.values()
    if all(type(v) is float for v in values):
        if math.isfinite(math.fsum(values)):  # a finite sum means finite entries
            return
    for k, v in x.items():
        _real(v, f"{name}[{k!r}]")


def check_target(y, name: str = "y"):
    """A target: a finite float for a scalar, a finite float64 array for a vector.

    Scalars follow `check_features`'s rules; a vector must be a list, tuple or numeric numpy
    array (not bool, complex or object dtype) of finite reals.

    Examples
    --------
    >>> check_target(3), check_target([1, 2.5])
    (3.0, array([1. , 2.5]))
    >>> check_target(None)
    Traceback (most recent call last):
    ...
    ValueError: y must be a real number, got None
    """
    if type(y) is float or np.ndim(y) == 0 and not isinstance(y, np.ndarray):
        return _real(y, name)
    if isinstance(y, np.ndarray):
        if y.dtype.kind not in "fiu":
            raise ValueError(f"{name} must hold real numbers, got dtype {y.dtype}")
        arr = y.astype(np.float64)
    elif isinstance(y, (list, tuple)):
        arr = np.array([check_target(v, name) for v in y], dtype=np.float64)
    else:
        raise ValueError(f"{name} must be a number or a vector of numbers, got {y!r}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {y!r}")
    return arr


MAX_ABS_FEATURE = 1e100
"""Largest feature magnitude accepted: a Hoeffding tree's Gaussian estimators square the
values, and at 1e200 a trained tree raises `OverflowError` (measured: fine up to 1e154)."""


def check_tree_features(x, name: str = "x") -> None:
    """`ValueError` naming the feature unless `x` is a dict whose values are real numbers of
    magnitude at most `MAX_ABS_FEATURE` (bools count as 0/1) or category strings. Numeric
    strings (`"3.5"`, `"nan"`), bytes, `None`, containers and `Decimal`s are refused: a
    parsing slip, not a category."""
    if not isinstance(x, dict):
        raise ValueError(f"{name} must be a dict of features, got {type(x).__name__}")
    for key, value in x.items():
        if isinstance(value, _NUMBERS):
            if not -MAX_ABS_FEATURE <= value <= MAX_ABS_FEATURE:  # NaN fails too; ints exact
                raise ValueError(f"{name}[{key!r}] must be finite with magnitude at most "
                                 f"{MAX_ABS_FEATURE:g}, got {value!r}")
        elif isinstance(value, str):
            try:
                float(value)
            except ValueError:
                continue  # a category
            raise ValueError(f"{name}[{key!r}] is a numeric string {value!r}: pass the number")
        else:
            raise ValueError(f"{name}[{key!r}] must be a real number or a category string, got "
                             f"{type(value).__name__} {value!r}")


_NUMBERS = (float, int, np.floating, np.integer)  # bool is an int


def accepts_sample_weight(model) -> bool:
    """Whether `model.learn_one` (a river pipeline's final step's) takes a sample weight `w`.

    Examples
    --------
    >>> from river import linear_model, naive_bayes
    >>> accepts_sample_weight(linear_model.LogisticRegression())
    True
    >>> accepts_sample_weight(naive_bayes.GaussianNB())
    False
    """
    import inspect

    if hasattr(model, "steps"):  # river.compose.Pipeline routes `w` to the step declaring it
        model = list(model.steps.values())[-1]
    return "w" in inspect.signature(model.learn_one).parameters
