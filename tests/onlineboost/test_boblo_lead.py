"""BoBLO(n_learners=N) under its default aggregate (`exp4.LeadExp4`): until a stage leads the
first copy beyond noise it plays exactly what BoBLO() plays, round by round."""

from __future__ import annotations

import numpy as np
import pytest

import learners
from onlineboost import BoBLO
from onlineboost.boblo import DEFAULT_LEARNER
from onlineboost.exp4 import LeadExp4
from streams import LinearBandit


@pytest.mark.parametrize("learner", [None, dict(DEFAULT_LEARNER, later_features=16)],
                         ids=["default", "later-fourier"])
def test_n5_plays_the_n1_arm_law_until_the_switch(learner):
    """Same seed, same stream: every arm law of N = 5 equals N = 1's (the same floats), so
    every arm drawn is the same, as long as LeadExp4 has not switched (it has not here)."""
    T = 1500
    make = (lambda n: BoBLO(n_learners=n, seed=3)) if learner is None else (
        lambda n: BoBLO(learners.FeaturePolicy(**learner), n_learners=n, seed=3))
    one, five = make(1), make(5)
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

    def __init__(self, stack):
        self.stack = stack

    def __getattr__(self, name):
        return getattr(self.stack, name)

    def predict_vector(self, c):
        W = self.stack.predict_vector(c)
        if c[0] > 3.0:
            W = W.copy()
            W[1:] = np.nan
        return W


def test_non_finite_later_stages_refuse_the_round():
    policy = BoBLO(n_learners=3, seed=0, transformer=None)
    rng = np.random.default_rng(0)
    for _ in range(20):
        c = {"a": float(rng.normal()), "b": float(rng.normal())}
        arm = policy.pull([0, 1, 2], c)
        policy.update(arm, c, float(rng.random()))
    booco = policy.booco
    booco._copies = _Overflow(booco._copies)
    lead = policy.exp4.lead
    with pytest.raises(ValueError, match="context"):
        policy.pull([0, 1, 2], {"a": 5.0, "b": 0.0})
    np.testing.assert_array_equal(policy.exp4.lead, lead)
    arm = policy.pull([0, 1, 2], {"a": 0.5, "b": 0.0})  # the next round goes on as usual
    policy.update(arm, {"a": 0.5, "b": 0.0}, 1.0)
