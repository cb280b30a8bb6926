"""`onlineboost run --policy boblo-neighbours`: NeighbourBoBLO behind the run loop, learning on a
nonlinear stream (a checkerboard over two contexts), above `--policy boblo` there."""

from __future__ import annotations

import json

import numpy as np

from tests.app._util import run


def _write(path, n=3000, seed=3):
    """A checkerboard: arm "a" pays 1 on the cells of side 0.5 where floor(2 c1) + floor(2 c2)
    is even, arm "b" on the others."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        c1, c2 = rng.normal(size=2)
        same = float((np.floor(2 * c1) + np.floor(2 * c2)) % 2 == 0)
        rows.append({"c1": float(c1), "c2": float(c2), "a": same, "b": 1.0 - same})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _reward(err: str) -> float:
    line = [s for s in err.splitlines() if "done:" in s][-1]
    assert "answered=3000" in line and "rejected=0" in line
    return float(line.split("mean_reward=")[1].split()[0])


def test_the_policy_runs_and_learns(tmp_path, capsys):
    _write(tmp_path / "in.jsonl")
    rewards = {}
    for policy in ("boblo-neighbours", "boblo"):
        code, _ = run([tmp_path / "in.jsonl", "--rewards", "a,b", "--policy", policy,
                       "-o", tmp_path / f"out-{policy}", "--report-every", "0"])
        assert code == 0
        rewards[policy] = _reward(capsys.readouterr().err)
    print(rewards)
    assert rewards["boblo-neighbours"] > 0.6  # (uniform play: 0.5)
    assert rewards["boblo-neighbours"] > rewards["boblo"]
