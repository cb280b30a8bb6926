"""benchmarks.bandit_wide: each row builds the policy it names, the paired differences are
scipy's, and the marks follow two standard errors."""

from __future__ import annotations

import numpy as np
import pytest
from river import bandit as river_bandit
from scipy import stats

from benchmarks import bandit_wide as bw
from benchmarks.bandit_compare import DATASETS, LINUCB
from learners import FeaturePolicy
from onlineboost import BoBLO
from onlineboost.boblo import FIXED_WEIGHT_LEARNER, LEARNT_WEIGHT_LEARNER
from onlineboost.neighbours import NeighbourBoBLO


@pytest.mark.parametrize("data_name", list(DATASETS))
@pytest.mark.parametrize("name", bw.POLICIES)
def test_rows_build_what_they_name(name, data_name):
    policy, transformer = bw.make_policy(name, data_name, seed=3)
    if name.startswith("river"):
        assert isinstance(policy, river_bandit.LinUCBDisjoint) and transformer is not None
        tuned = LINUCB[data_name] if "tuned" in name else (1.0, 1.0)
        assert (policy.alpha, policy.beta) == tuned
        return
    if name == "NeighbourBoBLO()":
        assert isinstance(policy, NeighbourBoBLO) and transformer is None
        assert policy._get_params() == NeighbourBoBLO(seed=3)._get_params()
        return
    assert isinstance(policy, BoBLO) and transformer is None and policy.seed == 3
    assert policy.n_learners == (5 if "n_learners=5" in name else 1)
    if name in (bw.FIXED, bw.LEARNT):  # the default learner with its correction's weight
        # fixed at 1, or learnt without the evidence of structure
        made = FIXED_WEIGHT_LEARNER if name == bw.FIXED else LEARNT_WEIGHT_LEARNER
        assert policy.learner._get_params() == FeaturePolicy(**made)._get_params()
        assert (policy.learner.learn_weight is None) == (name == bw.FIXED)
        assert policy.learner.structure_odds is None
        assert {k: v for k, v in policy._get_params().items() if k != "learner"} == {
            k: v for k, v in BoBLO(seed=3)._get_params().items() if k != "learner"}
        return
    assert policy._get_params() == BoBLO(n_learners=policy.n_learners, seed=3)._get_params()


def test_paired_is_scipys_mean_and_standard_error():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=30), rng.normal(size=30)
    mean, se = bw.paired(a, b)
    assert mean == pytest.approx(np.mean(a - b), rel=1e-12)
    assert se == pytest.approx(stats.sem(a - b), rel=1e-12)


def test_markdown_marks_differences_beyond_two_standard_errors():
    seeds = list(range(10))
    datas = ["A", "B"]
    base = np.linspace(0.5, 0.6, 10)
    jitter = np.array([0.001, -0.001] * 5)
    res = {name: {d: list(base) for d in datas} for name in bw.POLICIES}
    res["BoBLO()"] = {"A": list(base + 0.01 + jitter), "B": list(base - 0.01 + jitter)}
    res["BoBLO(n_learners=5)"] = {"A": list(base + 0.01 + jitter), "B": list(base - 0.01 + jitter)}
    text = bw.markdown(res, seeds)
    se = stats.sem(0.01 + jitter)
    row = [line for line in text.splitlines()
           if line.startswith("| BoBLO() - river LinUCBDisjoint (tuned)")][0]
    assert row == (f"| BoBLO() - river LinUCBDisjoint (tuned) | +0.0100 (SE {se:.4f}) **>** | "
                   f"-0.0100 (SE {se:.4f}) **<** |")
    same = [line for line in text.splitlines() if line.startswith("| BoBLO(n_learners=5) - ")][0]
    assert "**" not in same and same.count("+0.0000 (SE 0.0000)") == 2
    assert "(seeds 0-4: 0.5" in text  # the usual evaluation seeds' mean beside the wide one
