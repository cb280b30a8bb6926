"""benchmarks.bandit_noncontextual: the regret it reports is the expected one, and every row
builds the policy it names."""

from __future__ import annotations

import pytest

from benchmarks import bandit_noncontextual as bn


class _Always:
    """Always the given arm (river's multi-armed signatures)."""

    def __init__(self, arm):
        self.arm = arm

    def pull(self, arms):
        return arms[self.arm]

    def update(self, arm, reward):
        pass


def test_the_regret_is_the_expected_one(monkeypatch):
    mu = bn.CASES["5 arms 0.1 .. 0.5"]
    for arm in range(len(mu)):
        monkeypatch.setitem(bn.POLICIES, "always", lambda seed, arm=arm: _Always(arm))
        assert bn.run("5 arms 0.1 .. 0.5", "always", 0, n_rounds=30) == pytest.approx(
            max(mu) - mu[arm], abs=1e-12)


@pytest.mark.parametrize("name", list(bn.POLICIES))
def test_every_row_plays_and_its_regret_is_in_range(name):
    mu = bn.CASES["3 arms 0.2 / 0.8 / 0.5"]
    regret = bn.run("3 arms 0.2 / 0.8 / 0.5", name, 1, n_rounds=200)
    assert 0.0 <= regret <= max(mu) - min(mu)
    assert regret < 0.3  # (all of them learn something in 200 rounds: 0.3 is uniform play)
