"""Feature dicts to dense vectors: a growing map from feature names to columns.

Every online learner in `learners` keeps one `FeatureIndex`. Keys may appear over time; a key
missing from a dict counts as 0. New keys met in one dict get columns in a canonical order
(sorted), so two models fed the same dicts in a different key order build the same columns.
Reading a dict never changes the index: `read` validates and returns the new keys, and the
caller commits them with `add` only once the whole update is known to be valid.

The index is bounded: it holds at most `max_features` names (default `MAX_FEATURES` = 10,000).
Once full, a name it has not seen is ignored exactly as a missing one is (it counts as 0, its
value is still validated), so a stream that brings a new feature name with every record keeps
the learner's state, and its cost per record, bounded. The first `max_features` names win;
nothing is evicted, so the columns of known names never move and what a learner has learnt
about them is untouched.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = [
    "MAX_FEATURES", "FeatureIndex", "check_features", "check_max_features", "check_stack",
    "check_simplex", "check_targets", "VectorStackEntries",
]

# value types the hot path converts without a per-value check (bools are not among them)
_FAST_TYPES = frozenset({float, int, np.float64, np.float32, np.int64, np.int32})

#: Default cap on the number of feature names a learner keeps (see `FeatureIndex`).
MAX_FEATURES = 10_000


def _sort_key(key):
    return (type(key).__name__, repr(key)) if not isinstance(key, str) else ("str", key)


def check_max_features(max_features) -> int:
    """`max_features` as an int >= 1, else `ValueError` naming `max_features`.

    Examples
    --------
    >>> from learners._features import check_max_features
    >>> check_max_features(5)
    5
    """
    if (isinstance(max_features, bool) or not isinstance(max_features, numbers.Integral)
            or max_features < 1):
        raise ValueError(f"max_features must be an integer >= 1, got {max_features!r}")
    return int(max_features)


class FeatureIndex:
    """Columns for the feature names seen so far, at most `max_features` of them.

    Once `max_features` names are known, unseen names are ignored (treated as absent: they count
    as 0) though their values are still validated; known names keep their columns.

    Examples
    --------
    >>> from learners._features import FeatureIndex
    >>> index = FeatureIndex()
    >>> vector, new = index.read({"b": 2.0, "a": 1.0})
    >>> vector, new
    (array([1., 2.]), ['a', 'b'])
    >>> index.add(new)
    >>> index.read({"b": 5.0, "c": 7.0})  # "a" missing -> 0, "c" new -> appended
    (array([0., 5., 7.]), ['c'])
    >>> index.read({"b": 5.0, "c": 7.0}, grow=False)  # unknown keys ignored
    (array([0., 5.]), [])
    >>> full = FeatureIndex(max_features=2)
    >>> full.add(full.read({"a": 1.0, "b": 2.0})[1])
    >>> full.read({"a": 1.0, "z": 3.0})  # full: "z" is ignored, as if absent
    (array([1., 0.]), [])
    """

    def __init__(self, max_features: int = MAX_FEATURES):
        self.max_features = check_max_features(max_features)
        self._columns: dict = {}
        # (keys, columns, gather order or None, column count) of the last full read
        self._last = ((), np.zeros(0, dtype=np.intp), None, 0)

    def __getstate__(self):  # the read cache is derived, not state: a pickle leaves it out
        return {"_columns": self._columns, "max_features": self.max_features}

    def __setstate__(self, state):
        self.__init__(state.get("max_features", MAX_FEATURES))
        self._columns = state["_columns"]

    def __len__(self) -> int:
        return len(self._columns)

    @property
    def names(self) -> list:
        """Feature names in column order."""
        return list(self._columns)

    def read(self, x: dict, name: str = "x", grow: bool = True) -> tuple[np.ndarray, list]:
        """The dense vector of `x` over the known columns followed by its new keys (in
        canonical order when `grow`, dropped otherwise), and the list of new keys.

        New keys beyond the cap (`max_features` columns in all) are dropped as when not
        `grow`: the first ones in canonical order are kept.

        Raises `ValueError` naming `name` when `x` is not a dict or a value is not a finite
        number. Does not change the index.
        """
        if not isinstance(x, dict):
            raise ValueError(f"{name} must be a dict of features, got {type(x).__name__}")
        fast = self._read_known(x)
        if fast is not None:
            return fast, []
        columns = self._columns
        new = [k for k in x if k not in columns]
        n_known = len(columns)
        if new and grow:
            new.sort(key=_sort_key)
            del new[max(self.max_features - n_known, 0):]  # beyond the cap: ignored
        new_columns = {k: n_known + i for i, k in enumerate(new)} if grow else {}
        vector = np.zeros(n_known + len(new_columns))
        for key, value in x.items():
            col = columns.get(key)
            if col is None:
                col = new_columns.get(key)
                if col is None:  # not kept: validated, then ignored
                    _check_value(key, value, name)
                    continue
            vector[col] = _check_value(key, value, name)
        return vector, (new if grow else [])

    def _read_known(self, x: dict):
        """Hot path: every key known and every value a finite number, in one array pass."""
        keys = tuple(x)
        if not _FAST_TYPES.issuperset(map(type, x.values())):
            return None  # the slow path checks every value's type and names the offending key
        last_keys, idx, order, n_cols = self._last
        if keys != last_keys:
            try:
                idx = np.fromiter((self._columns[k] for k in keys), dtype=np.intp, count=len(keys))
            except KeyError:
                return None
            # keys covering every column: the vector is the values reordered (one gather)
            order = np.argsort(idx) if len(keys) == len(self._columns) else None
            n_cols = len(self._columns)
        try:
            values = np.fromiter(x.values(), dtype=np.float64, count=len(keys))
        except (TypeError, ValueError, OverflowError):
            return None  # the slow path names the offending key
        # a finite sum means finite entries (an overflowing sum falls through to the exact check)
        total = sum(values.tolist()) if len(keys) <= 64 else np.add.reduce(values)
        if not math.isfinite(total) and not np.isfinite(values).all():
            return None
        self._last = (keys, idx, order, n_cols)
        if order is not None and n_cols == len(self._columns):
            return values[order]
        vector = np.zeros(len(self._columns))
        vector[idx] = values
        return vector

    def add(self, keys: list) -> None:
        """Append columns for `keys` (as returned by `read`); keys beyond the cap are
        ignored."""
        for key in keys[: max(self.max_features - len(self._columns), 0)]:
            self._columns[key] = len(self._columns)


def _check_value(key, value, name: str) -> float:
    """`value` as a finite float, else `ValueError` naming `name[key]`. Only real numbers are
    numbers: bools, numeric strings, bytes and Decimals are refused, as river's models would
    fail on them; an int too large for a float is not finite."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name}[{key!r}] must be a real number, got {value!r}")
    try:
        value = float(value)
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        raise ValueError(f"{name}[{key!r}] must be finite, got {value!r}")
    return value


def check_targets(y, shape: tuple, name: str) -> np.ndarray:
    """`y` as a float64 array of exactly `shape`, all finite, else `ValueError` naming `name`.

    Examples
    --------
    >>> from learners._features import check_targets
    >>> check_targets([1, 2], (2,), "Y")
    array([1., 2.])
    >>> check_targets([1.0, float("nan")], (2,), "Y")
    Traceback (most recent call last):
    ...
    ValueError: Y must be finite (no NaN or inf)
    """
    try:
        arr = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numeric with shape {shape}, got {y!r}") from None
    if arr.shape != tuple(shape):
        if arr.size == int(np.prod(shape)) and arr.ndim <= 1 and len(shape) <= 1:
            arr = arr.reshape(shape)
        else:
            raise ValueError(f"{name} must have shape {tuple(shape)}, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return arr


def check_stack(n, seeds) -> list:
    """Validate the arguments of a `stack(n, seeds)` call; return the seeds as a list.

    Examples
    --------
    >>> from learners._features import check_stack
    >>> check_stack(3, None), check_stack(2, [7, 8])
    ([None, None, None], [7, 8])
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    if seeds is None:
        return [None] * int(n)
    seeds = list(seeds)
    if len(seeds) != n:
        raise ValueError(f"seeds must have length n = {n}, got {len(seeds)}")
    return seeds


def check_features(x, name: str = "x") -> None:
    """`ValueError` naming `name` unless `x` is a dict of finite real numbers.

    Examples
    --------
    >>> from learners._features import check_features
    >>> check_features({"a": float("inf")})
    Traceback (most recent call last):
    ...
    ValueError: x['a'] must be finite, got inf
    """
    FeatureIndex().read(x, name)


class VectorStackEntries:
    """The dict entry points of a stack that works on dense context vectors: `predict(x)` and
    `learn(x, G)` read `x` through the stack's `FeatureIndex` (`self._index`) and call its
    `predict_vector` / `learn_vector`; a new feature name is added to the index only once `G`
    has been validated (shape `(self.n, self.decision_set.dim)`), so a refused call changes
    nothing. The stack's `learn_vector` grows its arrays to the index's new length."""

    def predict(self, x: dict) -> np.ndarray:
        """The $n$ distributions over the arms for the context dict `x`, `(n, k)`."""
        c, _ = self._index.read(x, grow=False)
        return self.predict_vector(c)

    def learn(self, x: dict, G) -> None:
        """One step per copy on the costs `G` `(n, k)` (row $i$ for copy $i$)."""
        c, new = self._index.read(x, grow=True)  # validates x, naming the bad feature
        G = check_targets(G, (self.n, self.decision_set.dim), "g")
        if new:
            self._index.add(new)
        self.learn_vector(c, G)


def check_simplex(decision_set):
    """The decision set of a policy learner: an `onlineboost.sets.Simplex` (None: the simplex
    over two arms), else `ValueError` naming `decision_set`.

    >>> from onlineboost import sets
    >>> check_simplex(None).dim, check_simplex(sets.Simplex(4)).dim
    (2, 4)
    """
    from onlineboost import sets

    if decision_set is None:
        return sets.Simplex(2)
    if not isinstance(decision_set, sets.Simplex):
        raise ValueError(f"decision_set must be an onlineboost.sets.Simplex, got {decision_set!r}")
    return decision_set
