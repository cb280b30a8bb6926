"""Contexts to dense vectors in one pass, optionally standardised online with numpy.

`ContextVectors` is the per-round hot path of `onlineboost.BoBLO`: it validates a context dict,
maps it onto a growing set of columns (first-seen order), and, with `scale=True`, updates a
running mean and variance per column and standardises the vector, by the rule of
`onlineboost.scaling` (one record cannot poison the statistics; the kernels `scaling.learn` and
`scaling.transform`, per feature present in the dict, learn before transform, 0 where the
variance is 0, outputs clipped to +-`scaling.CLIP`), vectorised over a fixed column index
instead of dicts of floats. The usual round (the keys of the last round, every column past the
warm-up) takes one fused kernel instead: `scaling.learn_transform_floats` in plain floats up to
`SMALL` columns, where numpy's per-call cost exceeds the arithmetic, `scaling.learn_transform`
beyond; both compute `learn` then `transform` operation by operation, so the numbers are the
same bit for bit.

A read is two-phase: `read` validates the context and computes its vector and the scaler's next
statistics without storing anything; `commit` stores them. A caller that refuses the round after
reading (e.g. because what it computed from the vector is not finite) simply does not commit.

The columns are bounded by `max_features` (None: no bound): once that many names are known, a
name not seen before is ignored exactly as a missing one is (its value still validated), so a
stream that brings a new feature name with every record keeps the vectors, and the state of
whatever learns from them, bounded; the first names win and known columns never move (the rule
of `learners._features.FeatureIndex`).

Feature values must be real numbers (int or float, numpy's included; bools count as 0 and 1, as
river's own transformers and linear models count them; not str, bytes, None, Decimal) of
magnitude at most `MAX_ABS` = 1e100: near 1e154 the squares in the running
variance (and in second-order learners) overflow, so such a context is refused rather than
allowed to turn later rounds into NaN.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from . import scaling

__all__ = ["ContextVectors", "MAX_ABS"]

MAX_ABS = 1e100  # largest accepted |feature value|: squares and their sums stay finite
_FAST = frozenset({float, int})
SMALL = 24  # up to this many columns the usual round's scaling runs in plain floats


def _values(x: dict, name: str) -> np.ndarray:
    """The values of `x` as a float vector, or `ValueError` naming `name[key]`."""
    vals = x.values()
    if _FAST.issuperset(map(type, vals)):  # plain floats and ints: checked in plain Python
        try:
            # (a finite sum: no NaN, so max and min compare; no `abs` a value)
            if not vals or (math.isfinite(sum(vals)) and max(vals) <= MAX_ABS
                            and min(vals) >= -MAX_ABS):
                return np.fromiter(vals, dtype=np.float64, count=len(x))
        except OverflowError:  # an int beyond the float range
            pass
    for key, value in x.items():
        if not isinstance(value, (numbers.Real, np.bool_)):  # (bool is an int: 0 / 1)
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


def _floats(x: dict, name: str) -> list:
    """The values of `x` as a list of floats for `scaling.learn_transform_floats`, which
    checks their range itself (`None` back: the caller reads `x` again, through `_values`,
    which names what is wrong)."""
    vals = x.values()
    types = set(map(type, vals))
    if types <= _FAST:  # plain floats and ints: the type is checked here
        if int not in types:
            return list(vals)
        try:
            return list(map(float, vals))
        except OverflowError:  # an int beyond the float range
            pass
    return _values(x, name).tolist()


class ContextVectors:
    """Context dicts as dense vectors over the columns seen so far, standardised if `scale`.

    Examples
    --------
    >>> from onlineboost._contexts import ContextVectors
    >>> reader = ContextVectors(scale=True)
    >>> for a in (1.0, 3.0, 2.0, 4.0):  # (the warm-up statistics)
    ...     z = reader.read({"a": a, "b": 5.0}); reader.commit()
    >>> z
    array([1.34164079, 0.        ])
    >>> reader.read({"c": 2.0}); reader.commit()  # "a", "b" absent: 0, not learned from
    array([0., 0., 0.])
    >>> reader.names
    ['a', 'b', 'c']
    >>> reader.read({"a": "3"})
    Traceback (most recent call last):
    ...
    ValueError: context['a'] must be a real number, got '3'
    >>> capped = ContextVectors(max_features=2)
    >>> capped.read({"a": 1.0, "b": 2.0, "c": 3.0}); capped.commit()  # "c": a third name
    array([1., 2.])
    >>> capped.names
    ['a', 'b']
    """

    def __init__(self, scale: bool = False, max_features: int | None = None):
        self.scale = scale
        self.max_features = max_features
        self._columns: dict = {}
        self._keys: tuple = ()  # keys of the last committed dict, in its order
        self._idx = None  # their columns (None: exactly all columns, in order)
        self._stats = scaling.Stats.empty()  # the scaling statistics (`onlineboost.scaling`)
        # known past the warm-up, same keys: True (numpy kernel on `_stats`), or the statistics'
        # count, mean, var, dev (lists) and ready while the plain-float scaling runs (`_stats`
        # then holds the rest: buf); None: not known
        self._fast = None
        self._next = None  # what `commit` stores: (columns, keys, idx, stats, fast)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_next"] = None  # an uncommitted read is not state
        state["_stats"], state["_fast"] = self._current_stats(), None  # lists: not state
        return state

    def __setstate__(self, state):
        state.setdefault("max_features", None)  # (pickled before the bound: none)
        if "_stats" not in state:  # pickled before the robust scaling: Welford's statistics
            count = state.pop("_count")
            st = scaling.Stats.empty(len(count))
            st.count = np.where(count > 0, np.maximum(count, scaling.WARMUP), 0.0)
            st.mean, st.var = state.pop("_mean"), state.pop("_var")
            state["_stats"] = st
            if state.get("_next") is not None:
                state["_next"] = None
        state.setdefault("_fast", None)
        self.__dict__.update(state)

    def _current_stats(self) -> scaling.Stats:
        """The committed statistics as a `scaling.Stats` (the lists' values, if they run)."""
        st, fast = self._stats, self._fast
        if fast is None or fast is True:
            return st
        return scaling.Stats(*(np.array(a) for a in fast[:4]), st.buf, fast[4])

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
        keys = tuple(x)
        cap = self.max_features
        if cap is not None and keys != self._keys and len(self._columns) + len(x) > cap:
            x = self._capped(x, name, cap)
            keys = tuple(x)
        if self.scale and keys == self._keys and self._idx is None:  # the usual round
            fast, st = self._fast, self._stats
            if fast is None and len(keys) and st.count.min() >= scaling.WARMUP:
                fast = True if len(keys) > SMALL else (
                    st.count.tolist(), st.mean.tolist(), st.var.tolist(), st.dev.tolist(),
                    st.ready)
            if fast is True:  # a long row past the warm-up: one numpy kernel
                st, z = scaling.learn_transform(st, _values(x, name))
                self._next = (self._columns, keys, None, st, True)
                return z
            if fast is not None:  # a short row past the warm-up: plain floats
                out = scaling.learn_transform_floats(*fast[:4], _floats(x, name), fast[4])
                if out is not None:
                    self._next = (self._columns, keys, None, st, out[:5])
                    return np.array(out[5])
        v = _values(x, name)
        columns, idx = self._columns, self._idx
        if keys != self._keys:
            columns, idx = self._index(keys)
        q = len(columns)
        stats = self._current_stats()
        if not self.scale:
            self._next = (columns, keys, idx, stats, None)
            if idx is None:
                return v
            out = np.zeros(q)
            out[idx] = v
            return out
        st = stats.grow(q)
        if idx is None:  # the same keys every round
            st = scaling.learn(st, v)
            self._next = (columns, keys, idx, st, None)
            return scaling.transform(st, v)
        part = scaling.learn(st.take(idx), v)
        self._next = (columns, keys, idx, st.put(idx, part), None)
        out = np.zeros(q)
        out[idx] = scaling.transform(part, v)
        return out

    def commit(self) -> None:
        """Store what the last `read` learned (columns and scaling statistics)."""
        if self._next is not None:
            self._columns, self._keys, self._idx, self._stats, self._fast = self._next
            self._next = None

    def _capped(self, x: dict, name: str, cap: int) -> dict:
        """`x` without the names beyond the first `cap` (known names first, then new ones in
        `x`'s order while there is room), the values of the names left out validated."""
        columns = self._columns
        room = cap - len(columns)
        kept, out = {}, {}
        for key, value in x.items():
            if key in columns or room > 0:
                room -= key not in columns
                kept[key] = value
            else:
                out[key] = value
        if out:
            _values(out, name)  # (names a bad value among those left out)
        return kept if out else x

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
