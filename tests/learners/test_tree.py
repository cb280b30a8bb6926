"""The stacked online tree: stacked = looped copies, splits = brute force, learning, bad input."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import learners
from learners.tree import _MIN_SIDE
from onlineboost import BoOCO, sets
from streams import StumpMixture

SETS = [sets.Interval(-1.0, 1.0), sets.Box([0.0, -1.0], [2.0, 1.0]), sets.Simplex(3)]


def _contexts(T, seed, p=4):
    """Contexts whose features appear over time and go missing at random."""
    rng = np.random.default_rng(seed)
    for t in range(T):
        x = {f"f{j}": float(rng.normal()) for j in range(p) if t >= 7 * j and rng.random() < 0.9}
        yield x, rng


@pytest.mark.parametrize("leaf_model", ["mean", "adaptive"])
@pytest.mark.parametrize("K", SETS, ids=lambda K: type(K).__name__)
def test_stacked_tree_equals_looped_single_copies(K, leaf_model):
    # a stack that mixed copies' statistics (a wrong row index in a scatter-add, histograms
    # shared across copies) would drift from the copy driven alone
    proto = learners.OnlineTree(K, lam=0.5, max_depth=3, n_bins=6, warmup=10, grace_period=7,
                                leaf_model=leaf_model, leaf_lr=0.5)
    n = 4
    stack = proto.stack(n, [1, 2, 3, 4])
    loop = [proto.clone() for _ in range(n)]
    for x, rng in _contexts(600, seed=3):
        P = stack.predict(x)
        assert P.shape == (n, K.dim)
        for i in range(n):
            np.testing.assert_allclose(P[i], loop[i].predict_one(x), rtol=0, atol=1e-12)
        # a different, feature-dependent gradient for every copy, so the trees differ
        G = rng.normal(scale=0.3, size=(n, K.dim)) + np.sign(x.get("f0", 0.0)) * np.arange(
            1, n + 1)[:, None] * np.linspace(1, -1, K.dim)
        stack.learn(x, G)
        for i in range(n):
            loop[i].learn_one(x, G[i])
    leaves = stack.n_leaves()
    assert leaves.max() > 1  # the trees did grow
    assert list(leaves) == [m.n_leaves for m in loop]


def test_stacked_regressor_equals_looped_single_copies():
    proto = learners.OnlineTreeRegressor(max_depth=2, n_bins=5, warmup=8, grace_period=6)
    n = 3
    stack = proto.stack(n)
    loop = [proto.clone() for _ in range(n)]
    for x, rng in _contexts(400, seed=5):
        np.testing.assert_allclose(stack.predict(x), [m.predict_one(x) for m in loop],
                                   rtol=0, atol=1e-12)
        y = (x.get("f1", 0.0) > 0.3) * np.array([1.0, -2.0, 0.5]) + rng.normal(0, 0.1, n)
        stack.learn(x, y)
        for i in range(n):
            loop[i].learn_one(x, y[i])
    assert stack.n_leaves().min() > 1


def _brute_force_split(X, y, thresholds):
    """Best (gain, feature, threshold) over every candidate, by direct partition."""
    best = (-np.inf, None, None)
    sse0 = ((y - y.mean()) ** 2).sum()
    for j in range(X.shape[1]):
        for theta in thresholds[j]:
            left = X[:, j] <= theta
            if left.sum() < _MIN_SIDE or (~left).sum() < _MIN_SIDE:
                continue
            sse = ((y[left] - y[left].mean()) ** 2).sum() + ((y[~left] - y[~left].mean()) ** 2
                                                               ).sum()
            if sse0 - sse > best[0] + 1e-9:
                best = (sse0 - sse, j, theta)
    return best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_first_split_equals_brute_force(seed):
    # the root's split must be the exact best among its candidates over the samples it binned
    # (an off-by-one in the bin <-> threshold convention, or cumulative sums on the wrong side,
    # picks a neighbouring threshold)
    rng = np.random.default_rng(seed)
    warmup, grace, T = 20, 60, 60
    X = rng.uniform(size=(T, 3))
    y = np.where(X[:, 1] > 0.37 + 0.1 * seed, 1.0, -1.0) + 0.3 * X[:, 2] + rng.normal(0, .2, T)
    reg = learners.OnlineTreeRegressor(max_depth=1, n_bins=8, warmup=warmup,
                                       grace_period=grace, split_confidence=0.5)
    for row, target in zip(X[:grace], y[:grace]):
        reg.learn_one({"a": row[0], "b": row[1], "c": row[2]}, float(target))
    core = reg._stack._core
    thresholds = [core._thr[j][np.isfinite(core._thr[j])] for j in range(3)]
    # the histograms hold the samples after the warm-up, the first check is at grace_period
    gain, j, theta = _brute_force_split(X[warmup:grace], y[warmup:grace], thresholds)
    assert core._feat[0, 0] == j
    assert core._thr[j, core._split[0, 0]] == pytest.approx(theta)
    # the children start from the parent's side means, known exactly
    left = X[warmup:grace, j] <= theta
    np.testing.assert_allclose(core._leaf_n[0, 1:3], [left.sum(), (~left).sum()])
    np.testing.assert_allclose(core._leaf_s[0, 1, 0], y[warmup:grace][left].sum())


@pytest.mark.parametrize("K", SETS, ids=lambda K: type(K).__name__)
def test_predictions_stay_in_K_for_any_gradients(K):
    rng = np.random.default_rng(0)
    stack = learners.OnlineTree(K, lam=0.01, max_depth=2, warmup=5, grace_period=5).stack(3)
    for t in range(300):
        x = {"a": float(rng.normal(scale=10.0 ** rng.integers(-3, 6))), "b": float(t % 3)}
        P = stack.predict(x)
        assert np.all(np.isfinite(P)) and np.all(K.contains(P))
        stack.learn(x, rng.normal(scale=10.0 ** rng.integers(-3, 4), size=(3, K.dim)))
    for x in ({"a": 1e300}, {"a": -1e300, "b": 1e-300}, {}, {"new": 5.0}):
        P = stack.predict(x)
        assert np.all(np.isfinite(P)) and np.all(K.contains(P))


def _mse(model, data):
    errors = []
    for x, y in data:
        errors.append((model.predict_one(x) - y) ** 2)
        model.learn_one(x, y)
    return float(np.mean(errors[len(errors) // 2:]))


def test_tree_learns_a_tree_shaped_stream():
    # y depends on two features through a depth-2 tree; a learner that never splits (or
    # predicts the leaf means of the wrong side) stays at the variance of y
    rng = np.random.default_rng(4)
    data = []
    for _ in range(3000):
        x = {f"x{j}": float(rng.uniform()) for j in range(4)}
        y = (2.0 if x["x0"] > 0.5 else -1.0) + (1.0 if x["x2"] > 0.3 else 0.0)
        data.append((x, y + float(rng.normal(0, 0.1))))
    variance = float(np.var([y for _, y in data[1500:]]))
    mse = _mse(learners.OnlineTreeRegressor(max_depth=2), data)
    assert mse < 0.05 * variance


def test_linear_leaves_fit_a_piecewise_linear_stream():
    # y is linear in x1 on each side of x0 (0 or 1): mean leaves leave the slope as error, linear
    # leaves (normalised LMS) remove it; adaptive leaves do at least as well as mean ones
    rng = np.random.default_rng(6)
    data = []
    for _ in range(3000):
        x = {"x0": float(rng.integers(2)), "x1": float(rng.normal())}
        y = (2.0 + x["x1"]) if x["x0"] > 0.5 else (-2.0 - x["x1"])
        data.append((x, y + float(rng.normal(0, 0.05))))
    mse = {m: _mse(learners.OnlineTreeRegressor(max_depth=1, leaf_model=m, leaf_lr=0.5), data)
           for m in ("mean", "linear", "adaptive")}
    assert mse["linear"] < 0.1 * mse["mean"]
    assert mse["adaptive"] < 0.2 * mse["mean"]


def test_boosted_trees_beat_one_tree_on_a_stump_mixture():
    # a sum of five stumps is additive: depth-2 trees boosted should beat one depth-2 tree
    data = list(StumpMixture(n_features=5, n_stumps=5, noise=0.1, seed=1).take(4000))

    def booster(n):
        return BoOCO(learners.OnlineTree(max_depth=2), n_learners=n, gamma=0.02,
                     step_size=0.01, delta=0.01, decision_set=sets.Interval(-1.0, 1.0),
                     aggregate=False)  # Algorithm 1 itself: the trees' boosting, no aggregate

    one, ten = _mse(booster(1), data), _mse(booster(10), data)
    assert ten < 0.7 * one


@pytest.mark.parametrize("bad", [{"a": float("nan")}, {"a": float("inf")}, {"a": "1.0"},
                                 {"a": None}, [1.0]])
def test_bad_x_raises_naming_x_and_leaves_state_unchanged(bad):
    model = learners.OnlineTree(max_depth=2, warmup=5, grace_period=5)
    for t in range(30):
        model.learn_one({"a": float(t % 7), "b": 1.0}, np.array([float(t % 7 > 3) - 0.5]))
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="x"):
        model.learn_one(bad, np.array([0.1]))
    with pytest.raises(ValueError, match="x"):
        model.predict_one(bad)
    assert pickle.dumps(model) == before


def test_bad_gradient_raises_and_leaves_state_unchanged():
    stack = learners.OnlineTree(sets.Simplex(3)).stack(2)
    stack.learn({"a": 1.0}, np.ones((2, 3)))
    before = pickle.dumps(stack)
    for G in (np.ones((2, 2)), np.ones((3, 3)), np.full((2, 3), np.nan), np.full((2, 3), 1e308)):
        with pytest.raises(ValueError, match="g"):  # 1e308: its leaf sums would overflow
            stack.learn({"a": 1.0, "new": 2.0}, G)
    assert pickle.dumps(stack) == before


def test_pickle_roundtrip_continues_identically():
    model = learners.OnlineTreeRegressor(max_depth=2, warmup=5, grace_period=5)
    data = list(StumpMixture(n_features=3, seed=2).take(400))
    for x, y in data[:200]:
        model.learn_one(x, y)
    twin = pickle.loads(pickle.dumps(model))
    for x, y in data[200:]:
        assert twin.predict_one(x) == model.predict_one(x)
        model.learn_one(x, y)
        twin.learn_one(x, y)


@pytest.mark.parametrize("kwargs, name", [
    ({"max_depth": 0}, "max_depth"), ({"n_bins": 1}, "n_bins"), ({"warmup": 0}, "warmup"),
    ({"grace_period": True}, "grace_period"), ({"split_confidence": 0.0}, "split_confidence"),
    ({"split_confidence": 1.01}, "split_confidence"),
    ({"max_features": 0}, "max_features"), ({"lam": -1.0}, "lam"),
    ({"leaf_model": "ols"}, "leaf_model"), ({"leaf_lr": 2.5}, "leaf_lr"),
    ({"decision_set": "simplex"}, "decision_set"),
])
def test_constructor_rejects_bad_parameters(kwargs, name):
    with pytest.raises(ValueError, match=name):
        learners.OnlineTree(**kwargs)


def test_state_is_bounded_under_ever_new_feature_names():
    model = learners.OnlineTreeRegressor(max_depth=2, warmup=5, grace_period=5, max_features=20)
    for t in range(200):
        model.learn_one({f"f{t}": 1.0, "a": float(t % 5)}, float(t % 5 > 2))
    core = model._stack._core
    assert len(core._index) == 20 and core._cap == 20
    assert model.predict_one({"a": 4.0}) == pytest.approx(1.0, abs=0.05)


@pytest.mark.parametrize("K", SETS, ids=lambda K: type(K).__name__)
def test_features_up_to_the_largest_double_keep_answers_and_state_finite(K):
    # x = +-1e308 overflows |x|^2 and W x: a linear leaf that stepped on it would hold NaN
    # forever after, and a projection of a huge leaf value leaves K
    import warnings

    rng = np.random.default_rng(0)
    stack = learners.OnlineTree(K, warmup=5, grace_period=5).stack(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for t in range(300):
            big = float(rng.choice([1e308, -1e308, 1e-308, 0.0, rng.normal()]))
            x = {"a": big, "b": float(rng.normal()), "c": float(t % 4)}
            P = stack.predict(x)
            assert np.all(np.isfinite(P)) and np.all(K.contains(P))
            stack.learn(x, rng.normal(size=(3, K.dim)) + (x["c"] - 1.5))
    core = stack._core
    assert np.isfinite(core._W).all() and np.isfinite(core._err).all()
    assert np.isfinite(core._leaf_s).all() and stack.n_leaves().max() > 1


def test_a_value_at_a_threshold_goes_left_in_the_histograms_the_split_and_predict():
    # integers in the warm-up make half-integer thresholds; later samples sit exactly on them
    # (x_j <= theta_k is bin_j <= k: a value at theta_k is on the left). Counting thresholds
    # at or below the value (<= for <) moves those samples right: a different split and
    # different side means, and predict sends the threshold itself right
    rng = np.random.default_rng(4)
    warmup, grace = 10, 80
    reg = learners.OnlineTreeRegressor(max_depth=1, n_bins=8, warmup=warmup,
                                       grace_period=grace, split_confidence=0.5)
    X = np.concatenate([rng.integers(0, 6, size=(warmup, 2)).astype(float),
                        rng.integers(0, 11, size=(grace - warmup, 2)) / 2.0])
    y = np.where(X[:, 0] <= 2.5, -1.0, 1.0) + np.where(X[:, 0] == 2.5, 3.0, 0.0)
    y = y + rng.normal(0, 0.1, grace)
    for row, target in zip(X, y):
        reg.learn_one({"a": row[0], "b": row[1]}, float(target))
    core = reg._stack._core
    thresholds = [core._thr[j][np.isfinite(core._thr[j])] for j in range(2)]
    assert 2.5 in thresholds[0] and np.sum(X[warmup:, 0] == 2.5) >= 3
    gain, j, theta = _brute_force_split(X[warmup:], y[warmup:], thresholds)
    assert (core._feat[0, 0], core._thr[j, core._split[0, 0]]) == (j, theta)
    left = X[warmup:, j] <= theta
    np.testing.assert_allclose(core._leaf_s[0, 1:3, 0],
                               [y[warmup:][left].sum(), y[warmup:][~left].sum()])
    at, below = {"a": theta, "b": 0.0}, {"a": theta - 0.25, "b": 0.0}
    assert j == 0 and reg.predict_one(at) == reg.predict_one(below)


def test_predictions_of_different_contexts_in_a_row_are_each_their_own():
    # a predict caches its context's leaves until the next learn: a second, different
    # context must not get the first one's
    reg = learners.OnlineTreeRegressor(max_depth=2, n_bins=5, warmup=8, grace_period=6)
    for x, rng in _contexts(300, seed=6):
        reg.learn_one(x, 2.0 * (x.get("f0", 0.0) > 0) + rng.normal(0, 0.1))
    queries = [{"f0": -1.0, "f1": 0.0}, {"f0": 1.0, "f1": 0.0}, {"f0": -1.0, "f1": 0.0}]
    fresh = [pickle.loads(pickle.dumps(reg)).predict_one(q) for q in queries]
    assert fresh[0] != fresh[1]
    assert [reg.predict_one(q) for q in queries] == fresh


def test_a_linear_part_that_overflows_counts_as_zero():
    # W x beyond the largest double (inf, or NaN where the signs cancel) is dropped: the leaf
    # answers its mean, as documented; clipping inf to +-1e100 instead, or keeping NaN,
    # answers something else
    reg = learners.OnlineTreeRegressor(max_depth=1, warmup=5, grace_period=1000,
                                       leaf_model="linear", leaf_lr=0.5)
    rng = np.random.default_rng(0)
    for _ in range(200):
        a, b = rng.normal(size=2)
        reg.learn_one({"a": a, "b": b}, 3.0 * a + 3.0 * b + 1.0)
    core = reg._stack._core
    W = core._W.reshape(-1, core._cap, 1)[0, :2, 0]
    assert W[0] > 1.0 and W[1] > 1.0  # 1e308 on both overflows W x, one on each side: NaN
    mean = core._leaf_s[0, 0, 0] / core._leaf_n[0, 0]
    for x in ({"a": 1e308, "b": 1e308}, {"a": -1e308, "b": -1e308}, {"a": 1e308, "b": -1e308}):
        assert reg.predict_one(x) == pytest.approx(mean, rel=1e-12)


def _split_oracle(X, y, warmup, thresholds, delta):
    """Whether the root splits at its first check, written out from the docstring: the best
    gain over the histogrammed samples (after the warm-up) against sigma^2 chi2_d(1 - delta/m),
    sigma^2 a coordinate from every sample the root saw, m the candidates with 5 samples a
    side; `y` `(n,)` or `(n, d)`."""
    from scipy import stats

    Y = y.reshape(len(y), -1)
    d = Y.shape[1]
    Xh, Yh = X[warmup:], Y[warmup:]

    def sse(rows):
        return ((rows - rows.mean(axis=0)) ** 2).sum()

    gains = []
    for j in range(X.shape[1]):
        for theta in thresholds[j]:
            left = Xh[:, j] <= theta
            if left.sum() >= _MIN_SIDE and (~left).sum() >= _MIN_SIDE:
                gains.append(sse(Yh) - sse(Yh[left]) - sse(Yh[~left]))
    if not gains:
        return False
    best, m, n = max(gains), len(gains), len(Y)
    sigma2 = max(sse(Y) - best, 0.0) / (max(n - 2, 1) * d)
    return best > sigma2 * stats.chi2.isf(delta / m, d) and best > 1e-12 * (Y ** 2).sum()


def _root_splits(X, y, warmup, n_bins, delta):
    """The root's decision at its first check (grace period = the samples) and the
    thresholds: an `OnlineTreeRegressor` for `y` `(n,)`, an `OnlineTree` on a wide box for
    `y` `(n, d)` (fed the gradient -y at the centroid 0, so its targets are y)."""
    params = dict(max_depth=1, n_bins=n_bins, warmup=warmup, grace_period=len(y),
                  split_confidence=delta)
    if y.ndim == 1:
        model = learners.OnlineTreeRegressor(**params)
        targets = y
    else:
        d = y.shape[1]
        model = learners.OnlineTree(sets.Box([-1e3] * d, [1e3] * d), lam=1.0, **params)
        targets = -y
    for row, target in zip(X, targets):
        model.learn_one(dict(zip("abc", row)), target)
    core = model._stack._core
    thresholds = [core._thr[j][np.isfinite(core._thr[j])] for j in range(X.shape[1])]
    return model._stack.n_leaves()[0] == 2, thresholds


@pytest.mark.parametrize("delta, n_bins, p, d", [(1e-3, 6, 2, 0), (0.2, 6, 2, 0), (0.05, 2, 1, 0),
                                                 (0.01, 6, 2, 3)])
def test_the_split_decision_is_the_chi_square_rule_with_bonferroni(delta, n_bins, p, d):
    # amplitudes across the noise level: both decisions occur, each the rule's; then, for
    # fixed draws, the amplitude where the rule's decision flips (found by bisection on the
    # oracle) flips the tree's too, within 1e-6: a threshold off by any factor (the chi-square
    # quantile, no division by the m candidates, the variance from the histogram alone or
    # over n - 3 or n + 2 instead of n - 2) moves it. n_bins = 2 on one feature: m = 1;
    # d = 3 targets (d = 0: one scalar target): chi-square with 3 degrees, sigma^2 over 3
    rng = np.random.default_rng(7)
    warmup, grace = 12, 60
    shape = (grace,) if d == 0 else (grace, d)
    outcomes = []
    for amplitude in np.linspace(0.0, 2.5, 40):
        X = rng.uniform(size=(grace, p))
        step = (X[:, 0] > 0.5).astype(float).reshape(-1, *[1] * (len(shape) - 1))
        y = amplitude * step + rng.normal(0.0, 1.0, shape)
        split, thresholds = _root_splits(X, y, warmup, n_bins, delta)
        want = _split_oracle(X, y, warmup, thresholds, delta)
        assert split == want, amplitude
        outcomes.append(want)
    assert 4 <= sum(outcomes) <= 36  # both decisions, several times each
    for _ in range(3):
        X = rng.uniform(size=(grace, p))
        step = (X[:, 0] > 0.5).astype(float).reshape(-1, *[1] * (len(shape) - 1))
        noise = rng.normal(0.0, 1.0, shape)
        thresholds = _root_splits(X, noise, warmup, n_bins, delta)[1]  # (from X alone)
        lo, hi = 0.0, 4.0
        assert not _split_oracle(X, noise, warmup, thresholds, delta)
        assert _split_oracle(X, hi * step + noise, warmup, thresholds, delta)
        while hi - lo > 1e-6 * hi:
            mid = 0.5 * (lo + hi)
            if _split_oracle(X, mid * step + noise, warmup, thresholds, delta):
                hi = mid
            else:
                lo = mid
        assert not _root_splits(X, lo * step + noise, warmup, n_bins, delta)[0]
        assert _root_splits(X, hi * step + noise, warmup, n_bins, delta)[0]


def test_a_candidate_with_exactly_five_samples_a_side_is_valid():
    # integer warm-up values fix thresholds at the half-integers; five samples at 0 then the
    # rest at 5: the only candidates with a left side hold exactly five samples
    for few, side in ((0.0, 1), (5.0, 2)):  # five on the left, then five on the right
        reg = learners.OnlineTreeRegressor(max_depth=1, n_bins=6, warmup=6, grace_period=30,
                                           split_confidence=0.01)
        xs = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] + [few] * 5 + [5.0 - few] * 19
        for i, a in enumerate(xs):
            reg.learn_one({"a": a}, (4.0 if a == few else 0.0) + 0.01 * (i % 3))
        core = reg._stack._core
        assert reg._stack.n_leaves()[0] == 2 and core._leaf_n[0, side] == 5


def test_a_feature_that_appears_late_warms_up_on_its_own_first_values():
    # each feature's thresholds come from its own first `warmup` values (0 while it is missing
    # from a dict), counted from the sample that first names it
    from learners.stump import warmup_thresholds

    rng = np.random.default_rng(9)
    reg = learners.OnlineTreeRegressor(max_depth=2, n_bins=4, warmup=10, grace_period=10)
    a_values, b_values = [], []
    for t in range(60):
        x = {"a": float(rng.normal())}
        if t >= 25:
            x["b"] = float(rng.normal())
            b_values.append(x["b"])
        a_values.append(x["a"])
        reg.learn_one(x, x["a"])
    core = reg._stack._core
    assert core._ready[:2].all() and core._n_ready == 2
    for j, values in enumerate((a_values, b_values)):
        theta = warmup_thresholds(values[:10], 4)
        np.testing.assert_array_equal(core._thr[j, :len(theta)], theta)


def test_the_stacks_defaults_are_the_learners():
    import inspect

    for stack, learner in ((learners.TreeStack, learners.OnlineTree),
                           (learners.TreeRegressorStack, learners.OnlineTreeRegressor)):
        mine = inspect.signature(stack).parameters
        theirs = inspect.signature(learner).parameters
        shared = set(mine) & set(theirs) - {"n"}
        assert {"max_depth", "leaf_lr", "split_confidence", "warmup"} <= shared
        for name in shared:
            assert mine[name].default == theirs[name].default, (stack.__name__, name)


def test_the_documented_defaults():
    # OnlineTree's docstring: max_depth=3, n_bins=16, warmup=64, grace_period=32,
    # split_confidence=1e-3, leaf_model="adaptive", leaf_lr=0.1 (issue 11's rule); lam 1,
    # K = [-1, 1], 1,000 feature names
    want = dict(lam=1.0, max_depth=3, n_bins=16, warmup=64, grace_period=32,
                split_confidence=1e-3, max_features=1_000, leaf_model="adaptive", leaf_lr=0.1)
    tree = learners.OnlineTree()
    assert {k: getattr(tree, k) for k in want} == want and tree.decision_set is None
    core = tree._stack._core
    assert (core.max_depth, core.n_bins, core.warmup, core.grace_period) == (3, 16, 64, 32)
    assert (core.split_confidence, core.leaf_model, core.leaf_lr) == (1e-3, "adaptive", 0.1)
    assert core._index.max_features == 1_000
    np.testing.assert_array_equal(tree.predict_one({"a": 1.0}), [0.0])  # mu of [-1, 1]


def test_the_smallest_settings_are_taken():
    # a check after every sample, delta = 1, two bins, depth 1, a step of 2 and one feature
    # name: the edges of every range are accepted and still learn (a two-value warm-up: its
    # midpoint is the one threshold)
    reg = learners.OnlineTreeRegressor(max_depth=1, n_bins=2, warmup=2, grace_period=1,
                                       split_confidence=1.0, leaf_lr=2.0, max_features=1)
    rng = np.random.default_rng(0)
    for t in range(60):
        a = (-1.0, 1.0)[t] if t < 2 else float(rng.normal())
        reg.learn_one({"a": a, "ignored": 1.0}, 1.0 if a > 0 else -1.0)
    assert reg._stack.n_leaves()[0] == 2 and reg._stack._core._thr[0, 0] == 0.0
    assert reg.predict_one({"a": 1.0}) > 0.5 > -0.5 > reg.predict_one({"a": -1.0})
    # a one-value warm-up is accepted and, as OnlineStump's, places no midpoint: no split
    one = learners.OnlineTreeRegressor(max_depth=1, n_bins=2, warmup=1, grace_period=1)
    for a in (0.0, 1.0, -1.0, 2.0, -2.0, 1.0, -1.0, 2.0, -2.0, 1.0, -1.0, 3.0, -3.0):
        one.learn_one({"a": a}, a)
    assert one._stack._core._ready[0] and one._stack.n_leaves()[0] == 1
