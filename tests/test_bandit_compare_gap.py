"""benchmarks.bandit_compare's diagnosis of BoBLO() against tuned LinUCB (`--gap`, grid `TUNE6`):
the instrumented run plays what the plain one plays, its counterfactual columns are what they
claim, and the ablation rows build the setting their names give."""

from __future__ import annotations

import numpy as np
from river import bandit as river_bandit
from river import compose

from benchmarks import bandit_compare as bc
from onlineboost import BoBLO, evaluate, sets
from onlineboost.boblo import DEFAULT_LATER, DEFAULT_LEARNER, FOURIER_LATER
from onlineboost.scaling import RobustStandardScaler


def test_gap_run_plays_what_the_plain_run_plays():
    # reading the law and the model between pull and update must not move the policy: the
    # rewards are those of an uninstrumented BoBLO() and tuned LinUCB on the same stream
    own, linucb, parts = bc.run_gap("LinearBandit", 3, n_rounds=300)
    plain = evaluate.bandit(BoBLO(seed=3), bc.DATASETS["LinearBandit"](3), n_rounds=300,
                            skyline=None)
    np.testing.assert_array_equal(own, plain.rewards)
    reference = evaluate.bandit(bc.make_policy("river LinUCBDisjoint", 3, "LinearBandit"),
                                bc.DATASETS["LinearBandit"](3), n_rounds=300, skyline=None,
                                transformer=bc._scaler("river LinUCBDisjoint"))
    np.testing.assert_array_equal(linucb, reference.rewards)
    assert parts.shape == (300, 4)


def test_gap_counterfactual_columns():
    # LinearBandit knows every arm's expected reward: the law's expected reward is a mixture
    # of them (between the worst and the best arm), the greedy arms' rewards are some arm's,
    # and the mass off the likeliest arm is below 1 - 1/k
    stream = bc.DATASETS["LinearBandit"](5)
    expected = np.array([e for _, _, e in stream._rounds()][:200])
    _, _, parts = bc.run_gap("LinearBandit", 5, n_rounds=200)
    law, model_arm, law_arm, off = parts.T
    assert np.all(law >= expected.min(axis=1) - 1e-12)
    assert np.all(law <= expected.max(axis=1) + 1e-12)
    for column in (model_arm, law_arm):
        assert np.all(np.any(np.isclose(expected, column[:, None], rtol=0, atol=1e-12), axis=1))
    assert np.all((off >= 0.0) & (off <= 1.0 - 1.0 / expected.shape[1] + 1e-12))
    assert off[0] > 0.0  # the first round's law (all arms alike in the model) is spread


def test_gap_markdown_spans_and_means():
    res = bc.gap_table(["LinearBandit"], [0, 1], jobs=1, n_rounds=120)
    md = bc.gap_markdown(res, [0, 1])
    assert "| rounds | 0-100 | 100-120 |" in md
    own = np.mean([r[0].mean() for r in res["LinearBandit"]])
    assert f"| {own:.4f} |" in md.split("| BoBLO() |")[1].splitlines()[0]


def test_tune6_rows_build_their_settings():
    plain = bc.make_policy("river's plain StandardScaler (a pipeline)", 0)
    assert isinstance(plain, BoBLO) and isinstance(plain.transformer, compose.Pipeline)
    assert plain._transformer is not None  # not BoBLO's native (robust) scaler: river's rule
    assert bc.make_policy("BoBLO() (the defaults)", 0)._transformer is None
    greedy = bc.make_policy("optimism 0.05, greedy (temperature 1e-4): LinUCB's play", 0)
    assert greedy.optimism == 0.05
    assert greedy.learner.temperature == 1e-4
    # (the grids that ran before the sixth session build over its defaults' learner)
    assert {k: getattr(greedy.learner, k) for k in bc.FIFTH_LEARNER if k != "temperature"} == {
        k: v for k, v in bc.FIFTH_LEARNER.items() if k != "temperature"}
    assert greedy.learner.t0 is None and "t0" not in bc.FIFTH_LEARNER
    name = "river LinUCBDisjoint tuned, BoBLO's robust scaler"
    linucb = bc.make_policy(name, 0, "digits")
    assert isinstance(linucb, river_bandit.LinUCBDisjoint)
    assert (linucb.alpha, linucb.beta) == bc.LINUCB["digits"]
    assert isinstance(bc._scaler(name).steps[next(iter(bc._scaler(name).steps))],
                      RobustStandardScaler)
    assert bc._scaler("river LinUCBDisjoint tuned, river's StandardScaler (as in the "
                      "tables)") is not None


def test_tune_seeds_and_the_paired_rule():
    assert bc.parse_seeds("100-119") == list(range(100, 120))
    assert bc.parse_seeds("100,101") == [100, 101]
    assert bc.parse_seeds("0-2,180-181,7") == [0, 1, 2, 180, 181, 7]  # ranges and seeds mixed
    datas = ["A", "B", "C"]
    # per seed (3 seeds) and data set: (reward, decisions/s); the candidate is +0.003, +0.006,
    # +0.009 over the base in the data sets' mean on the three seeds
    base = {d: [(0.5, 0.0), (0.6, 0.0), (0.7, 0.0)] for d in datas}
    cand = {"A": [(0.509, 0.0), (0.618, 0.0), (0.727, 0.0)],
            "B": [(0.5, 0.0), (0.6, 0.0), (0.7, 0.0)], "C": [(0.5, 0.0), (0.6, 0.0), (0.7, 0.0)]}
    res = {**{("base", d): v for d, v in base.items()}, **{("c", d): v for d, v in cand.items()}}
    m, b, diff, se = bc.paired(res, "c", "base", datas)
    assert np.isclose(m - b, 0.006) and np.isclose(diff, 0.006)
    assert np.isclose(se, np.std([0.003, 0.006, 0.009], ddof=1) / np.sqrt(3))
    table = bc.paired_markdown(res, ["base", "c"], "base", datas)
    assert table.splitlines()[-1].endswith("| +0.0060 | 0.0017 | yes |")
    assert table.splitlines()[-2].endswith("| no |")  # the base never passes against itself


def test_tune7_rows_build_their_play_laws():
    igw = bc.make_policy("inverse gap weighting, gamma0 30", 0)
    assert igw.learner.link == "igw" and igw.learner.gamma0 == 30.0
    ann = bc.make_policy("annealed softmax, temperature 0.04, t0 250", 0)
    assert (ann.learner.link, ann.learner.t0, ann.learner.temperature) == ("softmax", 250.0, 0.04)
    base = bc.make_policy("BoBLO() (the defaults)", 0).learner
    assert ann.learner.l2 == DEFAULT_LEARNER["l2"] and base.t0 is None and base.link == "softmax"
    assert base._get_params() == bc._LEARNERS["feature"](**bc.FIFTH_LEARNER)._get_params()


def test_tune8_rows_and_nonlinear_candidates_build_the_floored_copy_1():
    ann = bc.make_policy("annealed softmax, t0 250, floor 0.0067", 0)
    assert (ann.learner.t0, ann.learner.min_temperature, ann.learner.temperature) == (
        250.0, 0.0067, DEFAULT_LEARNER["temperature"])
    # part (b)'s candidate: BoBLO's own N > 1 learner plus the row's play parameters
    params = bc.nonlinear_candidate("annealed softmax, t0 50, floor 0.01")
    kind, learner = params.pop("learner")
    assert params == {"n_learners": 5, "aggregate": "exp4"} and kind == "feature"
    assert learner == {**bc.FIFTH_LEARNER, **FOURIER_LATER, "t0": 50.0, "min_temperature": 0.01}
    assert bc.nonlinear_candidate("BoBLO() (the defaults)") == {
        "n_learners": 5, "aggregate": "exp4",
        "learner": ("feature", {**bc.FIFTH_LEARNER, **FOURIER_LATER})}
    assert "later_features" not in bc.nonlinear_candidate(
        "annealed softmax, t0 50, no floor", n_learners=1)["learner"][1]
    default = BoBLO(n_learners=5)._make_booco(sets.Simplex(3)).learner
    explicit = bc._LEARNERS["feature"](**{**DEFAULT_LEARNER, **DEFAULT_LATER})
    # (BoBLO builds its default on the booster's set, so that BoOCO need not clone it)
    assert default.decision_set.dim == 3
    assert {**explicit._get_params(), "decision_set": None} == {**default._get_params(),
                                                                "decision_set": None}
