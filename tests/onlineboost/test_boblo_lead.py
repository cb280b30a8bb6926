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
