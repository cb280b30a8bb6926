"""`BoBLO(max_features=...)`: contexts that bring ever-new names keep the policy bounded.

A name met once `max_features` names are known is ignored exactly as a missing one is (its value
still validated), as `learners._features.FeatureIndex` does for the weak learners. The oracle is
the same policy fed the contexts without those names.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from onlineboost import BoBLO
from onlineboost._contexts import ContextVectors
from onlineboost.neighbours import NeighbourBoBLO
from tests.helpers import same_state


def _contexts(n, seed=0):
    """A signal column `a`, a noise column `b` and a name never seen before in every record."""
    rng = np.random.default_rng(seed)
    for t in range(n):
        yield {"a": float(rng.normal()), f"new{t}": float(rng.normal()), "b": float(rng.normal())}


def _kept(context, names):
    return {k: v for k, v in context.items() if k in names}


@pytest.mark.parametrize("scale", [False, True])
def test_a_capped_reader_reads_as_if_the_names_beyond_the_cap_were_absent(scale):
    capped, plain = ContextVectors(scale, max_features=4), ContextVectors(scale)
    for context in _contexts(60):
        z = capped.read(context)
        capped.commit()
        want = plain.read(_kept(context, capped.names))
        plain.commit()
        assert np.array_equal(z, want)
    assert capped.names == ["a", "new0", "b", "new1"]  # the first four met
    assert same_state(capped._current_stats(), plain._current_stats())


def test_a_bad_value_under_an_ignored_name_is_refused_and_nothing_moves():
    reader = ContextVectors(True, max_features=2)
    reader.read({"a": 1.0, "b": 2.0})
    reader.commit()
    before = pickle.loads(pickle.dumps(reader))
    with pytest.raises(ValueError, match=r"context\['c'\]"):
        reader.read({"a": 1.0, "c": float("nan")})
    reader.commit()  # (nothing read: nothing to store)
    assert same_state(reader.__getstate__(), before.__getstate__())


@pytest.mark.parametrize("n_learners", [1, 2])
def test_boblo_plays_as_it_would_on_the_contexts_without_the_ignored_names(n_learners):
    capped = BoBLO(seed=3, max_features=2, n_learners=n_learners)
    plain = BoBLO(seed=3, max_features=None, n_learners=n_learners)
    capped._JIT = plain._JIT = False  # (both on the numpy round: the same floats)
    for t, context in enumerate(_contexts(400)):
        names = ["a", "new0"]
        a = capped.pull([0, 1, 2], context)
        b = plain.pull([0, 1, 2], _kept(context, names))
        assert a == b, t
        reward = float(a == (0 if context["a"] > 0.3 else 1 if context["a"] > -0.3 else 2))
        capped.update(a, context, reward)
        plain.update(b, _kept(context, names), reward)
    assert capped._reader.names == ["a", "new0"]


def test_the_state_stays_flat_under_ever_new_names_and_the_policy_learns():
    policy = NeighbourBoBLO(BoBLO(max_features=5), seed=0)
    sizes, rewards = [], []
    for t, context in enumerate(_contexts(1500, seed=1)):
        arm = policy.pull([0, 1, 2], context)
        reward = float(arm == (0 if context["a"] > 0.3 else 1 if context["a"] > -0.3 else 2))
        policy.update(arm, context, reward)
        rewards.append(reward)
        if t in (499, 999, 1499):
            sizes.append(len(pickle.dumps(policy)))
    assert sizes[2] <= sizes[1] * 1.01 and sizes[1] <= sizes[0] * 1.01  # (no column added)
    assert policy.stage._reader.names == ["a", "new0", "b", "new1", "new2"]
    assert np.mean(rewards[-500:]) > 0.8  # the signal column is among the kept: 1/3 at random


@pytest.mark.parametrize("value", [0, -1, 2.5, True, "10"])
def test_an_invalid_max_features_is_named(value):
    with pytest.raises(ValueError, match="max_features"):
        BoBLO(max_features=value)


def test_the_default_bound_and_a_policy_pickled_before_it():
    assert BoBLO().max_features == 1000 and BoBLO()._reader.max_features == 1000
    old = BoBLO(seed=0)
    old.update(old.pull([0, 1], {"x": 1.0}), {"x": 1.0}, 1.0)
    del old.__dict__["max_features"]
    state = old._reader.__dict__
    del state["max_features"]
    loaded = pickle.loads(pickle.dumps(old))
    assert loaded.max_features is None and loaded._reader.max_features is None  # (unbounded)
    context = {f"x{j}": 1.0 for j in range(5)}
    loaded.update(loaded.pull([0, 1], context), context, 0.0)
    assert len(loaded._reader) == 6  # ("x" and five more)
