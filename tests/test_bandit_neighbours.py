"""benchmarks.bandit_neighbours: the rounds played by hand are `evaluate.bandit`'s until stage 2
plays, and with no correction stage 2 plays BoBLO()'s arms (common random numbers)."""

from __future__ import annotations

import pytest

from benchmarks import bandit_neighbours as bn
from benchmarks.bandit_compare import DATASETS
from onlineboost import evaluate


@pytest.mark.parametrize("data_name", ["LinearBandit", "ImageSegments"])
def test_until_stage_2_plays_the_rounds_are_evaluate_bandits(data_name):
    result = evaluate.bandit(bn._stage_one(3), DATASETS[data_name](seed=3), n_rounds=400,
                             skyline=None)
    for mode in bn.MODES[:3]:  # stage 2 from round 500 and FitLead never play in 400 rounds
        out = bn.run(mode, data_name, seed=3, n_rounds=400)
        assert out["first"] is None
        assert out["reward"] == pytest.approx(result.average_reward, rel=1e-12)
    fit = bn.run("FitLead", data_name, seed=3, n_rounds=400)
    assert fit["lead"] < fit["margin"]


def test_stage_2_plays_from_its_round_and_changes_the_play():
    base = bn.run("BoBLO()", "LinearBandit", seed=5, n_rounds=600)
    late = bn.run("stage 2 from round 500", "LinearBandit", seed=5, n_rounds=600, switch=100)
    assert base["first"] is None and late["first"] == 100
    assert late["reward"] != base["reward"]
    assert late == bn.run("stage 2 from round 500", "LinearBandit", seed=5, n_rounds=600,
                          switch=100)  # seeded: the same numbers


@pytest.mark.parametrize("data_name", ["LinearBandit", "digits"])
def test_with_no_correction_stage_2_plays_boblos_own_arms(data_name):
    """Common random numbers: stage 2's law is BoBLO()'s when h = 0, and its draw takes the
    pull's uniform, so playing it from round 0 changes nothing."""
    base = bn.run("BoBLO()", data_name, seed=4, n_rounds=500)
    same = bn.run("stage 2 from round 500", data_name, seed=4, n_rounds=500, switch=0,
                  shrink=0.0)
    assert same["first"] == 0 and same["reward"] == base["reward"]


def test_bandit_compares_row_builds_the_policy_it_names():
    from benchmarks import bandit_compare as bc
    from onlineboost.neighbours import NeighbourBoBLO

    policy = bc.make_policy(bc.NEIGHBOUR, seed=3, data_name="digits")
    assert isinstance(policy, NeighbourBoBLO)
    assert policy._get_params() == NeighbourBoBLO(seed=3)._get_params()
    assert bc._scaler(bc.NEIGHBOUR) is None  # (it holds BoBLO's own scaler)
