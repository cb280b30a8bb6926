"""BoOCOMultiClassifier against Algorithm 1 written out: the chain, the extension's gradients,
the cost-sensitive reduction, the linear copies' step and the two aggregates' bounds.

Every expectation is computed here from the weak learners' own outputs (spies that record what
they are taught), with `onlineboost.extension.Extension` (checked against a brute-force Moreau
envelope in `test_extension.py`) as the gradient's oracle and `sets.projection_simplex` (checked
against scipy in `test_sets.py`) as the projection's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from river import base

import learners
from onlineboost import BoOCOMultiClassifier, losses, sets
from onlineboost.extension import Extension


class Spy(base.Classifier):
    """A river classifier that predicts a fixed random softmax of the features over the labels
    it was taught (nothing before), times `scale` (not a distribution unless 1; 0: no opinion),
    and records every `learn_one` call as (x, y, w)."""

    def __init__(self, seed: int = 0, scale: float = 1.0):
        self.seed = seed
        self.scale = scale
        self.log: list = []
        self._labels: list = []
        self._rng = np.random.default_rng(seed)
        self._A: dict = {}

    def predict_proba_one(self, x: dict) -> dict:
        if not self._labels:
            return {}
        scores = []
        for label in self._labels:
            row = self._A.setdefault(label, self._rng.normal(size=2) * 2.0)
            scores.append(row[0] * x["u"] + row[1] * x["v"])
        e = np.exp(np.array(scores) - max(scores))
        return dict(zip(self._labels, (self.scale * e / e.sum()).tolist()))

    def learn_one(self, x: dict, y, w: float = 1.0) -> None:
        self.log.append((dict(x), y, w))
        if y not in self._labels:
            self._labels.append(y)


def stream(n: int, seed: int, labels=("a", "b", "c", "d")):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        u, v = rng.uniform(-1.0, 1.0, size=2)
        k = int(2 * (u > 0.2) + (v > -0.1))
        if rng.random() < 0.15:
            k = int(rng.integers(len(labels)))
        yield {"u": float(u), "v": float(v)}, labels[k % len(labels)]


def eta_sequence(step_size, N: int) -> np.ndarray:
    if step_size == "frank-wolfe":
        return np.array([2.0 / (i + 1) for i in range(1, N + 1)])
    if step_size == "theory":
        return np.array([min(2.0 / i, 1.0) for i in range(1, N + 1)])
    return np.full(N, float(step_size))


def chain(W: np.ndarray, eta: np.ndarray, gamma: float) -> np.ndarray:
    """Step 2 of Algorithm 1, one copy at a time: rows x^0, x^1, ..., x^N."""
    d = W.shape[1]
    mu = np.full(d, 1.0 / d)
    xs = [mu]
    for i in range(len(eta)):
        xs.append((1 - eta[i]) * xs[-1] + eta[i] * mu + eta[i] / gamma * (W[i] - mu))
    return np.array(xs)


def spy_rows(model: BoOCOMultiClassifier, x: dict, classes: list) -> np.ndarray:
    """Each copy's distribution over `classes` (uniform for a copy with no opinion)."""
    rows = []
    for copy in model._copies.models:
        proba = copy.predict_proba_one(x)
        row = np.array([proba.get(c, 0.0) for c in classes])
        rows.append(row / row.sum() if row.sum() > 0 else np.full(len(classes), 1 / len(classes)))
    return np.array(rows)


CASES = [
    (1.0, "weight", dict(n_learners=4, gamma=0.6, step_size=0.3, delta=0.25, weight_power=2.0)),
    (1.0, "poisson", dict(n_learners=3, gamma=0.7, step_size="frank-wolfe", delta="theory",
                          weight_power=1.0)),
    (1.0, "weight", dict(n_learners=2, gamma=1.0, step_size=1.0, delta=0.5, weight_power=0.0)),
    (3.0, "auto", dict(n_learners=5, gamma=0.35, step_size="theory", delta=0.1,
                       weight_power=1.5)),
]


@pytest.mark.parametrize("scale, weighting, params", CASES,
                         ids=["constant", "frank-wolfe, poisson", "power 0",
                              "theory, unnormalised"])
def test_each_copy_learns_the_argmin_label_of_the_extensions_gradient(scale, weighting, params):
    # Algorithm 1 step by step: copy i sees x^{i-1} of the chain of the copies' own points
    # (a copy's probabilities over the classes seen, normalised), the gradient of the
    # extended halved Brier score there (kappa = sqrt 2, the model's delta), and learns the
    # reduction's label argmin_j g_ij with weight r_i^p over its running mean,
    # r_i = max_j g_ij - min_j g_ij: passed as `w` (weighting "weight", or "auto" for a
    # learner that takes `w`), or as k ~ Poisson(weight) repeats in one update of weight k
    # ("poisson", the model's own generator after it seeded the copies); none where it is 0.
    # delta "theory" is sqrt(D^2 / (gamma N)), D^2 = 2: seen where the chain leaves K (gamma <
    # 1) and the gradient's prox is pulled back to it
    seed = 3
    model = BoOCOMultiClassifier(Spy(scale=scale), weighting=weighting, aggregate=False,
                                 seed=seed, **params)
    rng = np.random.default_rng(seed)
    assert [c.seed for c in model._copies.models] == [
        int(rng.integers(2**31 - 1)) for _ in range(params["n_learners"])]
    N, gamma = params["n_learners"], params["gamma"]
    eta = eta_sequence(params["step_size"], N)
    delta = (math.sqrt(2.0 / (gamma * N)) if params["delta"] == "theory"
             else params["delta"])
    power = params["weight_power"]
    r_sum, t, outside, taught = np.zeros(N), 0, 0, 0
    for x, y in stream(300, 11):
        seen = model.classes
        if seen:  # the played point is Pi_K(x^N) of the chain, its argmax the label
            xs = chain(spy_rows(model, x, seen), eta, gamma)
            P = sets.projection_simplex(xs[1:])
            outside += not np.allclose(P, xs[1:])
            assert np.allclose(list(model.predict_proba_one(x).values()), P[-1], atol=1e-12)
            assert model.predict_one(x) == seen[int(np.argmax(P[-1]))]
        classes = seen if y in seen else seen + [y]  # a new label grows the simplex first
        d = len(classes)
        xs = chain(spy_rows(model, x, classes), eta, gamma)
        e_y = np.eye(d)[classes.index(y)]
        ext = Extension(losses.Squared(), sets.Simplex(d), delta=delta, kappa=math.sqrt(2.0))
        G = ext.gradient(xs[:-1], e_y)  # at x^0, ..., x^{N-1}
        r = (G.max(axis=1) - G.min(axis=1)) ** power
        t += 1
        r_sum += r
        w = r * t / np.maximum(r_sum, 1e-300)
        if weighting == "poisson":
            w = rng.poisson(w).astype(float)
        before = [len(copy.log) for copy in model._copies.models]
        model.learn_one(x, y)
        for i, copy in enumerate(model._copies.models):
            if w[i] > 0:
                assert len(copy.log) == before[i] + 1
                x_i, label, w_i = copy.log[-1]
                assert x_i == x and label == classes[int(np.argmin(G[i]))]
                assert w_i == pytest.approx(w[i], rel=1e-9)
                assert weighting != "poisson" or w_i == int(w_i)
                taught += 1
            else:
                assert len(copy.log) == before[i]
    assert sorted(model.classes) == ["a", "b", "c", "d"]
    assert model._delta == delta
    assert taught > (150 if weighting == "poisson" else 200) * N  # most rounds teach
    if gamma < 1.0:
        assert outside > 0  # the projection step acted (a chain that left K was pulled back)


def experts(model, x, classes, counts, eta, gamma) -> np.ndarray:
    """The aggregates' experts over `classes`: the class prior (Laplace's rule on `counts`),
    the first copy, Pi_K(x^1..x^N)."""
    W = spy_rows(model, x, classes)
    P = sets.projection_simplex(chain(W, eta, gamma)[1:])
    n = np.array([counts.get(c, 0) + 1.0 for c in classes])
    return np.vstack([n / n.sum(), W[0], P])


@pytest.mark.parametrize("vote_lr", [1.0, 0.3])
def test_the_aggregates_are_the_documented_weights_and_keep_their_bounds(vote_lr):
    # experts: the class prior (Laplace's rule), the first copy, Pi_K(x^1..x^N); prior mass
    # 1/2 on the first copy, the rest shared. The probabilities are the mixture under
    # u ~ pi exp(-L/2) (L the cumulative halved Brier score), the label the plurality vote
    # under v ~ pi exp(-beta M) (M the mistakes). Both learn on every round, a new label's
    # over the grown simplex. At every horizon the mixture's halved Brier score is at most
    # L_k + 2 ln(1/pi_k) and the vote's mistakes at most
    # (beta M_k + ln(1/pi_k)) / ln(2/(1 + e^-beta)), for every expert k
    N, gamma, eta = 4, 0.5, np.full(4, 0.3)
    model = BoOCOMultiClassifier(Spy(), n_learners=N, gamma=gamma, step_size=0.3,
                                 weighting="weight", vote_lr=vote_lr, seed=5)
    M = N + 2
    pi = np.full(M, 0.5 / (M - 1))
    pi[1] = 0.5
    L, mistakes = np.zeros(M), np.zeros(M)
    mix_loss = vote_mistakes = 0.0
    counts: dict = {}
    for t, (x, y) in enumerate(stream(600, 12, labels=("a", "b", "c"))):
        u = pi * np.exp(-0.5 * (L - L.min()))
        u /= u.sum()
        v = pi * np.exp(-vote_lr * (mistakes - mistakes.min()))
        v /= v.sum()
        assert np.allclose(model.expert_weights, u, rtol=1e-9, atol=1e-15)
        assert np.allclose(model.vote_weights, v, rtol=1e-9, atol=1e-15)
        seen = model.classes
        if seen:
            E = experts(model, x, seen, counts, eta, gamma)
            p = u @ E
            assert np.allclose(list(model.predict_proba_one(x).values()), p / p.sum(),
                               atol=1e-12)
            votes = np.zeros(len(seen))
            np.add.at(votes, E.argmax(axis=1), v)
            assert model.predict_one(x) == seen[int(np.argmax(votes))]
        classes = seen if y in seen else seen + [y]
        E = experts(model, x, classes, counts, eta, gamma)
        e_y = np.eye(len(classes))[classes.index(y)]
        p = u @ E
        mix_loss += 0.5 * np.sum((p / p.sum() - e_y) ** 2)
        L += 0.5 * np.sum((E - e_y) ** 2, axis=1)
        votes = np.zeros(len(classes))
        np.add.at(votes, E.argmax(axis=1), v)
        vote_mistakes += classes[int(np.argmax(votes))] != y
        mistakes += E.argmax(axis=1) != classes.index(y)
        assert np.all(mix_loss <= L + 2.0 * np.log(1.0 / pi) + 1e-9), t
        assert np.all(vote_mistakes <= (vote_lr * mistakes + np.log(1.0 / pi))
                      / math.log(2.0 / (1.0 + math.exp(-vote_lr)))), t
        counts[y] = counts.get(y, 0) + 1
        model.learn_one(x, y)
    assert mix_loss < L[0] - 20  # the mixture beats the class prior here
    assert L[2:].min() < L[1]  # and a stage beats the first copy, so the weights moved off it


@pytest.mark.parametrize("decay, bound", [("sqrt", None), ("constant", 0.4)])
def test_linear_copies_take_projected_steps_on_the_surrogate(decay, bound):
    # learners.LinearOGD copies on the growing simplex, written out: copy i plays
    # Pi(Theta_i c + b_i); on the gradient g_i it steps Theta_i, b_i by
    # lr_t (g_i + |g_i| n_i) (c, 1), n_i the outward unit normal of z_i - Pi(z_i) (the
    # gradient of <g, z> + |g| Dist(z, K)), then clips Theta to the bound; the first class
    # makes every copy play its vertex (b = 1), a later one appends a zero row, a new feature
    # a zero column
    N, gamma, lr, delta = 3, 0.5, 0.4, 0.2
    model = BoOCOMultiClassifier(learners.LinearOGD(lr=lr, decay=decay, bound=bound),
                                 n_learners=N, gamma=gamma, step_size="frank-wolfe",
                                 delta=delta, aggregate=False)
    eta = eta_sequence("frank-wolfe", N)
    theta, b = np.zeros((N, 0, 0)), np.zeros((N, 0))
    keys: list = []
    outward_steps = 0
    for t, (x, y) in enumerate(stream(250, 13, labels=("a", "b", "c", "d")), start=1):
        if t > 120:
            x = {**x, "w": x["u"] * x["v"]}  # a feature that appears mid-stream
        seen = model.classes
        c = np.array([x.get(k, 0.0) for k in keys])
        if seen:
            Z = theta @ c + b
            xs = chain(sets.projection_simplex(Z), eta, gamma)
            played = sets.projection_simplex(xs[-1:])[0]
            assert np.allclose(list(model.predict_proba_one(x).values()), played, atol=1e-12)
        if y not in seen:  # the simplex grows first
            if not seen:
                b = np.ones((N, 1))
                theta = np.zeros((N, 1, len(keys)))
            else:
                b = np.hstack([b, np.zeros((N, 1))])
                theta = np.concatenate([theta, np.zeros((N, 1, len(keys)))], axis=1)
        classes = model.classes if y in seen else seen + [y]
        d = len(classes)
        Z = theta @ c + b
        xs = chain(sets.projection_simplex(Z), eta, gamma)
        ext = Extension(losses.Squared(), sets.Simplex(d), delta=delta, kappa=math.sqrt(2.0))
        G = ext.gradient(xs[:-1], np.eye(d)[classes.index(y)])
        new = [k for k in x if k not in keys]
        keys += new
        theta = np.concatenate([theta, np.zeros((N, d, len(new)))], axis=2)
        c = np.array([x[k] for k in keys])
        lr_t = lr / math.sqrt(t) if decay == "sqrt" else lr
        for i in range(N):
            out = Z[i] - sets.projection_simplex(Z[i])
            dist = np.linalg.norm(out)
            n_i = out / dist if dist > 1e-10 else np.zeros(d)
            outward_steps += dist > 1e-10
            step = lr_t * (G[i] + np.linalg.norm(G[i]) * n_i)
            theta[i] -= np.outer(step, c)
            b[i] -= step
        if bound is not None:
            theta = np.clip(theta, -bound, bound)
        model.learn_one(x, y)
    assert outward_steps > 50  # the surrogate's pull back to K acted
    copies = model._copies
    assert np.allclose(copies.theta, theta, atol=1e-10) and np.allclose(copies.b, b, atol=1e-10)


def test_a_copy_with_no_probability_mass_plays_the_centre():
    # a copy whose probabilities over the classes seen are all 0 has no opinion: it plays mu,
    # so a chain of such copies plays the uniform distribution
    model = BoOCOMultiClassifier(Spy(scale=0.0), n_learners=3, weighting="weight",
                                 aggregate=False, seed=1)
    for x, y in stream(60, 14):
        model.learn_one(x, y)
    assert all(c.log for c in model._copies.models)  # they were taught
    proba = model.predict_proba_one({"u": 0.3, "v": -0.2})
    assert np.allclose(list(proba.values()), 1.0 / len(model.classes), atol=1e-15)


def test_the_documented_defaults():
    # ten Hoeffding trees, gamma 1, constant steps 0.3, delta sqrt(2 / (gamma N)), Poisson
    # example weights at power 2, the aggregates at vote rate 1 (the class docstring's rule)
    from river import tree

    model = BoOCOMultiClassifier()
    assert model.n_learners == 10 and len(model._copies.models) == 10
    assert all(type(m) is tree.HoeffdingTreeClassifier for m in model._copies.models)
    assert model.gamma == 1.0 and np.allclose(model._eta, 0.3)
    assert model._delta == pytest.approx(math.sqrt(2.0 / 10))
    assert model.weighting == "poisson" and not model._copies.use_w
    assert model._copies.power == 2.0 and model.aggregate and model._agg.vote_lr == 1.0


@pytest.mark.parametrize("kwargs", [{"gamma": 1.2}, {"gamma": -0.1}, {"delta": 0.0},
                                    {"delta": float("inf")}, {"vote_lr": -1.0},
                                    {"weight_power": float("nan")}])
def test_parameters_out_of_range_are_refused_by_name(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        BoOCOMultiClassifier(**kwargs)


@pytest.mark.parametrize("kwargs", [{"gamma": 1.0}, {"gamma": 1e-6}, {"delta": 1e-9},
                                    {"weight_power": 0.0}, {"step_size": 1.0},
                                    {"n_learners": 1}])
def test_parameters_at_the_edge_of_their_range_are_taken(kwargs):
    model = BoOCOMultiClassifier(learners.LinearOGD(), **kwargs)
    for x, y in stream(30, 15):
        model.learn_one(x, y)
    assert sum(model.predict_proba_one({"u": 0.1, "v": 0.2}).values()) == pytest.approx(1.0)


@pytest.mark.parametrize("weighting", ["weight", "poisson"])
@pytest.mark.parametrize("rate, power", [(1.0, 1.0), (12.0, 2.0), (0.5, 1.0)])
def test_the_reductions_weight_is_its_range_over_the_running_mean_times_the_rate(
        weighting, rate, power):
    # the copies' rule (`BoOCOClassifier` passes its `rate`, 12 by default): copy i learns
    # labels[i] with weight rate * r_i^p / (running mean of r_i^p), as `w` or as k ~
    # Poisson(that) repeats in one update of weight k, drawn from the generator it is given
    from onlineboost.booco_multiclass import _ClassifierCopies

    copies = _ClassifierCopies(Spy(), 3, np.random.default_rng(0), weighting, power, rate)
    rng, mirror = np.random.default_rng(7), np.random.default_rng(7)
    r_sum = np.zeros(3)
    draws = np.random.default_rng(8)
    for t in range(1, 60):
        r = draws.uniform(0.0, 2.0, size=3) * (draws.random(3) > 0.2)
        labels = [str(draws.integers(3)) for _ in range(3)]
        r_sum += r**power
        w = rate * r**power * t / np.maximum(r_sum, 1e-300)
        if weighting == "poisson":
            w = mirror.poisson(w).astype(float)
        before = [len(m.log) for m in copies.models]
        copies.fit({"u": 0.1 * t, "v": 0.0}, labels, r, rng)
        for i, m in enumerate(copies.models):
            if w[i] > 0:
                assert m.log[-1][1:] == (labels[i], pytest.approx(w[i], rel=1e-12))
            assert len(m.log) == before[i] + (w[i] > 0)
