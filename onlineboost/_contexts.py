"""Contexts to dense vectors in one pass, optionally standardised online with numpy.

`ContextVectors` is the per-round hot path of `onlineboost.BoBLO`: it validates a context dict,
maps it onto a growing set of columns (first-seen order), and, with `scale=True`, updates a
running mean and variance per column and standardises the vector. The arithmetic is river's
`preprocessing.StandardScaler` (Welford's update per feature present in the dict, learn before
transform, population variance, 0 where the variance is 0), vectorised over a fixed column index
instead of dicts of floats.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ContextVectors"]


class ContextVectors:
    """Context dicts as dense vectors over the columns seen so far, standardised if `scale`.

    Examples
    --------
    >>> from onlineboost._contexts import ContextVectors
    >>> reader = ContextVectors(scale=True)
    >>> reader.read({"a": 1.0, "b": 5.0})  # one sample: variance 0 -> 0
    array([0., 0.])
    >>> reader.read({"a": 3.0, "b": 5.0})
    array([1., 0.])
    >>> reader.read({"c": 2.0})  # "a", "b" absent: 0 (and not learned from); "c" is new
    array([0., 0., 0.])
    >>> reader.names
    ['a', 'b', 'c']
    """

    def __init__(self, scale: bool = False):
        self.scale = scale
        self._columns: dict = {}
        self._keys: tuple = ()  # keys of the last dict, in its order
        self._idx = None  # their columns (None: exactly all columns, in order)
        self._count = np.zeros(0)
        self._mean = np.zeros(0)
        self._var = np.zeros(0)

    @property
    def names(self) -> list:
        """Feature names in column order."""
        return list(self._columns)

    def __len__(self) -> int:
        return len(self._columns)

    def read(self, x: dict, name: str = "context") -> np.ndarray:
        """The (standardised) vector of `x`; learns the scaling from it first when `scale`.

        Raises `ValueError` naming `name` when `x` is not a dict of finite numbers, before any
        state changes.
        """
        if not isinstance(x, dict):
            raise ValueError(f"{name} must be a dict of features, got {type(x).__name__}")
        try:
            v = np.fromiter(x.values(), dtype=np.float64, count=len(x))
        except (TypeError, ValueError) as e:
            raise ValueError(f"{name} must map feature names to numbers: {e}") from None
        if not np.isfinite(v).all():
            raise ValueError(f"{name} must be finite (no NaN or inf feature values)")
        keys = tuple(x)
        if keys != self._keys:
            self._index(keys)
        idx = self._idx
        if not self.scale:
            if idx is None:
                return v
            out = np.zeros(len(self._columns))
            out[idx] = v
            return out
        if idx is None:  # the usual stream: the same keys every round
            count, mean, var = self._count, self._mean, self._var
            count += 1.0
            mean += (v - mean) / count  # (v - old mean) (v - new mean) = n/(n-1) (v - new mean)^2
            dv = v - mean
            var += (dv * dv * (count / np.maximum(count - 1.0, 1.0)) - var) / count
            if var.min() > 0.0:
                return dv / np.sqrt(var)
            z = np.zeros(len(v))
            np.divide(dv, np.sqrt(var), out=z, where=var > 0)
            return z
        count = self._count[idx] + 1.0
        mean0 = self._mean[idx]
        mean = mean0 + (v - mean0) / count
        var = self._var[idx] + ((v - mean0) * (v - mean) - self._var[idx]) / count
        self._count[idx], self._mean[idx], self._var[idx] = count, mean, var
        z = np.zeros(len(v))
        np.divide(v - mean, np.sqrt(var), out=z, where=var > 0)
        out = np.zeros(len(self._columns))
        out[idx] = z
        return out

    def _index(self, keys: tuple) -> None:
        columns = self._columns
        new = [k for k in keys if k not in columns]
        if new:
            for k in new:
                columns[k] = len(columns)
            pad = np.zeros(len(new))
            self._count = np.concatenate([self._count, pad])
            self._mean = np.concatenate([self._mean, pad])
            self._var = np.concatenate([self._var, pad])
        idx = np.fromiter((columns[k] for k in keys), dtype=np.intp, count=len(keys))
        full = len(keys) == len(columns) and bool(np.all(idx == np.arange(len(keys))))
        self._keys, self._idx = keys, None if full else idx
