"""BoBLO's rewards on any scale (`reward_range`) and bools as numbers (rewards and contexts).

A river user's bandit data need not hold float rewards in [0, 1]: river's own
`bandit.datasets.NewsArticles` yields bool rewards, ratings run 1-5, wins and losses are +-1;
pandas and river pipelines put bools among the features. BoBLO learns the loss
(high - r) / (high - low) in [0, 1] and counts bools as 0 / 1, as river's linear models do.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from river import bandit as river_bandit

from onlineboost import BoBLO
from onlineboost.boblo import _reward_range
from tests.helpers import replay_log

ARMS = ["a", "b", "c"]


def _stream(n: int, seed: int):
    """Contexts and the best arm of a seeded linear rule: (context, best arm index)."""
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(3, 4))
    out = []
    for _ in range(n):
        x = rng.normal(size=4)
        out.append(({f"x{i}": float(v) for i, v in enumerate(x)}, int(np.argmax(W @ x))))
    return out


def _play(policy, rounds, reward_of):
    """Pull / update over `rounds`; `reward_of(hit: bool)` gives the reward passed. Returns
    the arms pulled and the cost vectors BoBLO learnt from."""
    arms, costs = [], []
    for context, best in rounds:
        arm = policy.pull(ARMS, context)
        policy.update(arm, context, reward_of(arm == ARMS[best]))
        arms.append(arm)
        costs.append(policy.last_cost_vector.copy())
    return arms, np.array(costs)


@pytest.mark.parametrize("low, high", [(-1.0, 1.0), (1.0, 5.0), (0.0, 10.0), (-3.0, -1.0)])
def test_a_range_is_the_affine_image_of_the_unit_range(low, high):
    """Rewards low / high on `reward_range=(low, high)` are losses 1 / 0, exactly as rewards
    0 / 1 on the default range: the same arms and the same cost vectors, round for round.
    A missing map (raw rewards) or a reversed one (loss = (r - low) / width) plays otherwise."""
    rounds = _stream(400, 3)
    unit = _play(BoBLO(seed=5), rounds, lambda hit: 1.0 if hit else 0.0)
    scaled = _play(BoBLO(seed=5, reward_range=(low, high)), rounds,
                   lambda hit: high if hit else low)
    assert scaled[0] == unit[0]
    np.testing.assert_array_equal(scaled[1], unit[1])
    assert np.mean([a == ARMS[b] for a, (_, b) in zip(unit[0], rounds)]) > 0.6  # it learns


def test_intermediate_rewards_map_to_the_same_losses():
    """A reward r on (low, high) teaches what (r - low) / (high - low) teaches on [0, 1] (the
    cost vectors agree to rounding while the arms agree)."""
    low, high = 1.0, 5.0
    rounds = _stream(300, 4)
    rng = np.random.default_rng(0)
    grades = rng.uniform(size=len(rounds))
    i = iter(grades)
    unit_arms, unit_costs = _play(BoBLO(seed=2), rounds, lambda hit: 0.5 * hit + 0.5 * next(i))
    i = iter(grades)
    arms, costs = _play(BoBLO(seed=2, reward_range=(low, high)), rounds,
                        lambda hit: low + (high - low) * (0.5 * hit + 0.5 * next(i)))
    agree = next((t for t, (a, b) in enumerate(zip(arms, unit_arms)) if a != b), len(arms))
    assert agree > 100
    np.testing.assert_allclose(costs[:agree], unit_costs[:agree], rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("jit", [True, False], ids=["compiled", "numpy"])
def test_bools_count_as_zero_and_one(jit, monkeypatch):
    """Bool rewards (river's NewsArticles) and bool features play exactly as 0 / 1 floats,
    on the compiled round and on the numpy one: the same arms and the same pickled state."""
    monkeypatch.setattr(BoBLO, "_JIT", jit)
    rounds = _stream(300, 6)
    floats, bools = BoBLO(seed=1), BoBLO(seed=1)
    for t, (context, best) in enumerate(rounds):
        flag = t % 3 == 0
        a = floats.pull(ARMS, {**context, "flag": 1.0 if flag else 0.0})
        b = bools.pull(ARMS, {**context, "flag": np.bool_(flag) if t % 2 else flag})
        assert a == b
        hit = a == ARMS[best]
        floats.update(a, None, 1.0 if hit else 0.0)
        bools.update(b, None, np.bool_(hit) if t % 2 else hit)
    assert pickle.dumps(floats) == pickle.dumps(bools)


@pytest.mark.parametrize("reward_range, bad", [
    ((0.0, 1.0), 1.5), ((0.0, 1.0), -1.0), ((-1.0, 1.0), 1.0 + 1e-9), ((1.0, 5.0), 0.0),
    ((1.0, 5.0), float("nan")), ((1.0, 5.0), float("inf")), ((1.0, 5.0), "3"), ((1.0, 5.0), None),
])
def test_a_reward_outside_the_range_is_refused_and_changes_nothing(reward_range, bad):
    policy = BoBLO(seed=0, reward_range=reward_range)
    rounds = _stream(30, 1)
    for context, _ in rounds[:20]:
        arm = policy.pull(ARMS, context)
        policy.update(arm, context, reward_range[1])
    context = rounds[20][0]
    arm = policy.pull(ARMS, context)
    before = pickle.dumps(policy)
    with pytest.raises(ValueError, match="reward"):
        policy.update(arm, context, bad)
    assert pickle.dumps(policy) == before
    policy.update(arm, context, reward_range[0])  # the pending pull is still there


def test_the_default_range_names_the_way_out():
    policy = BoBLO(seed=0)
    arm = policy.pull(ARMS, {"x": 1.0})
    with pytest.raises(ValueError, match=r"reward_range=\(low, high\)"):
        policy.update(arm, {"x": 1.0}, 3.0)


@pytest.mark.parametrize("bad", [(1.0, 1.0), (2.0, 1.0), (0.0,), (0.0, 1.0, 2.0), "ab", None,
                                 3.0, (0.0, float("inf")), (float("nan"), 1.0), (True, 2.0),
                                 (0.0, "1"), (10**400, 1.0)])
def test_bad_reward_range_is_refused_naming_it(bad):
    with pytest.raises(ValueError, match="reward_range"):
        BoBLO(reward_range=bad)


def test_reward_range_accepts_numpy_numbers_and_is_kept_verbatim():
    rr = (np.float32(1.0), np.int64(5))
    policy = BoBLO(reward_range=rr)
    assert policy.reward_range is rr
    assert _reward_range(rr) == (1.0, 5.0)
    assert policy.clone().reward_range == rr


def test_a_policy_pickled_before_reward_range_learns_on_zero_one():
    """Attributes missing from an old pickle fall back to the class's: the unit range."""
    rounds = _stream(200, 8)
    old, new = BoBLO(seed=4), BoBLO(seed=4)
    for name in ("reward_range", "_low", "_high"):
        del old.__dict__[name]
    old = pickle.loads(pickle.dumps(old))
    assert _play(old, rounds, float)[0] == _play(new, rounds, float)[0]


def test_river_replay_with_bool_rewards():
    """river's `evaluate_offline` over logged (arms, context, arm, reward) with bool rewards,
    as `bandit.datasets.NewsArticles` yields them: BoBLO learns the logged rule (the
    replayed reward rate beats the log's uniform arm choice)."""
    total, n = river_bandit.evaluate_offline(BoBLO(seed=0), replay_log())
    assert n > 500
    assert total.get() / n > 0.6  # uniform logging policy: 1/3
