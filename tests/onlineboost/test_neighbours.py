"""onlineboost.neighbours: the correction is k-nearest neighbours (brute force), the decision
lead's margin is its closed form and holds its level under the null, and NeighbourBoBLO plays
BoBLO's own arms until it switches, switches where stage 2 decides better (and not on a linear
stream), keeps its laws on the simplex above the floor, and refuses bad input unchanged."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from benchmarks.bandit_compare import DATASETS
from learners import FeaturePolicy
from onlineboost import BoBLO, evaluate
from onlineboost.boblo import DEFAULT_LEARNER, FIXED_WEIGHT_LEARNER
from onlineboost.neighbours import DecisionLead, NeighbourBoBLO, NeighbourCorrection, _Standardiser
from streams import LinearBandit
from tests.helpers import play_alike


def _fixed(**kwargs) -> BoBLO:
    """`BoBLO()` with its correction's weight fixed at 1: `NeighbourBoBLO()`'s stage 1."""
    return BoBLO(FeaturePolicy(**FIXED_WEIGHT_LEARNER), **kwargs)


def _pad(a, width):
    return np.pad(a, (0, width - len(a)))


def _brute(rows, z, k, shrink):
    """The mean of the k nearest residuals (fewer: their sum over k), by a full sort; a row or
    a context shorter than the other counts zeros in the columns it lacks."""
    if not rows:
        return 0.0
    d = sorted((float(((_pad(x, w) - _pad(z, w)) ** 2).sum()), r)
               for x, r in rows for w in [max(len(x), len(z))])
    return shrink * sum(r for _, r in d[:k]) / k


def test_the_correction_is_k_nearest_neighbours_over_a_window_per_arm():
    rng = np.random.default_rng(0)
    n_arms, k, window = 3, 5, 40
    nc = NeighbourCorrection(n_arms, k=k, shrink=0.7, window=window)
    stored = [[] for _ in range(n_arms)]
    assert np.array_equal(nc.predict(rng.normal(size=4)), np.zeros(n_arms))
    for t in range(200):  # past the window on arms 0 and 1; arm 2 never played
        dim = 4 if t < 100 else 6  # two columns appear at round 100
        a = int(rng.integers(2))
        z, r = rng.normal(size=dim), float(rng.normal())
        nc.learn(a, z, r)
        stored[a] = (stored[a] + [(z, r)])[-window:]  # the newest `window` rows
        if t in (2, 7, 60, 120, 199):  # fewer than k rows, a few, wider rows, a wrapped window
            q = rng.normal(size=dim)
            want = [_brute(rows, q, k, 0.7) for rows in stored]
            np.testing.assert_allclose(nc.predict(q), want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("jit", [False, True])
def test_a_context_without_the_later_columns_counts_zeros_there(jit):
    """Once wider rows were stored, a shorter context (query or stored row) is the same
    context with zeros in the columns it lacks: a short row stored into a slot of the ring
    buffer that held a wide one leaves nothing of the wide row behind."""
    if jit and not NeighbourCorrection._JIT:
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(3)
    k, window, width = 3, 4, 6
    nc = NeighbourCorrection(2, k=k, shrink=1.0, window=window)
    nc._JIT = jit
    stored = [[], []]
    for t in range(30):  # wide rows first, then short ones wrap over them
        dim = width if t < 8 else 3
        a = t % 2
        z = rng.normal(size=dim) + 3.0  # (far from 0: a stale tail would move the distances)
        r = float(rng.normal())
        nc.learn(a, z, r)
        stored[a] = (stored[a] + [(z, r)])[-window:]
        q = rng.normal(size=3) + 3.0
        want = [_brute(rows, q, k, 1.0) for rows in stored]
        np.testing.assert_allclose(nc.predict(q), want, rtol=1e-12, atol=1e-15)
    assert nc._X.shape[2] == width


@pytest.mark.skipif(not NeighbourCorrection._JIT, reason="numba is not installed")
@pytest.mark.parametrize("grid", [False, True])
def test_the_compiled_pass_is_the_numpy_pass_ties_included(grid):
    """On a coarse grid of contexts most distances tie: both passes keep, of rows at equal
    distance, those first in the buffer (the residuals differ, so another choice would show)."""
    rng = np.random.default_rng(5)
    fast, slow = (NeighbourCorrection(4, k=5, shrink=0.5, window=30) for _ in range(2))
    slow._JIT = False
    for t in range(150):
        a = int(rng.integers(4))
        z = rng.integers(0, 2, size=3).astype(float) if grid else rng.normal(size=3)
        r = float(rng.normal())
        fast.learn(a, z, r)
        slow.learn(a, z, r)
        q = rng.integers(0, 2, size=3).astype(float) if grid else rng.normal(size=3)
        np.testing.assert_allclose(fast.predict(q), slow.predict(q), rtol=1e-12, atol=1e-15)


def test_the_standardiser_is_the_running_mean_and_population_deviation():
    rng = np.random.default_rng(1)
    rows = [rng.normal(3.0, 2.0, size=3) for _ in range(50)]
    rows += [np.append(rng.normal(3.0, 2.0, size=3), rng.normal(-1.0, 0.5)) for _ in range(30)]
    scaler = _Standardiser()
    for t, x in enumerate(rows):
        z = scaler.learn_transform(x)
        seen = np.array([r[:3] for r in rows[:t + 1]])
        np.testing.assert_allclose(z[:3], (x[:3] - seen.mean(0)) / seen.std(0) if t else 0.0,
                                   rtol=1e-9, atol=1e-12)
        if len(x) == 4:  # the late column's statistics start when it appears
            late = np.array([r[3] for r in rows[50:t + 1]])
            want = (x[3] - late.mean()) / late.std() if len(late) > 1 else 0.0
            assert z[3] == pytest.approx(want, rel=1e-9, abs=1e-12)
    assert np.array_equal(_Standardiser().learn_transform(np.array([5.0, 7.0])), [0.0, 0.0])


@pytest.mark.parametrize("n", [1, 10, 40, 1000, 100000])
def test_the_margin_is_hoeffdings_ville_bound_on_the_grid(n):
    test = DecisionLead(confidence=0.05)
    for _ in range(n):
        test.add(0.5, 0.5)
    # lambda_i = 2^-i, delta_i = delta / ((i + 1)(i + 2)), psi = n lambda^2 / 8: transcribed
    want = min((math.log((i + 1) * (i + 2) / 0.05) + n * 0.5 ** (2 * i) / 8) / 0.5 ** i
               for i in range(40))
    assert test.margin == pytest.approx(want, rel=1e-12)
    assert test.lead == 0.0 and not test.passed
    # the optimum over all lambda, sqrt(n ln(1/delta) / 2), is a lower bound of any grid point
    assert test.margin >= math.sqrt(n * math.log(1 / 0.05) / 2)


def test_the_lead_clips_the_prediction_and_counts_increments():
    test = DecisionLead()
    test.add(1.0, -0.5)  # clipped to 0: +1
    test.add(0.0, 1.7)  # clipped to 1: -1
    test.add(0.25, 0.5)
    assert test.lead == pytest.approx(-0.25) and test.counted == 3


def test_under_the_null_the_test_switches_at_most_at_its_level():
    """Bernoulli(0.5) losses against a prediction of 0.5 (increments of mean 0, the null's
    boundary): over 300 seeded runs of 2,000 increments the switch rate stays below delta."""
    rng = np.random.default_rng(2)
    switched = 0
    for _ in range(300):
        test = DecisionLead(confidence=0.1)
        for loss in (rng.random(2000) < 0.5).astype(float):
            test.add(loss, 0.5)
            if test.passed:
                switched += 1
                break
    assert switched / 300 <= 0.1  # (its level: 30 of 300; 15 here)


def test_under_an_alternative_the_test_switches():
    rng = np.random.default_rng(3)
    rounds = []
    for _ in range(50):  # the alternative's arm is 0.2 better
        test = DecisionLead(confidence=0.05)
        for t, loss in enumerate((rng.random(2000) < 0.7).astype(float)):
            test.add(loss, 0.5)
            if test.passed:
                rounds.append(t)
                break
    assert len(rounds) == 50 and np.median(rounds) < 500


def test_before_its_switch_it_plays_boblos_own_arms():
    """On LinearBandit the neighbours' residuals are noise and the test never passes: the
    policy is BoBLO(seed) round for round, rewards and all."""
    alone = evaluate.bandit(_fixed(seed=0), LinearBandit(seed=0), skyline=None)
    policy = NeighbourBoBLO(seed=0)
    staged = evaluate.bandit(policy, LinearBandit(seed=0), skyline=None)
    assert policy.switched_at is None and policy.lead < policy.margin
    assert np.array_equal(staged.rewards, alone.rewards)


@pytest.mark.parametrize("data_name", ["ImageSegments", "digits"])
def test_it_switches_where_the_stage_decides_better_and_then_plays_it(data_name):
    for seed in (0, 1):
        policy = NeighbourBoBLO(seed=seed)
        staged = evaluate.bandit(policy, DATASETS[data_name](seed), skyline=None)
        alone = evaluate.bandit(_fixed(seed=seed), DATASETS[data_name](seed), skyline=None)
        t = policy.switched_at
        assert t is not None and policy.warm_up < t < len(staged.rewards)
        assert np.array_equal(staged.rewards[:t], alone.rewards[:t])  # stage 1's arms
        assert not np.array_equal(staged.rewards[t:], alone.rewards[t:])


def test_its_laws_stay_on_the_simplex_above_the_floor_after_the_switch():
    policy = NeighbourBoBLO(seed=0, warm_up=0, confidence=0.5)
    stream = DATASETS["digits"](0)
    eta, played = policy.stage.exploration, 0
    for t, (context, arms) in enumerate(stream):
        if t >= 800:
            break
        arm = policy.pull(arms, context)
        p = policy.arm_probabilities
        assert p.sum() == pytest.approx(1.0, abs=1e-12) and p.min() >= eta / len(arms) - 1e-15
        played += policy.switched_at is not None
        policy.update(arm, context, stream.reward(arm))
    assert played > 0


def _state(policy) -> bytes:
    return pickle.dumps(policy)


def test_bad_input_is_refused_and_changes_nothing():
    policy = NeighbourBoBLO(seed=0, warm_up=0)
    stream = LinearBandit(seed=1, n_rounds=60)
    for context, arms in stream:
        arm = policy.pull(arms, context)
        policy.update(arm, context, stream.reward(arm))
    context = {f"x{j}": 0.1 * j for j in range(5)}
    before = _state(policy)
    with pytest.raises(ValueError, match="context"):
        policy.pull(arms, {**context, "x0": float("nan")})
    with pytest.raises(ValueError, match="arm_ids"):
        policy.pull(["nope", "other"], context)
    assert _state(policy) == before
    arm = policy.pull(arms, context)
    before = _state(policy)
    with pytest.raises(ValueError, match="reward"):
        policy.update(arm, context, float("inf"))
    with pytest.raises(ValueError, match="reward"):
        policy.update(arm, context, 2.0)
    with pytest.raises(ValueError, match="arm_id"):
        policy.update("unknown", context, 1.0)
    assert _state(policy) == before
    policy.update(arm, context, 1.0)  # the round still completes


@pytest.mark.parametrize("kwargs, name", [
    ({"k": 0}, "k"), ({"k": 2.5}, "k"), ({"shrink": 0.0}, "shrink"), ({"shrink": 1.5}, "shrink"),
    ({"window": 0}, "window"), ({"warm_up": -1}, "warm_up"), ({"confidence": 0.0}, "confidence"),
    ({"confidence": 1.0}, "confidence"), ({"seed": -1}, "seed"), ({"first": "BoBLO"}, "first"),
    ({"first": BoBLO(n_learners=2)}, "first"), ({"first": BoBLO(estimator="ips")}, "first"),
    # a learnt correction weight (`BoBLO()`'s learner given explicitly): not a stage 1 here
    ({"first": BoBLO(FeaturePolicy(**DEFAULT_LEARNER))}, "first"),
])
def test_invalid_parameters_are_named(kwargs, name):
    with pytest.raises(ValueError, match=name):
        NeighbourBoBLO(**kwargs)


def test_same_seed_same_numbers_and_a_pickle_resumes_exactly():
    def play(policy, stream, rounds):
        out = []
        for t, (context, arms) in enumerate(stream):
            if t >= rounds:
                break
            arm = policy.pull(arms, context)
            reward = stream.reward(arm)
            out.append((arm, reward))
            policy.update(arm, context, reward)
        return out

    a = NeighbourBoBLO(seed=4, warm_up=0, confidence=0.5)
    b = NeighbourBoBLO(seed=4, warm_up=0, confidence=0.5)
    sa, sb = DATASETS["digits"](4), DATASETS["digits"](4)
    first_a, first_b = play(a, sa, 500), play(b, sb, 500)
    assert first_a == first_b and a.switched_at is not None
    resumed = pickle.loads(pickle.dumps(a))  # then both streams go on from round 500
    assert play(resumed, sa, 300) == play(b, sb, 300)


def test_stage_1_keeps_the_correction_weight_fixed():
    # the default stage 1 and a BoBLO with the default learner play the fixed weight (stage 2's
    # costs and its compiled round take stage 1's correction at weight 1); the rest is kept
    for policy in (NeighbourBoBLO(seed=1), NeighbourBoBLO(BoBLO(count_bonus=0.1, seed=1))):
        learner = policy.stage.learner
        assert learner._get_params() == FeaturePolicy(**FIXED_WEIGHT_LEARNER)._get_params()
        assert learner.learn_weight is None
    assert NeighbourBoBLO(BoBLO(count_bonus=0.1, seed=1)).stage.count_bonus == 0.1


def test_the_first_stage_is_cloned_not_used():
    first = BoBLO(seed=9)
    policy = NeighbourBoBLO(first=first)
    stream = LinearBandit(seed=9, n_rounds=20)
    for context, arms in stream:
        arm = policy.pull(arms, context)
        policy.update(arm, context, stream.reward(arm))
    assert first.booco is None and policy.stage is not first and policy.stage.booco is not None


def test_a_drift_alarm_of_stage_1_starts_the_correction_afresh():
    """switching NonlinearBandit (the rings move after 3,000 rounds): after stage 1's alarm the
    correction holds only the rounds since; without a detector it keeps every round."""
    from streams import NonlinearBandit

    def stream():
        return NonlinearBandit(d=2, k=3, seed=0, n_rounds=4500, switch_every=3000)

    policy = NeighbourBoBLO(seed=0)
    evaluate.bandit(policy, stream(), skyline=None)
    (alarm,) = policy.stage.drifts
    assert 3000 < alarm < 4500
    assert policy._correction._n.sum() == 4500 - alarm
    kept = NeighbourBoBLO(first=BoBLO(drift_detector=None, seed=0), seed=0)
    evaluate.bandit(kept, stream(), skyline=None)
    assert kept.stage.drifts == [] and kept._correction._n.sum() == 4500


def test_after_the_switch_boblos_estimate_takes_stage_2s_arm_and_propensity():
    """The doubly robust estimate BoBLO learns from, f = m + e_a (l - m_a) / (p_a + c), with
    the arm and the probability stage 2 played it with (stage 1's would differ)."""
    policy = NeighbourBoBLO(seed=2, warm_up=0, confidence=0.5)
    stream = DATASETS["digits"](2)
    checked = 0
    for t, (context, arms) in enumerate(stream):
        if t >= 900:
            break
        arm = policy.pull(arms, context)
        stage = policy.stage
        if policy.switched_at is not None:
            x = stage._pending[1]
            m = np.asarray(stage._model.costs(x), dtype=float).copy()
            p = policy.arm_probabilities
            a = stage._arm_index[arm]
        reward = stream.reward(arm)
        policy.update(arm, context, reward)
        if policy.switched_at is not None and policy.switched_at < t:
            want = m.copy()
            want[a] += ((1.0 - reward) - m[a]) / (p[a] + stage.implicit)
            np.testing.assert_allclose(stage.last_cost_vector, want, rtol=1e-12, atol=1e-15)
            checked += 1
    assert checked > 100


@pytest.mark.skipif(not NeighbourBoBLO._JIT, reason="numba is not installed")
def test_the_compiled_round_plays_the_numpy_round():
    """`_neighbour_kernels.stage_costs` (stage 1's costs from its compiled pull's features, the
    standardiser, the neighbours, the greedy arms, stage 2's law) against the numpy round, on
    a stream that switches: the same arms, switch round and leads; laws and stored contexts to
    rounding. A kernel that anchored, standardised or drew otherwise would part at once."""
    fast, slow = NeighbourBoBLO(seed=3), NeighbourBoBLO(seed=3)
    slow._JIT = False

    def same_lead(t):
        assert fast.lead == pytest.approx(slow.lead, abs=1e-9), t

    play_alike(fast, slow, DATASETS["digits"](3), 1200, rtol=1e-12, each=same_lead)
    assert fast.switched_at is not None and fast.switched_at == slow.switched_at
    h, g = fast._correction, slow._correction
    assert np.array_equal(h._n, g._n)
    np.testing.assert_allclose(h._X, g._X, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(h._r, g._r, rtol=1e-10, atol=1e-12)


@pytest.mark.skipif(not NeighbourBoBLO._JIT, reason="numba is not installed")
def test_the_compiled_round_breaks_ties_as_argmin_and_plays_the_floor():
    """All costs equal (a zero model and correction, no stored rounds): both greedy arms are
    the first (`np.argmin`), and stage 2's law is uniform, the floor included."""
    from onlineboost import _neighbour_kernels as nk

    arms, q = 3, 3
    x, phi = np.array([0.3, -1.0]), np.array([1.0, 0.5])
    X, r, n = np.zeros((arms, 4, 2)), np.zeros((arms, 4)), np.zeros(arms, dtype=np.int64)
    stats, z, out = np.zeros((3, 2)), np.empty(2), np.empty((5, arms))
    g = nk.stage_costs(x, phi, np.zeros((arms, 1, q + 1, q)), np.ones(1), 0.0, 0.0,
                       np.zeros((arms, 2)), stats, X, r, n, 4, 2, 0.5, True, 7.0, 0.1, z, out,
                       np.zeros(arms), 0.0)
    assert g == (0, 0)
    np.testing.assert_allclose(out[3], [1 / 3] * 3, rtol=1e-15)
    np.testing.assert_allclose(out[4], [1 / 3, 2 / 3, 1.0], rtol=1e-15)
    assert np.array_equal(z, [0.0, 0.0]) and np.array_equal(stats[1], x)  # (one value: no scale)


def test_a_standardiser_pickled_with_three_arrays_loads_as_one():
    """Checkpoints written before the statistics became one `(3, p)` array still resume: the
    same statistics, the same next step."""
    fresh, old = _Standardiser(), _Standardiser()
    for x in ([1.0, 2.0], [3.0, -1.0], [0.5, 4.0]):
        fresh.learn_transform(np.array(x))
    old.__dict__.clear()
    old.__setstate__({"count": fresh.count.copy(), "mean": fresh.mean.copy(),
                      "var": fresh.var.copy()})
    assert np.array_equal(old.stats, fresh.stats)
    x = np.array([2.0, 2.0, 7.0])  # (and a new column)
    assert np.array_equal(old.learn_transform(x), fresh.learn_transform(x))
    assert np.array_equal(pickle.loads(pickle.dumps(old)).stats, fresh.stats)


@pytest.mark.skipif(not NeighbourBoBLO._JIT, reason="numba is not installed")
def test_the_compiled_round_hands_new_and_missing_columns_to_the_numpy_round():
    """A column that appears at round 300 and one missing in rounds 600-649: the rounds the
    kernel does not cover run the numpy round, and the two policies never part."""
    fast, slow = (NeighbourBoBLO(seed=0, warm_up=0, confidence=0.5) for _ in range(2))
    slow._JIT = False
    rng = np.random.default_rng(0)
    for t in range(900):
        x = rng.normal(size=2 if t < 300 else 3)
        context = {f"x{j}": float(v) for j, v in enumerate(x)}
        if 600 <= t < 650:
            del context["x0"]
        a, b = fast.pull(["a", "b", "c"], context), slow.pull(["a", "b", "c"], context)
        assert a == b, t
        best = "a" if x[-1] > 0.3 else ("b" if x[1] > 0 else "c")
        reward = 0.8 * (a == best) + 0.1 * float(rng.random())
        fast.update(a, context, reward)
        slow.update(b, context, reward)
    assert fast.switched_at is not None and fast.switched_at == slow.switched_at
    assert fast._correction._X.shape[2] == 3
    np.testing.assert_allclose(fast.arm_probabilities, slow.arm_probabilities, atol=1e-12)


def test_river_replay_with_bool_rewards_learns_from_the_matched_rounds_only():
    """river's `evaluate_offline` pulls every logged round and updates only where the policy's
    arm is the logged one (bool rewards, as `NewsArticles` yields them): the policy learns from
    exactly those rounds and beats the log's uniform choice."""
    from river import bandit as river_bandit

    from tests.helpers import replay_log

    policy = NeighbourBoBLO(seed=0)
    total, n = river_bandit.evaluate_offline(policy, replay_log())
    assert n > 500 and policy._t == n == policy.stage._rounds
    assert total.get() / n > 0.6  # uniform logging policy: 1/3
