"""SecBoost: v-derivative identities, the OBI and the offset oracles, Solve_alpha's guarantees,
boosting the three losses on Tic-Tac-Toe from values only, and each early stop."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, special
from sklearn.base import BaseEstimator, ClassifierMixin

from learners import WeightedStump
from onlineboost.batch import (
    ClippedLogisticLoss,
    LogisticLoss,
    SecBoostClassifier,
    SpringLoss,
    offset_oracle,
)
from onlineboost.batch.secboost_losses import second_v_derivative, v_derivative
from onlineboost.batch.solve_alpha import solve_alpha_extended

LOSSES = [LogisticLoss(), ClippedLogisticLoss(-2.0), SpringLoss(500.0)]


@pytest.fixture(scope="module")
def tic_tac_toe(data_dir):
    rows = [line.strip().split(",") for line in open(data_dir / "tic-tac-toe.csv") if line.strip()]
    A = np.array(rows)
    X = np.concatenate([(A[:, :9] == s).astype(float) for s in "xob"], axis=1)  # one-hot, 27
    return X, (A[:, 9] == "positive").astype(int)


# --- v-derivatives (Section 4, Lemmas B.1, B.2, 5.2, 5.7) -----------------------------------


def test_v_derivative_identities():
    rng = np.random.default_rng(0)
    F = SpringLoss(7.0)
    z, b, c = rng.normal(size=(3, 1000))
    np.testing.assert_allclose(second_v_derivative(F, z, b, c), second_v_derivative(F, z, c, b))
    # Definition 4.2: the order-2 derivative is the v-derivative of the v-derivative
    nested = (v_derivative(F, z + c, b) - v_derivative(F, z, b)) / c
    np.testing.assert_allclose(second_v_derivative(F, z, b, c), nested, rtol=1e-8, atol=1e-8)
    # Lemma B.2: delta_v F(z + z') = delta_v F(z) + z' delta_{z', v} F(z)
    np.testing.assert_allclose(
        v_derivative(F, z + c, b), v_derivative(F, z, b) + c * second_v_derivative(F, z, c, b),
        rtol=1e-8, atol=1e-8,
    )


def test_convex_second_v_derivative_is_non_negative_and_smoothness_bound():
    rng = np.random.default_rng(1)
    F = LogisticLoss()
    a = rng.normal(scale=5, size=20000)
    b, c = rng.normal(scale=3, size=(2, 20000))
    d2 = second_v_derivative(F, a, b, c)
    assert np.all(d2 >= -1e-9)  # Lemma 5.2
    assert np.all(np.abs(d2) <= 2 * F.beta + 1e-9)  # proof of Lemma 5.7


# --- OBI and the offset oracles --------------------------------------------------------------


@pytest.mark.parametrize("F", LOSSES, ids=repr)
def test_obi_bounds_the_bregman_secant_distortion(F):
    rng = np.random.default_rng(2)
    z, v, z2 = rng.normal(scale=2, size=(3, 2000))
    S = F(z2) - F(z) - (z2 - z) * v_derivative(F, z, v)  # Definition 4.3
    assert np.all(S >= -offset_oracle.obi_grid(F, z, z + v, z2) - 1e-12)  # Lemma 4.7, (3)


def test_convex_obi_is_the_bregman_divergence_of_lemma_b5():
    F = LogisticLoss()
    rng = np.random.default_rng(3)
    z = rng.normal(scale=2, size=500)
    v = rng.normal(scale=2, size=500)
    s = v_derivative(F, z, v)  # in (-1, 0): the conjugate of F is a negative entropy
    F_star = special.xlogy(-s, -s) + special.xlogy(1 + s, 1 + s)
    D = F(z) + F_star - z * s  # Definition 4.4
    np.testing.assert_allclose(offset_oracle.obi_convex(F, z, v), D, atol=1e-10)


def _oo_simple_literal(F, e_t, e_prev, Z):
    """Algorithm 4, transcribed line by line (scalar do-while loop)."""
    delta = (e_prev - e_t) / Z
    z_c, i, s_star, z_star = e_t + delta, 0, None, None
    while True:
        s_c = (F(z_c) - F(e_t)) / (z_c - e_t)
        if i == 0 or (delta > 0 and s_c < s_star) or (delta < 0 and s_c > s_star):
            s_star, z_star = s_c, z_c
        z_c += delta
        i += 1
        if not (z_c - e_t) * (z_c - e_prev) < 0 or i >= Z - 1:
            break
    return z_star - e_t


@pytest.mark.parametrize("F", LOSSES, ids=repr)
def test_oo_simple_is_algorithm_4(F):
    rng = np.random.default_rng(4)
    e_t, e_prev = rng.normal(size=(2, 200))
    for Z in (2, 5, 16):
        ours = offset_oracle.oo_simple(F, e_t, e_prev, Z)
        literal = [_oo_simple_literal(F, a, b, Z) for a, b in zip(e_t, e_prev)]
        np.testing.assert_allclose(ours, literal, rtol=1e-12)
        assert np.all(np.sign(ours) == np.sign(e_prev - e_t))  # remark of Section 5.1.2
        # the oracle with its OBI check proposes exactly Algorithm 4's offsets first
        v, found = offset_oracle.offsets_simple(F, e_t, e_prev, np.inf, Z=Z)
        assert found.all()
        np.testing.assert_allclose(v, ours, rtol=1e-9)


@pytest.mark.parametrize("F", LOSSES, ids=repr)
def test_offsets_satisfy_the_obi_limit(F):
    rng = np.random.default_rng(5)
    e_prev = rng.normal(size=300)
    e_t = e_prev + rng.normal(scale=0.3, size=300)
    z = 1e-3
    v, found = offset_oracle.offsets_simple(F, e_t, e_prev, z)
    assert found.all()
    fine = offset_oracle.obi_grid(F, e_t, e_t + v, e_prev, n_grid=20001)
    assert np.all(fine <= z * 1.5)  # measured on a grid 4x finer; checked far finer here
    if F.convex:
        v, found = offset_oracle.offsets_convex(F, e_t, e_prev, z)
        assert found.all() and np.all(offset_oracle.obi_convex(F, e_t, v) <= z)


# --- Solve_alpha (Algorithm 3, Theorem 5.8) --------------------------------------------------


def _second_v(F, a, b, c):
    """delta_{b, c} F(a), written out here (Lemma B.1)."""
    return (F(a + b + c) - F(a + b) - F(a + c) + F(a)) / (b * c)


@pytest.mark.parametrize("F", LOSSES, ids=repr)
def test_solve_alpha_meets_theorem_5_8(F):
    """Every guarantee recomputed from w, h and the edges, as inequalities a wrong alpha, W2 or
    epsilon breaks."""
    rng = np.random.default_rng(6)
    for _ in range(50):
        m = 40
        e_prev = rng.normal(size=m)
        v_prev = rng.choice([-1, 1], size=m) * rng.uniform(1e-3, 0.3, size=m)
        w = -(F(e_prev + v_prev) - F(e_prev)) / v_prev  # weights: minus the v-derivatives
        yh = rng.choice([-1.0, 1.0], size=m) * rng.uniform(0.5, 2.0, size=m)
        M = float(np.abs(yh).max())
        eta = float(np.mean(w * yh))  # (83)
        alpha, W2, eps = solve_alpha_extended(F, w, yh, e_prev, v_prev, M, delta=1.0)
        # Step 2 / (19): the partial update (20) keeps the edge's sign and size
        w_tilde = -(F(e_prev + alpha * yh + v_prev) - F(e_prev + alpha * yh)) / v_prev
        assert abs(np.mean(w_tilde * yh) - eta) < abs(eta)
        assert np.sign(alpha) == np.sign(eta) != 0
        assert float(np.log2(abs(alpha))).is_integer()  # delta = 1 halved k times: 2^-k
        # (11) with Theorem 5.8's W2: the |expectation| at e_ti = alpha y_i h_t(x_i)
        lhs = float(np.mean(_second_v(F, e_prev, alpha * yh, v_prev) * (yh / M) ** 2))
        assert 0 < W2 and lhs <= W2 * (1 + 1e-9)
        if lhs != 0:
            assert W2 == pytest.approx(abs(lhs), rel=1e-9)  # the theorem's W2, not a looser one
        # (12): alpha in eta (0, 1 / (M^2 W2)), strictly; then some pi in (0, 1) and epsilon > 0
        # satisfy (9), namely every epsilon in (0, |eta| / (|alpha| M^2 W2) - 1)
        ratio = alpha / eta * M**2 * W2
        assert 0 < ratio < 1
        # (9) with the epsilon returned: alpha <= eta / (2 (1 + eps) M^2 W2) (1 + pi), pi <= 1
        # (Step 4 returns the largest such epsilon, pi = 1 at the boundary)
        assert eps > 0
        assert abs(alpha) <= abs(eta) / (2 * (1 + eps) * M**2 * W2) * 2 * (1 + 1e-9)
        assert abs(alpha) >= abs(eta) / (2 * (1 + eps) * M**2 * W2) * 2 * (1 - 1e-9)
        # Step 2's halving: the first delta 2^-k meeting (19), so 2 alpha fails it (or is > 1)
        if abs(alpha) < 1.0:
            w_2 = -(F(e_prev + 2 * alpha * yh + v_prev) - F(e_prev + 2 * alpha * yh)) / v_prev
            assert not abs(np.mean(w_2 * yh) - eta) < abs(eta)


# --- SecBoost on Tic-Tac-Toe ----------------------------------------------------------------


@pytest.mark.parametrize("loss, delta", [(LOSSES[0], 1.0), (LOSSES[1], 1.0), (LOSSES[2], 0.1)],
                         ids=repr)
def test_training_loss_decreases_on_tic_tac_toe(tic_tac_toe, loss, delta):
    X, y = tic_tac_toe
    model = SecBoostClassifier(loss, n_estimators=40, delta=delta, random_state=0).fit(X, y)
    L = model.train_loss_
    assert model.stop_reason_ == "completed" and len(L) == 41
    assert L[-1] < L[0] - 0.05
    y_pm = np.where(y == 1, 1.0, -1.0)
    np.testing.assert_allclose(L[-1], np.mean(loss(y_pm * model.decision_function(X))))
    if not isinstance(loss, SpringLoss):  # well-behaved losses: every round decreases
        assert np.all(np.diff(L) < 0)
    assert model.score(X, y) > 0.7


def test_spring_loss_with_a_large_initial_delta_runs_every_round(tic_tac_toe):
    """Lemma B.4: I_ti(z) is never empty for a continuous loss, so SecBoost runs all T rounds
    on the spring loss with delta = 1 (C.2's grid alone found no offset at round 13)."""
    X, y = tic_tac_toe
    model = SecBoostClassifier(SpringLoss(500.0), n_estimators=40, random_state=0).fit(X, y)
    assert model.stop_reason_ == "completed" and len(model.alphas_) == 40
    assert model.train_loss_[-1] < model.train_loss_[0] - 0.1


class _NoDerivative:
    """The logistic loss, counting value queries; any derivative-like access fails."""

    def __init__(self):
        self.calls = 0

    def __call__(self, z):
        self.calls += 1
        return np.logaddexp(0.0, -np.asarray(z))

    def derivative(self, z):
        raise AssertionError("a derivative was called")

    gradient = grad = prime = derivative


def test_no_derivative_is_ever_called(tic_tac_toe):
    X, y = tic_tac_toe
    F = _NoDerivative()
    model = SecBoostClassifier(F, n_estimators=20, random_state=0).fit(X, y)
    assert model.stop_reason_ == "completed" and F.calls > 0
    # a bare callable works as well and gives the same model as the loss object
    bare = SecBoostClassifier(lambda z: np.logaddexp(0.0, -z), n_estimators=20).fit(X, y)
    np.testing.assert_allclose(bare.decision_function(X), model.decision_function(X))


def _first_order_boost(X, y_pm, T, line_search):
    """A first-order booster for the logistic loss, weights -F'(yH) from the derivative, the
    same stumps; alpha by exact line search, or by Solve_alpha's halving rule on F'."""
    H, losses = np.zeros(len(y_pm)), [np.log(2.0)]
    for _ in range(T):
        w = special.expit(-y_pm * H)  # -F'(y H) > 0: labels never flip
        stump = WeightedStump().fit(X, y_pm, sample_weight=w)
        yh = y_pm * stump.decision_function(X)
        if line_search:
            alpha = optimize.minimize_scalar(
                lambda a: np.mean(np.logaddexp(0, -(y_pm * H + a * yh))), bounds=(0, 10),
                method="bounded", options={"xatol": 1e-10},
            ).x
        else:
            eta, alpha = np.mean(w * yh), 1.0
            while abs(np.mean(special.expit(-(y_pm * H + alpha * yh)) * yh) - eta) >= eta:
                alpha /= 2
        H = H + alpha * y_pm * yh
        losses.append(np.mean(np.logaddexp(0, -y_pm * H)))
    return np.array(losses), H


def test_logistic_secboost_is_close_to_a_first_order_booster(tic_tac_toe):
    X, y = tic_tac_toe
    y_pm = np.where(y == 1, 1.0, -1.0)
    T = 40
    model = SecBoostClassifier("logistic", n_estimators=T, random_state=0).fit(X, y)
    H = model.decision_function(X)
    # the same booster with derivatives: same trajectory up to the secants' error
    L_fo, H_fo = _first_order_boost(X, y_pm, T, line_search=False)
    assert np.abs(model.train_loss_ - L_fo).max() < 0.02
    assert np.mean((H >= 0) == (H_fo >= 0)) > 0.95
    # Solve_alpha takes alpha in [alpha*/2, alpha*): between T/2 and T exact line-search rounds
    L_ls, _ = _first_order_boost(X, y_pm, T, line_search=True)
    assert L_ls[T] - 0.01 < model.train_loss_[-1] < L_ls[T // 2] + 0.01


@pytest.mark.parametrize(
    "params", [{"alpha_rule": "smoothness"}, {"offset_oracle": "convex"}], ids=str
)
def test_smoothness_rule_and_convex_oracle(tic_tac_toe, params):
    X, y = tic_tac_toe
    model = SecBoostClassifier("logistic", n_estimators=30, **params).fit(X, y)
    assert model.stop_reason_ == "completed" and np.all(np.diff(model.train_loss_) < 0)
    if params.get("alpha_rule") == "smoothness":  # Lemma 5.7: W2 = 2 beta, alpha from (9)
        np.testing.assert_allclose(model.W2_, 0.5)
        np.testing.assert_allclose(model.alphas_, model.edges_ / (2 * 2 * 0.5))


# --- early stops and Assumption 5.1 ----------------------------------------------------------


def _separable():
    X = np.linspace(-1, 1, 40)[:, None]
    return X, (X[:, 0] > 0).astype(int)


def test_step_2_7_stops_when_all_weights_vanish():
    X, y = _separable()
    ramp = lambda z: np.clip(1.0 - z, 0.0, 2.0)  # noqa: E731 - flat for z >= 1
    model = SecBoostClassifier(ramp, n_estimators=50).fit(X, y)
    assert model.stop_reason_ == "step 2.7: all weights zero"
    assert 0 < len(model.alphas_) < 50
    assert model.train_loss_[-1] == 0.0 and model.score(X, y) == 1.0


class _Sigmoid:
    """$F(z) = 1 - \\tanh z$: concave for z < 0, with |F''| <= 0.77."""

    beta = 0.77

    def __call__(self, z):
        return 1.0 - np.tanh(z)


def test_a_continuous_loss_never_stops_at_step_2_5():
    """1 - tanh with a tiny epsilon: OBI limits of 1e-14, still met (Lemma B.4)."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)  # noisy: some edges go negative
    model = SecBoostClassifier(
        _Sigmoid(), n_estimators=10, alpha_rule="smoothness", epsilon=1e-12
    ).fit(X, y)
    assert model.stop_reason_ == "completed" and len(model.alphas_) == 10
    assert np.all(model.obi_limits_ < 1e-12)
    assert np.all(np.diff(model.train_loss_) < 0)


class _Jump:
    """The logistic loss plus 1/2 on z >= 0: a jump of 1/2 at 0, upper value at 0."""

    def __call__(self, z):
        z = np.asarray(z, dtype=np.float64)
        return np.logaddexp(0.0, -z) + 0.5 * (z >= 0)


def test_step_2_5_stops_when_an_edge_sits_on_a_jump_larger_than_z():
    """Figure 4 (c): an edge reaching the jump from below has no offset with OBI under the
    jump's height; any other edge has one."""
    X = np.linspace(-1, 1, 40)[:, None]
    y = (X[:, 0] > 0.1).astype(int)
    # h0 = 0.5, alpha = 0.5: negatives classified right move from -0.5 to exactly 0
    model = SecBoostClassifier(_Jump(), n_estimators=10, h0=0.5, delta=0.5).fit(X, y)
    assert model.stop_reason_ == "step 2.5: empty offset set"
    assert len(model.alphas_) == 1 and 0 < model.obi_limits_[0] < 0.5  # H_t is returned
    assert len(model.train_loss_) == 2
    v, found = offset_oracle.offsets_bracketed(_Jump(), np.array([0.0, 0.0, 0.3]),
                                               np.array([-0.5, 0.5, -0.5]), z=1e-3)
    assert found.tolist() == [False, True, True]


def _obi_fine(F, a, v, c, n=200_001):
    """Q_F(a, a + v, c) on a fine grid of I_{a, c} plus a fine grid of I_{a, a + v}."""
    out = []
    for a_i, v_i, c_i in zip(a, v, c):
        x = np.concatenate([np.linspace(a_i, c_i, n), a_i + v_i * np.linspace(0, 1, 2001)])
        x = x[(x - a_i) * (x - c_i) <= 0]
        s = (F(a_i + v_i) - F(a_i)) / v_i
        out.append(max(float(np.max(F(a_i) + s * (x - a_i) - F(x))), 0.0))
    return np.array(out)


@pytest.mark.parametrize("F", [*LOSSES[1:], _Sigmoid()],
                         ids=lambda F: "1-tanh" if isinstance(F, _Sigmoid) else repr(F))
@pytest.mark.parametrize("z", [1e-4, 1e-7])  # (at a cusp |v| ~ z^2: 1e-10 is below e's ulp)
def test_bracketed_offsets_exist_and_meet_the_limit(F, z):
    """Lemma B.4 in practice: for continuous losses an offset is found for every pair of edges,
    also at the spring loss's cusps (edges on Z / Q), and its OBI is within z, measured apart."""
    rng = np.random.default_rng(8)
    e_prev = np.concatenate([rng.normal(size=30), np.array([0.0, 0.5, -0.25, 0.002])])
    e_t = np.concatenate([e_prev[:30] + rng.normal(scale=0.5, size=30),
                          np.array([0.25, 0.0, 0.5, -0.5])])
    v, found = offset_oracle.offsets_bracketed(F, e_t, e_prev, z)
    assert found.all()
    assert np.all(np.sign(v) == np.sign(e_prev - e_t))  # remark of Section 5.1.2
    assert np.all(np.abs(v) <= np.abs(e_prev - e_t) * (1 + 1e-12))
    assert np.all(_obi_fine(F, e_t, v, e_prev) <= z + 1e-13)


def test_discontinuous_loss_without_alpha_stops():
    X, y = _separable()
    zero_one = lambda z: (z <= 0).astype(float)  # noqa: E731 - discontinuous at every edge 0
    model = SecBoostClassifier(zero_one, n_estimators=5).fit(X, y)
    assert model.stop_reason_ == "no alpha" and len(model.alphas_) == 0


class _ZeroSomewhere(ClassifierMixin, BaseEstimator):
    """A weak hypothesis that is zero on part of the sample (values 0 and +-`scale`)."""

    def __init__(self, scale: float = 1.0):
        self.scale = scale

    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.array([-1.0, 1.0])
        return self

    def decision_function(self, X):
        return self.scale * np.clip(np.round(2 * X[:, 0]), -1, 1)


@pytest.mark.parametrize("scale", [1.0, 4.0])
def test_zero_hypothesis_values_are_shifted_as_in_b2(scale):
    # c_t = 1e-3 min{|h(x_i)| : h(x_i) != 0}, added in training and at prediction alike: the
    # last training loss is the loss of the fitted scores
    X = np.linspace(-1.0, 0.6, 33)[:, None]  # (not symmetric about 0: a sign slip would show)
    y = (X[:, 0] > 0).astype(int)
    model = SecBoostClassifier(estimator=_ZeroSomewhere(scale), n_estimators=3).fit(X, y)
    assert all(s == 1e-3 * scale for s in model.shifts_) and len(model.shifts_) == 3
    h = _ZeroSomewhere(scale).decision_function(X) + model.shifts_[0]
    assert np.all(h != 0)
    np.testing.assert_allclose(model.decision_function(X), sum(model.alphas_) * h)
    y_pm = np.where(y == model.classes_[1], 1.0, -1.0)
    assert model.train_loss_[-1] == pytest.approx(
        float(np.mean(model.loss_(y_pm * model.decision_function(X)))), rel=1e-12)


@pytest.mark.parametrize(
    "params, name",
    [({"v0": 0.0}, "v0"), ({"loss": "nope"}, "loss"), ({"n_estimators": -1}, "n_estimators"),
     ({"loss": "spring", "alpha_rule": "smoothness"}, "smoothness"),
     ({"loss": "spring", "offset_oracle": "convex"}, "convex"), ({"delta": 0}, "delta"),
     ({"oo_precision": 1}, "oo_precision")],
)
def test_invalid_parameters(params, name):
    X, y = _separable()
    with pytest.raises(ValueError, match=name):
        SecBoostClassifier(**params).fit(X, y)


class _PredictOnly(ClassifierMixin, BaseEstimator):
    """learners.WeightedStump without its decision_function: SecBoost reads its labels."""

    def fit(self, X, y, sample_weight=None):
        self.stump_ = WeightedStump().fit(X, y, sample_weight=sample_weight)
        self.classes_ = self.stump_.classes_
        return self

    def predict(self, X):
        return self.stump_.predict(X)


def test_a_learner_without_a_score_is_read_from_its_labels(tic_tac_toe):
    # h(x) = +1 where the learner predicts the positive label, -1 elsewhere: the same booster
    # as the stump's own scores in {-1, +1}
    X, y = tic_tac_toe
    a = SecBoostClassifier(n_estimators=8, random_state=0).fit(X, y)
    b = SecBoostClassifier(estimator=_PredictOnly(), n_estimators=8, random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.alphas_, b.alphas_)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert len(a.alphas_) == 8 and len(np.unique(a.decision_function(X))) > 2


@pytest.mark.parametrize("loss", [
    lambda z: np.where(z == 0.0, np.inf, 1.0),  # infinite at h0 = 0
    lambda z: np.zeros_like(z) + 0.7,  # flat: every v-derivative 0
], ids=["infinite", "flat"])
def test_a_loss_that_cannot_start_is_refused(loss):
    X, y = _separable()
    with pytest.raises(ValueError, match="loss must be finite with a non-zero v0-derivative"):
        SecBoostClassifier(loss, n_estimators=3).fit(X, y)


def test_the_documented_defaults(tic_tac_toe):
    # fifty rounds of learners.WeightedStump on the logistic loss, h0 = 0, v0 = 0.1
    X, y = tic_tac_toe
    model = SecBoostClassifier(random_state=0).fit(X, y)
    assert len(model.estimators_) == 50 and model.stop_reason_ == "completed"
    assert all(type(h) is WeightedStump for h in model.estimators_)
    params = SecBoostClassifier().get_params()
    assert (params["loss"], params["h0"], params["v0"], params["delta"]) == (
        "logistic", 0.0, 0.1, 1.0)


def test_parameters_at_the_edge_of_their_range_are_taken():
    # no round (H_0 = h0 = 0: every score 0, the positive class) and the coarsest grid
    X, y = _separable()
    none = SecBoostClassifier(n_estimators=0).fit(X, y)
    np.testing.assert_array_equal(none.decision_function(X), 0.0)
    np.testing.assert_array_equal(none.predict(X), np.ones(len(y)))
    coarse = SecBoostClassifier(n_estimators=3, oo_precision=2, random_state=0).fit(X, y)
    assert coarse.score(X, y) > 0.9


class _ScaledStump(_PredictOnly):
    """learners.WeightedStump whose score is multiplied by `c` (a real-valued h_t)."""

    def __init__(self, c: float = 0.5):
        self.c = c

    def decision_function(self, X):
        return self.c * self.stump_.decision_function(X)


@pytest.mark.parametrize("loss", ["logistic", "clipped_logistic", "spring"])
@pytest.mark.parametrize("c", [0.5, 0.25, 4.0])
def test_a_score_scaled_by_a_power_of_two_scales_alpha_back(tic_tac_toe, loss, c):
    # real-valued hypotheses enter through y h (steps 2.2 and 2.4) and M = max |h|. Solve_alpha
    # halves its step from delta, so h -> c h with c = 2^k and delta -> delta / c give
    # alpha -> alpha / c exactly, with the same W2 and epsilon: the same offsets, weights and
    # H_T
    X, y = tic_tac_toe
    a = SecBoostClassifier(loss, n_estimators=8, random_state=0).fit(X, y)
    b = SecBoostClassifier(loss, estimator=_ScaledStump(c), n_estimators=8, delta=1.0 / c,
                           random_state=0).fit(X, y)
    np.testing.assert_array_equal(b.alphas_, a.alphas_ / c)
    np.testing.assert_allclose(b.edges_, a.edges_ * c, rtol=1e-12)  # eta_t = mean(w y h)
    # the OBI limit of step 2.5, z_t = epsilon_t alpha_t^2 M_t^2 W2_t (M_t = c here, 1 for a)
    np.testing.assert_allclose(a.obi_limits_, a.epsilons_ * a.alphas_**2 * a.W2_, rtol=1e-12)
    np.testing.assert_allclose(b.obi_limits_, b.epsilons_ * b.alphas_**2 * c**2 * b.W2_,
                               rtol=1e-12)
    np.testing.assert_allclose(b.obi_limits_, a.obi_limits_, rtol=1e-12)
    np.testing.assert_array_equal(b.decision_function(X), a.decision_function(X))


class _Constant(_ZeroSomewhere):
    """A weak hypothesis that is the constant `value` everywhere (its fit: `_ZeroSomewhere`'s)."""

    def __init__(self, value: float = 0.0):
        self.value = value

    def decision_function(self, X):
        return np.full(len(X), self.value)


def test_a_hypothesis_zero_everywhere_or_with_zero_edge_stops():
    # h = 0 on the whole sample: no shift can make it a hypothesis (Assumption 5.1), stop with
    # no round; a constant h on balanced labels under equal weights has edge eta_t = 0: stop
    X = np.arange(6.0).reshape(-1, 1)
    y = np.array([0, 1] * 3)
    zero = SecBoostClassifier(estimator=_Constant(0.0), n_estimators=4).fit(X, y)
    assert zero.stop_reason_ == "zero hypothesis" and len(zero.alphas_) == 0
    flat = SecBoostClassifier(estimator=_Constant(1.0), n_estimators=4).fit(X, y)
    assert flat.stop_reason_ == "zero edge" and len(flat.alphas_) == 0
    np.testing.assert_array_equal(flat.decision_function(X), 0.0)


def test_solve_alpha_falls_back_to_the_largest_dyadic_w2_where_the_curvature_vanishes():
    # a loss linear in the edge has second v-derivative 0, so (11) gives no W2: (85) takes the
    # largest 2^-k with |alpha| <= |eta| / (W M^2), and epsilon = |eta| / (W M^2 |alpha|) - 1.
    # Edges, offsets and scores on a dyadic grid, so that the differences are exactly 0
    F = lambda z: 2.0 - 0.5 * z  # noqa: E731
    rng = np.random.default_rng(12)
    for _ in range(20):
        m = 30
        e_prev = rng.integers(-16, 16, size=m) / 8.0
        v_prev = rng.integers(1, 4, size=m) / 16.0
        w = -(F(e_prev + v_prev) - F(e_prev)) / v_prev  # 0.5 everywhere
        yh = rng.choice([-1.0, 1.0], size=m) * rng.integers(1, 12, size=m) / 4.0
        M = float(np.abs(yh).max())
        eta = float(np.mean(w * yh))
        alpha, W2, eps = solve_alpha_extended(F, w, yh, e_prev, v_prev, M, delta=1.0)
        assert alpha == np.sign(eta)  # a linear loss never moves the edge: delta = 1 passes (19)
        bound = abs(eta) / M**2
        expected = 1.0
        while abs(alpha) > bound / expected:
            expected /= 2.0
        assert W2 == expected
        assert eps == pytest.approx(bound / (W2 * abs(alpha)) - 1.0, rel=1e-12)
        assert eps >= 0.0


def test_solve_alpha_takes_rounding_noise_of_a_linear_loss_as_machine_zero():
    # the same linear loss on ordinary (non-dyadic) edges, offsets and scores: the second
    # differences are rounding noise, not exact zeros, and the docstring's "machine zero"
    # is relative to the loss values; (85)'s dyadic W2 must come out, not W2 ~ 1e-17 (which
    # made epsilon ~ 1e16)
    F = lambda z: 2.0 - 0.3 * z  # noqa: E731
    rng = np.random.default_rng(13)
    noisy = 0
    for _ in range(20):
        m = 30
        e_prev = rng.normal(size=m)
        v_prev = rng.uniform(0.01, 0.3, size=m)
        w = -(F(e_prev + v_prev) - F(e_prev)) / v_prev  # 0.3 up to rounding
        yh = rng.choice([-1.0, 1.0], size=m) * rng.uniform(0.1, 3.0, size=m)
        M = float(np.abs(yh).max())
        eta = float(np.mean(w * yh))
        alpha, W2, eps = solve_alpha_extended(F, w, yh, e_prev, v_prev, M, delta=1.0)
        raw = abs(float(np.mean(second_v_derivative(F, e_prev, alpha * yh, v_prev)
                                * (yh / M) ** 2)))
        noisy += raw > 0.0  # (the case this test is for: the old test of exact 0 missed it)
        bound = abs(eta) / M**2
        expected = 1.0
        while abs(alpha) > bound / expected:
            expected /= 2.0
        assert W2 == expected and np.log2(W2) == round(np.log2(W2))
        assert eps == pytest.approx(bound / (W2 * abs(alpha)) - 1.0, rel=1e-12)
        assert 0.0 <= eps < 1.0  # the largest such 2^-k: within a factor 2 of the bound
    assert noisy >= 15


def test_machine_zero_is_relative_to_the_loss_values_and_leaves_real_curvature_alone():
    from onlineboost.batch.secboost_losses import curvature_noise

    rng = np.random.default_rng(3)
    z, b, c = rng.normal(size=50), rng.uniform(0.05, 1, 50), rng.uniform(0.05, 1, 50)
    for F in (LogisticLoss(), SpringLoss(Q=5.0), lambda z: 1e6 * z ** 2):
        second, noise = curvature_noise(F, z, b, c)
        # the same floats as the second v-derivative, and noise far below real curvature
        np.testing.assert_array_equal(second, second_v_derivative(F, z, b, c))
        assert np.all(noise < 1e-10 * np.abs(second).max())
    # the noise scales with the loss values: a shift of F by 1e6 moves it, not the curvature
    second, noise = curvature_noise(lambda z: 1e6 + z ** 2, z, b, c)
    eps = np.finfo(np.float64).eps
    f = [1e6 + (z + s) ** 2 for s in (b + c, b, c, 0.0)]
    np.testing.assert_allclose(noise, 8 * eps * sum(np.abs(v) for v in f) / (b * c),
                               rtol=1e-12)
    np.testing.assert_allclose(second, 2.0, atol=1e-6)  # (rounding of 1e6 + z^2: ~1e-10 / bc)


def test_the_losses_documented_defaults_and_their_parameters_ranges():
    # eq. (90) at q = -2 and eq. (91) at Q = 500, Appendix C.3's settings, as the defaults
    z = np.linspace(-4.0, 3.0, 701)
    logistic = np.logaddexp(0.0, -z)
    np.testing.assert_allclose(ClippedLogisticLoss()(z),
                               np.minimum(logistic, np.logaddexp(0.0, 2.0)), rtol=1e-14)
    d = 500.0 * z - 0.5 - np.rint(500.0 * z - 0.5)
    np.testing.assert_allclose(SpringLoss()(z),
                               logistic + (1 - np.sqrt(np.maximum(1 - 4 * d * d, 0))) / 500.0,
                               rtol=1e-13)
    for Q in (0.0, -1.0, np.inf, np.nan):
        with pytest.raises(ValueError, match="Q must be"):
            SpringLoss(Q=Q)
    assert SpringLoss(Q=0.25)(0.0) == pytest.approx(np.log(2.0) + 4.0)  # any Q > 0: a peak
    for q in (np.inf, -np.inf, np.nan):
        with pytest.raises(ValueError, match="q must be"):
            ClippedLogisticLoss(q=q)


def test_the_grid_obi_is_the_secants_largest_gap_over_the_whole_interval():
    # against scipy's bounded maximiser of the gap on I_{a,c} (Definition 4.6), peaks anywhere
    # in the interval (a grid over part of it misses those elsewhere); the grid estimate is
    # a lower one, within its spacing's second-order error, and the default is 257 points
    rng = np.random.default_rng(21)
    F = LogisticLoss()
    for _ in range(30):
        a, b = rng.uniform(-4, 4, size=2)
        c = a + rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 6.0)
        slope = (F(b) - F(a)) / (b - a)
        gap = lambda x: F(a) + slope * (x - a) - F(x)  # noqa: E731
        res = optimize.minimize_scalar(lambda x: -gap(x), bounds=sorted((a, c)),
                                       method="bounded", options={"xatol": 1e-10})
        want = max(-res.fun, gap(a), gap(c), 0.0)
        got = offset_oracle.obi_grid(F, np.array([a]), np.array([b]), np.array([c]))[0]
        step = abs(c - a) / 256
        assert want - 0.125 * step**2 - 1e-12 <= got <= want + 1e-12
        assert got == offset_oracle.obi_grid(F, np.array([a]), np.array([b]), np.array([c]),
                                             n_grid=257)[0]
    # and the golden-section OBI of a convex loss, 60 steps by default, to 1e-12
    z, v = rng.uniform(-3, 3, 40), rng.uniform(-2, 2, 40)
    exact = offset_oracle.obi_grid(F, z, z + v, z + v, n_grid=200001)
    np.testing.assert_allclose(offset_oracle.obi_convex(F, z, v), exact, atol=1e-10)
    np.testing.assert_array_equal(offset_oracle.obi_convex(F, z, v),
                                  offset_oracle.obi_convex(F, z, v, n_iter=60))


def test_offsets_simple_doubles_z_until_the_checked_obi_fits():
    # C.2's "start again with a smaller step size": Z = 16, 32, 64, ... (up to Z_max), the
    # first Z whose oo_simple offset has an OBI within z, measured on the check grid of
    # c Z + 1 points (c = max(check, ceil((min_check - 1) / Z)))
    F = LogisticLoss()
    e_t, e_prev = np.array([0.0, 1.0, -2.0, 0.5]), np.array([3.0, -1.5, 2.0, 0.6])
    for z in (1e-3, 1e-4, 1e-6):
        v, found = offset_oracle.offsets_simple(F, e_t, e_prev, z)
        for i in range(len(e_t)):
            a, c_ = e_t[i:i + 1], e_prev[i:i + 1]
            Z, want = 16, np.nan
            while Z <= 1024:
                cand = offset_oracle.oo_simple(F, a, c_, Z)
                c = max(4, -(-1024 // Z))
                q = offset_oracle.obi_grid(F, a, a + cand, c_, n_grid=c * Z + 1)[0]
                if q <= z:
                    want = cand[0]
                    break
                Z *= 2
            assert found[i] == (not np.isnan(want))
            assert v[i] == pytest.approx(want, rel=1e-12) or np.isnan(want)
    # one that needs refining: Z = 16 and 32 leave too large an OBI, Z = 64 fits
    v, found = offset_oracle.offsets_simple(F, np.array([0.0]), np.array([3.0]), 1e-4)
    assert found[0] and v[0] == pytest.approx(3.0 / 64, rel=1e-12)


def test_offsets_convex_halves_from_the_gap_between_the_edges():
    # B.7's dichotomic search: v = (e_prev - e_t) / 2^k for the least k <= max_halvings whose
    # convex OBI is within z (the sign of e_prev - e_t, as the offsets take it, §5.1.2)
    F = LogisticLoss()
    rng = np.random.default_rng(5)
    e_t, e_prev = rng.uniform(-3, 3, 30), rng.uniform(-3, 3, 30)
    for z in (1e-2, 1e-4):
        v, found = offset_oracle.offsets_convex(F, e_t, e_prev, z)
        assert found.all()
        for i in range(30):
            k = 0
            while offset_oracle.obi_convex(F, e_t[i:i + 1], (e_prev[i:i + 1] - e_t[i]) / 2**k
                                           )[0] > z:
                k += 1
            assert v[i] == (e_prev[i] - e_t[i]) / 2**k
    # x^2 has OBI v^2 / 4: from v = 4, z = 0.3 needs two halvings (v = 1), z = 0.01 five
    for max_halvings, z, want in ((2, 0.3, 1.0), (1, 0.3, np.nan), (5, 0.01, 0.125),
                                  (4, 0.01, np.nan)):
        v, found = offset_oracle.offsets_convex(lambda x: x**2, np.array([0.0]),
                                                np.array([4.0]), z, max_halvings=max_halvings)
        assert found[0] == (not np.isnan(want))
        np.testing.assert_array_equal(v, [want])
