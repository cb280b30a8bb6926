"""FitLead (`onlineboost.depth`): expert 0 alone, exactly, until a stage's fitted cost predictions
beat expert 0's squared error on the played arms' losses beyond a Ville margin; then Exp4 afresh
or that stage's law. Checked against a literal transcription, for validity on seeded null
streams (a margin too small, or a cumulant bound too loose, fails the switch-rate test), for
power on a synthetic with known means, and wired into BoBLO (`aggregate="fit"`)."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import learners
from onlineboost import BoBLO
from onlineboost.boblo import DEFAULT_LEARNER, FOURIER_LATER
from onlineboost.depth import FitLead
from onlineboost.exp4 import Exp4
from streams import LinearBandit, NonlinearBandit
from tests.helpers import LINEAR_LEARNER
from tests.helpers import average_reward as _run


def reference_run(advices, costs, refs, arms, losses, delta=0.05, anchor="uniform"):
    """The rule written out with loops: per round, y~_j(a) = clip(y_j(a) - sum_b w(b) (y_j(b) -
    r(b)), 0, 1) with w uniform or p = advice row 0 (`anchor`); lead_j += (l - y~_0(a))^2 - (l
    - y~_j(a))^2 (the literal squared errors); Psi_j(lam) += sum_b p(b) max(phi(lam d(b)(2 -
    s(b))), phi(-lam d(b) s(b))), d = y~_j - y~_0, s = y~_j + y~_0, phi(x) = e^x - 1 - x;
    switch at the first round where some j has lead_j >= min_i (ln((M - 1)(i + 1)(i + 2)/delta)
    + Psi_j(2^-i)) / 2^-i. Returns (switch round or None, expert or None, leads, margins) at
    the end or the switch."""
    M, k = advices[0].shape
    lead = [0.0] * M
    psi = [[0.0] * 40 for _ in range(M)]
    margins = None
    for t, (A, Yraw, r, a, loss) in enumerate(zip(advices, costs, refs, arms, losses), start=1):
        p = A[0]
        w = p if anchor == "played" else [1.0 / k] * k
        Y = []
        for j in range(M):
            shift = sum(w[b] * (Yraw[j][b] - r[b]) for b in range(k))
            Y.append([min(max(Yraw[j][b] - shift, 0.0), 1.0) for b in range(k)])
        for j in range(M):
            lead[j] += (loss - Y[0][a]) ** 2 - (loss - Y[j][a]) ** 2
            for i in range(40):
                lam = 2.0 ** -i
                for b in range(k):
                    d, s = Y[j][b] - Y[0][b], Y[j][b] + Y[0][b]
                    x1, x0 = lam * d * (2.0 - s), -lam * d * s
                    psi[j][i] += p[b] * max(math.exp(x1) - 1 - x1, math.exp(x0) - 1 - x0)
        margins = [min((math.log(max(M - 1, 1) * (i + 1) * (i + 2) / delta) + psi[j][i])
                       / 2.0 ** -i for i in range(40)) for j in range(M)]
        excess = [lead[j] - margins[j] for j in range(M)]
        if max(excess) >= 0.0:
            return t, int(np.argmax(excess)), lead, margins
    return None, None, lead, margins


def stream(seed, T, k=3, M=3, gap=0.0, noise=0.15, shift=True):
    """Seeded rounds (A, Y, r, mu, u): Bernoulli losses of means mu (fixed per seed); expert
    0 predicts mu + e, expert 1 mu + (1 - gap) e' (e, e' independent, sd `noise`: `gap` = 0
    is the null, equal errors in distribution), the others noise; every row carries a random
    common shift (`shift`), which the anchoring to the reference (mu plus its own noise) must
    undo; u: two uniforms for the round's draws (arm, loss)."""
    rng = np.random.default_rng(seed)
    mu = rng.uniform(0.2, 0.8, size=k)
    A = 0.98 * rng.dirichlet(np.ones(k), size=(T, M)) + 0.02 / k
    E = noise * rng.normal(size=(T, M, k))
    E[:, 1] *= 1.0 - gap
    Y = np.clip(mu + E, 0.0, 1.0)
    if shift:
        Y = Y + rng.normal(scale=3.0, size=(T, M, 1))
    R = mu + 0.05 * rng.normal(size=(T, k))
    U = rng.random((T, 2))
    for t in range(T):
        yield A[t], Y[t], R[t], mu, U[t]


def drive(agg, seed, T, **kw):
    """Run `agg` on `stream`; returns the logs (advice, costs, refs, arms, losses, laws)."""
    log = ([], [], [], [], [], [])
    for A, Y, r, mu, u in stream(seed, T, **kw):
        p = agg.distribution(A, Y, r)
        a = min(int(np.searchsorted(np.cumsum(p), u[0] * p.sum(), side="right")), len(p) - 1)
        loss = float(u[1] < mu[a])
        agg.update(a, loss)
        for box, v in zip(log, (A, Y, r, a, loss, np.array(p))):
            box.append(v)
    return log


@pytest.mark.parametrize("seed,gap,anchor", [(0, 0.9, "uniform"), (4, 0.9, "played"),
                                             (2, 0.0, "uniform"), (3, 0.0, "played")])
def test_leads_margins_and_switch_are_the_transcribed_rule(seed, gap, anchor):
    T = 900
    agg = FitLead(3, 3, then="follow", anchor=anchor)
    adv, Y, r, arms, losses, _ = drive(agg, seed, T, gap=gap, noise=0.3)
    tau, j, lead, margins = reference_run(adv, Y, r, arms, losses, anchor=anchor)
    assert agg.switch_round == tau and agg.expert == j
    if gap > 0:
        assert tau is not None and j == 1  # (the better expert, found)
    np.testing.assert_allclose(agg.lead, lead, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(agg.margins, margins, rtol=1e-9, atol=1e-9)


def test_the_lead_is_the_difference_of_squared_errors_at_the_played_arm():
    agg = FitLead(2, 2)
    advice = np.array([[0.7, 0.3], [0.7, 0.3]])
    costs = np.array([[0.2, 0.6], [0.5, 0.9]])
    p = agg.distribution(advice, costs)  # no reference: the costs as they are
    agg.update(1, 1.0)
    assert agg.lead.tolist() == [0.0, pytest.approx((1 - 0.6) ** 2 - (1 - 0.9) ** 2)]
    # with a reference the rows are shifted to its level on average over the arms: (0.2, 0.6)
    # -> its mean 0.4 becomes the reference's 0.5, i.e. +0.1; (0.5, 0.9) -> -0.2
    agg.distribution(advice, costs, reference=np.array([0.5, 0.5]))
    np.testing.assert_allclose(agg._pending[1], [[0.3, 0.7], [0.3, 0.7]])
    assert p is advice[0] or np.array_equal(p, advice[0])
    # under the played law p = (0.7, 0.3): the p-mean 0.32 -> 0.5, i.e. +0.18; 0.62 -> -0.12
    played = FitLead(2, 2, anchor="played")
    played.distribution(advice, costs, reference=np.array([0.5, 0.5]))
    np.testing.assert_allclose(played._pending[1], [[0.38, 0.78], [0.38, 0.78]])


def test_no_false_switches_on_null_streams():
    """Expert 1's errors equal expert 0's in distribution (and expert 2 is as noisy): the
    null holds on every seed, so a switch is a false alarm and must happen on at most a
    `confidence` share of seeds (checked with slack for 200 Bernoulli trials, at a large
    delta where a margin too small would show). The margin is conservative: far below."""
    delta, n = 0.3, 200
    switches = 0
    for seed in range(n):
        agg = FitLead(3, 3, confidence=delta, then="follow")
        drive(agg, 1000 + seed, 300, gap=0.0)
        switches += agg.switch_round is not None
    assert switches <= delta * n + 3 * math.sqrt(delta * (1 - delta) * n)
    assert switches <= 0.1 * n


def test_no_switch_while_the_stages_agree():
    """Identical predictions: every increment and cumulant is 0; the margin stays at its floor
    and the lead at 0 (a test that compared laws instead would be fine too; a test that
    charged anything here would not)."""
    agg = FitLead(3, 2)
    rng = np.random.default_rng(0)
    for _ in range(500):
        y = rng.integers(0, 9, size=2) / 8.0  # (dyadic: the shifts cancel exactly)
        p = agg.distribution(np.array([[0.5, 0.5]] * 3), np.array([y, y + 7.0, y - 2.0]),
                             reference=y)
        agg.update(int(rng.random() < p[1]), float(rng.random() < 0.5))
    assert not agg.mixing and np.all(agg.lead == 0.0)
    np.testing.assert_allclose(agg.margins, math.log(2 * 2 / 0.05))


@pytest.mark.parametrize("then", ["exp4", "follow"])
def test_switches_to_the_truly_better_stage_and_plays_it(then):
    """Known means: expert 1 predicts them (with a tenth of expert 0's noise), so it wins
    every round in expectation by about 0.8 noise^2; the switch comes, names expert 1, and
    phase 2 plays its law (`"follow"`) or Exp4 afresh."""
    agg = FitLead(3, 3, then=then)
    adv, *_ , laws = drive(agg, 5, 1500, gap=0.9, noise=0.3)
    tau = agg.switch_round
    assert tau is not None and tau < 1000 and agg.expert == 1
    for t in range(tau):  # phase 1: expert 0's row, the same floats
        np.testing.assert_array_equal(laws[t], adv[t][0])
    for t in range(tau, 1500):
        if then == "follow":
            np.testing.assert_array_equal(laws[t], adv[t][1])
        assert laws[t].sum() == pytest.approx(1.0)
    assert agg.mixing
    assert (agg.weights == np.eye(3)[1]).all() if then == "follow" else isinstance(
        agg._exp4, Exp4)


def test_frozen_at_the_switch():
    agg = FitLead(3, 3, then="follow")
    drive(agg, 5, 1500, gap=0.9, noise=0.3)
    lead, margins = agg.lead, agg.margins
    drive(agg, 6, 50, gap=0.0)
    np.testing.assert_array_equal(agg.lead, lead)
    np.testing.assert_array_equal(agg.margins, margins)


@pytest.mark.parametrize("kwargs,name", [
    (dict(n_experts=0, n_arms=2), "n_experts"), (dict(n_experts=2, n_arms=0), "n_arms"),
    (dict(n_experts=2, n_arms=2, confidence=0.0), "confidence"),
    (dict(n_experts=2, n_arms=2, confidence=1.0), "confidence"),
    (dict(n_experts=2, n_arms=2, confidence=float("nan")), "confidence"),
    (dict(n_experts=2, n_arms=2, then="exp3"), "then"),
    (dict(n_experts=2, n_arms=2, anchor="mean"), "anchor"),
    (dict(n_experts=2, n_arms=2, prior=[1.0, -1.0]), "prior"),
])
def test_bad_parameters(kwargs, name):
    with pytest.raises(ValueError, match=name):
        FitLead(**kwargs)


class _Vectorised(FitLead):
    """FitLead's numpy round as it was before the round was trimmed (every expert's bound,
    expert 0's included, through `ufunc.outer`; the uniform law made at every call)."""

    def fitted(self, p, costs, reference=None):
        if reference is not None:
            w = p if self.anchor == "played" else np.full(len(p), 1.0 / len(p))
            costs = costs - (costs @ w - float(reference @ w))[:, None]
        return np.clip(costs, 0.0, 1.0)

    def update(self, arm, loss):
        if self._exp4 is not None:
            self._exp4.update(arm, loss)
            return
        advice, Y = self._pending
        self._pending = None
        if self.expert is not None:
            return
        self._t += 1
        p = advice[0]
        y0 = Y[0]
        d = Y - y0
        s = Y + y0
        self._lead += d[:, arm] * (2.0 * loss - s[:, arm])
        X = np.multiply.outer(np.stack((d * (2.0 - s), -d * s)), self._lam)
        F = np.expm1(X)
        F -= X
        self._psi += p @ F.max(axis=0)
        lead = self._lead
        if lead.max() >= self._floor:
            excess = lead - self.margins
            if excess.max() >= 0.0:
                self.switch_round = self._t
                self.expert = int(np.argmax(excess))
                if self.then == "exp4":
                    self._exp4 = Exp4(*self._exp4_args)


@pytest.mark.parametrize("M,k", [(2, 2), (2, 3), (5, 10), (3, 7)])
@pytest.mark.parametrize("anchor", ["uniform", "played"])
@pytest.mark.parametrize("jit", [True, False], ids=["compiled", "numpy"])
def test_round_is_the_former_vectorised_round_bit_for_bit(M, k, anchor, jit):
    """The trimmed round (expert 0's bound skipped, it is 0; no ufunc.outer; the uniform law
    made once; the bounds compiled, `_boost_kernels.fit_bounds`, or numpy) gives the former
    round's floats exactly: leads, bounds, switch."""
    new, old = (cls(M, k, then="follow", anchor=anchor) for cls in (FitLead, _Vectorised))
    new._JIT = jit and FitLead._JIT
    logs = [drive(agg, 11, 700, k=k, M=M, gap=0.6, noise=0.3) for agg in (new, old)]
    np.testing.assert_array_equal(np.array(logs[0][5]), np.array(logs[1][5]))
    if new._JIT:  # the C library's expm1 (numba's) and numpy's AVX-512 one may differ in
        # the last bit of a term, so the compiled bounds, sums over 700 rounds of such terms,
        # agree to 700 ulps at most (16 seen); the leads and the decisions exactly
        np.testing.assert_allclose(new._psi, old._psi, rtol=700 * np.finfo(float).eps, atol=0)
    else:
        np.testing.assert_array_equal(new._psi, old._psi)
    np.testing.assert_array_equal(new._lead, old._lead)
    assert new.switch_round == old.switch_round and new.expert == old.expert
    assert new._psi[1:].min() > 0.0 and not new._psi[0].any()


def test_one_expert_round():
    """M = 1: no expert to test, nothing moves and nothing fails."""
    agg = FitLead(1, 3)
    for t in range(5):
        p = agg.distribution(np.array([[0.2, 0.3, 0.5]]), np.array([[0.1, 0.5, 0.9]]),
                             np.array([0.4, 0.4, 0.4]))
        agg.update(t % 3, 0.5)
    assert p.tolist() == [0.2, 0.3, 0.5] and agg.switch_round is None
    assert not agg._psi.any() and not agg.lead.any()


def test_pickled_midway_continues_identically():
    agg = FitLead(3, 3)
    drive(agg, 7, 200, gap=0.5)
    twin = pickle.loads(pickle.dumps(agg))
    a, b = drive(agg, 8, 300, gap=0.5), drive(twin, 8, 300, gap=0.5)
    np.testing.assert_array_equal(np.array(a[5]), np.array(b[5]))
    assert agg.switch_round == twin.switch_round
    np.testing.assert_array_equal(agg.lead, twin.lead)


# -- BoBLO(aggregate="fit") ----------------------------------------------------------------------


def test_boblo_fit_plays_the_n1_arm_law_until_the_switch():
    """Same seed and stream: N = 5 under "fit" plays N = 1's numpy round's law, the same
    floats, while the test has not switched (it has not here), so every arm is the same (the
    general path; its compiled round agrees to rounding, `test_boblo_deep`)."""
    T = 1200
    one, five = BoBLO(seed=3), BoBLO(n_learners=5, aggregate="fit", seed=3)
    one._JIT = False
    five._DEEP = False
    streams = [LinearBandit(d=6, k=4, seed=2, n_rounds=T) for _ in range(2)]
    for (c1, arms1), (c5, arms5) in zip(*streams):
        a1, a5 = one.pull(arms1, c1), five.pull(arms5, c5)
        assert isinstance(five.exp4, FitLead) and not five.exp4.mixing
        np.testing.assert_array_equal(five.arm_probabilities, one.arm_probabilities)
        assert a1 == a5
        one.update(a1, c1, streams[0].reward(a1))
        five.update(a5, c5, streams[1].reward(a5))
    assert np.any(five.exp4.lead[1:] != 0.0)  # the stages were compared all along


def _linear(n=1, **kw):
    """`BoBLO` over the linear first copy (the default learner until the eighth session, no
    random features of its own), with the default later copies for N > 1: where the best
    policy is not linear, only a later stage has the class to play it."""
    later = FOURIER_LATER if n > 1 else {}
    return BoBLO(learners.FeaturePolicy(**LINEAR_LEARNER, **later), n_learners=n, **kw)


@pytest.mark.parametrize("seed", [0, 1])
def test_boblo_fit_switches_where_the_best_policy_is_not_linear(seed):
    T = 3000
    one, five = _linear(seed=seed), _linear(5, aggregate="fit", seed=seed)
    r1, r5 = (_run(p, NonlinearBandit(seed=seed, n_rounds=T)) for p in (one, five))
    assert five.exp4.switch_round is not None and five.exp4.switch_round < 2000
    assert five.exp4.expert >= 1 and r5 > r1 + 0.03


def test_boblo_fit_switches_with_a_greedy_annealed_first_copy():
    """The annealed linear first copy (t0 = 50, as the default learner's) plays nearly
    greedily, which keeps LeadExp4's importance weighted margin from ever being passed on
    `NonlinearBandit`; the fit test, which needs no importance weight, still switches and
    gains. `aggregate="auto"` is the fit test."""
    T, seed = 3000, 0
    assert DEFAULT_LEARNER["t0"] == LINEAR_LEARNER["t0"] == 50.0
    one = _linear(seed=seed)
    lead = _linear(5, aggregate="exp4", seed=seed)
    fit = _linear(5, seed=seed)
    explicit = _linear(5, aggregate="fit", seed=seed)
    r1, rl, rf, re = (_run(p, NonlinearBandit(seed=seed, n_rounds=T))
                      for p in (one, lead, fit, explicit))
    assert lead.exp4.switch_round is None and rl == r1
    assert isinstance(fit.exp4, FitLead)
    assert fit.exp4.switch_round is not None and rf > r1 + 0.05
    assert explicit.exp4.switch_round == fit.exp4.switch_round and re == rf


def test_boblo_fit_does_not_switch_where_the_first_copy_is_right():
    T = 3000
    one, five = BoBLO(seed=0), BoBLO(n_learners=5, aggregate="fit", seed=0)
    r1, r5 = (_run(p, LinearBandit(d=10, k=5, noise=0.5, seed=0, n_rounds=T)) for p in (one, five))
    assert five.exp4.switch_round is None and r5 == r1
    assert np.all(five.exp4.lead < five.exp4.margins)


@pytest.mark.parametrize("kwargs", [
    dict(aggregate="fit", estimator="ips", n_learners=3),
    dict(aggregate="fit", n_learners=3, learner=learners.LinearOGD()),
    dict(aggregate="fit", n_learners=3, learner=learners.LinearOGD(),
         decision_set=None, transformer=None),
    dict(aggregate="fits", n_learners=3),
])
def test_boblo_fit_bad_configurations_name_aggregate(kwargs):
    with pytest.raises(ValueError, match="aggregate"):
        BoBLO(**kwargs)


def test_boblo_fit_bad_input_changes_nothing_and_pickles():
    policy = BoBLO(n_learners=3, aggregate="fit", seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        c = {"a": float(rng.normal()), "b": float(rng.normal())}
        arm = policy.pull([0, 1, 2], c)
        policy.update(arm, c, float(rng.random()))
    c = {"a": 0.3, "b": -0.2}
    arm = policy.pull([0, 1, 2], c)
    before = pickle.dumps(policy)
    lead = policy.exp4.lead
    for bad in (1.5, float("nan"), "x"):
        with pytest.raises(ValueError, match="reward"):
            policy.update(arm, c, bad)
    with pytest.raises(ValueError, match="arm_id"):
        policy.update(7, c, 0.5)
    np.testing.assert_array_equal(policy.exp4.lead, lead)
    assert pickle.dumps(policy) == before
    twin = pickle.loads(before)
    policy.update(arm, c, 0.5)
    twin.update(arm, c, 0.5)
    for _ in range(30):  # the same draws, the same arms, the same leads
        c = {"a": float(rng.normal()), "b": float(rng.normal())}
        a1, a2 = policy.pull([0, 1, 2], c), twin.pull([0, 1, 2], c)
        assert a1 == a2
        policy.update(a1, c, 0.25)
        twin.update(a2, c, 0.25)
    np.testing.assert_array_equal(policy.exp4.lead, twin.exp4.lead)
    with pytest.raises(ValueError, match="context"):
        policy.pull([0, 1, 2], {"a": float("inf"), "b": 0.0})
    np.testing.assert_array_equal(policy.exp4.lead, twin.exp4.lead)
