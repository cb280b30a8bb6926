"""benchmarks.bandit_heldout: the held-out streams are valid bandits, and the table maps each
row to the LinUCB setting it names."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import bandit_heldout as bh
from benchmarks.bandit_compare import LINUCB
from streams import DataNotFoundError


def _load(name, seed):
    try:
        return bh.make_stream(name, seed)
    except DataNotFoundError:
        pytest.skip(f"{name}: data file not found (set ONLINEBOOST_DATA)")


@pytest.mark.parametrize("name", list(bh.DATASETS))
def test_streams_are_valid_bandits(name):
    stream = _load(name, seed=3)
    assert len(stream.arm_ids) >= 2 and stream.n_rounds >= 100
    keys, counts, first = None, np.zeros(len(stream.arm_ids)), []
    for t, (context, arm_ids) in enumerate(stream):
        if t >= bh.MAX_ROUNDS:
            break
        rewards = stream._round_rewards()
        assert sorted(rewards.tolist()) == [0.0] * (len(arm_ids) - 1) + [1.0]  # one true class
        counts += rewards
        assert stream.reward(arm_ids[int(np.argmax(rewards))]) == 1.0
        values = np.array(list(context.values()), dtype=np.float64)
        assert np.all(np.isfinite(values))
        keys = keys or set(context)
        assert set(context) == keys  # the same features every round
        if t < 20:
            first.append(tuple(values))
    assert np.all(counts > 0)  # every class occurs: every arm can earn
    again = [tuple(np.array(list(c.values()), dtype=np.float64))
             for c, _ in list(_load(name, seed=3))[:20]]
    other = [tuple(np.array(list(c.values()), dtype=np.float64))
             for c, _ in list(_load(name, seed=4))[:20]]
    assert again == first and other != first  # the seed alone sets the order


def test_no_development_stream_is_held_out():
    assert not set(bh.DATASETS) & {"ImageSegments", "digits", "LinearBandit"}


def test_stump_classes_are_balanced_on_the_unit_cube():
    X, y = bh.stump_classes(n_rows=3000)
    share = np.bincount(y) / len(y)
    assert len(share) == 3 and share.min() > 0.25
    assert X.min() >= 0.0 and X.max() <= 1.0


def test_rows_name_the_settings_they_hold():
    # each LinUCB setting gets a distinct reward, so a row wired to the wrong one shows
    res = {bh._linucb_name(ab): {"d": [0.1 * i, 0.1 * i]} for i, ab in enumerate(bh.SWEEP)}
    res.update({p: {"d": [0.9, 0.9]} for p in bh.BOBLO})
    res[bh.RANDOM] = {"d": [0.5, 0.5]}
    rows = dict(bh.rows(res, ["d"]))
    assert rows["LinUCB defaults (1, 1)"] == res["LinUCB (1, 1)"]
    for dev, (a, b) in LINUCB.items():
        assert rows[f"LinUCB tuned on {dev} {a:g}, {b:g}"] == res[bh._linucb_name((a, b))]
    best = bh._linucb_name(bh.SWEEP[-1])
    assert rows["LinUCB hindsight-tuned per data set (upper bound)"]["d"] == res[best]["d"]
    assert bh.hindsight(res, "d")[0] == best


@pytest.mark.parametrize("ab", bh.SWEEP)
def test_linucb_policies_get_their_alpha_beta_and_a_bias(ab):
    policy, transformer = bh.make_policy(bh._linucb_name(ab), seed=0)
    assert (policy.alpha, policy.beta) == ab
    transformer.learn_one({"a": 1.0})
    assert transformer.transform_one({"a": 1.0})["__bias__"] == 1.0


def test_unknown_policy_is_a_value_error():
    with pytest.raises(ValueError, match="policy"):
        bh.make_policy("LinUCB (2, 2)", seed=0)


def test_quick_run_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bh, "RAW", tmp_path / "raw.json")
    monkeypatch.setattr(bh.report, "RESULTS", tmp_path)
    monkeypatch.setattr(bh.report, "ROOT", tmp_path)
    bh.main(["--quick", "--only", "iris"])
    out = capsys.readouterr().out
    assert "| BoBLO() |" in out and "LinUCB hindsight-tuned" in out
    assert not list(tmp_path.iterdir())


def test_versions_recorded_before_the_depth_rows_still_render():
    # a version recorded before `BOBLO` had the depths 2 and 3 has rows for BoBLO() and N = 5
    # only: its table and the cross-version table skip what it lacks, and keep what it has
    def results(policies, value):
        res = {bh._linucb_name(ab): {"d": [0.5, 0.5]} for ab in bh.SWEEP}
        res.update({p: {"d": [value, value]} for p in policies})
        res[bh.RANDOM] = {"d": [0.1, 0.1]}
        return res

    old = ["BoBLO()", "BoBLO(n_learners=5)"]
    assert set(old) < set(bh.BOBLO)
    version = {"branch": "b", "commit": "c", "boblo": ""}
    raw = {"versions": {
        "old": {"version": version, "date": "d", "seeds": [0, 1], "max_rounds": 10,
                "datas": ["d"], "results": results(old, 0.6)},
        "new": {"version": version, "date": "d", "seeds": [0, 1], "max_rounds": 10,
                "datas": ["d"], "results": results(list(bh.BOBLO), 0.7)}}}
    text = bh.section(raw)
    assert "| old: BoBLO(n_learners=2) |" not in text
    assert "| new: BoBLO(n_learners=2) | 0.700 ± 0.000 | 0.700 |" in text
    assert "| new minus old: BoBLO(n_learners=5) | +0.100 ± 0.000 * | +0.100 |" in text
    assert "new minus old: BoBLO(n_learners=2)" not in text
    assert [name for name, _ in bh.rows(raw["versions"]["old"]["results"], ["d"])][:2] == old


def test_gap_run_on_a_held_out_stream_plays_what_the_plain_runs_play():
    # `--gap`: BoBLO() instrumented, and LinUCB's defaults as the reference, on a held-out
    # stream; the rewards are those of the uninstrumented policies on the same shuffle
    from benchmarks.bandit_compare import run_gap
    from onlineboost import BoBLO, evaluate

    own, ref, parts = run_gap("iris", 3, None, bh.make_stream, bh.linucb_defaults)
    plain = evaluate.bandit(BoBLO(seed=3), bh.make_stream("iris", 3), skyline=None)
    np.testing.assert_array_equal(own, plain.rewards)
    policy, scaler = bh.make_policy("LinUCB (1, 1)", 3)
    reference = evaluate.bandit(policy, bh.make_stream("iris", 3), skyline=None,
                                transformer=scaler)
    np.testing.assert_array_equal(ref, reference.rewards)
    assert parts.shape == (150, 4)
    # a classification stream's rewards are 0 or 1: so are its greedy arms' counterfactuals
    assert set(np.unique(parts[:, 1:3])) <= {0.0, 1.0}


def test_gap_cli_prints_against_linucb_defaults_and_writes_nothing(tmp_path, monkeypatch,
                                                                    capsys):
    monkeypatch.setattr(bh, "RAW", tmp_path / "raw.json")
    monkeypatch.setattr(bh.report, "RESULTS", tmp_path)
    monkeypatch.setattr(bh.report, "ROOT", tmp_path)
    bh.main(["--gap", "iris", "--gap-seeds", "0,1"])
    out = capsys.readouterr().out
    assert "**iris**, seeds 0, 1" in out and "| LinUCB (1, 1) reward |" in out
    assert not list(tmp_path.iterdir())
    with pytest.raises(SystemExit):
        bh.main(["--gap", "ImageSegments"])  # a development stream, not a held-out one
