"""Test helpers shared by the test modules (importable as `tests.helpers`)."""

from __future__ import annotations

import pickle

__all__ = ["same_state"]


def same_state(a, b, _seen=None) -> bool:
    """Whether two objects hold the same state, recursively: attributes, containers, numpy
    arrays (bit for bit, NaN included) and random generators (`numpy` and `random`).

    Pickle bytes are no test of that (memo and frame layout differ between an object and its
    round-tripped copy); this is what tests of checkpoints and of rejected inputs compare.

    >>> import numpy as np
    >>> from tests.helpers import same_state
    >>> a = {"w": np.array([1.0, np.nan]), "rng": np.random.default_rng(0)}
    >>> b = pickle.loads(pickle.dumps(a))
    >>> same_state(a, b)
    True
    >>> _ = b["rng"].random()
    >>> same_state(a, b)
    False
    """
    import random

    import numpy as np

    seen = _seen if _seen is not None else {}
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    key = (id(a), id(b))
    if key in seen:  # a cycle already being compared
        return True
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and (
            a.tobytes() == b.tobytes() if a.dtype != object
            else all(same_state(u, v, seen) for u, v in zip(a.flat, b.flat)))
    if isinstance(a, np.random.Generator):
        return a.bit_generator.state == b.bit_generator.state
    if isinstance(a, random.Random):
        return a.getstate() == b.getstate()
    if isinstance(a, float):
        return a == b or (a != a and b != b)
    if isinstance(a, (int, str, bytes, bool, complex, type(None), np.generic)):
        return bool(np.all(a == b)) if isinstance(a, np.generic) else a == b
    seen[key] = (a, b)  # kept alive, so that no later object reuses these ids
    if isinstance(a, dict):  # key order is no state: a set rebuilt by pickle may iterate anew
        return a.keys() == b.keys() and all(same_state(a[k], b[k], seen) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_state(u, v, seen) for u, v in zip(a, b))
    if isinstance(a, (set, frozenset)):
        return a == b
    if type(a).__getstate__ is not object.__getstate__ and isinstance(a.__getstate__(), dict):
        return same_state(a.__getstate__(), b.__getstate__(), seen)  # what pickle keeps
    if hasattr(a, "__dict__") or hasattr(a, "__slots__"):
        return same_state(_attributes(a), _attributes(b), seen)
    if callable(a) or isinstance(a, type):
        return a == b
    try:  # an extension type (e.g. scikit-learn's Cython Tree): compare what pickle would save
        ra, rb = a.__reduce_ex__(pickle.HIGHEST_PROTOCOL), b.__reduce_ex__(
            pickle.HIGHEST_PROTOCOL)
    except (TypeError, pickle.PicklingError):
        return a == b
    return same_state(ra, rb, seen)


def _attributes(obj) -> dict:
    out = dict(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if hasattr(obj, name):
                out[name] = getattr(obj, name)
    return out
