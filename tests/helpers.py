"""Test helpers shared by the test modules (importable as `tests.helpers`)."""

from __future__ import annotations

import pickle

import numpy as np

__all__ = ["LINEAR_LEARNER", "assert_pinned", "average_reward", "head", "maboost_fingerprint",
           "play_alike", "replay_log", "same_state", "shifting_context"]

#: `BoBLO()`'s weak learner until the eighth session (issue 13): `FeaturePolicy` parameters of
#: the default with no random features of its own, the correction over the context alone. The
#: tests that recorded its numbers, or that need a linear first copy (a later stage then has a
#: class to add), name it.
LINEAR_LEARNER = dict(l2=20.0, temperature=0.02, forget=0.995, n_features=0, bandwidth=1.0,
                      residual=True, on_model=True, t0=50.0)


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


def maboost_fingerprint(model, stream):
    """Predict, then learn, over `stream`: a weighted sum of every probability answered (class
    k in sorted order weighs k + 1, step t weighs 1 + t % 7), the count of right answers, and
    the final alphas and vote weights (the two OnlineMABoost test modules pin it). The pins
    come from the code before its speed rewrite (main at da5caf9), which the cases with
    min_weight 0 still are; the defaults (min_weight 1, which thins small weights: a change of
    answers) were recorded again on branch mabspeed. A refactor that changes what the booster
    answers changes these."""
    total, correct = 0.0, 0
    for t, (x, y) in enumerate(stream):
        p = model.predict_proba_one(x)
        if p:
            correct += max(p, key=p.get) == y
            total += sum((k + 1) * p[c] for k, c in enumerate(sorted(p, key=str))) * (1 + t % 7)
        model.learn_one(x, y)
    booster = model[-1] if hasattr(model, "steps") else model
    return total, correct, booster.alphas, booster.vote_weights


def assert_pinned(got, pinned):
    """Equal up to rounding: the probabilities' sum to 1e-9 relative, the count exactly."""
    import numpy as np
    import pytest

    assert got[0] == pytest.approx(pinned[0], rel=1e-9)
    assert got[1] == pinned[1]
    np.testing.assert_allclose(got[2], pinned[2], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got[3], pinned[3], rtol=1e-6, atol=1e-15)


def head(dataset, n):
    """The first `n` examples of a river data set class `dataset`."""
    import itertools

    return list(itertools.islice(dataset(), n))


def average_reward(policy, stream) -> float:
    """Play a bandit `policy` (river's `pull` / `update`) over a whole `streams` bandit
    stream, as `onlineboost.evaluate.bandit` does without its bookkeeping: the average
    reward of the arms it drew."""
    total = 0.0
    for context, arm_ids in stream:
        arm = policy.pull(arm_ids, context)
        reward = stream.reward(arm)
        total += reward
        policy.update(arm, context, reward)
    return total / stream.n_rounds


def shifting_context(rng, t: int) -> dict:
    """Round `t`'s context of a stream whose keys move: columns a, b, c, then d from round 150
    on; b missing every 50th round from 25, the keys reversed every 50th from 30, and the
    values numpy's scalars (float64, float32) two rounds in three, as data frames give them
    (the compiled rounds' tests: the general path plays those rounds, the kernels the rest)."""
    names = ["a", "b", "c"] + (["d"] if t >= 150 else [])
    c = {n: float(v) for n, v in zip(names, rng.normal(size=len(names)))}
    if t % 50 == 25:
        c.pop("b")
    if t % 50 == 30:
        c = dict(reversed(list(c.items())))
    if t % 3:
        kind = np.float64 if t % 3 == 1 else np.float32
        c = {n: kind(v) for n, v in c.items()}
    return c


def replay_log(seed: int = 0, n: int = 3000):
    """A log for river's `evaluate_offline`: `(arms, context, logged arm, reward)` with arms
    chosen uniformly among 0, 1, 2 and bool rewards (as `bandit.datasets.NewsArticles` yields
    them), 1 where the logged arm is the rule's for the context's `x`."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        x = float(rng.normal())
        arm = int(rng.integers(3))
        yield [0, 1, 2], {"x": x}, arm, arm == (0 if x > 0.3 else 1 if x > -0.3 else 2)


def play_alike(first, second, stream, n_rounds: int, rtol: float = 1e-10, each=None) -> None:
    """Play two contextual policies on the same `n_rounds` of `stream`, each pulled and updated
    with the same context and reward, asserting every round that they pull the same arm and
    that their laws (`arm_probabilities`) agree to `rtol` (absolute 1e-15). `each(t)`, if
    given, is called after every round's updates (further checks)."""
    for t, (context, arms) in enumerate(stream):
        if t >= n_rounds:
            break
        a, b = first.pull(arms, context), second.pull(arms, context)
        assert a == b, t
        np.testing.assert_allclose(first.arm_probabilities, second.arm_probabilities,
                                   rtol=rtol, atol=1e-15)
        reward = stream.reward(a)
        first.update(a, context, reward)
        second.update(b, context, reward)
        if each is not None:
            each(t)
