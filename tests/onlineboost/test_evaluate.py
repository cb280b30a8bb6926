"""evaluate.bandit: exact regret, the skyline, the result object."""

from __future__ import annotations

import time

import matplotlib
import numpy as np
from river import bandit as river_bandit

from onlineboost import evaluate
from streams import LinearBandit

matplotlib.use("Agg")


class Oracle:
    """Plays the optimal arm by peeking at the environment (a test double, not a policy)."""

    def __init__(self, stream):
        self.stream = stream

    def pull(self, arm_ids, context):
        return arm_ids[int(np.argmax(self.stream._round_expected()))]

    def update(self, arm_id, context, reward):
        pass


def test_optimal_policy_has_zero_regret_and_random_linear_regret():
    stream = LinearBandit(d=3, k=4, noise=0.3, seed=2, n_rounds=2000)
    best = evaluate.bandit(Oracle(stream), stream, skyline=None)
    assert best.regret[-1] == 0.0 and best.skyline_rewards is None
    rand = evaluate.bandit(river_bandit.RandomPolicy(seed=0), stream)
    # random play: regret grows linearly, at the mean gap E[mu* - mu_a]
    gap = rand.regret[-1] / 2000
    assert 0.05 < gap < 0.5
    assert abs(rand.regret[999] / 1000 - gap) < 0.03
    assert rand.skyline_average_reward > rand.average_reward + 0.1
    assert best.average_reward > rand.skyline_average_reward


def test_result_curves_and_plot():
    stream = LinearBandit(d=3, k=3, seed=0, n_rounds=300)
    result = evaluate.bandit(river_bandit.EpsilonGreedy(0.1, seed=0), stream, n_rounds=200)
    assert result.n_rounds == 200
    np.testing.assert_allclose(result.average_reward_curve[-1], result.rewards.mean())
    np.testing.assert_allclose(result.skyline_regret[-1],
                               result.skyline_rewards.sum() - result.rewards.sum())
    ax = result.plot()
    assert len(ax.lines) == 2
    assert "EpsilonGreedy over 200 rounds" in repr(result)


class Recorder:
    def __init__(self):
        self.seen = []

    def pull(self, arm_ids, context):
        self.seen.append(dict(context))
        return arm_ids[0]

    def update(self, arm_id, context, reward):
        assert context == self.seen[-1]  # the policy is updated with the context it pulled on


def test_transformer_standardises_contexts_online_for_the_policy():
    from river import preprocessing

    stream = LinearBandit(d=3, k=2, seed=0, n_rounds=500)
    recorder = Recorder()
    evaluate.bandit(recorder, stream, skyline=None, transformer=preprocessing.StandardScaler())
    X = np.array([[c[k] for k in sorted(c)] for c in recorder.seen[100:]])
    assert np.all(np.abs(X.mean(axis=0)) < 0.2) and np.all(np.abs(X.std(axis=0) - 1) < 0.2)
    raw = np.array([[c[k] for k in sorted(c)] for c, _ in stream])
    assert np.all(raw.std(axis=0) < 0.8)  # the raw contexts are not standardised


class Sleeper:
    """Plays arm 0, sleeping a known time in each call (a floor on the policy's time)."""

    def __init__(self, pause: float):
        self.pause = pause

    def pull(self, arm_ids, context):
        time.sleep(self.pause)
        return arm_ids[0]

    def update(self, arm_id, context, reward):
        time.sleep(self.pause)


def test_decisions_per_second_count_pull_and_update_within_the_wall_clock():
    """The policy's time is its pulls and updates: at least their sleeps (2 x 2 ms a round,
    so at most 250 decisions/s) and at most the whole run's wall-clock time."""
    stream = LinearBandit(d=3, k=3, seed=0, n_rounds=40)
    tic = time.perf_counter()
    result = evaluate.bandit(Sleeper(0.002), stream, skyline=None)
    wall = time.perf_counter() - tic
    assert result.n_rounds / wall <= result.decisions_per_second <= 250.0


class Stranger:
    """A skyline that names an arm the stream does not have, and learns nothing."""

    def predict_one(self, x):
        return "no such arm"

    def learn_one(self, x, y):
        pass


class NoMeans(LinearBandit):
    """`LinearBandit` whose means are not known to the evaluator (as for data sets)."""

    def _round_expected(self):
        return None


def test_a_skyline_guess_outside_the_arms_earns_nothing_and_unknown_means_give_no_regret():
    stream = LinearBandit(d=3, k=3, seed=1, n_rounds=50)
    result = evaluate.bandit(river_bandit.RandomPolicy(seed=0), stream, skyline=Stranger())
    assert np.array_equal(result.skyline_rewards, np.zeros(50))
    assert result.regret is not None and "regret" in repr(result)
    blind = evaluate.bandit(river_bandit.RandomPolicy(seed=0), NoMeans(d=3, k=3, seed=1,
                                                                        n_rounds=50))
    assert blind.regret is None and "regret" not in repr(blind)
    assert np.array_equal(blind.rewards, result.rewards)  # (the same play)
    assert f"regret {result.regret[-1]:.1f}" in repr(result)  # the last round's
