"""`BoBLO(count_bonus=alpha)`: the play's softmax of the predicted costs less UCB1's count bonus
$b_a = \\alpha\\sqrt{\\ln(1 + t)/(1 + n_a)}$, on every path (compiled and numpy, N = 1 and N > 1,
`NeighbourBoBLO`'s second stage), checked against a transcription of the law."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from benchmarks.bandit_compare import DATASETS
from learners import FeaturePolicy
from onlineboost import BoBLO, NeighbourBoBLO
from onlineboost.boblo import FIXED_WEIGHT_LEARNER, count_shift
from tests.helpers import play_alike


def _bonus(counts, alpha):
    """The bonus, transcribed."""
    t = sum(counts)
    return [alpha * math.sqrt(math.log(1 + t) / (1 + n)) for n in counts]


def _law(policy, x):
    """`BoBLO()`'s law for the scaled context `x`, transcribed: (1 - eta) softmax(-beta (y - b))
    + eta / k, y the copy's predicted costs (the loss model plus its correction)."""
    copies = policy._booco.copies
    y = copies.predicted_costs(x)[0] - _bonus(policy._play_counts().tolist(), policy.count_bonus)
    e = np.exp(-(y - y.min()) * copies.inverse_temperature())
    eta = policy.exploration
    return (1 - eta) * e / e.sum() + eta / len(y)


def test_count_shift_is_the_bonus():
    assert np.allclose(count_shift([0, 0, 0], 1.0), 0.0)  # ln 1 = 0: no bonus before any play
    counts = [3.0, 0.0, 10.0]
    np.testing.assert_allclose(count_shift(counts, 0.3), _bonus(counts, 0.3), rtol=1e-15)
    assert count_shift(counts, 0.3)[1] > count_shift(counts, 0.3)[0] > count_shift(counts, 0.3)[2]


@pytest.mark.parametrize("jit", [True, False])
def test_the_law_is_the_softmax_of_the_costs_less_the_bonus(jit):
    policy = BoBLO(seed=0, count_bonus=0.5)
    policy._JIT = jit
    stream = DATASETS["ImageSegments"](0)
    for t, (context, arms) in enumerate(stream):
        if t >= 400:
            break
        arm = policy.pull(arms, context)
        if t > 20:  # (past the scaler's warm-up: the usual round)
            np.testing.assert_allclose(policy.arm_probabilities,
                                       _law(policy, policy._pending[1]), rtol=1e-9, atol=1e-15)
        policy.update(arm, context, stream.reward(arm))
    assert policy._jit == jit or not jit
    counts = [policy._counts[a] for a in policy._arms]
    assert policy._play_counts().tolist() == counts and sum(counts) == 400


def test_the_compiled_round_plays_the_numpy_round_with_the_bonus():
    fast, slow = BoBLO(seed=2, count_bonus=0.2), BoBLO(seed=2, count_bonus=0.2)
    slow._JIT = False
    play_alike(fast, slow, DATASETS["digits"](2), 600)


@pytest.mark.parametrize("later, deep", [("fourier", True), ("fourier", False),
                                         ("neighbours", False)])
def test_n_5_plays_n_1s_arms_with_the_bonus(later, deep, monkeypatch):
    """Until its aggregate leaves the first copy, BoBLO(n_learners=5) plays BoBLO()'s law, the
    count bonus included (over Fourier later copies: the compiled round and the general path;
    over the default neighbour copies: the general path)."""
    from onlineboost import boblo

    if later == "fourier":  # (and copy 1 as it was then, its correction's weight fixed)
        monkeypatch.setattr(boblo, "DEFAULT_LATER", boblo.FOURIER_LATER)
        monkeypatch.setattr(boblo, "DEFAULT_LEARNER", boblo.FIXED_WEIGHT_LEARNER)
    one, five = BoBLO(seed=1, count_bonus=0.2), BoBLO(seed=1, count_bonus=0.2, n_learners=5)
    five._DEEP = deep
    play_alike(one, five, DATASETS["LinearBandit"](1), 500, rtol=1e-9)
    assert five._deep == deep and five.exp4.switch_round is None


def test_without_a_context_the_bonus_tries_a_misjudged_arm_again():
    """Bernoulli arms 0.2 / 0.8 / 0.5, no context: on seeds where `BoBLO()` settles on the 0.5
    arm for good, the count bonus finds the 0.8 arm."""
    def regret(policy, seed):
        rng, mu, total = np.random.default_rng(10_000 + seed), [0.2, 0.8, 0.5], 0.0
        for _ in range(2000):
            arm = policy.pull([0, 1, 2], None)
            total += 0.8 - mu[arm]
            policy.update(arm, None, float(rng.random() < mu[arm]))
        return total / 2000

    stuck = [s for s in range(40) if regret(BoBLO(seed=s, count_bonus=0.0), s) > 0.05]
    assert stuck  # (the seeds where the annealed softmax alone settles on a worse arm)
    assert all(regret(BoBLO(seed=s), s) < 0.02 for s in stuck)  # (the default: "auto", 0.3)


def test_laws_keep_the_floor_and_the_simplex_with_a_large_bonus():
    policy = BoBLO(seed=0, count_bonus=5.0)
    stream = DATASETS["digits"](0)
    eta = policy.exploration
    for t, (context, arms) in enumerate(stream):
        if t >= 300:
            break
        arm = policy.pull(arms, context)
        p = policy.arm_probabilities
        assert p.sum() == pytest.approx(1.0, abs=1e-12) and p.min() >= eta / len(arms) - 1e-15
        policy.update(arm, context, stream.reward(arm))


@pytest.mark.skipif(not NeighbourBoBLO._JIT, reason="numba is not installed")
def test_neighbourboblo_plays_stage_1s_bonus_and_its_compiled_round_the_numpy_one():
    fast = NeighbourBoBLO(BoBLO(count_bonus=0.2, seed=3), seed=3, warm_up=0, confidence=0.5)
    slow = NeighbourBoBLO(BoBLO(count_bonus=0.2, seed=3), seed=3, warm_up=0, confidence=0.5)
    slow._JIT = False
    alone = BoBLO(FeaturePolicy(**FIXED_WEIGHT_LEARNER), count_bonus=0.2, seed=3)  # (stage 1's)
    stream = DATASETS["digits"](3)
    for t, (context, arms) in enumerate(stream):
        if t >= 900:
            break
        a, b = fast.pull(arms, context), slow.pull(arms, context)
        assert a == b, t
        if fast.switched_at is None:
            assert alone.pull(arms, context) == a  # stage 1: BoBLO's own arms, bonus included
        np.testing.assert_allclose(fast.arm_probabilities, slow.arm_probabilities, rtol=1e-10,
                                   atol=1e-15)
        reward = stream.reward(a)
        fast.update(a, context, reward)
        slow.update(b, context, reward)
        if fast.switched_at is None:
            alone.update(a, context, reward)
    assert fast.switched_at is not None


@pytest.mark.parametrize("value", [-0.1, float("nan"), float("inf"), "0.2", True])
def test_an_invalid_count_bonus_is_named(value):
    with pytest.raises(ValueError, match="count_bonus"):
        BoBLO(count_bonus=value)


def test_a_learner_without_a_softmax_play_refuses_the_bonus_and_auto_resolves():
    import learners

    with pytest.raises(ValueError, match="count_bonus"):
        BoBLO(learner=learners.RidgePolicy(), count_bonus=0.2)
    assert BoBLO(learner=learners.RidgePolicy())._bonus == 0.0  # ("auto": none there)
    assert BoBLO(estimator="paper")._bonus == 0.0  # (Algorithm 2 as written)
    assert BoBLO()._bonus == BoBLO(estimator="ips")._bonus == 0.3
    assert BoBLO().count_bonus == "auto"


def test_a_policy_pickled_before_the_bonus_resumes_without_one():
    old = BoBLO(seed=0)
    for t in range(30):
        c = {"x": float(t % 3)}
        old.update(old.pull([0, 1], c), c, float(t % 2))
    del old.__dict__["count_bonus"], old.__dict__["_arm_counts"]
    loaded = pickle.loads(pickle.dumps(old))
    assert loaded.count_bonus == 0.0
    assert loaded._play_counts().tolist() == [float(loaded._counts[a]) for a in (0, 1)]
