"""Contexts to dense vectors in one pass, optionally standardised online with numpy.

`ContextVectors` is the per-round hot path of `onlineboost.BoBLO`: it validates a context dict,
maps it onto a growing set of columns (first-seen order), and, with `scale=True`, updates a
running mean and variance per column and standardises the vector. The arithmetic is river's
`preprocessing.StandardScaler` (Welford's update per feature present in the dict, learn before
transform, population variance, 0 where the variance is 0), vectorised over a fixed column index
instead of dicts of floats.

A read is two-phase: `read` validates the context and computes its vector and the scaler's next
statistics without storing anything; `commit` stores them. A caller that refuses the round after
reading (e.g. because what it computed from the vector is not finite) simply does not commit.

Feature values must be real numbers (int or float, numpy's included; not bool, str, bytes,
None, Decimal) of magnitude at most `MAX_ABS` = 1e100: near 1e154 the squares in the running
variance (and in second-order learners) overflow, so such a context is refused rather than
allowed to turn later rounds into NaN.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = ["ContextVectors", "MAX_ABS"]

MAX_ABS = 1e100  # largest accepted |feature value|: squares and their sums stay finite
_FAST = frozenset({float, int})


def _values(x: dict, name: str) -> np.ndarray:
    """The values of `x` as a float vector, or `ValueError` naming `name[key]`."""
    vals = x.values()
    if _FAST.issuperset(map(type, vals)):  # plain floats and ints: checked in plain Python
        try:
            if not vals or (math.isfinite(sum(vals)) and max(map(abs, vals)) <= MAX_ABS):
                return np.fromiter(vals, dtype=np.float64, count=len(x))
        except OverflowError:  # an int beyond the float range
            pass
    for key, value in x.items():
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise ValueError(f"{name}[{key!r}] must be a real number, got {value!r}")
        try:
            float(value)
        except OverflowError:
            raise ValueError(f"{name}[{key!r}] must be finite with |value| <= {MAX_ABS:g}, "
                             f"got {value!r}") from None
    v = np.fromiter((float(value) for value in vals), dtype=np.float64, count=len(x))
    if len(v) and not np.abs(v).max() <= MAX_ABS:  # also catches NaN
        bad = next(k for k, value in zip(x, v.tolist()) if not abs(value) <= MAX_ABS)
        raise ValueError(f"{name}[{bad!r}] must be finite with |value| <= {MAX_ABS:g}, "
                         f"got {x[bad]!r}")
    return v


class ContextVectors:
    """Context dicts as dense vectors over the columns seen so far, standardised if `scale`.

    Examples
    --------
    >>> from onlineboost._contexts import ContextVectors
    >>> reader = ContextVectors(scale=True)
    >>> reader.read({"a": 1.0, "b": 5.0}); reader.commit()  # one sample: variance 0 -> 0
    array([0., 0.])
    >>> reader.read({"a": 3.0, "b": 5.0}); reader.commit()
    array([1., 0.])
    >>> reader.read({"c": 2.0}); reader.commit()  # "a", "b" absent: 0, not learned from
    array([0., 0., 0.])
    >>> reader.names
    ['a', 'b', 'c']
    >>> reader.read({"a": "3"})
    Traceback (most recent call last):
    ...
    ValueError: context['a'] must be a real number, got '3'
    """

    def __init__(self, scale: bool = False):
        self.scale = scale
        self._columns: dict = {}
        self._keys: tuple = ()  # keys of the last committed dict, in its order
        self._idx = None  # their columns (None: exactly all columns, in order)
        self._count = np.zeros(0)
        self._mean = np.zeros(0)
        self._var = np.zeros(0)
        self._next = None  # what `commit` stores: (columns, keys, idx, count, mean, var)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_next"] = None  # an uncommitted read is not state
        return state

    @property
    def names(self) -> list:
        """Feature names in column order."""
        return list(self._columns)

    def __len__(self) -> int:
        return len(self._columns)

    def read(self, x: dict, name: str = "context") -> np.ndarray:
        """The (standardised) vector of `x`, its scaling learned from `x` first when `scale`;
        nothing is stored until `commit()`.

        Raises `ValueError` naming `name` (and the feature) when `x` is not a dict of real
        numbers of magnitude at most `MAX_ABS`.
        """
        if not isinstance(x, dict):
            raise ValueError(f"{name} must be a dict of features, got {type(x).__name__}")
        v = _values(x, name)
        keys = tuple(x)
        columns, idx = self._columns, self._idx
        if keys != self._keys:
            columns, idx = self._index(keys)
        q = len(columns)
        count, mean, var = self._count, self._mean, self._var
        if len(count) < q:
            pad = np.zeros(q - len(count))
            count, mean, var = (np.concatenate([a, pad]) for a in (count, mean, var))
        if not self.scale:
            self._next = (columns, keys, idx, count, mean, var)
            if idx is None:
                return v
            out = np.zeros(q)
            out[idx] = v
            return out
        if idx is None:  # the usual stream: the same keys every round
            count = count + 1.0
            dv0 = v - mean
            mean = mean + dv0 / count
            dv = v - mean  # (v - old mean) (v - new mean): Welford
            var = var + (dv0 * dv - var) / count
            self._next = (columns, keys, idx, count, mean, var)
            if not len(v) or var.min() > 0.0:
                return dv / np.sqrt(var)
            z = np.zeros(len(v))
            np.divide(dv, np.sqrt(var), out=z, where=var > 0)
            return z
        count, mean, var = count.copy(), mean.copy(), var.copy()
        n = count[idx] + 1.0
        mean0 = mean[idx]
        m = mean0 + (v - mean0) / n
        s = var[idx] + ((v - mean0) * (v - m) - var[idx]) / n
        count[idx], mean[idx], var[idx] = n, m, s
        self._next = (columns, keys, idx, count, mean, var)
        z = np.zeros(len(v))
        np.divide(v - m, np.sqrt(s), out=z, where=s > 0)
        out = np.zeros(q)
        out[idx] = z
        return out

    def commit(self) -> None:
        """Store what the last `read` learned (columns and scaling statistics)."""
        if self._next is not None:
            (self._columns, self._keys, self._idx, self._count, self._mean,
             self._var) = self._next
            self._next = None

    def _index(self, keys: tuple) -> tuple:
        """The columns after `keys` (new keys appended, on a copy) and the keys' columns."""
        columns = self._columns
        new = [k for k in keys if k not in columns]
        if new:
            columns = dict(columns)
            for k in new:
                columns[k] = len(columns)
        idx = np.fromiter((columns[k] for k in keys), dtype=np.intp, count=len(keys))
        full = len(keys) == len(columns) and bool(np.all(idx == np.arange(len(keys))))
        return columns, None if full else idx
