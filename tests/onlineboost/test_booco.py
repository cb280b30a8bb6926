"""BoOCO (Algorithm 1): invariants, exactness of the vectorised chain, learning, bad input."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from river import base, compose, evaluate, metrics, preprocessing

import learners
from onlineboost import BoOCO, BoOCOClassifier, losses, sets
from onlineboost.extension import Extension


def random_stream(n, d_context, rng):
    for _ in range(n):
        yield {f"c{j}": float(v) for j, v in enumerate(rng.normal(size=d_context))}


def y_for(loss, K, rng):
    if isinstance(loss, losses.Linear):
        return rng.normal(size=K.dim)
    if isinstance(loss, (losses.Logistic, losses.Hinge)):
        return float(rng.choice([-1.0, 1.0]))
    return K.sample(1, rng)[0] + rng.normal(scale=0.5, size=K.dim)


CASES = [
    (sets.Interval(-1.0, 1.0), losses.Squared()),
    (sets.Interval(-2.0, 3.0), losses.Logistic()),
    (sets.Interval(-1.0, 1.0), losses.Hinge()),
    (sets.Box([0.0, -1.0], [1.0, 1.0]), losses.Huber(0.5)),
    (sets.Box([0.0, -1.0], [1.0, 1.0]), losses.Absolute()),
    (sets.Ball([0.0, 0.0, 0.0], 1.0), losses.Squared()),
    (sets.Simplex(4), losses.Linear()),
    (sets.CappedSimplex(4, 0.4), losses.Linear()),
]


@pytest.mark.parametrize("K, loss", CASES, ids=lambda v: type(v).__name__)
@pytest.mark.parametrize("gamma, n_learners", [(0.05, 1), (0.3, 3), (1.0, 8)])
def test_actions_always_in_K(K, loss, gamma, n_learners):
    rng = np.random.default_rng(0)
    model = BoOCO(learners.LinearOGD(lr=1.0), n_learners=n_learners, gamma=gamma, loss=loss,
                  decision_set=K, seed=0)
    for x in random_stream(150, 3, rng):
        a = np.atleast_1d(model.predict_one(x))
        assert a.shape == (K.dim,) and np.all(np.isfinite(a))
        assert K.contains(a)
        model.learn_one(x, y_for(loss, K, rng))


def test_chain_matches_algorithm_1_line_by_line():
    """The one-product iterates and gradients equal a literal loop over steps 4-11."""
    rng = np.random.default_rng(1)
    K, loss = sets.Box([-1.0, 0.0], [1.0, 2.0]), losses.Huber(0.7)
    model = BoOCO(learners.LinearOGD(), n_learners=6, gamma=0.3, step_size=0.2, delta=0.4,
                  kappa=1.5, decision_set=K, loss=loss)
    for x in random_stream(30, 2, rng):
        W = model._copies.predict(x)
        mu, gamma, eta = K.centroid, 0.3, 0.2
        xi = [mu]
        for i in range(6):
            xi.append((1 - eta) * xi[-1] + eta * mu + eta / gamma * (W[i] - mu))
        np.testing.assert_allclose(model.predict_one(x), K.project(xi[-1]), atol=1e-12)
        y = rng.normal(size=2)
        ext = Extension(loss, K, delta=0.4, kappa=1.5)
        expected = np.stack([ext.gradient(xi[i], y) for i in range(6)])
        seen, real_learn = [], model._copies.learn
        # the spy forwards to the real learn, so the copies leave mu and the chain is exercised
        model._copies.learn = lambda x_, G: (seen.append(G.copy()), real_learn(x_, G))
        model.learn_one(x, y)
        np.testing.assert_allclose(seen[0], expected, atol=1e-12)
        del model._copies.learn
    assert np.abs(W - mu).max() > 0.1  # the weak learners have learnt: iterates differ from mu


class NoStack(base.Base):
    """Hides a learner's `stack`, so BoOCO must drive its copies in a loop."""

    def __init__(self, inner):
        self.inner = inner

    def predict_one(self, x):
        return self.inner.predict_one(x)

    def learn_one(self, x, g):
        self.inner.learn_one(x, g)


def test_stacked_and_looped_copies_agree():
    rng = np.random.default_rng(2)
    stacked = BoOCO(learners.LinearOGD(lr=0.5), n_learners=5, gamma=0.2)
    looped = BoOCO(NoStack(learners.LinearOGD(lr=0.5)), n_learners=5, gamma=0.2)
    for x in random_stream(200, 4, rng):
        assert stacked.predict_one(x) == pytest.approx(looped.predict_one(x), abs=1e-12)
        y = float(rng.uniform(-1, 1))
        stacked.learn_one(x, y)
        looped.learn_one(x, y)


def test_staged_predictions_equal_smaller_boosters():
    rng = np.random.default_rng(3)
    big = BoOCO(learners.OnlineRidge(), n_learners=4, gamma=0.5, step_size=0.3, delta=0.1)
    small = [BoOCO(learners.OnlineRidge(), n_learners=k, gamma=0.5, step_size=0.3, delta=0.1,
                   aggregate=False) for k in range(1, 5)]
    for x in random_stream(100, 3, rng):
        staged = big.staged_predict_one(x)
        np.testing.assert_allclose(staged, [m.predict_one(x) for m in small], atol=1e-10)
        y = float(np.tanh(x["c0"] - x["c1"]))
        for m in (big, *small):
            m.learn_one(x, y)


def test_same_seed_same_predictions():
    def run(seed):
        rng = np.random.default_rng(4)
        model = BoOCO(learners.TinyMLP(), n_learners=4, gamma=0.3, step_size=0.3, seed=seed) \
            if hasattr(learners, "TinyMLP") else BoOCO(learners.LinearOGD(), n_learners=4)
        out = []
        for x in random_stream(100, 3, rng):
            out.append(model.predict_one(x))
            model.learn_one(x, float(np.sin(x["c0"])))
        return np.array(out)

    np.testing.assert_array_equal(run(7), run(7))


def test_works_in_a_river_pipeline_with_progressive_validation():
    from river import datasets

    model = compose.Pipeline(preprocessing.StandardScaler(),
                             BoOCOClassifier(learners.LinearOGD(), n_learners=3))
    metric = evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    assert metric.get() > 0.8


def test_classifier_probabilities():
    rng = np.random.default_rng(5)
    model = BoOCOClassifier(learners.LinearOGD(lr=0.5), n_learners=3, bound=3.0)
    correct = 0
    for i, x in enumerate(random_stream(600, 2, rng)):
        y = x["c0"] + 0.5 * x["c1"] > 0
        proba = model.predict_proba_one(x)
        assert proba[True] + proba[False] == pytest.approx(1.0)
        correct += (i >= 300) and (model.predict_one(x) == y)
        model.learn_one(x, y)
    assert correct / 300 > 0.85  # chance is 0.5


BAD_INPUTS = [
    ({"c0": float("nan"), "c1": 0.0}, 0.5, "x"),
    ({"c0": float("inf"), "c1": 0.0}, 0.5, "x"),
    ({"c0": "a", "c1": 0.0}, 0.5, "x"),
    ({"c0": 1.0, "c1": 0.0}, float("nan"), "y"),
    ({"c0": 1.0, "c1": 0.0}, float("-inf"), "y"),
]


@pytest.mark.parametrize("x, y, match", BAD_INPUTS)
def test_bad_input_raises_and_leaves_state_unchanged(x, y, match):
    rng = np.random.default_rng(6)
    model = BoOCO(learners.LinearOGD(), n_learners=3, gamma=0.5)
    for xx in random_stream(20, 2, rng):
        model.learn_one(xx, 0.3)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match=match):
        model.learn_one(x, y)
    assert pickle.dumps(model) == before
    if match == "x":
        with pytest.raises(ValueError, match="x"):
            model.predict_one(x)


def test_classifier_rejects_unknown_labels():
    model = BoOCOClassifier(learners.LinearOGD(), n_learners=2)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="y"):
        model.learn_one({"a": 1.0}, "maybe")
    assert pickle.dumps(model) == before


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_learners": 0}, "n_learners"),
        ({"n_learners": 2.5}, "n_learners"),
        ({"gamma": 0.0}, "gamma"),
        ({"gamma": 1.5}, "gamma"),
        ({"step_size": 0.0}, "step_size"),
        ({"step_size": "fast"}, "step_size"),
        ({"delta": -1.0}, "delta"),
        ({"kappa": float("nan")}, "kappa"),
        ({"lam": 0.0}, "lam"),
        ({"decision_set": (0, 1)}, "decision_set"),
        ({"loss": "squared"}, "loss"),
    ],
)
def test_invalid_parameters_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        BoOCO(**kwargs)


def test_predict_before_learning_is_the_centroid():
    K = sets.Box([0.0, 2.0], [1.0, 4.0])
    model = BoOCO(learners.LinearOGD(), n_learners=3, decision_set=K)
    np.testing.assert_allclose(model.predict_one({"a": 1.0}), K.centroid)


def _progressive_losses(model, stream):
    out = []
    for x, y in stream:
        out.append((model.predict_one(x) - y) ** 2)
        model.learn_one(x, y)
    return np.array(out)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_boosting_beats_one_stump_on_a_stump_mixture(seed):
    """The target is a convex combination of stumps: BoOCO over N >= 5 online stumps must cut
    the average squared loss of one online stump by at least 20%."""
    from streams import StumpMixture

    stream = list(StumpMixture(n_features=4, n_stumps=4, seed=seed).take(3000))
    single = _progressive_losses(learners.OnlineStump(), stream).mean()
    boosted = _progressive_losses(
        BoOCO(learners.OnlineStump(), n_learners=12, gamma=1.0, step_size="frank-wolfe",
              delta=0.01, lam=0.05), stream).mean()
    # measured ratios for seeds 1..6: 0.66, 0.63, 0.30, 0.18, 0.90, 0.70 (seed 5's mixture is
    # dominated by one stump, which a single stump already fits)
    assert boosted <= 0.8 * single


def test_average_regret_against_the_generating_combination_falls():
    from streams import StumpMixture

    stream = StumpMixture(n_features=4, n_stumps=4, seed=4)  # noiseless: the comparator's loss is 0
    pairs = list(stream.take(4000))
    assert all(y == pytest.approx(stream.predict(x)) for x, y in pairs[:50])
    model = BoOCO(learners.OnlineStump(), n_learners=8, gamma=1.0, step_size="frank-wolfe",
                  delta=0.01, lam=0.05)
    regret = np.cumsum(_progressive_losses(model, pairs))  # minus sum of zeros
    averages = regret[[499, 999, 1999, 3999]] / np.array([500, 1000, 2000, 4000])
    assert np.all(np.diff(averages) < 0), averages


# -- hostile input (issue 14, items 11-16) ------------------------------------------------------


def _trained(model, n=30, y=0.3):
    rng = np.random.default_rng(11)
    for x in random_stream(n, 2, rng):
        model.learn_one(x, y)
    return model


@pytest.mark.parametrize("value", [10**400, 1j, None, "1.5", b"1", True, np.bool_(True),
                                   "decimal", [1.0, 2.0], float("nan")])
@pytest.mark.parametrize("where", ["x", "y"])
def test_non_real_values_are_refused_naming_the_argument(value, where):
    import decimal

    if value == "decimal":
        value = decimal.Decimal("1.5")
    for model in (BoOCO(n_learners=3), BoOCO(learners.LinearOGD(), n_learners=3,
                                            decision_set=sets.Interval(-1, 1))):
        _trained(model)
        before = pickle.dumps(model)
        x, y = {"c0": 0.5, "c1": 0.1}, 0.2
        if where == "x":
            x = {"c0": value, "c1": 0.1}
            with pytest.raises(ValueError, match=r"x\['c0'\]"):
                model.predict_one(x)
        else:
            y = value
        with pytest.raises(ValueError, match=r"x\['c0'\]" if where == "x" else "y"):
            model.learn_one(x, y)
        assert pickle.dumps(model) == before


@pytest.mark.parametrize("loss", [losses.Absolute(), losses.Huber(1.0), losses.Squared()])
def test_wrong_shaped_y_is_refused_before_kappa_moves(loss):
    model = _trained(BoOCO(learners.LinearOGD(), n_learners=3, loss=loss,
                           decision_set=sets.Interval(-1, 1)))
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="y"):
        model.learn_one({"c0": 1.0, "c1": 0.0}, [50.0, 0.0, 0.0, 0.0])
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("loss", [losses.Absolute(), losses.Squared(), losses.Huber()])
def test_ball_refuses_a_two_dimensional_y(loss):
    model = BoOCO(learners.LinearOGD(), n_learners=2, loss=loss,
                  decision_set=sets.Ball([0.0, 0.0, 0.0], 1.0))
    model.learn_one({"a": 1.0}, [0.1, 0.2, 0.3])  # a point of R^3 is fine
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="y"):
        model.learn_one({"a": 1.0}, [[0.1, 0.2, 0.3], [0.1, 0.2, 0.3]])
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("K", [sets.Simplex(3), sets.CappedSimplex(3, 0.5),
                               sets.Ball([0.0, 0.0, 0.0], 1.0)])
def test_huge_context_gives_a_finite_action_in_K(K):
    model = BoOCO(learners.LinearOGD(), n_learners=3, decision_set=K, loss=losses.Linear())
    rng = np.random.default_rng(0)
    for _ in range(30):
        model.learn_one({"a": float(rng.normal())}, rng.normal(size=3))
    for v in (1e20, -1e20, 1e300, -1.7e308):
        a = model.predict_one({"a": v})
        assert np.all(np.isfinite(a)) and K.contains(a, atol=1e-9)
        model.learn_one({"a": v}, rng.normal(size=3))
        assert np.all(np.isfinite(model.predict_one({"a": 0.5})))


@pytest.mark.parametrize("kwargs, match", [
    ({"learner": "ridge"}, "learner"),
    ({"learner": 3}, "learner"),
    ({"n_learners": True}, "n_learners"),
    ({"n_learners": 2.7}, "n_learners"),
    ({"n_learners": np.bool_(True)}, "n_learners"),
    ({"gamma": True}, "gamma"),
    ({"gamma": 1e-300}, "gamma"),
    ({"delta": True}, "delta"),
    ({"delta": 1e-300}, "delta"),
    ({"kappa": True}, "kappa"),
    ({"kappa": 1e300}, "kappa"),
    ({"lam": True}, "lam"),
    ({"step_size": True}, "step_size"),
    ({"step_size": 1e-200}, "step_size"),
    ({"step_size": [0.5, 1e-200]}, "step_size"),
    ({"step_size": [0.5, 0.5, 0.5]}, "step_size"),
    ({"step_size": 1.2}, "step_size"),
    ({"step_size": [0.5, 1.01]}, "step_size"),
    ({"kappa": -0.1}, "kappa"),
    ({"seed": "abc"}, "seed"),
    ({"seed": -1}, "seed"),
    ({"seed": 1.5}, "seed"),
    ({"seed": True}, "seed"),
    ({"aggregate": 1}, "aggregate"),
])
def test_constructor_refuses_broken_parameters(kwargs, match):
    kwargs = {"n_learners": 2, **kwargs}
    with pytest.raises(ValueError, match=match):
        BoOCO(**kwargs)


def test_tiny_step_with_a_regressor_is_refused_not_broken():
    """step_size=1e-200 used to be accepted and overflow the reduction's targets (gamma/eta)."""
    with pytest.raises(ValueError, match="step_size"):
        BoOCO(learners.TinyMLP(), step_size=1e-200)
    with pytest.raises(ValueError, match="step_size"):
        BoOCO(learners.TinyMLP(), step_size=1e-9)
    with pytest.raises(ValueError, match="lam"):
        BoOCO(learners.TinyMLP(), lam=1e-9)


@pytest.mark.parametrize("vector", [True, False])
def test_iterates_with_points_gives_the_copies_points_the_rows_are_chained_from(vector):
    """`iterates(x, points=True)` is `(iterates(x), W)`: `W` the copies' own points (rows on
    the simplex), and the Frank-Wolfe recurrence z^i = (1 - eta_i) z^{i-1} + (eta_i / gamma)
    (W_i - mu), z^i = x^i - mu, z^0 = 0, transcribed, maps `W` to the same rows."""
    K = sets.Simplex(3)
    gamma = 0.5
    learner = (learners.FeaturePolicy(K, n_features=8) if vector
               else learners.LinearOGD(K))
    model = BoOCO(learner, n_learners=4, gamma=gamma, decision_set=K, loss=losses.Linear(),
                  seed=3)
    rng = np.random.default_rng(0)
    for _ in range(30):
        c = rng.normal(size=4)
        x = c if vector else {f"f{i}": float(v) for i, v in enumerate(c)}
        X, W = model.iterates(x, points=True)
        np.testing.assert_array_equal(X, model.iterates(x))
        assert W.shape == (4, 3)
        np.testing.assert_allclose(W.sum(axis=1), 1.0, atol=1e-12)
        assert W.min() >= 0.0
        mu, z = np.full(3, 1 / 3), np.zeros(3)
        for i in range(4):  # Frank-Wolfe steps eta_i = 2 / (i + 1), i from 1
            eta = 2.0 / (i + 2)
            z = (1 - eta) * z + (eta / gamma) * (W[i] - mu)
            np.testing.assert_allclose(X[i], mu + z, atol=1e-12)
        if vector:
            model.learn_iterates(x, X, rng.normal(size=3))
        else:
            model.learn_one(x, rng.normal(size=3))


@pytest.mark.parametrize("kwargs", [{"step_size": 1.0}, {"step_size": [1.0, 0.5]},
                                    {"kappa": 0.0}, {"gamma": 1.0}])
def test_parameters_at_the_edge_of_their_range_are_taken(kwargs):
    """eta_i = 1, kappa = 0 and gamma = 1 are in range: the model builds and learns."""
    model = BoOCO(learners.LinearOGD(), n_learners=2, decision_set=sets.Interval(-1.0, 1.0),
                  seed=0, **kwargs)
    model.learn_one({"a": 0.5}, 0.3)
    assert -1.0 <= model.predict_one({"a": 0.5}) <= 1.0


def test_kappa_none_is_the_running_maximum_of_the_gradient_bound():
    """`kappa=None`: kappa_t = max_{s <= t} G_s, G_s the loss's Lipschitz bound over K at
    y_s (|y_s| for the linear loss), from 0: not from any floor of its own."""
    K = sets.Simplex(3)
    model = BoOCO(learners.LinearOGD(K), n_learners=2, gamma=1.0, decision_set=K,
                  loss=losses.Linear(), seed=0)
    running = 0.0
    for y in ([0.1, 0.2, -0.2], [0.05, 0.0, 0.0], [0.3, -0.4, 0.0], [0.0, 0.1, 0.0]):
        model.learn_one({"a": 1.0}, np.array(y))
        running = max(running, float(np.linalg.norm(y)))
        assert model.parameters_in_use["kappa"] == pytest.approx(running, rel=1e-15)


def _record_gradients(model) -> list:
    """The gradients `G` (N, d) each round's copies learn, recorded as they pass (the copies'
    `learn` wrapped on the instance, which BoOCO respects)."""
    seen = []
    learn = model._copies.learn

    def spy(x, G):
        seen.append(np.array(G))
        return learn(x, G)

    model._copies.learn = spy
    return seen


@pytest.mark.parametrize("gamma, step_size", [(0.5, "frank-wolfe"), (0.8, [0.9, 0.4, 0.25]),
                                              (0.75, 0.5), (1.0, "theory")])
def test_a_regressor_copy_i_takes_the_gradient_scaled_by_gamma_over_eta_i(gamma, step_size):
    """With a regressor (the reduction with lam = 1) copy i is trained on step 4's gradient
    at x^{i-1} divided by lam_i = eta_i / gamma (`lam="auto"`), so that stage i adds its
    fitted residual at full size. Checked on a box, where step 4 runs on numpy: the
    gradients the copies receive, recorded, against the extension's own at BoOCO's
    iterates."""
    K = sets.Box([0.0, -1.0], [1.0, 1.0])
    model = BoOCO(learners.OnlineRidge(), n_learners=3, gamma=gamma, step_size=step_size,
                  decision_set=K, loss=losses.Squared(), kappa=2.0, seed=0)
    eta = model.parameters_in_use["eta"]
    ext = Extension(losses.Squared(), K, model.parameters_in_use["delta"], 2.0)
    seen = _record_gradients(model)
    rng = np.random.default_rng(2)
    for _ in range(6):
        x, y = {"a": float(rng.normal()), "b": float(rng.normal())}, rng.uniform(-1, 1, 2)
        X = model.iterates(x)
        model.learn_one(x, y)
        prev = np.vstack([K.centroid, X[:-1]])
        want = ext.gradient(prev, y) * (gamma / eta)[:, None]
        np.testing.assert_allclose(seen[-1], want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("K", [sets.Simplex(3), sets.Box([0.0, -1.0], [2.0, 1.0]),
                               sets.Interval(-1.0, 1.0)], ids=repr)
def test_iterates_follow_step_2s_recurrence(n, K):
    """x^i = mu + z^i, z^0 = 0, z^i = (1 - eta_i) z^{i-1} + (eta_i / gamma)(W_i - mu), for the
    copies' own points W_i (`points=True`), on sets centred off 0 (one copy's plain-float
    chain included) and at 0; `iterate_one` is the first row."""
    learner = (learners.RidgePolicy() if isinstance(K, sets.Simplex)
               else learners.LinearOGD(K, lr=0.5))
    loss = losses.Linear() if isinstance(K, sets.Simplex) else losses.Squared()
    model = BoOCO(learner, n_learners=n, gamma=0.6, step_size=0.4 if n == 1 else [0.9, 0.5, 0.3],
                  decision_set=K, loss=loss, seed=0)
    eta, mu = model.parameters_in_use["eta"], K.centroid
    rng = np.random.default_rng(4)
    vector = isinstance(K, sets.Simplex)
    for _ in range(5):
        c = rng.normal(size=2)
        x = c if vector else {"a": float(c[0]), "b": float(c[1])}
        X, W = model.iterates(x, points=True)
        z, want = np.zeros(K.dim), []
        for i in range(n):
            z = (1.0 - eta[i]) * z + (eta[i] / 0.6) * (W[i] - mu)
            want.append(mu + z)
        np.testing.assert_allclose(X, want, rtol=1e-12, atol=1e-15)
        if vector:
            np.testing.assert_allclose(model.iterate_one(x), want[0], rtol=1e-12, atol=1e-15)
        y = (rng.normal(size=K.dim) if vector else float(rng.uniform(-1, 1)) if K.dim == 1
             else rng.uniform(-1, 1, K.dim))
        model.learn_iterates(x, X, y)


def test_iterates_refuse_contexts_the_copies_cannot_take():
    """`iterates` on copies that take feature dicts only and do not check them (a regressor
    through the reduction): a float vector is refused by name, not sent to a method they
    lack, and a non-finite or non-numeric feature by its key, the model unchanged."""
    model = BoOCO(learners.OnlineRidge(), n_learners=2, seed=0)
    model.learn_one({"a": 0.5}, 0.3)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="x must be a dict"):
        model.iterates(np.array([0.5, 1.0]))
    for bad in (float("nan"), float("inf"), "x"):
        with pytest.raises(ValueError, match="x\\['a'\\]"):
            model.iterates({"a": bad})
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("kappa", [1.5, None])
def test_the_interval_paths_gradients_are_the_extensions(kappa):
    """The squared loss on an interval (BoOCO's regression round, in plain floats): copy i
    takes the gradient of the extension at x^{i-1}, the same as `Extension.gradient`'s (its
    prox of lam Dist with lam = delta kappa / (1 + delta)), with kappa the running maximum of
    the loss's Lipschitz bound over [lo, hi], max(|lo - y|, |hi - y|), under `kappa=None`.
    A small gamma sends the iterates well outside K, where the pull towards K acts."""
    K = sets.Interval(-1.0, 2.0)
    model = BoOCO(learners.LinearOGD(K, lr=2.0), n_learners=3, gamma=0.2,
                  step_size="frank-wolfe", decision_set=K, loss=losses.Squared(), delta=0.5,
                  kappa=kappa, seed=0)
    seen = _record_gradients(model)
    rng = np.random.default_rng(8)
    running, outside = 0.0, 0
    for _ in range(30):
        x, y = {"a": float(rng.normal())}, float(rng.uniform(-1.0, 2.0))
        X = model.iterates(x)
        model.learn_one(x, y)
        running = max(running, abs(-1.0 - y), abs(2.0 - y))
        k = running if kappa is None else kappa
        assert model.parameters_in_use["kappa"] == k
        prev = np.vstack([[K.centroid], X[:-1]]).reshape(-1, 1)
        want = Extension(losses.Squared(), K, 0.5, k).gradient(prev, y)
        np.testing.assert_allclose(seen[-1], want, rtol=1e-12, atol=1e-15)
        outside += int(np.sum(np.abs(prev - 0.5) > 1.5 + 0.5 * k / 1.5))
    assert outside > 10  # (the pull's case, beyond lam of K, was met)


def test_targets_in_any_numeric_form_are_the_same_target():
    """An int, a numpy scalar and a one-entry array are the float target they hold (the
    interval's path); a cost vector may be a list (the linear loss), but one of the wrong
    length is refused by name with the model unchanged."""
    states = []
    for y in (1, np.float64(1.0), np.array([1.0]), 1.0):
        model = BoOCO(learners.LinearOGD(), n_learners=2, decision_set=sets.Interval(-1, 1),
                      seed=0)
        model.learn_one({"a": 0.5}, y)
        model.learn_iterates({"a": 0.2}, model.iterates({"a": 0.2}), y)  # (the public round)
        states.append(model.predict_one({"a": 0.3}))
    assert len(set(states)) == 1
    K = sets.Simplex(3)
    a, b = (BoOCO(learners.LinearOGD(K), n_learners=2, decision_set=K, loss=losses.Linear(),
                  seed=0) for _ in range(2))
    a.learn_one({"a": 0.5}, [1, 0, 0])
    b.learn_one({"a": 0.5}, np.array([1.0, 0.0, 0.0]))
    assert pickle.dumps(a) == pickle.dumps(b)
    for bad in ([1.0, 0.0], [[1.0, 0.0, 0.0]], 1.0):
        with pytest.raises(ValueError, match="y must be a cost vector of length 3"):
            a.learn_one({"a": 0.5}, bad)
    assert pickle.dumps(a) == pickle.dumps(b)


def test_learn_iterates_needs_the_iterates_with_more_than_one_copy():
    """`learn_iterates(x, None, y)` is one copy's round (copy 1 learns at mu, as with its
    iterates); with two copies or more the iterates are needed, and their absence is refused
    by name."""
    for n in (2, 3):
        model = BoOCO(learners.LinearOGD(), n_learners=n, decision_set=sets.Interval(-1, 1),
                      seed=0)
        with pytest.raises(ValueError, match="X: the iterates"):
            model.learn_iterates({"a": 0.5}, None, 0.3)
    one, two = (BoOCO(learners.LinearOGD(), n_learners=1, decision_set=sets.Interval(-1, 1),
                      seed=0) for _ in range(2))
    one.learn_iterates({"a": 0.5}, None, 0.3)
    two.learn_iterates({"a": 0.5}, two.iterates({"a": 0.5}), 0.3)
    for v in (-1.0, 0.2, 3.0):
        assert one.iterates({"a": v}).tolist() == two.iterates({"a": v}).tolist()


@pytest.mark.parametrize("K", [None, sets.Interval(0.0, 3.0), sets.Box([0.0, -1.0], [1.0, 1.0])],
                         ids=["drop-in", "interval", "box"])
def test_the_aggregate_mixes_once_a_stage_leads_by_its_bound(K):
    """The aggregate plays the first copy until some stage's cumulative loss trails the first
    copy's by ln(1/pi_1)/eta = ln 2/eta (pi_1 = 1/2), and mixes from the next round on; the
    regret bounds it reports are ln 2/eta against the first copy and ln(4N)/eta + D^2/2
    against each stage, eta = 4/D^2 on an interval, 1/D^2 elsewhere."""
    n = 4
    model = BoOCO(n_learners=n, seed=0) if K is None else BoOCO(
        learners.LinearOGD(K, lr=0.5), n_learners=n, gamma=0.5, decision_set=K,
        loss=losses.Squared(), seed=0)
    interval = K is None or isinstance(K, sets.Interval)
    lo, hi = (-1.0, 1.0) if K is None else K.bounds if interval else (None, None)
    D = 2.0 if K is None else K.diameter  # (BoOCO()'s model units: K = [-1, 1])
    eta = (4.0 if interval else 1.0) / D ** 2
    rng = np.random.default_rng(6)
    switched = None
    for t in range(400):
        x = {"a": float(rng.normal()), "b": float(rng.normal())}
        y = (np.tanh(2 * x["a"]) * 3.0 if K is None
             else 1.5 + 1.5 * float(np.sign(x["a"])) if interval
             else np.array([float(x["a"] > 0.0), float(np.sign(x["b"]))]))
        before = model.aggregate_state
        if not before["mixing"]:  # the first copy's own point, in target units
            np.testing.assert_array_equal(model.aggregate_weights, np.eye(1, n + 1)[0])
            W = model.iterates(x, points=True)[1]
            c, h = model.target_units
            first = np.clip(W[0], lo, hi) if interval else K.project(W[0])
            np.testing.assert_allclose(np.ravel(model.predict_one(x)), np.ravel(c + h * first),
                                       rtol=1e-12, atol=1e-12)
        model.learn_one(x, y)
        state = model.aggregate_state
        assert state["eta"] == pytest.approx(eta, rel=1e-12)
        np.testing.assert_allclose(state["bound"], [math.log(2) / eta]
                                   + [math.log(4 * n) / eta + D ** 2 / 2] * n, rtol=1e-12)
        if not before["mixing"]:
            L = state["experts"]
            assert state["mixing"] == bool(np.max(L[0] - L) >= math.log(2) / eta)
            if state["mixing"]:
                switched = t
        else:
            assert state["mixing"]
            assert not np.allclose(model.aggregate_weights, np.eye(1, n + 1)[0])
            if interval:  # Vovk's substitution over the experts' points, by hand
                X, W = model.iterates(x, points=True)
                P = np.clip(np.r_[W[0, 0], X[:, 0]], lo, hi)
                w = model.aggregate_weights

                def g(y, P=P, w=w):
                    return -math.log(float(w @ np.exp(-eta * 0.5 * (P - y) ** 2))) / eta

                a = float(np.clip((lo + hi) / 2 + (g(lo) - g(hi)) / (hi - lo), lo, hi))
                assert max(0.5 * (a - lo) ** 2 - g(lo), 0.5 * (a - hi) ** 2 - g(hi)) < 1e-9
                c, h = model.target_units
                assert model.predict_one(x) == pytest.approx(c + h * a, rel=1e-9, abs=1e-12)
    assert switched is not None and switched > 0


def test_the_drop_in_regressors_steps_and_target_units():
    """`BoOCO()` is the drop-in regressor: a regressor through the reduction with the paper's
    experimental step, eta_i = gamma = 0.01 (lam_i = 1), on the running range of the targets
    (`target_units` follows it); an explicit decision set keeps the targets in its own units,
    and an OCO learner gets Frank-Wolfe steps with gamma = 1."""
    model = BoOCO(n_learners=3, seed=0)
    np.testing.assert_array_equal(model.parameters_in_use["eta"], [0.01] * 3)
    for y in (3.0, -5.0, 1.0):
        model.learn_one({"a": 0.5}, y)
    assert model.target_units == (-1.0, 4.0)  # [-5, 3] = [c - h, c + h]
    for ys, units in (((3.0,), (3.0, 3.0)), ((0.0,), (0.0, 1.0)), ((-2.0, -2.0), (-2.0, 2.0))):
        point = BoOCO(n_learners=2, seed=0)  # one target value so far: h = |c|, or 1 at 0
        for y in ys:
            point.learn_one({"a": 0.5}, y)
        assert point.target_units == units
    explicit = BoOCO(learners.LinearOGD(), n_learners=3, decision_set=sets.Interval(-1, 1),
                     seed=0)
    np.testing.assert_allclose(explicit.parameters_in_use["eta"], [1.0, 2 / 3, 0.5])
    for y in (3.0, -5.0):
        explicit.learn_one({"a": 0.5}, y)
    assert explicit.target_units == (0.0, 1.0)
