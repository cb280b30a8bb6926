"""Bounded feature state (issue 14, item 20): the FeatureIndex cap and the learners built on it."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import learners
from learners._features import MAX_FEATURES, FeatureIndex

CAP = 5
KNOWN = ["a", "b", "c", "d", "e"]

CAPPED = {
    "OnlineRidge": lambda: learners.OnlineRidge(max_features=CAP),
    "OnlineStump": lambda: learners.OnlineStump(n_bins=4, warmup=5, max_features=CAP),
    "OnlineTreeRegressor": lambda: learners.OnlineTreeRegressor(
        max_depth=2, warmup=5, grace_period=5, max_features=CAP),
    "OnlineTree": lambda: learners.OnlineTree(max_depth=2, warmup=5, grace_period=5,
                                                            max_features=CAP),
}


def _learn(model, x, y):
    if isinstance(model, learners.OnlineTree):
        model.learn_one(x, np.array([-y]))
    else:
        model.learn_one(x, y)


def _predict(model, x):
    return float(np.asarray(model.predict_one(x)).reshape(-1)[0])


def test_index_ignores_new_names_beyond_the_cap():
    # an index that kept growing (or evicted a known name) fails the length or the columns
    index = FeatureIndex(max_features=3)
    index.add(index.read({"b": 1.0, "a": 2.0})[1])
    vector, new = index.read({"a": 1.0, "z": 2.0, "c": 3.0, "y": 4.0})
    assert new == ["c"] and vector.tolist() == [1.0, 0.0, 3.0]  # first in canonical order
    index.add(new)
    assert index.names == ["a", "b", "c"]
    assert index.read({"q": 1.0, "c": 5.0}) == (pytest.approx([0.0, 0.0, 5.0]), [])
    with pytest.raises(ValueError, match=r"x\['q'\]"):  # ignored names are still validated
        index.read({"q": float("nan"), "c": 5.0})
    assert len(index) == 3
    assert FeatureIndex().max_features == MAX_FEATURES == 10_000


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "10"])
def test_index_rejects_a_bad_cap(bad):
    with pytest.raises(ValueError, match="max_features"):
        FeatureIndex(max_features=bad)


@pytest.mark.parametrize("value", ["1.0", b"1", True, np.bool_(True), None, [1.0], 1j])
def test_non_numbers_are_refused_naming_the_key(value):
    index = FeatureIndex()
    index.add(["a"])
    for x in ({"a": value}, {"a": 1.0, "b": value}):
        with pytest.raises(ValueError, match=r"x\['[ab]'\] must be a real number"):
            index.read(x)


def test_huge_ints_are_not_finite_rather_than_an_overflow():
    with pytest.raises(ValueError, match=r"x\['a'\] must be finite"):
        FeatureIndex().read({"a": 10**400})


@pytest.mark.parametrize("name", list(CAPPED))
def test_state_stops_growing_at_the_cap(name):
    # every record brings a new name: without the cap the pickled state grows each record
    model = CAPPED[name]()
    rng = np.random.default_rng(0)
    sizes = []
    for t in range(300):
        _learn(model, {f"new{t}": float(rng.normal()), "a": float(rng.normal())}, 0.3)
        if t in (100, 299):
            sizes.append(len(pickle.dumps(model)))
    assert sizes[1] - sizes[0] < 200  # counters may take a byte more, arrays do not grow
    assert len(model._stack._core._index if hasattr(model._stack, "_core")
               else model._stack._index) == CAP


@pytest.mark.parametrize("name", list(CAPPED))
def test_known_features_behave_the_same_once_the_cap_is_reached(name):
    # after the cap, a record with extra unseen names is learnt exactly as the record without
    # them: a cap that still let new names in (or dropped known ones) changes the answers
    plain, noisy = CAPPED[name](), CAPPED[name]()
    rng = np.random.default_rng(1)
    first = {k: float(rng.normal()) for k in KNOWN}
    _learn(plain, first, 1.0)
    _learn(noisy, first, 1.0)
    for t in range(300):
        x = {k: float(rng.normal()) for k in KNOWN if rng.random() < 0.9}
        y = float(x.get("a", 0.0) > 0) + 0.1 * float(rng.normal())
        assert _predict(plain, x) == _predict(noisy, {**x, f"new{t}": float(rng.normal())})
        _learn(plain, x, y)
        _learn(noisy, {**x, f"new{t}": float(rng.normal()), f"more{t}": 1.0}, y)


def test_linear_ogd_uses_the_default_cap():
    model = learners.LinearOGD()
    for t in range(MAX_FEATURES + 50):
        model.learn_one({f"f{t}": 1.0}, np.array([0.1]))
    assert len(model._stack._index) == MAX_FEATURES
    assert model._stack._theta.shape == (1, 1, MAX_FEATURES)


# -- the index itself (surviving mutants of the twenty-ninth session's mutation pass) --------


def test_new_names_get_the_next_columns_in_canonical_order():
    # strings by their text (not by repr: its quotes would put "b'" before 'a"'), other
    # types by their type's name, then repr: ints before strs, never compared with them
    index = FeatureIndex()
    index.add(index.read({"k": 1.0})[1])
    vector, new = index.read({"b'": 2.0, 3: 3.0, 'a"': 4.0, "k": 5.0, 1: 6.0})
    assert new == [1, 3, 'a"', "b'"]
    assert vector.tolist() == [5.0, 6.0, 3.0, 4.0, 2.0]  # "k" keeps column 0
    index.add(new)
    assert index.names == ["k", 1, 3, 'a"', "b'"]


def test_a_cap_of_one_name_is_taken():
    index = FeatureIndex(max_features=1)
    index.add(index.read({"b": 1.0, "a": 2.0})[1])
    assert index.names == ["a"]


def test_add_ignores_names_beyond_the_cap():
    index = FeatureIndex(max_features=2)
    index.add(["a", "b", "c"])
    assert index.names == ["a", "b"]
    index.add(["z"])  # full: nothing more
    assert index.names == ["a", "b"]


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), np.float64("nan")])
def test_the_known_names_fast_path_refuses_non_finite_values(bad):
    # every name known and every value a float: the one-pass path must still refuse, by name
    index = FeatureIndex()
    index.add(index.read({"a": 1.0, "b": 2.0})[1])
    assert index.read({"a": 3.0, "b": 4.0})[0].tolist() == [3.0, 4.0]  # (the fast path)
    with pytest.raises(ValueError, match=r"x\['b'\]"):
        index.read({"a": 3.0, "b": bad})
    with pytest.raises(ValueError, match=r"x\['a'\]"):
        index.read({"a": bad, "b": 4.0})
    wide = FeatureIndex()  # beyond 64 names the sum is numpy's
    names = [f"f{i:03d}" for i in range(100)]
    wide.add(wide.read(dict.fromkeys(names, 1.0))[1])
    with pytest.raises(ValueError, match=r"x\['f050'\]"):
        wide.read({**dict.fromkeys(names, 1.0), "f050": bad})
    # finite values whose sum overflows are still finite, and read
    assert wide.read(dict.fromkeys(names, 1e307))[0].tolist() == [1e307] * 100


def test_targets_must_have_exactly_the_shape_but_a_scalar_or_a_flat_row_of_its_size():
    from learners._features import check_targets

    assert check_targets(5.0, (1,), "y").tolist() == [5.0]  # a scalar for one target
    assert check_targets([5.0], (), "y").tolist() == 5.0  # a flat one-element row for a scalar
    for y, shape in [(np.zeros((2, 3)), (3, 2)), (np.zeros((2, 3)), (6,)),
                     (np.zeros((1, 1)), (1,)), ([1.0, 2.0], (1, 2)), ([1.0, 2.0], (3,))]:
        with pytest.raises(ValueError, match="G must have shape"):
            check_targets(y, shape, "G")


@pytest.mark.parametrize("n", [True, 0, 1.0, "2"])
def test_a_stack_size_must_be_a_positive_integer_not_a_bool(n):
    from learners._features import check_stack

    with pytest.raises(ValueError, match="n must be"):
        check_stack(n, None)
