"""`depth.PlayLead` (`aggregate="decision"`, the default for `BoBLO(n_learners>1)`'s
neighbour later copies since issue 13's sixteenth session) against a literal transcription of
its leads, its switch where a stage's arms are better, its false-switch rate where they are
not (the guarantee), and `BoBLO`'s N > 1 default: `BoBLO()`'s law exactly until the switch,
the switching stage's after."""

from __future__ import annotations

import pickle
from functools import partial

import numpy as np
import pytest

from onlineboost import BoBLO
from onlineboost.depth import DecisionLead, PlayLead
from onlineboost.neighbours import DecisionLead as ReExported
from streams import LinearBandit, NonlinearBandit
from tests.helpers import play_alike


def _round(rng, M, k):
    advice = rng.dirichlet(np.ones(k), size=M)
    costs = rng.random((M, k))
    return advice, costs


def test_the_leads_are_the_literal_sums_and_margins_decision_leads():
    rng = np.random.default_rng(0)
    M, k, warm = 4, 3, 5
    agg = PlayLead(M, k, confidence=0.1, warm_up=warm)
    lead, counted = np.zeros(M), np.zeros(M, dtype=int)
    for t in range(1, 200):
        advice, costs = _round(rng, M, k)
        reference = rng.random(k)
        p = agg.distribution(advice, costs, reference)
        if agg.expert is not None:
            break
        assert np.shares_memory(p, advice[0]) and np.array_equal(p, advice[0])
        arm = int(costs[0].argmin()) if rng.random() < 0.7 else int(rng.integers(k))
        loss = float(rng.random())
        agg.update(arm, loss)
        # transcription: expert 0's costs shifted to the reference's uniform mean, clipped
        y0 = np.clip(costs[0] - (costs[0].mean() - reference.mean()), 0.0, 1.0)
        g = costs.argmin(axis=1)
        if t > warm and arm == g[0]:
            for j in range(1, M):
                if g[j] != g[0]:
                    lead[j] += loss - y0[g[j]]
                    counted[j] += 1
        np.testing.assert_allclose(agg.lead, lead, atol=1e-12)
        twin = DecisionLead(0.1, n_tests=M - 1)
        for j in range(1, M):
            twin.counted = counted[j]
            assert agg.margins[j] == pytest.approx(twin.margin, rel=1e-12)
    assert ReExported is DecisionLead  # (NeighbourBoBLO's test, re-exported there)


def test_a_stage_whose_arms_are_better_is_found_and_played_for_good():
    rng = np.random.default_rng(1)
    M, k = 3, 2
    agg = PlayLead(M, k, warm_up=10)
    advice = np.array([[0.9, 0.1], [0.5, 0.5], [0.1, 0.9]])
    costs = np.array([[0.2, 0.4], [0.3, 0.35], [0.5, 0.1]])  # greedy arms 0, 0, 1
    for t in range(2000):
        p = agg.distribution(advice, costs, reference=costs[0])
        if agg.mixing:
            break
        arm = int(rng.random() < p[1])
        # arm 0 loses 0.8 on average, more than the 0.4 expert 0 predicts for arm 1
        agg.update(arm, float(rng.random() < (0.8 if arm == 0 else 0.3)))
    assert agg.expert == 2 and 10 < agg.switch_round < 200
    np.testing.assert_array_equal(agg.weights, [0.0, 0.0, 1.0])
    lead = agg.lead.copy()
    for _ in range(5):
        assert np.array_equal(agg.distribution(advice, costs), advice[2])
        agg.update(0, 1.0)
    np.testing.assert_array_equal(agg.lead, lead)  # (nothing counted after the switch)
    again = pickle.loads(pickle.dumps(agg))
    assert again.expert == 2
    assert np.array_equal(again.distribution(advice, costs), advice[2])


def test_stages_no_better_than_predicted_switch_at_most_at_the_confidence_rate():
    """The guarantee: expert 0's arm loses on average exactly what expert 0 predicts for the
    stages' arms (the null at its boundary), in 300 runs of 1,000 rounds each."""
    M, k, delta = 3, 3, 0.1
    advice = np.full((M, k), 1.0 / k)
    costs = np.array([[0.1, 0.5, 0.5], [0.9, 0.1, 0.9], [0.9, 0.9, 0.1]])
    switched = 0
    for seed in range(300):
        rng = np.random.default_rng(seed)
        agg = PlayLead(M, k, confidence=delta, warm_up=0)
        for _ in range(1000):
            agg.distribution(advice, costs, reference=costs[0])
            agg.update(0, float(rng.random() < 0.5))  # mean 0.5 = y0 of arms 1 and 2
            if agg.mixing:
                switched += 1
                break
    assert switched / 300 <= delta  # (observed: a handful)


@pytest.mark.parametrize("bad, name", [
    (dict(confidence=0.0), "confidence"), (dict(confidence=1.5), "confidence"),
    (dict(warm_up=-1), "warm_up"), (dict(n_experts=0), "n_experts")])
def test_bad_parameters_are_named(bad, name):
    kw = {"n_experts": 3, "n_arms": 2, **bad}
    with pytest.raises(ValueError, match=name):
        PlayLead(**kw)


def test_boblo_n5_plays_boblos_law_until_the_switch_then_the_stage():
    """On `NonlinearBandit` (the best policy is not linear in the context) the default
    `BoBLO(n_learners=5)` plays `BoBLO()`'s arms and laws exactly until its decision lead
    passes, then another law (the switching stage's), still with the exploration floor."""
    one, five = BoBLO(seed=3), BoBLO(n_learners=5, seed=3)
    seen = []

    def each(t):
        seen.append(five.exp4.switch_round)
        if five.exp4.switch_round is not None:
            raise StopIteration

    stream = NonlinearBandit(seed=3, n_rounds=3000)
    with pytest.raises(StopIteration):
        play_alike(one, five, stream, 3000, rtol=1e-9, each=each)
    assert isinstance(five.exp4, PlayLead) and five.exp4.expert >= 1
    assert 250 < five.exp4.switch_round < 3000 and seen[:-1] == [None] * (len(seen) - 1)
    differ = mixed = 0
    for t, (context, arms) in enumerate(stream):
        if t == 300:
            break
        a = five.pull(arms, context)
        one.pull(arms, context)
        p = five.arm_probabilities
        assert abs(p.sum() - 1.0) < 1e-12 and p.min() >= five.exploration / len(arms) - 1e-15
        differ += not np.allclose(p, one.arm_probabilities, rtol=1e-6)
        if five.exp4.mixing:  # the stage's own law (its copies' point), with the floor
            _, W = five._shifted(partial(five.booco.iterates, points=True), five._pending[1])
            eta = five.exploration
            np.testing.assert_allclose(p, (1 - eta) * W[five.exp4.expert] + eta / len(arms),
                                       rtol=1e-12)
            mixed += 1
        reward = stream.reward(a)
        five.update(a, context, reward)
        one._pending = one._pending[:2] + (one._arm_index[a],) + one._pending[3:]
        one.update(a, context, reward)
    assert differ > 30 and mixed > 30


def test_boblo_n5_default_on_a_linear_stream_never_leaves_boblo():
    stream = LinearBandit(d=4, k=3, noise=0.5, seed=2, n_rounds=800)
    one, five = BoBLO(seed=2), BoBLO(n_learners=5, seed=2)
    play_alike(one, five, stream, 800, rtol=1e-9)
    assert isinstance(five.exp4, PlayLead) and five.exp4.switch_round is None


def test_pickles_mid_stream_play_on_as_the_original_before_and_after_the_switch():
    """`BoBLO(n_learners=3)` with its neighbour copies, pickled before its decision lead
    passes and again after: each copy plays the original's arms and laws from there on."""
    stream = NonlinearBandit(seed=3, n_rounds=3000)
    policy = BoBLO(n_learners=3, seed=3)
    twins, marks = [], []
    for t, (context, arms) in enumerate(stream):
        if t == 300 or (policy.exp4 is not None and policy.exp4.switch_round is not None
                        and len(twins) == 1):
            twins.append(pickle.loads(pickle.dumps(policy)))
            marks.append(t)
        arm = policy.pull(arms, context)
        for twin in twins:
            assert twin.pull(arms, context) == arm
            np.testing.assert_array_equal(twin.arm_probabilities, policy.arm_probabilities)
        reward = stream.reward(arm)
        for p in (policy, *twins):
            p.update(arm, context, reward)
    assert len(twins) == 2 and marks[1] < 2900  # (the second pickle: after the switch)
    assert twins[0].exp4.switch_round == policy.exp4.switch_round is not None


# -- `revert`: the switch checked against expert 0's own record --------------------------------


def _ville_bound(counted: int, confidence: float) -> float:
    """Literal transcription of `DecisionLead`'s margin for one test (`exp4.ville_grid`'s rates
    lambda_i and union weights, the Hoeffding cumulant n lambda^2 / 8), minimised over the grid."""
    from onlineboost.exp4 import ville_grid

    lam, log_inv = ville_grid(1, confidence)
    return float(np.min((log_inv + counted * lam ** 2 / 8) / lam))


def test_revert_check_is_the_literal_mirror_test_and_reverts_a_worse_stage_for_good():
    """Before the switch expert 0's arm loses 0.8 where it predicts 0.4 for stage 2's arm (the
    switch); after it, stage 2's arm loses 1 every time where expert 0 predicts 0.2 (anchored)
    for its own: the check (a decision lead of the stage's observed losses against expert 0's
    prediction for its own arm, at half the confidence) passes and expert 0 plays again, for
    good."""
    rng = np.random.default_rng(5)
    M, k, delta = 3, 2, 0.1
    agg = PlayLead(M, k, confidence=delta, warm_up=10, revert=True)
    advice = np.array([[0.9, 0.1], [0.6, 0.4], [0.1, 0.9]])
    costs = np.array([[0.2, 0.4], [0.3, 0.35], [0.5, 0.1]])  # greedy arms 0, 0, 1
    while not agg.mixing:
        agg.distribution(advice, costs, reference=costs[0])
        agg.update(0, float(rng.random() < 0.8))
    assert agg.expert == 2 and agg.revert_round is None
    reference = np.array([0.3, 0.5])  # anchors expert 0's costs up by 0.1: 0.3 for arm 0
    lead, counted, t = 0.0, 0, agg.switch_round
    while agg.mixing:
        p = agg.distribution(advice, costs, reference)
        assert np.array_equal(p, advice[2])
        t += 1
        agg.update(1, 1.0)  # stage 2's arm, always a loss of 1
        y0 = np.clip(costs[0] - (costs[0].mean() - reference.mean()), 0.0, 1.0)
        lead += 1.0 - y0[0]
        counted += 1
        if lead >= _ville_bound(counted, delta / 2):  # (the transcription's revert)
            break
    assert not agg.mixing and agg.expert is None and agg.revert_round == t
    np.testing.assert_array_equal(agg.weights, [1.0, 0.0, 0.0])
    lead = agg.lead.copy()
    again = pickle.loads(pickle.dumps(agg))
    for twin in (agg, again):
        for _ in range(200):  # expert 0 for good: nothing more is counted, no second switch
            assert np.array_equal(twin.distribution(advice, costs, costs[0]), advice[0])
            twin.update(0, 1.0)
        assert twin.expert is None and twin.switch_round is not None
        np.testing.assert_array_equal(twin.lead, lead)


def test_revert_counts_only_rounds_where_the_stage_arm_differs_and_is_played():
    """After the switch a round counts only if the arm played is the stage's greedy arm and
    expert 0's differs: agreeing rounds and exploration of other arms leave the check alone."""
    M, k = 2, 3
    agg = PlayLead(M, k, confidence=0.1, warm_up=0, revert=True)
    advice = np.full((M, k), 1.0 / k)
    costs = np.array([[0.1, 0.5, 0.5], [0.9, 0.1, 0.9]])  # greedy arms 0 and 1
    while not agg.mixing:
        agg.distribution(advice, costs, reference=costs[0])
        agg.update(0, 1.0)
    check = agg._check
    for arm, row in ((0, costs), (2, costs), (1, np.array([[0.9, 0.1, 0.5], costs[1]]))):
        agg.distribution(advice, row)
        agg.update(arm, 1.0)  # other arms, or both experts agreeing on arm 1
        assert check.counted == 0
    agg.distribution(advice, costs)
    agg.update(1, 1.0)
    assert check.counted == 1


def test_a_stage_as_good_as_predicted_is_reverted_at_most_at_half_the_confidence():
    """The check's guarantee at the null's boundary: expert 0 predicts 0.3 for its own arm and
    0.4 for the stage's; its arm loses 0.7 on average before the switch, and the stage's arm
    exactly 0.3 after, in 300 runs of 3,000 rounds: reverted in at most `confidence / 2` of
    them."""
    M, k, delta = 2, 2, 0.2
    advice = np.full((M, k), 0.5)
    costs = np.array([[0.3, 0.4], [0.9, 0.1]])
    reverted = switched = 0
    for seed in range(300):
        rng = np.random.default_rng(seed)
        agg = PlayLead(M, k, confidence=delta, warm_up=0, revert=True)
        for _ in range(3000):
            agg.distribution(advice, costs)
            arm = 1 if agg.mixing else 0
            agg.update(arm, float(rng.random() < (0.3 if arm else 0.7)))
            if agg.revert_round is not None:
                break
        switched += agg.switch_round is not None
        reverted += agg.revert_round is not None
    assert switched == 300
    assert reverted / 300 <= delta / 2  # (observed: a handful)


def test_revert_must_be_a_bool():
    with pytest.raises(ValueError, match="revert"):
        PlayLead(3, 2, revert="yes")


def test_boblo_n5_default_checks_its_switch_and_plays_expert_0_after_a_revert():
    """`BoBLO(n_learners=5)`'s decision lead checks its switch (`revert=True`): on
    `NonlinearBandit(d=2, k=3)` seed 104 the stage it switched to loses more where it differs
    from the first copy than the first copy lost there before, and the first copy's law plays
    again (its own row: what `BoBLO(n_learners=5)` with no stage would play)."""
    stream = NonlinearBandit(d=2, k=3, seed=104, n_rounds=3000)
    five = BoBLO(n_learners=5, seed=104)
    agg = None
    after = 0
    for context, arms in stream:
        arm = five.pull(arms, context)
        agg = five.exp4
        if agg.revert_round is not None:
            # expert 0's row: the first copy's point (under the play's count-bonus shift)
            # with the exploration floor
            X = five._shifted(five.booco.iterates, five._pending[1])
            eta, d = five.exploration, len(arms)
            np.testing.assert_allclose(five.arm_probabilities,
                                       (1 - eta) * X[0] + eta / d, rtol=1e-12, atol=1e-15)
            after += 1
        five.update(arm, context, stream.reward(arm))
    assert isinstance(agg, PlayLead) and agg.revert
    assert agg.switch_round < agg.revert_round < 3000 and agg.expert is None and after > 100


def test_an_instance_pickled_before_revert_plays_on_unchecked():
    """A `PlayLead` from before `revert` (its attributes absent) unpickles, switches as it
    did and never reverts: the class defaults stand in."""
    agg = PlayLead(3, 2, warm_up=0)
    for name in ("revert", "revert_round", "_check"):
        del agg.__dict__[name]
    old = pickle.loads(pickle.dumps(agg))
    advice = np.array([[0.9, 0.1], [0.5, 0.5], [0.1, 0.9]])
    costs = np.array([[0.2, 0.4], [0.3, 0.35], [0.5, 0.1]])
    for _ in range(300):
        old.distribution(advice, costs, costs[0])
        old.update(0 if not old.mixing else 1, 1.0)
    assert old.expert == 2 and old.switch_round == 10 and old.revert_round is None


def test_bad_input_after_the_switch_raises_naming_it_and_changes_nothing():
    """`BoBLO(n_learners=3)` past its switch (the stage's own law, the check counting): every
    refusal is a ValueError naming context / arm_id / reward, the pickled state is
    byte-identical before and after, and the run goes on as an untouched twin's."""
    stream = NonlinearBandit(seed=3, n_rounds=3000)
    policy, twin = BoBLO(n_learners=3, seed=3), BoBLO(n_learners=3, seed=3)
    rounds = iter(stream)
    for context, arms in rounds:
        arm = policy.pull(arms, context)
        assert twin.pull(arms, context) == arm
        reward = stream.reward(arm)
        policy.update(arm, context, reward)
        twin.update(arm, context, reward)
        if policy.exp4.mixing:
            break
    assert policy.exp4.mixing
    bad_contexts = [({"x0": v, "x1": 0.0}, r"context\['x0'\]")
                    for v in (float("nan"), float("inf"), 1e308, "1.5", None)]
    bad_updates = [("zz", "arm_id"), (7, "arm_id"), (float("nan"), "reward"),
                   (1.5, "reward"), (None, "reward")]
    for t, (context, arms) in zip(range(60), rounds):
        if t % 10 == 1:
            for bad, match in bad_contexts:
                before = pickle.dumps(policy)
                with pytest.raises(ValueError, match=match):
                    policy.pull(arms, bad)
                assert pickle.dumps(policy) == before
        arm = policy.pull(arms, context)
        assert arm == twin.pull(arms, context)
        if t % 10 == 2:
            for bad, match in bad_updates:
                args = (bad, context, 1.0) if match == "arm_id" else (arm, context, bad)
                before = pickle.dumps(policy)
                with pytest.raises(ValueError, match=match):
                    policy.update(*args)
                assert pickle.dumps(policy) == before
        reward = stream.reward(arm)
        policy.update(arm, context, reward)
        twin.update(arm, context, reward)
    assert pickle.dumps(policy) == pickle.dumps(twin)


@pytest.mark.parametrize("better", [1, 2])
def test_of_stages_passing_in_the_same_round_the_largest_excess_switches(better):
    """Two stages whose greedy arms differ from expert 0's pass their decision tests in the
    same round: the one whose lead is furthest past its margin plays (a rule taking the first
    or the last stage that passed, or the smallest excess, fails one of the two cases)."""
    advice = np.full((3, 3), 1.0 / 3.0)
    # expert 0 plays arm 0 and predicts 0.1 for the other stage's arm, 0 for the better one's
    y0 = [0.0, 0.1, 0.1]
    y0[better] = 1e-9
    costs = np.array([y0, [0.5, 0.0, 0.5], [0.5, 0.5, 0.0]])
    agg = PlayLead(3, 3, warm_up=0)
    for _ in range(100):
        agg.distribution(advice, costs)
        agg.update(0, 1.0)  # expert 0's arm loses 1 every round
        if agg.mixing:
            break
    excess = agg.lead - agg.margins
    assert all(test.passed for test in agg._tests)  # both passed in the switch round
    assert excess[better] > excess[3 - better] > 0
    assert agg.expert == better
