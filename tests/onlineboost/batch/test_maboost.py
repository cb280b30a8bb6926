"""Batch MABoost and presets: Theorem 1 / Theorem 2 bounds on every run, sparsity, caps, modes.

The bounds are derived from the proof of Theorem 1 in Naghibi & Pfister (arXiv:1409.7202v1):
for any w* in the constraint set S,

    A_T = sum_t eta_t gamma_t - (L/2) sum_t eta_t^2  <=  B_R(w*, w_1) - w*.sum_t eta_t d_t,

and w* = uniform on the misclassified examples has w*.sum_t eta_t d_t >= 0 and
B_R(w*, w_1) = (1 - eps) / (2 N eps) (quadratic) or -log eps (entropy). With eta_t = gamma_t / L
that is eps <= 1 / (1 + sum gamma^2) and eps <= exp(-sum gamma^2 / 2). With w* = e_i instead one
gets the margin bound behind Theorem 2.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.tree import DecisionTreeClassifier

from learners import WeightedStump
from onlineboost import mirror
from onlineboost.batch import (
    ActiveMadaBoostClassifier,
    MABoostClassifier,
    MadaBoostClassifier,
    SparseBoostClassifier,
)

R_OF = {"entropy": mirror.NegativeEntropy(), "quadratic": mirror.Quadratic()}


def _noisy_disc(seed, n=150, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] ** 2 + X[:, 1] ** 2 < 1.4).astype(int)
    flip = rng.random(n) < noise
    return X, np.where(flip, 1 - y, y)


def _tic_tac_toe(data_dir):
    raw = np.loadtxt(data_dir / "tic-tac-toe.csv", dtype=str, delimiter=",")
    X = np.concatenate([(raw[:, :9] == s).astype(float) for s in "xob"], axis=1)
    return X, (raw[:, 9] == "positive").astype(int)


def _errors_per_round(model, X, y):
    a = np.where(y == model.classes_[1], 1.0, -1.0)
    return np.array([np.mean(a * F <= 0) for F in model.staged_decision_function(X)]), [
        a * F for F in model.staged_decision_function(X)]


def _bisect(f, lo, hi, n=200):
    """The root of a decreasing f on [lo, hi]."""
    for _ in range(n):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    return 0.5 * (lo + hi)


def _projection(regulariser, z, cap):
    """Bregman projection onto {w >= 0, sum w = 1, w <= cap}, written out: for the entropy
    w = min(cap, c z) (KL), for the quadratic w = clip(z - tau, 0, cap) (Euclidean)."""
    if regulariser == "entropy":  # z given by its logarithm
        log_z = z - z.max()
        if cap >= 1:
            return np.exp(log_z) / np.exp(log_z).sum()
        lc = _bisect(lambda c: 1 - np.exp(np.minimum(np.log(cap), c + log_z)).sum(), -800.0, 800.0)
        return np.exp(np.minimum(np.log(cap), lc + log_z))
    tau = _bisect(lambda t: np.clip(z - t, 0, cap).sum() - 1, z.min() - 1.0, z.max())
    return np.clip(z - tau, 0, cap)


def _replay(model, X, y, regulariser, constraint="simplex", mode="active", step="theory",
            kappa=1.0):
    """MABoost's Algorithm 1 replayed from the data: the edges gamma_t = <w_t, a h_t>, eta_t and
    every next weight vector from w_t (or the running sum, lazy) by an independent mirror step.
    Only the recorded w_t and the fitted h_t are read from the model; returns (gamma, eta, H)."""
    a = np.where(y == model.classes_[1], 1.0, -1.0)
    n = len(a)
    L = 1.0 if regulariser == "entropy" else float(n)
    cap = 1.0 / (kappa * n) if constraint == "capped" else 1.0
    W = model.weights_
    H = np.array([est.predict(X) for est in model.estimators_], dtype=float)
    T = len(H)
    assert W.shape == (T, n)
    np.testing.assert_allclose(W[0], np.full(n, 1.0 / n), atol=1e-12)  # w_1 = argmin_S R
    gamma = np.array([W[t] @ (a * H[t]) for t in range(T)])
    t_ = np.arange(1, T + 1)
    eta = gamma / L if step == "theory" else gamma / (L * np.sqrt(t_))
    total = np.zeros(n)
    for t in range(T - 1):
        d = -a * H[t]
        total += eta[t] * d
        if regulariser == "entropy":  # log z
            z = total if mode == "lazy" else np.log(W[t]) + eta[t] * d
        else:
            z = total if mode == "lazy" else W[t] + eta[t] * d
        np.testing.assert_allclose(W[t + 1], _projection(regulariser, z, cap), atol=1e-9,
                                   err_msg=f"round {t + 2}")
    np.testing.assert_allclose(model.edges_, gamma, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(model.etas_, eta, rtol=1e-10, atol=1e-14)
    return gamma, eta, H


def _check_theorem1(model, X, y, regulariser, gamma, eta, H, step="theory", floor=0.0):
    """Inequality (13) of the proof for every prefix T, and its closed form for eta = gamma/L,
    from the edges and steps recomputed by `_replay`."""
    R = R_OF[regulariser]
    n = len(y)
    L = 1.0 if regulariser == "entropy" else float(n)
    a = np.where(y == model.classes_[1], 1.0, -1.0)
    F = np.cumsum(eta[:, None] * H, axis=0)  # F_T = sum_t eta_t h_t
    A = np.cumsum(eta * gamma) - 0.5 * L * np.cumsum(eta ** 2)
    w1 = np.full(n, 1.0 / n)
    checked = 0
    for T in range(len(gamma)):
        wrong = a * F[T] <= 0
        eps = wrong.mean()
        if eps == 0 or eps < floor:  # w* must exist and lie in S (capped: eps >= kappa)
            continue
        w_star = wrong / wrong.sum()
        assert A[T] <= R.bregman(w_star, w1) + 1e-9
        if step == "theory":
            S = np.sum(gamma[: T + 1] ** 2)
            bound = np.exp(-S / 2) if regulariser == "entropy" else 1 / (1 + S)
            assert eps <= bound + 1e-12
        checked += 1
    return checked


CONFIGS = [
    dict(regulariser=r, constraint=c, mode=m, step=s)
    for r in ("entropy", "quadratic") for c in ("simplex", "capped")
    for m in ("active", "lazy") for s in ("theory", "max-margin")
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(c.values()))
def test_theorem1_bound_holds_every_round(config):
    checked = 0
    for seed in range(3):
        X, y = _noisy_disc(seed)
        model = MABoostClassifier(n_estimators=40, kappa=0.05, record_weights=True,
                                  **config).fit(X, y)
        assert len(model.edges_) == 40
        gamma, eta, H = _replay(model, X, y, kappa=0.05, **config)
        assert np.all(gamma > 0)
        floor = 0.05 if config["constraint"] == "capped" else 0.0
        checked += _check_theorem1(model, X, y, config["regulariser"], gamma, eta, H,
                                   config["step"], floor)
    assert checked > 20  # the bound was really exercised, not skipped


def test_theorem1_on_tic_tac_toe_and_boosting_beats_a_stump(data_dir):
    X, y = _tic_tac_toe(data_dir)
    assert X.shape == (958, 27) and y.sum() == 626
    for model, R in ((MABoostClassifier(n_estimators=150, record_weights=True), "entropy"),
                     (SparseBoostClassifier(n_estimators=150, record_weights=True),
                      "quadratic")):
        model.fit(X, y)
        gamma, eta, H = _replay(model, X, y, R)
        assert _check_theorem1(model, X, y, R, gamma, eta, H) > 100
        assert model.score(X, y) > 0.9 > 0.75 > WeightedStump().fit(X, y).score(X, y)


@pytest.mark.parametrize("regulariser", ["entropy", "quadratic"])
@pytest.mark.parametrize("step", ["theory", "max-margin"])
def test_margin_bound_behind_theorem2(regulariser, step):
    """w* = e_i in the proof: min_i a_i F_T(x_i) >= A_T - max_i B_R(e_i, w_1)."""
    R = R_OF[regulariser]
    X, y = _noisy_disc(4, noise=0.0)
    model = MABoostClassifier(n_estimators=60, regulariser=regulariser, step=step,
                              record_weights=True).fit(X, y)
    g, eta, H = _replay(model, X, y, regulariser, step=step)
    n = len(y)
    L = 1.0 if regulariser == "entropy" else float(n)
    a = np.where(y == model.classes_[1], 1.0, -1.0)
    margins = a * np.cumsum(eta[:, None] * H, axis=0)
    A = np.cumsum(eta * g) - 0.5 * L * np.cumsum(eta ** 2)
    B_max = max(R.bregman(np.eye(n)[i], np.full(n, 1.0 / n)) for i in range(n))
    for T, m in enumerate(margins):
        assert m.min() >= A[T] - B_max - 1e-9
    if step == "max-margin":  # Theorem 2's form: normalised margin >= gamma_min - nu_T
        t = np.arange(1, len(g) + 1)
        nu = (L * B_max + 0.5 * np.sum(g ** 2 / t)) / np.sum(g / np.sqrt(t))
        assert margins[-1].min() / eta.sum() >= g.min() - nu - 1e-12


@pytest.mark.parametrize("step", ["theory", "max-margin"])
def test_madaboost_weights_are_the_capped_closed_form(step):
    """MadaBoost: w_{t+1} = min(1, e^{-a F_t}) / sum, F_t = sum_{s <= t} eta_s h_s, with gamma_t
    and eta_t recomputed from the weights and hypotheses."""
    X, y = _noisy_disc(3, noise=0.15)
    model = MadaBoostClassifier(n_estimators=40, step=step, record_weights=True).fit(X, y)
    a = np.where(y == model.classes_[1], 1.0, -1.0)
    W = model.weights_
    H = np.array([est.predict(X) for est in model.estimators_], dtype=float)
    gamma = np.einsum("tn,tn->t", W, a * H)
    eta = gamma if step == "theory" else gamma / np.sqrt(np.arange(1, len(gamma) + 1))
    np.testing.assert_allclose(W[0], 1.0 / len(y))
    F = np.cumsum(eta[:, None] * H, axis=0)
    capped = np.minimum(1.0, np.exp(-a * F[:-1]))
    np.testing.assert_allclose(W[1:], capped / capped.sum(axis=1, keepdims=True), rtol=1e-9)
    np.testing.assert_allclose(model.etas_, eta, rtol=1e-10)
    # the cap binds: examples with a F > 0 all share the largest weight; AdaBoost differs
    assert np.isclose(W[-1].max(), 1.0 / capped[-1].sum())
    ada = MABoostClassifier(n_estimators=40, step=step, record_weights=True).fit(X, y)
    assert ada.weights_[-1].max() > (1.5 if step == "theory" else 1.0) * W[-1].max()
    errors = [np.mean(a * f <= 0) for f in F]
    assert errors[-1] < errors[0]


def test_active_madaboost_bound_with_double_projection():
    """Active entropy step + Lemma 4: B(w*, w_{t+1}) <= B(w*, w_t) - eta<w*, d> - 1 + Z_t with
    Z_t = sum w_t e^{eta d} <= exp(-a_t) (Hoeffding), a_t = eta_t gamma_t - eta_t^2 / 2; so
    sum_t (1 - exp(-a_t)) <= -log eps whenever w* fits under the box (eps >= kappa). Edges and
    steps recomputed from the weights and hypotheses."""
    checked = 0
    for seed in range(4):
        X, y = _noisy_disc(seed)
        model = ActiveMadaBoostClassifier(n_estimators=40, kappa=0.05,
                                          record_weights=True).fit(X, y)
        a = np.where(y == model.classes_[1], 1.0, -1.0)
        W = model.weights_
        H = np.array([est.predict(X) for est in model.estimators_], dtype=float)
        gamma = np.einsum("tn,tn->t", W, a * H)
        eta = gamma
        u = 1.0 / (0.05 * len(y))
        for t in range(len(gamma) - 1):  # the double projection, written out
            z = np.minimum(W[t] * np.exp(-eta[t] * a * H[t]), u)
            np.testing.assert_allclose(W[t + 1], z / z.sum(), rtol=1e-9)
        eps = np.array([np.mean(a * f <= 0) for f in np.cumsum(eta[:, None] * H, axis=0)])
        lhs = np.cumsum(1 - np.exp(-(eta * gamma - 0.5 * eta ** 2)))
        ok = eps >= 0.05
        assert np.all(lhs[ok] <= -np.log(eps[ok]) + 1e-12)
        checked += ok.sum()
    assert checked > 20


class _SpyStump(WeightedStump):
    """Records how many rows each fit saw."""

    seen: list = []

    def fit(self, X, y, sample_weight=None):
        _SpyStump.seen.append(len(X))
        return super().fit(X, y, sample_weight)


def _easy_with_a_hard_band(seed=0, n=300):
    """Labels sign(x_0), flipped at random inside |x_0| < 0.2: most examples are easy."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    y = (X[:, 0] > 0).astype(int)
    return X, np.where((np.abs(X[:, 0]) < 0.2) & (rng.random(n) < 0.5), 1 - y, y)


@pytest.mark.parametrize("mode", ["active", "lazy"])
def test_sparseboost_weights_reach_exact_zero_and_learner_sees_only_the_support(mode):
    X, y = _easy_with_a_hard_band()
    _SpyStump.seen = []
    model = SparseBoostClassifier(_SpyStump(), n_estimators=40, mode=mode,
                                  record_weights=True).fit(X, y)
    support = (model.weights_ > 0).sum(axis=1)
    np.testing.assert_array_equal(support, model.support_sizes_)
    np.testing.assert_array_equal(_SpyStump.seen, support)
    assert support[-1] < 0.7 * len(y) and support.min() < 0.6 * len(y)
    np.testing.assert_allclose(model.weights_.sum(axis=1), 1.0)
    assert model.score(X, y) > 0.9
    dense = MABoostClassifier(n_estimators=40, mode=mode, record_weights=True).fit(X, y)
    assert np.all(dense.weights_ > 0)  # the entropy never reaches zero


def test_sparseboost_drops_examples_on_tic_tac_toe(data_dir):
    X, y = _tic_tac_toe(data_dir)
    model = SparseBoostClassifier(n_estimators=60, mode="lazy").fit(X, y)
    assert model.support_sizes_.min() < len(y) - 40


def test_smooth_variants_respect_their_caps():
    X, y = _noisy_disc(5, noise=0.2)
    n, kappa = len(y), 0.5
    capped = MABoostClassifier(n_estimators=60, constraint="capped", kappa=kappa,
                               record_weights=True).fit(X, y)
    assert capped.weights_.max() <= 1 / (kappa * n) + 1e-12
    assert np.isclose(capped.weights_.max(), 1 / (kappa * n))  # the cap binds
    ada = MABoostClassifier(n_estimators=60, record_weights=True).fit(X, y)
    mada = ActiveMadaBoostClassifier(n_estimators=60, kappa=kappa, record_weights=True).fit(X, y)
    assert ada.weights_.max() > 1.5 / (kappa * n)  # unconstrained: noisy points dominate
    assert mada.weights_.max() < 0.6 * ada.weights_.max()
    for model in (capped, mada):
        np.testing.assert_allclose(model.weights_.sum(axis=1), 1.0)


def test_lazy_and_active_agree_for_entropy_and_differ_for_quadratic():
    X, y = _noisy_disc(6)
    fit = {(r, m): MABoostClassifier(n_estimators=30, regulariser=r, mode=m).fit(X, y)
           for r in ("entropy", "quadratic") for m in ("lazy", "active")}
    np.testing.assert_allclose(fit["entropy", "lazy"].edges_, fit["entropy", "active"].edges_)
    assert not np.allclose(fit["quadratic", "lazy"].edges_, fit["quadratic", "active"].edges_)
    with pytest.raises(ValueError, match="pre_constraint"):  # lazy + Lemma 4: MadaBoost only
        MABoostClassifier(regulariser="quadratic", constraint="box-simplex", mode="lazy").fit(X, y)
    lazy = MABoostClassifier(n_estimators=20, constraint="madaboost", mode="lazy").fit(X, y)
    mada = MadaBoostClassifier(n_estimators=20).fit(X, y)
    np.testing.assert_array_equal(lazy.edges_, mada.edges_)
    with pytest.raises(ValueError, match="madaboost"):
        MABoostClassifier(constraint="madaboost", mode="active").fit(X, y)


@pytest.mark.parametrize("params, name", [
    ({"regulariser": "l3"}, "regulariser"), ({"constraint": "ball"}, "constraint"),
    ({"step": "fast"}, "step"), ({"n_estimators": 0}, "n_estimators"),
    ({"constraint": "capped", "kappa": 2.0}, "kappa"), ({"mode": "eager"}, "mode"),
])
def test_invalid_parameters_raise_naming_the_argument(params, name):
    X, y = _noisy_disc(7)
    with pytest.raises(ValueError, match=name):
        MABoostClassifier(**params).fit(X, y)


def test_any_weak_learner_with_sample_weight_and_reproducible_random_state():
    X, y = _noisy_disc(8)
    tree = DecisionTreeClassifier(max_depth=2, max_features=1)
    a = MABoostClassifier(tree, n_estimators=20, random_state=3).fit(X, y)
    b = MABoostClassifier(tree, n_estimators=20, random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert a.score(X, y) > 0.8


class _Useless(ClassifierMixin, BaseEstimator):
    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.where(np.arange(len(X)) % 2 == 0, 1.0, -1.0)  # edge 0 on balanced data


def test_stops_when_the_edge_is_not_positive():
    X = np.zeros((4, 1))
    y = np.array([0, 1, 0, 1])
    model = MABoostClassifier(_Useless(), n_estimators=10).fit(X, y)
    assert len(model.estimators_) == 0
    assert model.decision_function(X).shape == (4,)
    np.testing.assert_array_equal(model.decision_function(X), 0.0)
    np.testing.assert_array_equal(model.predict(X), [1, 1, 1, 1])  # F = 0: the positive class


def test_one_round_is_a_booster_and_three_classes_are_refused():
    X, y = _noisy_disc(9)
    one = MABoostClassifier(n_estimators=1).fit(X, y)
    assert len(one.estimators_) == 1
    np.testing.assert_array_equal(one.predict(X), one.estimators_[0].predict(X) > 0)
    with pytest.raises(ValueError, match="at most two classes, got 3"):
        MABoostClassifier().fit(X, np.arange(len(y)) % 3)


def test_the_documented_defaults_and_one_class():
    # MABoostClassifier(): fifty rounds of learners.WeightedStump under the entropy on the
    # simplex, active mode, the theory step; kappa 0.1 (a weight's cap 1 / (0.1 n) under the
    # capped constraints)
    X, y = _noisy_disc(10, noise=0.2)
    model = MABoostClassifier(record_weights=True).fit(X, y)
    assert len(model.estimators_) == 50
    assert all(type(h) is WeightedStump for h in model.estimators_)
    params = MABoostClassifier().get_params()
    assert (params["regulariser"], params["constraint"], params["mode"], params["step"]) == (
        "entropy", "simplex", "active", "theory")
    assert params["kappa"] == 0.1 and ActiveMadaBoostClassifier().get_params()["kappa"] == 0.1
    for preset in (SparseBoostClassifier, MadaBoostClassifier, ActiveMadaBoostClassifier):
        assert len(preset().fit(X, y).estimators_) == 50
    one = MABoostClassifier(n_estimators=3).fit(X, np.full(len(y), "only"))
    np.testing.assert_array_equal(one.predict(X[:5]), ["only"] * 5)
