"""benchmarks.bandit_neighbours: the correction is brute-force k-nearest neighbours, and the
rounds played by hand are `evaluate.bandit`'s until stage 2 plays."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import bandit_neighbours as bn
from benchmarks.bandit_compare import DATASETS
from onlineboost import BoBLO, evaluate


def _brute(rows, z, k, shrink):
    """Mean of the k nearest residuals (fewer: their sum over k), by full sort."""
    if not rows:
        return 0.0
    d = sorted((float(((x - z) ** 2).sum()), r) for x, r in rows)
    return shrink * sum(r for _, r in d[:k]) / k


def test_the_correction_is_k_nearest_neighbours_over_a_window_per_arm():
    rng = np.random.default_rng(0)
    n_arms, dim, k, window = 3, 4, 5, 40
    nc = bn.NeighbourCorrection(n_arms, dim, k=k, shrink=0.7, window=window)
    stored = [[] for _ in range(n_arms)]
    assert np.array_equal(nc.predict(rng.normal(size=dim)), np.zeros(n_arms))
    for t in range(200):  # past the window on arms 0 and 1; arm 2 never played
        a = int(rng.integers(2))
        z, r = rng.normal(size=dim), float(rng.normal())
        nc.learn(a, z, r)
        stored[a] = (stored[a] + [(z, r)])[-window:]  # the newest `window` rows
        if t in (2, 7, 60, 199):  # fewer than k rows, a few, a wrapped window
            q = rng.normal(size=dim)
            want = [_brute(rows, q, k, 0.7) for rows in stored]
            np.testing.assert_allclose(nc.predict(q), want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("data_name", ["LinearBandit", "ImageSegments"])
def test_until_stage_2_plays_the_rounds_are_evaluate_bandits(data_name):
    result = evaluate.bandit(BoBLO(seed=3), DATASETS[data_name](seed=3), n_rounds=400,
                             skyline=None)
    for mode in bn.MODES:  # stage 2 from round 500 and FitLead never play in 400 rounds
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
