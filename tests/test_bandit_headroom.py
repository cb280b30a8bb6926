"""benchmarks.bandit_headroom's references are what they claim: the optimum bounds them, full
information learns more than the free-exploration budget, which learns more than nothing, and
the linear classification streams are linear in the context."""

from __future__ import annotations

import numpy as np

from benchmarks import bandit_headroom as bh


def test_references_order_on_linear_bandit():
    out = bh.references(3, penalties=(1.0, 10.0))
    optimum = out["optimum"]
    full = np.array(out["full information"])
    free = np.array(out["free exploration"])
    # uniform play's expected reward on this stream: 1/2 (arm means 1/2 (1 + <theta_a, c>),
    # theta_a uniform on the sphere) up to the seed's draw
    stream = bh.stream(3)
    uniform = np.mean([stream._round_expected().mean() for _ in stream])
    assert np.all(full <= optimum + 1e-12)
    # full information sees five rewards a round, free exploration one: it learns less ...
    assert np.all(full > free)
    # ... but it learns: far above uniform play and within 0.03 of the optimum
    assert np.all(free > uniform + 0.1)
    assert np.all(optimum - free < 0.03)
    assert optimum - full.max() < 0.01


def test_references_are_reproducible():
    assert bh.references(1, penalties=(1.0,)) == bh.references(1, penalties=(1.0,))


def test_linear_classes_are_linear():
    # the labels are the argmax of linear scores for all but the redrawn share (5%, of which a
    # 1/k part lands on the same label): a linear classifier fit on the rows reaches ~95%
    from sklearn.linear_model import LogisticRegression

    stream = bh.linear_classes(0, k=4, n_rows=2000)
    X, y = [], []
    for context, _ in stream:
        X.append([context[f"x{j}"] for j in range(10)])
        y.append(int(np.argmax(stream._round_rewards())))
    X, y = np.array(X), np.array(y)
    assert sorted(set(y.tolist())) == [0, 1, 2, 3]
    accuracy = LogisticRegression(max_iter=1000).fit(X, y).score(X, y)
    assert 0.93 < accuracy < 0.99


def test_part1_only_prints_part_1_and_writes_nothing(monkeypatch, capsys):
    # (a partial run must not overwrite the recorded section of BENCHMARKS.md)
    from benchmarks import bandit_headroom, report

    def refuse(*args, **kwargs):
        raise AssertionError("--part1-only wrote a section")

    monkeypatch.setattr(report, "write_section", refuse)
    monkeypatch.setattr(bandit_headroom, "part2", refuse)
    bandit_headroom.main(["--seeds", "400", "--part1-only", "--jobs", "1"])
    out = capsys.readouterr().out
    assert "| `BoBLO()` |" in out and "river LinUCBDisjoint (1, 5), tuned" in out
    assert "optimal policy (bound)" in out
