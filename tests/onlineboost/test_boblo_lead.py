"""BoBLO(n_learners=N) under `aggregate="exp4"` (`exp4.LeadExp4`, the default aggregate until
issue 13's sixth session; `"auto"` now picks `depth.FitLead`, tests/onlineboost/test_depth.py and
test_boblo_auto.py): until a stage leads the first copy beyond noise it plays exactly what the
first copy alone plays, round by round. The switching tests build the fixed-temperature first
copy explicitly (`FIXED_LEARNER`): with the annealed default copy 1 LeadExp4 never switches on
`NonlinearBandit` (tests/onlineboost/test_depth.py)."""

from __future__ import annotations

import numpy as np
import pytest

import learners
from learners.feature_policy import FeaturePolicyBoostStack, FeaturePolicyStack
from learners.neighbour_stack import NeighbourStack
from onlineboost import BoBLO, boblo
from onlineboost.boblo import DEFAULT_LATER, DEFAULT_LEARNER, FIXED_WEIGHT_LEARNER, FOURIER_LATER
from onlineboost.depth import FitLead, PlayLead
from onlineboost.exp4 import LeadExp4
from streams import LinearBandit, NonlinearBandit
from tests.helpers import LINEAR_LEARNER
from tests.helpers import average_reward as _run

#: the default learner (as it was until the eighth session) at a fixed temperature (BoBLO's
#: default play until the sixth session)
FIXED_LEARNER = {**LINEAR_LEARNER, "t0": None}


@pytest.mark.parametrize("learner", [None, dict(DEFAULT_LEARNER, later_features=16),
                                     dict(FIXED_LEARNER, later_features=16)],
                         ids=["default", "later-fourier", "fixed-temperature"])
def test_n5_plays_the_n1_arm_law_until_the_switch(learner):
    """Same seed, same stream: every arm law of N = 5 equals N = 1's (the same floats), so
    every arm drawn is the same, as long as LeadExp4 has not switched (it has not here)."""
    T = 1500
    make = (lambda n: BoBLO(n_learners=n, aggregate="exp4", seed=3)) if learner is None else (
        lambda n: BoBLO(learners.FeaturePolicy(**learner), n_learners=n, aggregate="exp4",
                        seed=3))
    one, five = make(1), make(5)
    one._JIT = False  # (N = 1's numpy round: the compiled one agrees to rounding, same arms)
    streams = [LinearBandit(d=6, k=4, seed=2, n_rounds=T) for _ in range(2)]
    for (c1, arms1), (c5, arms5) in zip(*streams):
        a1, a5 = one.pull(arms1, c1), five.pull(arms5, c5)
        assert isinstance(five.exp4, LeadExp4) and one.exp4 is None
        assert not five.exp4.mixing
        np.testing.assert_array_equal(five.arm_probabilities, one.arm_probabilities)
        assert a1 == a5
        one.update(a1, c1, streams[0].reward(a1))
        five.update(a5, c5, streams[1].reward(a5))
    lead, var = five.exp4.lead, five.exp4.variance
    assert lead[0] == 0.0 and np.all(var[1:] > 0)  # the stages were tracked all along
    assert np.all(lead < five.exp4.margin(var))


class _Overflow:
    """A stack wrapper whose later copies' points turn NaN for one context (as an overflow
    would): the round must be refused before anything is stored, as when Exp4 mixed them
    (LeadExp4 plays row 0 alone, but BoOCO's chain product carries a NaN into every row)."""

    def __init__(self, stack, arms=slice(None)):
        self.stack = stack
        self.arms = arms  # the arms whose points turn NaN

    def __getattr__(self, name):
        return getattr(self.stack, name)

    def predict_vector(self, c):
        W = self.stack.predict_vector(c)
        if c[0] > 3.0:
            W = W.copy()
            W[1:, self.arms] = np.nan
        return W


@pytest.mark.parametrize("arms", [slice(None), slice(-1, None)], ids=["all-arms", "last-arm"])
@pytest.mark.parametrize("aggregate", ["exp4", "auto"])
def test_non_finite_later_stages_refuse_the_round(aggregate, arms):
    """(NaN in the last arm's points alone: the law's check must look past its first entry.)"""
    policy = BoBLO(n_learners=3, aggregate=aggregate, seed=0, transformer=None)
    rng = np.random.default_rng(0)
    for _ in range(20):
        c = {"a": float(rng.normal()), "b": float(rng.normal())}
        arm = policy.pull([0, 1, 2], c)
        policy.update(arm, c, float(rng.random()))
    booco = policy.booco
    booco._copies = _Overflow(booco._copies, arms)
    lead = policy.exp4.lead
    with pytest.raises(ValueError, match="context"):
        policy.pull([0, 1, 2], {"a": 5.0, "b": 0.0})
    np.testing.assert_array_equal(policy.exp4.lead, lead)
    arm = policy.pull([0, 1, 2], {"a": 0.5, "b": 0.0})  # the next round goes on as usual
    policy.update(arm, {"a": 0.5, "b": 0.0}, 1.0)


def test_later_copies_are_neighbours_by_default_and_copy_one_is_unchanged(monkeypatch):
    five, one = BoBLO(n_learners=5), BoBLO()
    five.pull([0, 1, 2], {"a": 0.0})
    one.pull([0, 1, 2], {"a": 0.0})
    stack = five.booco._copies
    assert isinstance(stack, FeaturePolicyBoostStack)
    assert stack.first.n_features == DEFAULT_LEARNER["n_features"] == 128  # (copy 1 as N = 1)
    assert stack.learn_weight == one.booco._copies.learn_weight == 0.2  # (its weight learnt)
    assert isinstance(stack.rest, NeighbourStack) and stack.fit == "residual"
    assert (stack.rest.k, stack.rest.shrink, stack.rest.window) == (5, 0.5, 2000)
    assert stack.rest.temperature == stack.first.temperature and stack.rest.t0 == 50.0
    assert isinstance(one.booco._copies, FeaturePolicyStack)
    assert one.booco._copies.n_features == 128
    assert not five._deep and isinstance(five.exp4, PlayLead)  # (the general path)
    # the eighth to fifteenth sessions' later copies: 128 Fourier features of their own, the
    # boosted stack that the compiled N > 1 round covers (ninth session)
    monkeypatch.setattr(boblo, "DEFAULT_LATER", FOURIER_LATER)
    fourier = BoBLO(n_learners=5)
    fourier.pull([0, 1, 2], {"a": 0.0})
    assert not fourier._deep  # (with the learnt weight of copy 1: the general path)
    monkeypatch.setattr(boblo, "DEFAULT_LEARNER", FIXED_WEIGHT_LEARNER)  # (as it was then)
    fourier = BoBLO(n_learners=5)
    fourier.pull([0, 1, 2], {"a": 0.0})
    rest = fourier.booco._copies.rest
    assert rest.n_features == FOURIER_LATER["later_features"] == 128
    assert fourier.booco._copies.first.bandwidth == rest.bandwidth == DEFAULT_LEARNER["bandwidth"]
    assert fourier._deep and isinstance(fourier.exp4, FitLead)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_n5_switches_and_earns_more_where_the_best_policy_is_not_linear(seed):
    """`NonlinearBandit`, the fixed-temperature first copy: no linear correction sees the
    rings, the Fourier later copies do; LeadExp4 finds a later stage within 3,000 rounds and
    N = 5 then earns clearly more than N = 1 (measured +0.10 / +0.05 / +0.07). Linear later
    copies add no policy class: they never switch and tie N = 1 exactly."""
    T = 3000
    one = BoBLO(learners.FeaturePolicy(**FIXED_LEARNER), seed=seed)
    five = BoBLO(learners.FeaturePolicy(**FIXED_LEARNER, **FOURIER_LATER), n_learners=5,
                 aggregate="exp4", seed=seed)
    linear = BoBLO(learners.FeaturePolicy(**FIXED_LEARNER), n_learners=5, aggregate="exp4",
                   seed=seed)
    r1, r5, rlin = (_run(p, NonlinearBandit(seed=seed, n_rounds=T)) for p in (one, five, linear))
    assert isinstance(five.exp4, LeadExp4) and isinstance(linear.exp4, LeadExp4)
    assert five.exp4.switch_round is not None and five.exp4.switch_round < 2500
    assert five.exp4.mixing
    assert r5 > r1 + 0.03
    assert linear.exp4.switch_round is None and rlin == r1


def test_n5_does_not_switch_where_the_first_copy_is_already_right():
    """`LinearBandit` (the development stream's size), the fixed-temperature first copy: the
    best policy is linear, copy 1 expresses it, and N = 5 under LeadExp4 with its Fourier
    later copies plays N = 1's law throughout: the same reward, float for float."""
    T = 3000
    one = BoBLO(learners.FeaturePolicy(**FIXED_LEARNER), seed=0)
    five = BoBLO(learners.FeaturePolicy(**FIXED_LEARNER, **FOURIER_LATER), n_learners=5,
                 aggregate="exp4", seed=0)
    r1, r5 = (_run(p, LinearBandit(d=10, k=5, noise=0.5, seed=0, n_rounds=T)) for p in (one, five))
    assert isinstance(five.exp4, LeadExp4)
    assert five.exp4.switch_round is None and r5 == r1
    assert np.all(five.exp4.lead < five.exp4.margins)


@pytest.mark.parametrize("gamma", [1.0, 0.5])
def test_after_the_switch_the_stage_plays_its_own_law(gamma):
    """`aggregate="decision"`: once `PlayLead` has switched to stage j, the round plays
    (1 - eta) W_j + eta / d, W_j the j-th copy's own point (not BoOCO's chained row). With
    gamma != eta_1 the first copy alone is expert 0, so stage j is expert j + 1: an expert
    index not offset by it plays the next copy's law (or runs off the end). The default
    learner at a fixed temperature of 0.5 (its laws soft, so the copies' laws differ)."""
    soft = learners.FeaturePolicy(**dict(DEFAULT_LEARNER, **DEFAULT_LATER, temperature=0.5,
                                         t0=None))
    policy = BoBLO(soft, n_learners=3, gamma=gamma, aggregate="decision", seed=0)
    stream = LinearBandit(d=4, k=3, seed=1, n_rounds=200)
    for c, arms in stream:
        arm = policy.pull(arms, c)
        policy.update(arm, c, stream.reward(arm))
    agg, first = policy.exp4, int(gamma != 1.0)
    assert isinstance(agg, PlayLead) and policy._first_expert == bool(first)
    assert agg.n_experts == 3 + first
    booco = policy.booco
    seen = []

    def spy(x, points=False):  # BoOCO's own iterates, recorded
        out = type(booco).iterates(booco, x, points=points)
        seen.append(out)
        return out

    booco.iterates = spy
    judged = []

    def distribution(advice, costs, reference):  # the costs the aggregator judges, recorded
        judged.append(costs)
        return type(agg).distribution(agg, advice, costs, reference)

    agg.distribution = distribution
    context = {f"x{i}": 0.3 * i - 0.4 for i in range(4)}
    laws = []
    for j in range(3):  # the stages, copy j + 1's prefix
        agg.expert = j + first
        policy.pull([0, 1, 2], context)
        X, W = seen[-1]
        assert W.shape == (3, 3)
        # every stage's predicted costs, the first copy's twice when it is an expert of its own
        stages = booco.copies.predicted_costs(policy._pending[1])
        np.testing.assert_array_equal(judged[-1], np.vstack([stages[:first], stages]))
        eta = policy.exploration
        np.testing.assert_allclose(policy.arm_probabilities, (1.0 - eta) * W[j] + eta / 3,
                                   rtol=0, atol=1e-12)
        laws.append(np.asarray(policy.arm_probabilities))
    # the three copies' laws differ here, so a wrong row is seen
    assert min(np.abs(laws[i] - laws[j]).max() for i, j in [(0, 1), (0, 2), (1, 2)]) > 1e-3


@pytest.mark.parametrize("gamma, step_size", [(1.0, "frank-wolfe"), (0.5, "frank-wolfe"),
                                              (1.0, 0.25), (0.3, [0.6, 0.5, 0.4])])
def test_the_first_copy_alone_is_an_expert_of_its_own_with_its_own_rescaling(gamma, step_size):
    """Exp4's experts are the stages $x^1..x^N$ and, where $\\gamma \\ne \\eta_1$, the first copy
    alone, $W_1 = \\mu + (\\gamma/\\eta_1)(x^1 - \\mu)$ (its own point; $x^1$ is it rescaled by
    $\\eta_1/\\gamma$), put in the simplex. Each advises $(1 - \\eta)\\pi + \\eta/d$. The prior puts
    half its mass on $x^1$, the point BoOCO with one copy plays, the rest evenly on the others.
    Checked against BoOCO's own iterates, recorded by a spy, on a policy that has learnt."""
    eta1 = 2.0 / (1.0 + 1.0) if step_size == "frank-wolfe" else np.atleast_1d(step_size)[0]
    policy = BoBLO(learners.FeaturePolicy(**FIXED_LEARNER), n_learners=3, gamma=gamma,
                   step_size=step_size, aggregate="exp4", seed=0)
    stream = LinearBandit(d=4, k=3, seed=2, n_rounds=150)
    for c, arms in stream:
        arm = policy.pull(arms, c)
        policy.update(arm, c, stream.reward(arm))
    first = abs(gamma / eta1 - 1.0) > 1e-12
    agg, booco = policy.exp4, policy.booco
    assert isinstance(agg, LeadExp4) and agg.n_experts == 3 + first
    rest = 0.5 / (2 + first)
    want = [rest, 0.5, rest, rest] if first else [0.5, rest, rest]
    np.testing.assert_allclose(agg.prior, want, rtol=1e-15)
    seen, advised = [], []

    def iterates(x):
        out = type(booco).iterates(booco, x)
        seen.append(out)
        return out

    def distribution(advice):
        advised.append(advice)
        return type(agg).distribution(agg, advice)

    booco.iterates, agg.distribution = iterates, distribution
    rng = np.random.default_rng(5)
    for _ in range(5):
        c = {f"x{i}": float(v) for i, v in enumerate(rng.normal(size=4))}
        arm = policy.pull([0, 1, 2], c)
        X, advice = seen[-1], advised[-1]
        mu = np.full(3, 1.0 / 3.0)
        rows = np.vstack([mu + (gamma / eta1) * (X[:1] - mu), X]) if first else X
        rows = np.array([_simplex_projection(r) for r in rows])
        eta = policy.exploration
        np.testing.assert_allclose(advice, (1.0 - eta) * rows + eta / 3, rtol=0, atol=1e-12)
        policy.update(arm, c, 0.5)
    # two experts: half and half
    two = BoBLO(learners.FeaturePolicy(**FIXED_LEARNER), n_learners=2 - first, gamma=gamma,
                step_size=float(eta1), aggregate="exp4", seed=0)
    two.pull([0, 1, 2], {"x0": 0.1})
    np.testing.assert_allclose(two.exp4.prior, [0.5, 0.5], rtol=1e-15)


def _simplex_projection(v: np.ndarray) -> np.ndarray:
    """The Euclidean projection onto the simplex by sorting (Duchi et al. 2008), written out."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u)
    k = np.arange(1, len(v) + 1)
    rho = np.nonzero(u * k > css - 1.0)[0][-1]
    return np.maximum(v - (css[rho] - 1.0) / (rho + 1.0), 0.0)
