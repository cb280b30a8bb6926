from __future__ import annotations

import pickle

import numpy as np
import pytest

from learners import OnlineStump, StumpStack, warmup_thresholds
from streams import StumpMixture


def _rows(T, seed):
    """Features that appear late and go missing; a noisy target with a step in f1."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(T):
        x = {f"f{j}": float(rng.normal()) for j in range(4) if t >= 15 * j and rng.random() < 0.9}
        y = np.where(x.get("f1", 0.0) > 0.3, 1.0, -1.0) + rng.normal(scale=0.5, size=3)
        rows.append((x, y))
    return rows


def _brute_force(stack, rows, i):
    """The best (feature, threshold) of copy i by direct search over the stack's candidates."""
    names = stack._index.names
    X = np.array([[x.get(n, 0.0) for n in names] for x, _ in rows])
    y = np.array([y[i] for _, y in rows])
    best = (np.inf, None, None)
    for j in np.flatnonzero(stack._ready):
        for theta in stack._thresholds[j][np.isfinite(stack._thresholds[j])]:
            left = X[:, j] <= theta
            if left.all() or not left.any():
                continue
            sse = (((y[left] - y[left].mean()) ** 2).sum()
                   + ((y[~left] - y[~left].mean()) ** 2).sum())
            if sse < best[0] - 1e-9:
                best = (sse, j, theta)
    return best


@pytest.mark.parametrize("n_bins, warmup", [(16, 32), (4, 10), (64, 40)])
def test_chosen_split_equals_brute_force_over_candidates(n_bins, warmup):
    rows = _rows(150, seed=n_bins)
    stack = StumpStack(3, n_bins=n_bins, warmup=warmup)
    for t, (x, y) in enumerate(rows):
        stack.learn(x, y)
        assert np.all(stack._counts.sum(axis=1)[stack._ready] == t + 1)  # every sample binned
        if t > 60 and t % 4:  # every step early on (warm-ups closing), every 4th later
            continue
        for i in range(3):
            sse, j, theta = _brute_force(stack, rows[: t + 1], i)
            if j is None:
                assert stack._feature[i] == -1
                mean = np.mean([r[1][i] for r in rows[: t + 1]])
                np.testing.assert_allclose(stack.predict(x)[i], mean)
                continue
            assert (stack._feature[i], stack._threshold[i]) == (j, theta)
            names = stack._index.names
            side = np.array([r[0].get(names[j], 0.0) <= theta for r in rows[: t + 1]])
            ys = np.array([r[1][i] for r in rows[: t + 1]])
            assert stack._left[i] == pytest.approx(ys[side].mean(), rel=1e-12, abs=1e-12)
            assert stack._right[i] == pytest.approx(ys[~side].mean(), rel=1e-12, abs=1e-12)


def test_warmup_thresholds_separate_warmup_values():
    rng = np.random.default_rng(0)
    for _ in range(50):
        values = rng.integers(0, rng.integers(2, 40), size=rng.integers(1, 60)).astype(float)
        n_bins = int(rng.integers(2, 20))
        theta = warmup_thresholds(values, n_bins)
        u = np.unique(values)
        assert len(theta) <= min(n_bins - 1, len(u) - 1) and np.all(np.diff(theta) > 0)
        # each candidate is the midpoint of two consecutive distinct values
        assert np.all(np.isin(theta, 0.5 * (u[:-1] + u[1:])))
        if len(u) - 1 < n_bins:
            assert len(theta) == len(u) - 1


@pytest.mark.parametrize("seed", range(5))
def test_learns_a_step_function(seed):
    stream = StumpMixture(n_features=5, n_stumps=1, seed=seed)
    model = OnlineStump()
    for x, y in stream.take(1000):
        model.learn_one(x, y)
    rng = np.random.default_rng(seed)  # fresh points
    X = rng.random((2000, 5))
    truth = stream.predict_array(X)
    pred = np.array([model.predict_one({f"x{j}": v for j, v in enumerate(row)}) for row in X])
    assert model.split[0] == f"x{stream.features[0]}"
    # the error left comes from the candidate grid (quantiles of a 64-value warm-up sample)
    assert np.mean((pred - truth) ** 2) < 0.25 * truth.var()


def test_predicts_running_mean_before_any_split():
    model = OnlineStump(warmup=10)
    assert model.predict_one({"a": 1.0}) == 0.0
    for y in (1.0, 2.0, 6.0):
        model.learn_one({"a": y}, y)
    assert model.predict_one({"a": 1.0}) == pytest.approx(3.0) and model.split is None


@pytest.mark.parametrize("x, y, name", [({"a": np.nan}, 1.0, "x"), ({"a": 1.0}, np.inf, "y"),
                                        ({"b": 2.0}, None, "y")])
def test_bad_input_raises_and_leaves_state(x, y, name):
    model = OnlineStump(warmup=3)
    for v in (0.1, 0.5, 0.9, 0.3):
        model.learn_one({"a": v}, v)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match=name):
        model.learn_one(x, y)
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("params", [{"n_bins": 1}, {"n_bins": 2.5}, {"warmup": 0}])
def test_invalid_parameters(params):
    with pytest.raises(ValueError, match=next(iter(params))):
        OnlineStump(**params)


def test_pipeline_with_scaler():
    from river import preprocessing

    model = preprocessing.StandardScaler() | OnlineStump()
    for x, y in StumpMixture(n_stumps=1, seed=1).take(500):
        model.learn_one(x, y)
    x, y = next(iter(StumpMixture(n_stumps=1, seed=1)))
    assert model.predict_one(x) == pytest.approx(y, abs=0.2)


def test_a_value_at_a_threshold_is_on_the_left():
    # thresholds from an integer warm-up sit at half-integers; later values land on them
    # exactly: they count to the left (x <= theta) in the histograms, the split and predict
    rng = np.random.default_rng(5)
    rows = [({"a": float(v)}, np.array([float(v >= 2) + 0.1 * rng.normal()]))
            for v in rng.integers(0, 4, size=8)]
    rows += [({"a": float(v)}, np.array([float(v > 1.5) + 0.1 * rng.normal()]))
             for v in rng.integers(0, 8, size=120) / 2.0]
    stack = StumpStack(1, n_bins=8, warmup=8)
    for t, (x, y) in enumerate(rows):
        stack.learn(x, y)
        if t >= 8:
            sse, j, theta = _brute_force(stack, rows[: t + 1], 0)
            assert (stack._feature[0], stack._threshold[0]) == (j, theta)
    theta = stack._threshold[0]
    assert theta == 1.5 and any(x["a"] == theta for x, _ in rows[8:])
    ys = np.array([y[0] for _, y in rows])
    left = np.array([x["a"] <= theta for x, _ in rows])
    assert stack._left[0] == pytest.approx(ys[left].mean(), rel=1e-12)
    assert stack.predict({"a": theta})[0] == stack._left[0]
    assert stack.predict({"a": np.nextafter(theta, 9.0)})[0] == stack._right[0]


def test_quantile_thresholds_are_the_midpoints_of_the_values_around_each_quantile():
    # many distinct values: for each k / n_bins quantile q (numpy's linear rule) the midpoint
    # of the two distinct values u_i <= q < u_{i+1}, duplicates merged; heavy ties at both ends
    values = [0.0] * 40 + list(np.linspace(1.0, 2.0, 21)) + [3.0] * 40
    n_bins = 5
    u = np.unique(values)
    expected = []
    for k in range(1, n_bins):
        q = np.quantile(values, k / n_bins)
        i = max(i for i in range(len(u) - 1) if u[i] <= q)
        expected.append(0.5 * (u[i] + u[i + 1]))
    got = warmup_thresholds(values, n_bins)
    np.testing.assert_allclose(got, sorted(set(expected)))
    assert got[0] == 0.5 and got[-1] == 2.5  # the two tied ends' midpoints


def test_the_documented_defaults_and_the_smallest_settings():
    stump = OnlineStump()
    assert (stump.n_bins, stump.warmup, stump.max_features) == (32, 64, 1000)
    stack = stump.stack(1)
    assert stack._thresholds.shape[1] == 31 and stack.warmup == 64
    small = OnlineStump(n_bins=2, warmup=1)  # one candidate, placed after one value
    for v in [0.0, 1.0, 1.0, 0.0]:
        small.learn_one({"a": v}, v)
    assert small.split is None  # a single warm-up value gives no midpoint
