"""benchmarks.bandit_drift: each row builds the policy it names; the table reports the alarms
and BoBLO()'s paired difference to the policy without a detector."""

from __future__ import annotations

import pytest
from river import bandit as river_bandit
from river import drift

from benchmarks import bandit_drift as bd
from onlineboost import BoBLO
from onlineboost.boblo import DEFAULT_LEARNER
from onlineboost.drift import RisingMean


@pytest.mark.parametrize("name", bd.POLICIES)
def test_rows_build_what_they_name(name):
    policy, transformer = bd.make_policy(name, seed=0)
    if name.startswith("river"):
        assert isinstance(policy, river_bandit.LinUCBDisjoint) and transformer is not None
        assert (policy.alpha, policy.beta) == ((1.0, 1.0) if "(1, 1)" in name else bd.TUNED)
        return
    assert isinstance(policy, BoBLO) and transformer is None
    watches = name in ("BoBLO()", "BoBLO(n_learners=5)", bd.FIXED)
    assert isinstance(policy._detector, RisingMean) is watches
    assert isinstance(policy._detector, drift.PageHinkley) is (name == bd.PAGE_HINKLEY)
    assert policy.n_learners == (5 if "n_learners=5" in name else 1)
    forget = policy.learner.forget if policy.learner is not None else 1.0
    assert forget == (0.999 if "forget=0.999" in name else 1.0)
    # the correction's weight: learnt (the default's) on every BoBLO row but the fixed one
    rate = (policy.learner.learn_weight if policy.learner is not None
            else DEFAULT_LEARNER["learn_weight"])
    assert rate == (None if name == bd.FIXED else 0.2)


def test_streams_switch_where_they_say():
    assert bd.STREAMS["switching LinearBandit"](0).switch_every == 1500
    assert bd.STREAMS["switching NonlinearBandit"](0).switch_every == 3000
    assert bd.STREAMS["stationary LinearBandit, 20,000 rounds"](0).switch_every is None


def test_markdown_reports_alarms_and_the_paired_difference():
    res = {name: {d: [(0.5, []), (0.5, [])] for d in bd.STREAMS} for name in bd.POLICIES}
    res["BoBLO()"] = {d: [(0.53, [3100, 4600]), (0.55, [3300])] for d in bd.STREAMS}
    text = bd.markdown(res, [0, 1])
    assert "0.540 ± 0.010 (alarms 1.5, first 3,200)" in text
    assert "switching LinearBandit +0.0400 (SE 0.0100)" in text
    assert text.count("| BoBLO(drift_detector=None) | 0.500 ± 0.000 |") == 1
