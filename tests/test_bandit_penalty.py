"""benchmarks.bandit_penalty: the recorded errors are the mixture's own, its weight is the
exponential weights' closed form, and the summary's signs follow two standard errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from benchmarks import bandit_penalty as bp
from benchmarks.bandit_compare import DATASETS
from onlineboost import BoBLO, evaluate


def test_the_mixture_row_records_its_models_errors_and_the_closed_form_weight():
    out = bp.run("BoBLO()", "LinearBandit", seed=7)
    L1, L100 = out["losses"]
    assert L1 > 0.0 and L100 > 0.0  # 3,000 rounds of noisy losses: errors accumulate
    # exponential weights at rate 1/2 on the cumulative squared errors, from a uniform prior
    assert out["w1"] == pytest.approx(1.0 / (1.0 + math.exp(0.5 * (L1 - L100))), rel=1e-12)
    again = bp.run("BoBLO()", "LinearBandit", seed=7)
    assert again == out  # seeded: the same numbers


@pytest.mark.parametrize("data_name", ["LinearBandit", "ImageSegments"])
def test_the_mixture_rounds_played_by_hand_are_evaluate_bandits(data_name):
    out = bp.run("BoBLO()", data_name, seed=3)
    policy = BoBLO(seed=3)
    result = evaluate.bandit(policy, DATASETS[data_name](seed=3), skyline=None)
    assert out["reward"] == pytest.approx(result.average_reward, rel=1e-12)
    assert out["losses"] == policy._model.loss  # the reading moved nothing
    assert out["rounds"] == result.n_rounds
    assert 0 < out["disagree"] < out["rounds"]
    # a pick's value differs from the other's by at most 1 a round
    assert abs(out["gain"]) <= out["disagree"]


@pytest.mark.parametrize("name", ["BoBLO(model_l2=1)", "BoBLO(model_l2=100)"])
def test_single_penalty_rows_play_one_model(name):
    out = bp.run(name, "LinearBandit", seed=7)
    assert set(out) == {"reward"} and 0.0 < out["reward"] < 1.0
    assert out["reward"] != bp.run("BoBLO()", "LinearBandit", seed=7)["reward"]


def _res(dl, r1, r100, rmix):
    return {"BoBLO()": {"S": [{"reward": r, "losses": [10.0, 10.0 + d], "w1": 0.5,
                               "disagree": 30, "rounds": 300, "gain": -d,
                               "stretches": [d - 0.5, 0.5]}
                              for r, d in zip(rmix, dl)]},
            "BoBLO(model_l2=1)": {"S": [{"reward": r} for r in r1]},
            "BoBLO(model_l2=100)": {"S": [{"reward": r} for r in r100]}}


def test_summary_names_the_penalty_that_predicts_and_the_one_that_plays():
    rng = np.random.default_rng(0)
    n = 12
    dl = -2.0 + 0.1 * rng.normal(size=n)  # penalty 100 predicts better, clearly
    r100 = 0.6 + 0.01 * rng.normal(size=n)
    r1 = r100 + 0.006 + 0.0005 * rng.normal(size=n)  # penalty 1 plays better, clearly
    rmix = r1 - 0.002
    s = bp.summary(_res(dl, r1, r100, rmix))["S"]
    assert s["predicts"] == "100" and s["plays"] == "1"
    assert s["dL"][0] == pytest.approx(dl.mean()) and s["dL"][1] == pytest.approx(stats.sem(dl))
    assert s["dR"][1] == pytest.approx(stats.sem(r1 - r100))
    assert s["mix_vs_best"][0] == pytest.approx(-0.002)  # against the better player, penalty 1
    assert s["disagree"] == pytest.approx(0.1)
    assert s["gain"][0] == pytest.approx(-dl.mean())
    assert s["gain"][1] == pytest.approx(stats.sem(dl))
    (m0, se0), (m1, se1) = s["stretches"]  # per stretch, over the seeds
    assert m0 == pytest.approx(dl.mean() - 0.5) and se0 == pytest.approx(stats.sem(dl))
    assert m1 == pytest.approx(0.5) and se1 == pytest.approx(0.0, abs=1e-15)
    even = np.array([1.0, -1.0] * (n // 2))  # differences of mean 0: ties both ways
    tie = bp.summary(_res(0.1 * even, r1, r1 + 1e-4 * even, rmix))
    assert tie["S"]["plays"] == "tie" and tie["S"]["predicts"] == "tie"


def test_markdown_has_a_row_per_data_set():
    res = _res([1.0, 2.0, 3.0], [0.5, 0.6, 0.7], [0.4, 0.5, 0.6], [0.5, 0.6, 0.7])
    text = bp.markdown(res, [0, 1, 2])
    row = [line for line in text.splitlines() if line.startswith("| S |")][0]
    assert row.startswith("| S | +2.0 (0.6) | 0.500 (0.500-0.500) | +0.1000 (0.0000) | 1 | 1 |")
    assert row.endswith("| 10.0% | -2.0 (0.6) |")
    # the stretches' table: the two the 300-round stream reaches, "-" after them
    row = [line for line in text.splitlines() if line.startswith("| S |")][1]
    assert row == "| S | +1.50 (0.58) | +0.50 (0.00) | - | - | - |"
    assert "S has 300 rounds" in text


@pytest.mark.parametrize("data_name, n_stretches", [("LinearBandit", 5), ("digits", 4)])
def test_the_stretches_add_up_and_the_first_is_the_mixtures_error_after_250_rounds(
        data_name, n_stretches):
    out = bp.run("BoBLO()", data_name, seed=5)
    # one value per stretch the stream reaches (3,000 rounds: all five; 1,797: four)
    assert len(out["stretches"]) == n_stretches
    L1, L100 = out["losses"]
    assert sum(out["stretches"]) == pytest.approx(L100 - L1, rel=1e-9, abs=1e-9)
    # the first stretch, against an independent pass cut at round 250 by `evaluate.bandit`
    policy = BoBLO(seed=5)
    evaluate.bandit(policy, DATASETS[data_name](seed=5), n_rounds=250, skyline=None)
    assert out["stretches"][0] == pytest.approx(policy._model.loss[1] - policy._model.loss[0],
                                                rel=1e-12)


def test_seed_sweep_reads_seeds_and_jobs_with_the_given_default():
    from benchmarks.bandit_compare import seed_sweep

    assert seed_sweep([], "doc", "100-102") == ("100-102", [100, 101, 102], 2)
    assert seed_sweep(["--seeds", "3,7", "--jobs", "1"], "doc", "0-29") == ("3,7", [3, 7], 1)
