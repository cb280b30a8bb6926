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
from onlineboost.batch import MABoostClassifier, MadaBoostClassifier, SparseBoostClassifier

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


def _check_theorem1(model, X, y, R, floor=0.0):
    """Inequality (13) of the proof for every prefix T, and its closed form for eta = gamma/L."""
    n, L = len(y), model.dual_bound_
    assert L == R.dual_bound(n)
    eps, _ = _errors_per_round(model, X, y)
    A = np.cumsum(model.etas_ * model.edges_) - 0.5 * L * np.cumsum(model.etas_ ** 2)
    w1 = np.full(n, 1.0 / n)
    a = np.where(y == model.classes_[1], 1.0, -1.0)
    checked = 0
    for T, F in enumerate(model.staged_decision_function(X)):
        wrong = a * F <= 0
        if eps[T] == 0 or eps[T] < floor:  # w* must exist and lie in S (capped: eps >= kappa)
            continue
        w_star = wrong / wrong.sum()
        assert A[T] <= R.bregman(w_star, w1) + 1e-9
        if model.step == "theory":
            S = np.sum(model.edges_[: T + 1] ** 2)
            bound = np.exp(-S / 2) if isinstance(R, mirror.NegativeEntropy) else 1 / (1 + S)
            assert eps[T] <= bound + 1e-12
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
        model = MABoostClassifier(n_estimators=40, kappa=0.05, **config).fit(X, y)
        assert len(model.edges_) == 40 and np.all(model.edges_ > 0)
        floor = 0.05 if config["constraint"] == "capped" else 0.0
        checked += _check_theorem1(model, X, y, R_OF[config["regulariser"]], floor)
    assert checked > 20  # the bound was really exercised, not skipped


def test_theorem1_on_tic_tac_toe_and_boosting_beats_a_stump(data_dir):
    X, y = _tic_tac_toe(data_dir)
    assert X.shape == (958, 27) and y.sum() == 626
    for model in (MABoostClassifier(n_estimators=150), SparseBoostClassifier(n_estimators=150)):
        model.fit(X, y)
        R = R_OF["entropy" if isinstance(model, MABoostClassifier) else "quadratic"]
        assert _check_theorem1(model, X, y, R) > 100
        assert model.score(X, y) > 0.9 > 0.75 > WeightedStump().fit(X, y).score(X, y)


@pytest.mark.parametrize("regulariser", ["entropy", "quadratic"])
@pytest.mark.parametrize("step", ["theory", "max-margin"])
def test_margin_bound_behind_theorem2(regulariser, step):
    """w* = e_i in the proof: min_i a_i F_T(x_i) >= A_T - max_i B_R(e_i, w_1)."""
    R = R_OF[regulariser]
    X, y = _noisy_disc(4, noise=0.0)
    model = MABoostClassifier(n_estimators=60, regulariser=regulariser, step=step).fit(X, y)
    n, L = len(y), model.dual_bound_
    A = np.cumsum(model.etas_ * model.edges_) - 0.5 * L * np.cumsum(model.etas_ ** 2)
    B_max = max(R.bregman(np.eye(n)[i], np.full(n, 1.0 / n)) for i in range(n))
    _, margins = _errors_per_round(model, X, y)
    for T, m in enumerate(margins):
        assert m.min() >= A[T] - B_max - 1e-9
    if step == "max-margin":  # Theorem 2's form: normalised margin >= gamma_min - nu_T
        g, t = model.edges_, np.arange(1, len(model.edges_) + 1)
        nu = (L * B_max + 0.5 * np.sum(g ** 2 / t)) / np.sum(g / np.sqrt(t))
        assert margins[-1].min() / model.etas_.sum() >= g.min() - nu - 1e-12


def test_madaboost_bound_with_double_projection():
    """Active entropy step + Lemma 4: B(w*, w_{t+1}) <= B(w*, w_t) - eta<w*, d> - 1 + Z_t with
    Z_t = sum w_t e^{eta d} <= exp(-a_t) (Hoeffding), a_t = eta_t gamma_t - eta_t^2 / 2; so
    sum_t (1 - exp(-a_t)) <= -log eps whenever w* fits under the box (eps >= kappa)."""
    checked = 0
    for seed in range(4):
        X, y = _noisy_disc(seed)
        model = MadaBoostClassifier(n_estimators=40, kappa=0.05).fit(X, y)
        eps, _ = _errors_per_round(model, X, y)
        lhs = np.cumsum(1 - np.exp(-(model.etas_ * model.edges_ - 0.5 * model.etas_ ** 2)))
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
    mada = MadaBoostClassifier(n_estimators=60, kappa=kappa, record_weights=True).fit(X, y)
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
    with pytest.raises(ValueError, match="pre_constraint"):
        MABoostClassifier(constraint="box-simplex", mode="lazy").fit(X, y)


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
    np.testing.assert_array_equal(model.decision_function(X), 0.0)
