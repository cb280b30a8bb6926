"""FeaturePolicy's play laws (issue 13, fifth and sixth sessions): inverse gap weighting and the
annealed softmax, with or without a floor under its temperature, each checked against an
independent transcription of its formula at the stack's clock (learning steps taken); the
default fixed softmax ignores the clock; the clock is state (pickled, untouched by bad input);
older pickles play their old law; the compiled round plays the softmax (fixed, annealed,
floored) as the numpy round does and leaves inverse gap weighting to it."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from learners import FeaturePolicy
from learners.feature_policy import FeaturePolicyStack, igw
from onlineboost import BoBLO, sets
from onlineboost.boblo import DEFAULT_LEARNER, FIXED_WEIGHT_LEARNER
from streams import LinearBandit


def igw_transcribed(y, gamma):
    """p_a = 1 / (k + gamma (y_a - y_b)) off the first cheapest arm b, p_b the rest (a loop)."""
    k = len(y)
    b = min(range(k), key=lambda a: (y[a], a))
    p = [0.0 if a == b else 1.0 / (k + gamma * (y[a] - y[b])) for a in range(k)]
    p[b] = 1.0 - sum(p)
    return np.array(p)


def softmax(costs, tau):
    e = np.exp(-(costs - costs.min()) / tau)
    return e / e.sum()


def trained(n, k, T, seed=0, **kw):
    stack = FeaturePolicyStack(n, sets.Simplex(k), l2=2.0, temperature=0.1, n_features=4,
                               seeds=list(range(n)), **kw)
    rng = np.random.default_rng(seed)
    for _ in range(T):
        stack.learn_vector(rng.normal(size=3), rng.uniform(size=(n, k)))
    return stack, rng.normal(size=3)


def test_igw_is_the_closed_form_on_given_costs():
    rng = np.random.default_rng(0)
    Y = rng.uniform(size=(20, 5))
    Y[3] = [0.4, 0.2, 0.2, 0.9, 0.2]  # ties: the first cheapest arm takes the rest
    for gamma in (0.0, 0.7, 10.0, 1e4):
        P = igw(Y, gamma)
        for y, p in zip(Y, P):
            np.testing.assert_allclose(p, igw_transcribed(y, gamma), rtol=0, atol=1e-15)
            assert math.isclose(p.sum(), 1.0, abs_tol=1e-12)
            b = int(np.argmin(y))
            assert p[b] >= 1.0 / 5 - 1e-15 and np.all(np.delete(p, b) <= 1.0 / 5 + 1e-15)
    assert igw(Y[3:4], 10.0)[0, 1] > igw(Y[3:4], 10.0)[0, 2]  # tie broken to the first
    np.testing.assert_allclose(igw(Y, 0.0), 0.2)  # gamma 0: uniform
    untied = np.delete(Y, 3, axis=0)  # large gamma: greedy (tied arms keep 1/k each)
    assert np.all(igw(untied, 1e12).argmax(axis=1) == untied.argmin(axis=1))
    assert igw(untied, 1e12).max(axis=1).min() > 1 - 1e-9
    np.testing.assert_allclose(igw(Y[3:4], 1e12)[0], [0, 0.6, 0.2, 0, 0.2], atol=1e-9)


def test_igw_is_monotone_in_the_gap_and_in_gamma():
    y = np.array([[0.1, 0.2, 0.5, 0.9]])
    p = igw(y, 5.0)[0]
    assert p[1] > p[2] > p[3]  # a larger gap, less mass
    q = igw(y, 50.0)[0]
    assert np.all(q[1:] < p[1:]) and q[0] > p[0]  # a larger gamma moves mass to the best arm


@pytest.mark.parametrize("n", [1, 3])
def test_igw_stack_plays_gamma0_sqrt_k_t_at_its_clock(n):
    k, T, g0 = 4, 37, 2.5
    stack, c = trained(n, k, T, link="igw", gamma0=g0)
    assert stack._t == T
    costs = stack.predicted_costs(c)
    P = stack.predict_vector(c)
    for i in range(n):
        np.testing.assert_allclose(P[i], igw_transcribed(costs[i], g0 * math.sqrt(k * T)),
                                   atol=1e-15)
    fresh = FeaturePolicyStack(n, sets.Simplex(k), link="igw", gamma0=g0, n_features=0)
    np.testing.assert_allclose(fresh.predict_vector(c), 1.0 / k)  # t = 0: uniform


@pytest.mark.parametrize("n", [1, 3])
def test_annealed_softmax_temperature_is_tau_over_sqrt_1_plus_t_over_t0(n):
    k, T, t0 = 3, 50, 20.0
    stack, c = trained(n, k, T, t0=t0)
    tau_t = 0.1 / math.sqrt(1.0 + T / t0)
    assert math.isclose(1.0 / stack.inverse_temperature(), tau_t, rel_tol=1e-14)
    costs = stack.predicted_costs(c)
    P = stack.predict_vector(c)
    for i in range(n):
        np.testing.assert_allclose(P[i], softmax(costs[i], tau_t), rtol=1e-12, atol=1e-15)
        # not the fixed temperature's law
        assert np.abs(P[i] - softmax(costs[i], 0.1)).max() > 1e-3


def floored_tau(tau, t, t0, floor):
    """The floored annealed temperature, written out: max(tau / sqrt(1 + t / t0), floor)."""
    annealed = tau / math.sqrt(1.0 + t / t0)
    return annealed if floor is None or annealed >= floor else floor


@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("T, floor, binds", [
    (5, 0.07, False),  # 0.1 / sqrt(1.25) = 0.089 > 0.07: still annealing
    (50, 0.07, True),  # 0.1 / sqrt(3.5) = 0.053 < 0.07: at the floor
    (50, None, False),  # no floor: annealed
    (50, 0.1, True),  # a floor at the temperature: the fixed softmax
])
def test_floored_annealed_softmax_plays_max_of_annealed_and_floor(n, T, floor, binds):
    t0, tau = 20.0, 0.1
    stack, c = trained(n, 3, T, t0=t0, min_temperature=floor)
    tau_t = floored_tau(tau, T, t0, floor)
    assert (tau_t == floor) == binds
    assert math.isclose(1.0 / stack.inverse_temperature(), tau_t, rel_tol=1e-14)
    costs = stack.predicted_costs(c)
    P = stack.predict_vector(c)
    for i in range(n):
        np.testing.assert_allclose(P[i], softmax(costs[i], tau_t), rtol=1e-12, atol=1e-15)
        if binds:  # not the unfloored annealed law
            unfloored = softmax(costs[i], tau / math.sqrt(1.0 + T / t0))
            assert floor == tau or np.abs(P[i] - unfloored).max() > 1e-3


def test_the_floor_holds_at_every_clock_and_the_stack_carries_it():
    """Through `FeaturePolicy.stack` (both halves of a boost stack too): 1 / tau_t at every
    step is the transcription's, never above 1 / floor, and equal to it once the annealed
    temperature falls below the floor (t >= t0 ((tau / floor)^2 - 1) = 60 here)."""
    policy = FeaturePolicy(sets.Simplex(3), temperature=0.04, n_features=0, later_features=4,
                           t0=20.0, min_temperature=0.02)
    for stack in (policy.stack(1), policy.stack(3)):
        parts = [stack] if isinstance(stack, FeaturePolicyStack) else [stack.first, stack.rest]
        rng = np.random.default_rng(4)
        for t in range(100):
            for part in parts:
                assert part.min_temperature == 0.02
                beta = part.inverse_temperature()
                assert math.isclose(beta, 1.0 / floored_tau(0.04, t, 20.0, 0.02), rel_tol=1e-14)
                assert beta <= 1.0 / 0.02 and (beta == 1.0 / 0.02) == (t >= 60)
            stack.learn_vector(rng.normal(size=2), rng.uniform(size=(stack.n, 3)))


def test_default_fixed_softmax_ignores_the_clock():
    stack, c = trained(2, 3, 80)
    assert stack._t == 80
    costs = stack.predicted_costs(c)
    for i in range(2):
        np.testing.assert_allclose(stack.predict_vector(c)[i], softmax(costs[i], 0.1),
                                   rtol=1e-12, atol=1e-15)


def test_boost_stack_copies_play_the_law_too():
    policy = FeaturePolicy(sets.Simplex(3), n_features=0, later_features=4, residual=True,
                           link="igw", gamma0=3.0)
    stack = policy.stack(3)
    rng = np.random.default_rng(1)
    for _ in range(25):
        stack.learn_vector(rng.normal(size=2), rng.uniform(size=(3, 3)))
    c = rng.normal(size=2)
    costs = stack.predicted_costs(c)
    P = stack.predict_vector(c)
    for i in range(3):
        np.testing.assert_allclose(P[i], igw_transcribed(costs[i], 3.0 * math.sqrt(3 * 25)),
                                   atol=1e-15)


def test_clock_is_pickled_and_old_pickles_play_the_fixed_softmax():
    policy = FeaturePolicy(n_features=0, t0=10.0)
    for j in range(12):
        policy.learn_one({"x": float(j % 3)}, np.array([0.3, 0.6]))
    back = pickle.loads(pickle.dumps(policy))
    assert back._stack._t == 12
    np.testing.assert_array_equal(back.predict_one({"x": 1.0}), policy.predict_one({"x": 1.0}))
    old = pickle.loads(pickle.dumps(FeaturePolicy(n_features=0)))
    for key in ("link", "gamma0", "t0", "min_temperature", "_t"):  # a stack pickled before
        # the play laws
        del old._stack.__dict__[key]
    old._stack.learn_vector(np.array([1.0]), np.array([[0.3, 0.6]]))
    costs = old._stack.predicted_costs(np.array([1.0]))[0]
    np.testing.assert_allclose(old._stack.predict_vector(np.array([1.0]))[0],
                               softmax(costs, 0.1), rtol=1e-12)


def test_pickles_from_before_the_floor_anneal_without_one():
    policy = FeaturePolicy(n_features=0, t0=10.0)
    for j in range(30):
        policy.learn_one({"x": float(j % 3)}, np.array([0.3, 0.6]))
    old = pickle.loads(pickle.dumps(policy))
    del old.__dict__["min_temperature"]  # a learner and its stack pickled before the floor
    del old._stack.__dict__["min_temperature"]
    assert old.min_temperature is None and old._stack.min_temperature is None
    assert math.isclose(1.0 / old._stack.inverse_temperature(), 0.1 / math.sqrt(1.0 + 30 / 10),
                        rel_tol=1e-14)
    np.testing.assert_array_equal(old.predict_one({"x": 1.0}), policy.predict_one({"x": 1.0}))
    assert old.stack(2).min_temperature is None  # (new copies from the old learner)


def test_floored_learner_round_trips_through_pickle_and_clone():
    policy = FeaturePolicy(n_features=0, t0=10.0, min_temperature=0.05)
    for j in range(30):  # 0.1 / sqrt(4) = 0.05: at the floor from t = 30
        policy.learn_one({"x": float(j % 3)}, np.array([0.3, 0.6]))
    back = pickle.loads(pickle.dumps(policy))
    assert back.min_temperature == 0.05 and back._stack.inverse_temperature() == 1.0 / 0.05
    np.testing.assert_array_equal(back.predict_one({"x": 1.0}), policy.predict_one({"x": 1.0}))
    assert policy.clone().min_temperature == 0.05


@pytest.mark.parametrize("x, g", [({"x": float("nan")}, [0.0, 0.0]), ({"x": 1.0}, [0.0, 1e400])])
def test_bad_input_leaves_the_clock(x, g):
    policy = FeaturePolicy(n_features=0, link="igw")
    policy.learn_one({"x": 0.5}, np.array([0.2, 0.4]))
    before = pickle.dumps(policy)
    with pytest.raises(ValueError):
        policy.learn_one(x, g)
    assert pickle.dumps(policy) == before and policy._stack._t == 1


@pytest.mark.parametrize("kwargs, name", [
    ({"link": "greedy"}, "link"), ({"gamma0": 0.0}, "gamma0"), ({"gamma0": -1.0}, "gamma0"),
    ({"gamma0": float("nan")}, "gamma0"), ({"t0": 0.0}, "t0"), ({"t0": "10"}, "t0"),
    ({"link": "igw", "t0": 10.0}, "t0"),
    ({"t0": 10.0, "min_temperature": 0.0}, "min_temperature"),
    ({"t0": 10.0, "min_temperature": -0.01}, "min_temperature"),
    ({"t0": 10.0, "min_temperature": float("nan")}, "min_temperature"),
    ({"t0": 10.0, "min_temperature": float("inf")}, "min_temperature"),
    ({"t0": 10.0, "min_temperature": "0.01"}, "min_temperature"),
    ({"t0": 10.0, "min_temperature": True}, "min_temperature"),
    ({"min_temperature": 0.01}, "min_temperature"),  # a floor without annealing
    ({"link": "igw", "min_temperature": 0.01}, "min_temperature"),
    ({"t0": 10.0, "temperature": 0.02, "min_temperature": 0.03}, "min_temperature"),  # above
])
def test_bad_play_parameters_are_refused_by_name(kwargs, name):
    with pytest.raises(ValueError, match=name):
        FeaturePolicy(**kwargs)


@pytest.mark.parametrize("play", [dict(link="igw", gamma0=10.0, t0=None), dict(t0=50.0),
                                  dict(t0=50.0, min_temperature=0.01), dict(t0=None)])
def test_in_boblo_the_law_keeps_its_floor_and_the_clock_counts_rounds(play):
    """BoBLO on the play laws (over `FIXED_WEIGHT_LEARNER`, whose annealing, t0 = 50, inverse
    gap weighting must drop; the learnt weight needs the softmax): a distribution with every
    arm at least eta / k each round and the clock one step a round; the compiled round takes
    the softmax (fixed or annealed), the numpy round plays inverse gap weighting."""
    eta, k = 0.05, 4
    policy = BoBLO(learner=FeaturePolicy(**{**FIXED_WEIGHT_LEARNER, **play}), exploration=eta,
                   seed=1)
    stream = LinearBandit(d=3, k=k, seed=2, n_rounds=300)
    for t, (context, arms) in enumerate(stream):
        arm = policy.pull(arms, context)
        p = policy.arm_probabilities
        assert np.isclose(p.sum(), 1.0, atol=1e-12) and p.min() >= eta / k - 1e-12
        policy.update(arm, context, stream.reward(arm))
    assert policy.booco.copies._t == t + 1
    assert policy._fused and policy._jit == (BoBLO._JIT and "link" not in play)


@pytest.mark.parametrize("t0, floor", [(None, None), (30.0, None), (30.0, 0.01)])
def test_compiled_and_numpy_rounds_agree_on_the_softmax_at_the_clock(t0, floor):
    """The compiled round takes the annealed temperature at the learner's clock (floored or
    not) and moves the clock as the numpy round does: same arms, laws within 1e-12, same clock
    (the fixed temperature, t0 None, included: its clock counts rounds whichever round ran;
    t0 = 50, the default, in tests/onlineboost/test_boblo_kernel.py)."""
    if not BoBLO._JIT:
        pytest.skip("numba missing")
    play = {"t0": t0} if floor is None else {"t0": t0, "min_temperature": floor}
    mk = lambda: BoBLO(learner=FeaturePolicy(**{**DEFAULT_LEARNER, **play}), seed=3)  # noqa
    compiled, plain = mk(), mk()
    plain._JIT = False
    stream = LinearBandit(d=4, k=3, seed=5, n_rounds=600)
    for context, arms in stream:
        a, b = compiled.pull(arms, context), plain.pull(arms, context)
        assert a == b
        np.testing.assert_allclose(compiled.arm_probabilities, plain.arm_probabilities,
                                   rtol=0, atol=1e-12)
        r = stream.reward(a)
        compiled.update(a, context, r)
        plain.update(b, context, r)
    assert compiled._jit and compiled.booco.copies._t == plain.booco.copies._t == 600
    if floor is not None:  # (the floor binds from t = 30 ((0.02 / 0.01)^2 - 1) = 90 on)
        assert compiled.booco.copies.inverse_temperature() == 1.0 / floor
