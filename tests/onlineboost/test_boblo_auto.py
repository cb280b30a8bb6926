"""BoBLO's default aggregate, `aggregate="auto"` (issue 13, sixth session): `"fit"`
(`depth.FitLead`) under `estimator="dr"` with weak learners whose stacks give vector
`predicted_costs`, `"decision"` (`depth.PlayLead`) among those where the later copies are
nearest neighbours (the default learner's for N > 1 since the sixteenth session), else
`"exp4"` (`exp4.LeadExp4`). Resolved once in `__init__` from the
parameters (river clones through them, so `_get_params()` keeps `"auto"`); pickles made before
`"auto"` (no `_aggregate`) use their `aggregate` as it was."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import learners
from onlineboost import BoBLO
from onlineboost.boblo import FIXED_WEIGHT_LEARNER, FOURIER_LATER
from onlineboost.depth import FitLead, PlayLead
from onlineboost.exp4 import LeadExp4
from streams import LinearBandit, NonlinearBandit
from tests.helpers import LINEAR_LEARNER
from tests.helpers import average_reward as _run

C = {"a": 0.3, "b": -1.2}


def _first_round(policy, arms=(0, 1, 2)):
    arm = policy.pull(list(arms), C)
    policy.update(arm, C, 0.5)
    return policy


def test_auto_is_the_default_and_picks_decision_for_neighbour_copies_else_fit():
    policy = BoBLO(n_learners=5, seed=0)  # (the default later copies: neighbours)
    assert policy.aggregate == "auto" and policy._aggregate == "decision"
    assert isinstance(_first_round(policy).exp4, PlayLead)
    fourier = BoBLO(learners.FeaturePolicy(**FIXED_WEIGHT_LEARNER, **FOURIER_LATER), n_learners=5,
                    seed=0)
    assert fourier._aggregate == "fit" and isinstance(_first_round(fourier).exp4, FitLead)
    # N = 1: resolved alike, but there is nothing to aggregate (the compiled round plays)
    one = _first_round(BoBLO(seed=0))
    assert one._aggregate == "fit" and one.exp4 is None and one._fused
    # other learners whose stacks predict costs: fit too
    ridge = BoBLO(learners.RidgePolicy(), n_learners=3, seed=0)
    assert ridge._aggregate == "fit" and isinstance(_first_round(ridge).exp4, FitLead)


@pytest.mark.parametrize("kwargs", [
    dict(estimator="ips"),  # no loss model to anchor the stages' costs
    dict(estimator="ips", learner=learners.FeaturePolicy(**FIXED_WEIGHT_LEARNER)),
    dict(learner=learners.LinearOGD()),  # a dict learner: no vector stack
    dict(learner=learners.SoftmaxPolicy()),  # vector stack, no `predicted_costs`
], ids=["ips", "ips-feature", "dict-learner", "no-predicted-costs"])
def test_auto_picks_exp4_where_fit_does_not_apply(kwargs):
    policy = BoBLO(n_learners=3, seed=0, **kwargs)
    assert policy.aggregate == "auto" and policy._aggregate == "exp4"
    assert type(_first_round(policy).exp4) is LeadExp4
    # what "fit" itself would refuse there, "auto" does not
    with pytest.raises(ValueError, match="aggregate"):
        BoBLO(n_learners=3, aggregate="fit", **kwargs)


def test_auto_under_the_paper_estimator_and_on_the_blo_face_aggregates_nothing():
    paper = _first_round(BoBLO(n_learners=3, estimator="paper", seed=0))
    assert paper._aggregate == "exp4" and paper.exp4 is None  # (Algorithm 2 plays x_t)
    from onlineboost import sets

    blo = BoBLO(n_learners=3, decision_set=sets.Simplex(3), seed=0)
    blo.learn_one(C, float(blo.predict_one(C) @ np.array([0.2, 0.5, 0.9])))
    assert blo._aggregate == "decision" and blo.exp4 is None


@pytest.mark.parametrize("aggregate", ["exp4", "fit", "decision", None])
def test_explicit_values_are_kept(aggregate):
    policy = BoBLO(n_learners=3, aggregate=aggregate, seed=0)
    assert policy.aggregate == policy._aggregate == aggregate
    agg = _first_round(policy).exp4
    assert (type(agg) if agg is not None else None) is {
        "exp4": LeadExp4, "fit": FitLead, "decision": PlayLead, None: None}[aggregate]


def test_params_keep_auto_and_clones_resolve_it_again():
    policy = _first_round(BoBLO(n_learners=3, seed=0))
    assert policy._get_params()["aggregate"] == "auto"
    clone = policy.clone()
    assert clone.aggregate == "auto" and clone._aggregate == "decision" and clone.exp4 is None
    # the clone resolves from its own parameters, not from the original's resolution
    ips = policy.clone({"estimator": "ips"})
    assert ips.aggregate == "auto" and ips._aggregate == "exp4"
    assert type(_first_round(ips).exp4) is LeadExp4
    # a clone plays what a fresh policy with the same parameters plays
    fresh, twin = BoBLO(n_learners=3, seed=0), policy.clone()
    stream = list(LinearBandit(d=3, k=3, seed=4, n_rounds=200))
    for context, arms in stream:
        a, b = fresh.pull(arms, context), twin.pull(arms, context)
        assert a == b
        fresh.update(a, context, 0.25 * a)
        twin.update(b, context, 0.25 * b)
    np.testing.assert_array_equal(fresh.exp4.lead, twin.exp4.lead)
    assert fresh.exp4.switch_round == twin.exp4.switch_round


@pytest.mark.parametrize("bad", ["AUTO", "hedge", "", 1, True, ("fit",)])
def test_bad_aggregate_values_are_refused_by_name(bad):
    with pytest.raises(ValueError, match="aggregate"):
        BoBLO(aggregate=bad)
    # through a clone of a policy mid-stream: refused, the policy unchanged
    policy = _first_round(BoBLO(n_learners=3, seed=0))
    before = pickle.dumps(policy)
    with pytest.raises(ValueError, match="aggregate"):
        policy.clone({"aggregate": bad})
    assert pickle.dumps(policy) == before
    assert policy.aggregate == "auto" and policy._aggregate == "decision"


@pytest.mark.parametrize("aggregate, kind", [("exp4", LeadExp4), ("fit", FitLead)])
def test_pickles_without_the_resolved_aggregate_use_their_own(aggregate, kind):
    """A policy pickled before `"auto"` existed has no `_aggregate`: its `aggregate`
    ("exp4" or "fit" then) decides, at the first pull and mid-stream alike."""
    old = BoBLO(n_learners=3, aggregate=aggregate, seed=0)
    twin = BoBLO(n_learners=3, aggregate=aggregate, seed=0)
    del old.__dict__["_aggregate"]  # the old layout
    old = pickle.loads(pickle.dumps(old))
    assert not hasattr(old, "_aggregate")
    stream = list(LinearBandit(d=3, k=3, seed=5, n_rounds=150))
    for t, (context, arms) in enumerate(stream):
        if t == 60:  # pickled again mid-stream, still without `_aggregate`
            old = pickle.loads(pickle.dumps(old))
        a, b = old.pull(arms, context), twin.pull(arms, context)
        assert a == b and old.arm_probabilities.tolist() == twin.arm_probabilities.tolist()
        old.update(a, context, 0.3 * a)
        twin.update(b, context, 0.3 * b)
    assert type(old.exp4) is kind and not hasattr(old, "_aggregate")


def test_the_unit_test_params_resolve():
    resolved = [BoBLO(**params)._aggregate for params in BoBLO._unit_test_params()]
    assert resolved == ["exp4", "fit", "fit", "fit"]  # (SoftmaxPolicy under "ips"; the defaults)


# -- the defaults' N = 5: FitLead's switch where it matters, none where it does not ---------------


@pytest.mark.parametrize("seed", [1, 2])
def test_n5_switches_where_the_best_policy_is_not_linear(seed):
    """`NonlinearBandit` (seed 0 in tests/onlineboost/test_depth.py, against LeadExp4): over a
    linear first copy (the default learner until the eighth session), N = 5 with the default
    Fourier later copies and FitLead finds a later stage and earns clearly more than that
    copy alone; `BoBLO()`, whose copy has random features of its own, earns as much alone."""
    T = 3000
    one = BoBLO(learners.FeaturePolicy(**LINEAR_LEARNER), seed=seed)
    five = BoBLO(learners.FeaturePolicy(**LINEAR_LEARNER, **FOURIER_LATER), n_learners=5,
                 seed=seed)
    default = BoBLO(seed=seed)
    r1, r5, rd = (_run(p, NonlinearBandit(seed=seed, n_rounds=T)) for p in (one, five, default))
    assert isinstance(five.exp4, FitLead)
    assert five.exp4.switch_round is not None and five.exp4.switch_round < 2000
    assert five.exp4.expert >= 1 and five.exp4.mixing
    assert r5 > r1 + 0.05 and rd > r1 + 0.05


@pytest.mark.parametrize("later", ["neighbours", "fourier"])
def test_default_n5_does_not_switch_where_the_first_copy_is_right(later, monkeypatch):
    """`LinearBandit` (the development stream's size): the defaults' N = 5 never switches and
    plays `BoBLO()`'s law throughout, the same reward float for float; so did the Fourier
    later copies under `FitLead` (the N > 1 default until the fifteenth session)."""
    from onlineboost import boblo

    if later == "fourier":
        monkeypatch.setattr(boblo, "DEFAULT_LATER", FOURIER_LATER)
    T = 3000
    one, five = BoBLO(seed=1), BoBLO(n_learners=5, seed=1)
    r1, r5 = (_run(p, LinearBandit(d=10, k=5, noise=0.5, seed=1, n_rounds=T))
              for p in (one, five))
    assert isinstance(five.exp4, FitLead if later == "fourier" else PlayLead)
    assert five.exp4.switch_round is None and r5 == r1
    assert np.all(five.exp4.lead[1:] < five.exp4.margins[1:])
