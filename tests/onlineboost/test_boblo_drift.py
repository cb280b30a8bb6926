"""BoBLO's drift detector: the played arm's loss feeds a river drift detector; at an alarm
every copy's and the loss model's information matrices are divided by `drift_discount`."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from river import base as river_base
from river import drift

import learners
from onlineboost import BoBLO, evaluate, sets
from onlineboost.drift import RisingMean
from onlineboost.loss_model import RidgeMixture, _ArmRidge
from streams import LinearBandit, NonlinearBandit


class AlarmAt(river_base.DriftDetector):
    """Alarms right after its `at`-th values (1-based); keeps every value it is fed."""

    def __init__(self, at: tuple | None = None):
        super().__init__()
        self.at = at
        self.seen = []

    def update(self, x):
        self.seen.append(x)
        self._drift_detected = len(self.seen) in (self.at or ())


def _play(policy, stream, rounds=None):
    arms = []
    for t, (context, arm_ids) in enumerate(stream):
        if rounds is not None and t == rounds:
            break
        arm = policy.pull(arm_ids, context)
        policy.update(arm, context, stream.reward(arm))
        arms.append(arm)
    return arms


def _matrices(policy):
    """The copies' A^{-1} blocks and the loss model's (P rows and weights); the neighbour
    copies of N > 1's default learner hold no information matrix."""
    copies = policy.booco.copies
    stacks = [copies.first, copies.rest] if hasattr(copies, "first") else [copies]
    return [s._P.copy() for s in stacks if hasattr(s, "_P")], policy._model.G.copy()


@pytest.mark.parametrize("n_learners", [1, 5])
@pytest.mark.parametrize("jit", [True, False])
def test_an_alarm_divides_every_information_matrix_and_keeps_the_weights(n_learners, jit,
                                                                         monkeypatch):
    """Against a twin without a detector that played the same rounds: at the alarm (round
    40, on the compiled rounds and on numpy's) every copy's A^{-1} and the loss model's P
    blocks are exactly `drift_discount` times the twin's, the weights equal, and the count
    bonus's play counts of the rounds before it are divided by `drift_discount`; N > 1's
    neighbour copies keep no row of the rounds before it."""
    if not jit:
        monkeypatch.setattr(BoBLO, "_JIT", False)
    stream = lambda: LinearBandit(d=4, k=3, seed=2, n_rounds=40)  # noqa: E731
    policy = BoBLO(n_learners=n_learners, drift_detector=AlarmAt((40,)), drift_discount=7.0,
                   seed=0)
    twin = BoBLO(n_learners=n_learners, drift_detector=None, seed=0)
    arms = _play(policy, stream())
    assert arms == _play(twin, stream())
    assert policy.drifts == [40] and twin.drifts == []
    (Ps, G), (Ps0, G0) = _matrices(policy), _matrices(twin)
    for P, P0 in zip(Ps, Ps0):
        np.testing.assert_array_equal(P, 7.0 * P0)
    np.testing.assert_array_equal(G[:, :, :-1], 7.0 * G0[:, :, :-1])  # every arm's P blocks
    np.testing.assert_array_equal(G[:, :, -1], G0[:, :, -1])  # the weights' rows
    copies, copies0 = policy.booco.copies, twin.booco.copies
    first = copies.first if n_learners > 1 else copies
    first0 = copies0.first if n_learners > 1 else copies0
    np.testing.assert_array_equal(first._theta, first0._theta)
    if n_learners > 1:
        assert copies.rest._stored == 0 and copies0.rest._stored == 40
    # the count bonus's play counts: the 39 rounds before the alarm count 1/7, round 40 one
    last = np.eye(3)[policy._arm_index[arms[-1]]]
    np.testing.assert_allclose(policy._play_counts(),
                               (twin._play_counts() - last) / 7.0 + last, rtol=1e-15)


def test_no_alarm_no_change_and_the_detector_sees_each_learnt_loss():
    """A detector that never alarms changes nothing (the same arms and state as without
    one); it is fed the loss of every learnt round, (h - r) / (h - l), and a refused update
    feeds it nothing."""
    stream = lambda: LinearBandit(d=4, k=3, seed=3, n_rounds=300)  # noqa: E731
    quiet = BoBLO(drift_detector=AlarmAt(), reward_range=(-1.0, 3.0), seed=1)
    plain = BoBLO(drift_detector=None, reward_range=(-1.0, 3.0), seed=1)
    rewards = []
    for context, arm_ids in stream():
        arm = quiet.pull(arm_ids, context)
        assert plain.pull(arm_ids, context) == arm
        r = 4.0 * float(context["x0"] > 0) - 1.0  # in [-1, 3]
        quiet.update(arm, context, r)
        plain.update(arm, context, r)
        rewards.append(r)
    assert quiet._detector.seen == [(3.0 - r) / 4.0 for r in rewards]
    (Ps, G), (Ps0, G0) = _matrices(quiet), _matrices(plain)
    np.testing.assert_array_equal(Ps[0], Ps0[0])
    np.testing.assert_array_equal(G, G0)
    c, arms = next(iter(stream()))
    arm = quiet.pull(arms, c)
    with pytest.raises(ValueError, match="reward"):
        quiet.update(arm, c, 7.0)
    assert len(quiet._detector.seen) == 300 and quiet.drifts == []


def test_the_blo_face_watches_its_losses_too():
    policy = BoBLO(decision_set=sets.Simplex(3), drift_detector=AlarmAt((5,)), seed=0)
    rng = np.random.default_rng(0)
    for _ in range(6):
        c = {"a": float(rng.normal())}
        policy.predict_one(c)
        policy.learn_one(c, 0.25)
    assert policy._detector.seen == [0.25] * 6 and policy.drifts == [5]


@pytest.mark.parametrize("make", [
    lambda: LinearBandit(d=10, k=5, noise=0.5, seed=7, n_rounds=6000, switch_every=1500),
    lambda: NonlinearBandit(d=2, k=3, seed=7, n_rounds=6000, switch_every=3000),
], ids=["switching LinearBandit", "switching NonlinearBandit"])
def test_the_default_detector_recovers_from_a_switch(make):
    """On streams whose arms are redrawn (LinearBandit every 1,500 rounds; NonlinearBandit's
    rings moved after 3,000) the default detector alarms after the first switch, not
    before it, and the discounted policy earns clearly more than one that never forgets."""
    watched = BoBLO(seed=0)
    blind = BoBLO(drift_detector=None, seed=0)
    switch = make().switch_every
    r_watched = evaluate.bandit(watched, make(), skyline=None).average_reward
    r_blind = evaluate.bandit(blind, make(), skyline=None).average_reward
    assert watched.drifts and switch < watched.drifts[0] < switch + 1000
    assert r_watched > r_blind + 0.01


def test_the_default_detector_stays_quiet_on_a_stationary_stream():
    policy = BoBLO(seed=0)
    evaluate.bandit(policy, LinearBandit(d=10, k=5, noise=0.5, seed=7, n_rounds=6000),
                    skyline=None)
    assert policy.drifts == []


def test_each_policy_watches_with_its_own_detector():
    prototype = RisingMean(delta=0.01)
    a, b = BoBLO(drift_detector=prototype, seed=0), BoBLO(drift_detector=prototype, seed=0)
    assert a._detector is not prototype and a._detector is not b._detector
    _play(a, LinearBandit(seed=0, n_rounds=50))
    assert a._detector._adwin.width == 50
    assert b._detector._adwin.width == 0 and prototype._adwin.width == 0
    clone = a.clone()
    assert isinstance(clone.drift_detector, RisingMean) and clone._detector._adwin.width == 0
    assert clone._detector.delta == 0.01
    assert type(BoBLO().drift_detector) is RisingMean and BoBLO().drift_discount == 100.0
    assert BoBLO().drift_detector._get_params() == RisingMean()._get_params()


def test_a_pickled_policy_keeps_watching_where_it_was():
    stream = lambda: LinearBandit(d=4, k=3, seed=5, n_rounds=200)  # noqa: E731
    policy = BoBLO(drift_detector=AlarmAt((150,)), seed=0)
    twin = BoBLO(drift_detector=AlarmAt((150,)), seed=0)
    for i, (context, arm_ids) in enumerate(stream()):
        if i == 100:
            policy = pickle.loads(pickle.dumps(policy))
        for p in (policy, twin):
            arm = p.pull(arm_ids, context)
            p.update(arm, context, 0.5)
    assert policy.drifts == twin.drifts == [150]
    np.testing.assert_array_equal(policy.booco.copies._P, twin.booco.copies._P)


def test_a_policy_pickled_before_the_detector_plays_on_without_one():
    policy = BoBLO(seed=0)
    _play(policy, LinearBandit(seed=0, n_rounds=30))
    state = policy.__dict__.copy()
    for key in ("drift_detector", "drift_discount", "_detector", "_drifts"):
        state.pop(key)
    old = BoBLO.__new__(BoBLO)
    old.__setstate__(state)
    _play(old, LinearBandit(seed=1, n_rounds=30))
    assert old.drifts == [] and old._get_params()["drift_detector"] is None


@pytest.mark.parametrize("kwargs, name", [
    ({"drift_detector": "page-hinkley"}, "drift_detector"),
    ({"drift_detector": drift.binary.DDM()}, "drift_detector"),  # fed bools, not losses
    ({"drift_discount": 0.5}, "drift_discount"),
    ({"drift_discount": float("nan")}, "drift_discount"),
    ({"drift_discount": float("inf")}, "drift_discount"),
    ({"drift_discount": "10"}, "drift_discount"),
])
def test_bad_drift_parameters(kwargs, name):
    with pytest.raises(ValueError, match=name):
        BoBLO(**kwargs)


def _ridge(A, b):
    return np.linalg.solve(A, b)


@pytest.mark.parametrize("factor", [1.0, 4.0, 100.0])
def test_discount_is_ridge_with_the_past_weighted_down(factor):
    """Oracle: after `discount(f)` one more step of the stack (and of the loss models)
    solves the ridge problem whose earlier rounds, penalty included, weigh 1/f, the next
    round 1: theta = (A/f + phi phi^T)^{-1} (A theta_old / f + phi g)."""
    rng = np.random.default_rng(0)
    K = sets.Simplex(3)
    stack = learners.FeaturePolicy(K, n_features=8, l2=2.0).stack(1)
    for _ in range(30):
        stack.learn_vector(rng.normal(size=4), rng.normal(size=(1, 3)))
    A = np.linalg.inv(stack._P[0])
    theta = stack._theta[0].copy()
    stack.discount(factor)
    c, G = rng.normal(size=4), rng.normal(size=(1, 3))
    phi = stack.features(c)[0]
    stack.learn_vector(c, G)
    A1 = A / factor + np.outer(phi, phi)
    expect = _ridge(A1, (A @ theta.T) / factor + np.outer(phi, G[0])).T
    np.testing.assert_allclose(stack._theta[0], expect, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(stack._P[0], np.linalg.inv(A1), rtol=1e-7, atol=1e-10)
    for model in (RidgeMixture(3, (1.0, 10.0), 0.5), _ArmRidge(3, 2.0, 0.5)):
        for _ in range(30):
            ce, _, U = model.lower(rng.normal(size=2))
            model.learn_loss(ce, int(rng.integers(3)), float(rng.random()), U)
        Ps = (model.P if isinstance(model, RidgeMixture) else model.P[None]).copy()
        Ts = (model.Theta if isinstance(model, RidgeMixture) else model.theta[None]).copy()
        model.discount(factor)
        ce, _, U = model.lower(rng.normal(size=2))
        loss = float(rng.random())
        model.learn_loss(ce, 1, loss, U)
        P1 = model.P if isinstance(model, RidgeMixture) else model.P[None]
        T1 = model.Theta if isinstance(model, RidgeMixture) else model.theta[None]
        for j in range(len(Ps)):
            A = np.linalg.inv(Ps[j, 1])
            A1 = A / factor + np.outer(ce, ce)
            np.testing.assert_allclose(T1[j, 1], _ridge(A1, A @ Ts[j, 1] / factor + ce * loss),
                                       rtol=1e-8, atol=1e-10)
            np.testing.assert_allclose(P1[j, 0], factor * Ps[j, 0])  # arm 0: only discounted


@pytest.mark.parametrize("estimator", ["ips", "paper"])
def test_other_estimators_discount_the_copies_and_leave_the_unused_model(estimator):
    """Without the "dr" loss model only the copies carry a past to discount; the model the
    policy holds (unused) is left as it was."""
    stream = lambda: LinearBandit(d=3, k=3, seed=4, n_rounds=25)  # noqa: E731
    kw = dict(learner=learners.FeaturePolicy(n_features=4), estimator=estimator, seed=0)
    policy = BoBLO(drift_detector=AlarmAt((25,)), drift_discount=3.0, **kw)
    twin = BoBLO(drift_detector=None, **kw)
    assert _play(policy, stream()) == _play(twin, stream())
    assert policy.drifts == [25]
    np.testing.assert_array_equal(policy.booco.copies._P, 3.0 * twin.booco.copies._P)
    np.testing.assert_array_equal(policy._model.G, twin._model.G)


def test_a_learner_without_discount_keeps_its_state_and_the_model_is_discounted():
    stream = lambda: LinearBandit(d=3, k=3, seed=4, n_rounds=25)  # noqa: E731
    policy = BoBLO(learner=learners.SoftmaxPolicy(), drift_detector=AlarmAt((25,)), seed=0)
    twin = BoBLO(learner=learners.SoftmaxPolicy(), drift_detector=None, seed=0)
    assert _play(policy, stream()) == _play(twin, stream())
    assert policy.drifts == [25] and not hasattr(policy.booco.copies, "discount")
    assert pickle.dumps(policy.booco) == pickle.dumps(twin.booco)
    np.testing.assert_array_equal(policy._model.G[:, :, :-1], 100.0 * twin._model.G[:, :, :-1])


def test_a_ridge_policy_is_discounted_too():
    stream = lambda: LinearBandit(d=3, k=3, seed=4, n_rounds=25)  # noqa: E731
    policy = BoBLO(learner=learners.RidgePolicy(), drift_detector=AlarmAt((25,)),
                   drift_discount=5.0, seed=0)
    twin = BoBLO(learner=learners.RidgePolicy(), drift_detector=None, seed=0)
    assert _play(policy, stream()) == _play(twin, stream())
    assert policy.drifts == [25]
    np.testing.assert_array_equal(policy.booco.copies._P, 5.0 * twin.booco.copies._P)
    np.testing.assert_array_equal(policy.booco.copies._theta, twin.booco.copies._theta)


def test_the_default_detector_survives_a_pickle_mid_stream():
    """`onlineboost run` checkpoints policies by pickling them: ADWIN's window must come back
    whole, so a policy pickled before the switch alarms where the uninterrupted one does."""
    mine, theirs = (NonlinearBandit(d=2, k=3, seed=3, n_rounds=4000, switch_every=2000)
                    for _ in range(2))
    policy, twin = BoBLO(seed=0), BoBLO(seed=0)
    for t, ((context, arm_ids), _) in enumerate(zip(mine, theirs)):
        if t == 1500:
            policy = pickle.loads(pickle.dumps(policy))
        arm = policy.pull(arm_ids, context)
        assert twin.pull(arm_ids, context) == arm
        policy.update(arm, context, mine.reward(arm))
        twin.update(arm, context, theirs.reward(arm))
    assert policy.drifts == twin.drifts and 2000 < policy.drifts[0] < 3000
    np.testing.assert_array_equal(policy.booco.copies._P, twin.booco.copies._P)
