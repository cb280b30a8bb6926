"""`learners.neighbour_stack.NeighbourStack` (BoBLO's later copies for N > 1 since issue 13's
sixteenth session) against a brute-force transcription: k nearest stored contexts, their
target rows summed over k and shrunk; a ring buffer; new and missing columns; the softmax at
the annealed temperature; and `FeaturePolicy(later_neighbours=k)`'s boosted stack."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from learners import FeaturePolicy, _stack_kernels
from learners.feature_policy import FeaturePolicyBoostStack
from learners.neighbour_stack import NeighbourStack
from onlineboost import sets


def _brute(rows, c, k, shrink, window, n, d):
    """The prediction from the rows `(context, G)` learnt so far, written out: the last
    `window` rows, padded to a common width; ties by the order the buffer holds them in."""
    kept = rows[-window:]
    # the ring buffer's order: row t sits at slot t % window
    slots = sorted(range(len(rows))[-window:], key=lambda t: t % window)
    kept = [rows[t] for t in slots]
    if not kept:
        return np.zeros((n, d))
    p = max(len(z) for z, _ in rows)  # (the buffer's width: every column ever seen)
    pad = lambda z: np.concatenate([z, np.zeros(p - len(z))])  # noqa: E731
    cc = pad(c[:p])
    dist = [float(((pad(z) - cc) ** 2).sum()) for z, _ in kept]
    order = sorted(range(len(kept)), key=lambda i: (dist[i], i))[:k]
    return shrink * sum(kept[i][1] for i in order) / k


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
@pytest.mark.parametrize("k, window", [(1, 50), (3, 7), (5, 2000)])
def test_predictions_are_the_brute_force_neighbours_mean(k, window, compiled):
    rng = np.random.default_rng(k)
    n, d = 2, 3
    stack = NeighbourStack(n, sets.Simplex(d), k=k, shrink=0.7, window=window)
    stack._COMPILED = compiled and _stack_kernels.AVAILABLE
    rows = []
    for t in range(60):
        p = 2 if t < 20 else 3  # (a column appears at round 20)
        c = rng.normal(size=p).round(1)  # (rounded: ties in distance happen)
        G = rng.normal(size=(n, d))
        np.testing.assert_allclose(stack.predicted_costs(c),
                                   _brute(rows, c, k, 0.7, window, n, d), atol=1e-12)
        stack.learn_vector(c, G)
        rows.append((c, G))
    # a context without the later column, and one with a column never stored
    for c in (np.array([0.3, -0.2]), np.array([0.1, 0.2, 0.3, 9.0])):
        np.testing.assert_allclose(stack.predicted_costs(c),
                                   _brute(rows, c, k, 0.7, window, n, d), atol=1e-12)


def test_the_numpy_search_with_many_neighbours_and_rows_is_the_brute_force():
    """The numpy path's selection (`np.partition` at the k-th distance, then the ties) over a
    long buffer and k = 40: where a wrong selection index shows (it does not for k = 5)."""
    rng = np.random.default_rng(2)
    n, d, k = 1, 2, 40
    stack = NeighbourStack(n, sets.Simplex(d), k=k, shrink=1.0, window=3000)
    stack._COMPILED = False
    rows = []
    for _ in range(1500):
        c, G = rng.normal(size=2), rng.normal(size=(n, d))
        stack.learn_vector(c, G)
        rows.append((c, G))
    for _ in range(100):
        c = rng.normal(size=2)
        np.testing.assert_allclose(stack.predicted_costs(c),
                                   _brute(rows, c, k, 1.0, 3000, n, d), atol=1e-12)


@pytest.mark.skipif(not _stack_kernels.AVAILABLE, reason="numba is not installed")
@pytest.mark.parametrize("p", [1, 7, 8, 9, 16, 17, 64, 65, 128, 129])
def test_the_compiled_search_is_numpys_to_the_bit(p):
    """`_stack_kernels.nearest`: numpy's distances (its pairwise sum of the squares), the same
    rows in the same order as a stable argsort, ties included (rounded contexts); beyond 128
    columns the numpy search runs. The predictions agree bit for bit."""
    rng = np.random.default_rng(p)
    fast = NeighbourStack(3, sets.Simplex(4), k=6, shrink=0.5, window=300)
    slow = NeighbourStack(3, sets.Simplex(4), k=6, shrink=0.5, window=300)
    slow._COMPILED = False
    for t in range(400):
        c = rng.normal(size=p).round(1)
        if t % 7 == 1 and p <= 128:  # (after the first row gave the buffer its columns)
            m = min(fast._stored, fast.window)
            d = ((fast._C[:m] - c) ** 2).sum(axis=1)
            idx, dist = np.empty(6, dtype=np.int64), np.empty(6)
            kk = _stack_kernels.nearest(fast._C, m, c, 6, idx, dist, np.empty(p))
            order = np.argsort(d, kind="stable")[:6]
            np.testing.assert_array_equal(idx[:kk], order)
            np.testing.assert_array_equal(dist[:kk], d[order])
        assert np.array_equal(fast.predicted_costs(c), slow.predicted_costs(c))
        G = rng.normal(size=(3, 4))
        fast.learn_vector(c, G)
        slow.learn_vector(c, G)


def test_fewer_stored_rounds_than_k_shrink_toward_zero_and_none_predicts_zero():
    stack = NeighbourStack(1, sets.Simplex(2), k=4, shrink=1.0)
    np.testing.assert_array_equal(stack.predicted_costs(np.array([1.0])), [[0.0, 0.0]])
    stack.learn_vector(np.array([0.0]), np.array([[2.0, 4.0]]))
    np.testing.assert_allclose(stack.predicted_costs(np.array([5.0])), [[0.5, 1.0]])


def test_the_play_is_the_annealed_softmax_less_the_shift():
    stack = NeighbourStack(2, sets.Simplex(3), k=1, shrink=1.0, temperature=0.5, t0=10.0)
    for t in range(30):
        stack.learn_vector(np.array([float(t)]), np.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
    beta = 2.0 * math.sqrt(1.0 + 30 / 10.0)
    stack.shift = np.array([0.0, 0.5, 0.0])
    costs = stack.predicted_costs(np.array([3.0])) - stack.shift
    expected = np.exp(-beta * costs)
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(stack.predict_vector(np.array([3.0])), expected, rtol=1e-12)
    assert np.allclose(stack.predict_vector(np.array([3.0])).sum(axis=1), 1.0)


def test_discount_forgets_the_window_and_pickles_keep_it():
    stack = NeighbourStack(1, sets.Simplex(2), k=2)
    for t in range(5):
        stack.learn_vector(np.array([float(t)]), np.array([[1.0, 0.0]]))
    twin = pickle.loads(pickle.dumps(stack))
    np.testing.assert_array_equal(twin.predicted_costs(np.array([1.0])),
                                  stack.predicted_costs(np.array([1.0])))
    stack.discount(100.0)
    np.testing.assert_array_equal(stack.predicted_costs(np.array([1.0])), [[0.0, 0.0]])
    assert twin.predicted_costs(np.array([1.0]))[0, 0] > 0.0


@pytest.mark.parametrize("bad", [dict(k=0), dict(shrink=0.0), dict(shrink=1.01e6),
                                 dict(window=0), dict(temperature=-1.0), dict(t0=0.0)])
def test_bad_parameters_are_named(bad):
    name = next(iter(bad))
    with pytest.raises(ValueError, match=name):
        NeighbourStack(1, sets.Simplex(2), **bad)


def test_feature_policy_later_neighbours_builds_the_boosted_stack():
    policy = FeaturePolicy(sets.Simplex(3), n_features=8, t0=50.0, later_neighbours=3,
                           later_shrink=0.25, later_window=40, later_fit="residual",
                           residual=True)
    stack = policy.stack(4)
    assert isinstance(stack, FeaturePolicyBoostStack) and stack.n == 4
    rest = stack.rest
    assert isinstance(rest, NeighbourStack)
    assert (rest.n, rest.k, rest.shrink, rest.window, rest.t0) == (3, 3, 0.25, 40, 50.0)
    assert policy.stack(1).n == 1 and not isinstance(policy.stack(1), FeaturePolicyBoostStack)
    # copy i >= 2 fits copy 1's target less the earlier copies' predictions ("residual")
    c = np.array([0.5, -1.0])
    G = np.tile(np.array([1.0, 0.0, 0.5]), (4, 1))
    for _ in range(3):
        stack.learn_vector(c, G)
    raw = stack._raw(c)
    assert np.all(np.isfinite(raw)) and raw.shape == (4, 3)
    points = stack.predict_vector(c)
    np.testing.assert_allclose(points.sum(axis=1), 1.0)
    for bad in (dict(later_neighbours=0), dict(later_neighbours=3, later_features=8),
                dict(later_shrink=0.0), dict(later_window=0),
                dict(later_neighbours=3, link="igw")):
        with pytest.raises(ValueError, match="later_"):
            FeaturePolicy(**bad)


@pytest.mark.parametrize("n", [2, 3, 5])
def test_every_boosted_stack_of_two_or_more_copies_has_neighbour_later_copies(n):
    """`later_neighbours` makes copies 2..n nearest-neighbour regressors from two copies on
    (BoBLO(n_learners=2) boosts copy 1 by one neighbour stage); one copy has none."""
    from onlineboost.boblo import DEFAULT_LATER, DEFAULT_LEARNER

    learner = FeaturePolicy(**DEFAULT_LEARNER, **DEFAULT_LATER)
    stack = learner.stack(n)
    assert type(stack) is FeaturePolicyBoostStack and type(stack.rest) is NeighbourStack
    assert stack.rest.n == n - 1 and stack.first.n == 1
    assert not hasattr(learner.stack(1), "rest")


def test_the_smallest_settings_are_taken():
    # a window of one row (the latest only), a tiny annealing horizon, the largest shrink
    stack = NeighbourStack(1, sets.Simplex(2), k=1, shrink=1e6, window=1, t0=0.01)
    stack.learn_vector(np.array([0.0]), np.array([[1e-6, 0.0]]))
    stack.learn_vector(np.array([5.0]), np.array([[0.0, 2e-6]]))
    np.testing.assert_allclose(stack.predicted_costs(np.array([0.0])), [[0.0, 2.0]])
    assert stack.inverse_temperature() == pytest.approx(10.0 * math.sqrt(1.0 + 2 / 0.01))
