"""`onlineboost.loss_model.RidgeMixture`: the "dr" loss model whose ridge penalty is chosen
online (issue 13), and BoBLO's `model_l2` sequences that build it."""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest

import learners
from onlineboost import BoBLO
from onlineboost.loss_model import RidgeMixture, _ArmRidge
from streams import LinearBandit


def _stream(T=300, p=3, k=3, seed=0, grow_at=None):
    """(context vector, played arm, loss) rounds; losses in [0, 1], linear in the context."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(k, p)) * 0.15
    for t in range(T):
        q = p if grow_at is None or t >= grow_at else p - 1  # a column appears at `grow_at`
        c = rng.normal(size=q)
        a = int(rng.integers(k))
        loss = float(np.clip(0.5 + theta[a, :q] @ c + 0.1 * rng.normal(), 0.0, 1.0))
        yield c, a, loss


def _run(model, rounds):
    out = []
    for c, a, loss in rounds:
        ce, costs, U = model.lower(c)
        out.append(np.array(costs))
        model.learn(ce, a, loss - float(model.theta[a] @ ce), U)
    return out


@pytest.mark.parametrize("optimism", [0.0, 0.3])
def test_one_penalty_is_the_single_ridge_model(optimism):
    """With one penalty the mixture is `_ArmRidge` (weight 1): same costs every round, also
    when a context column appears mid-stream. A wrong recursive-least-squares step, a wrong
    prior on new columns or a wrong width fails."""
    rounds = list(_stream(grow_at=50))
    got = _run(RidgeMixture(3, (4.0,), 0.5, optimism), rounds)
    want = _run(_ArmRidge(3, 4.0, 0.5, optimism), rounds)
    np.testing.assert_allclose(np.array(got), np.array(want), rtol=0, atol=1e-12)


class _ReferenceRidge:
    """A transcription of the one-penalty "dr" model's rules (`loss_model._ArmRidge` with
    `learn_loss`), written out here with no code shared with the library: per arm
    P = (lam I + sum c~ c~')^-1 and theta by recursive least squares from (start, 0, ...), new
    columns entering with weight 0 and prior precision lam, prediction theta . c~ minus
    optimism times sqrt(c~' P c~)."""

    def __init__(self, k, lam, start, optimism):
        self.k, self.lam, self.optimism = k, lam, optimism
        self.P = [np.eye(1) / lam for _ in range(k)]
        self.theta = [np.array([start]) for _ in range(k)]

    def row(self, v):
        q = len(v) + 1
        for a in range(self.k):
            q0 = len(self.theta[a])
            if q > q0:
                P = np.eye(q) / self.lam
                P[:q0, :q0] = self.P[a]
                self.P[a] = P
                self.theta[a] = np.concatenate([self.theta[a], np.zeros(q - q0)])
        return np.concatenate([[1.0], v, np.zeros(len(self.theta[0]) - q)])

    def costs(self, v):
        ce = self.row(v)
        return np.array([self.theta[a] @ ce - self.optimism * math.sqrt(ce @ self.P[a] @ ce)
                         for a in range(self.k)])

    def learn_loss(self, v, a, loss):
        ce = self.row(v)
        u = self.P[a] @ ce
        s = 1.0 + ce @ u
        self.theta[a] = self.theta[a] + (loss - self.theta[a] @ ce) / s * u
        self.P[a] = self.P[a] - np.outer(u, u) / s


@pytest.mark.parametrize("optimism", [0.0, 0.3])
def test_one_penalty_learn_loss_matches_a_transcription_of_the_single_model(optimism):
    """A one-penalty mixture driven through the fused round's interface (`costs_and_row` to
    play, `lower` for the estimate, `learn_loss` with the observed loss) predicts as the
    single ridge model of the written-out rules, round by round, also when a column appears
    mid-stream. A wrong step size, a step from the residual where the loss is expected (or
    the reverse), a wrong width or a wrong prior on new columns fails."""
    rounds = list(_stream(T=300, grow_at=60, seed=5))
    mix = RidgeMixture(3, (4.0,), 0.5, optimism)
    ref = _ReferenceRidge(3, 4.0, 0.5, optimism)
    for c, a, loss in rounds:
        want = ref.costs(c)
        costs, row = mix.costs_and_row(c)
        if row is None:  # (a new column: the model grows in `lower`)
            ce, bounds, U = mix.lower(c)
            costs = np.array(bounds)
        ce, bounds, U = mix.lower(c)
        np.testing.assert_allclose(costs, want, rtol=0, atol=1e-12)
        np.testing.assert_allclose(bounds, want, rtol=0, atol=1e-12)
        mix.learn_loss(ce, a, loss, U)
        ref.learn_loss(c, a, loss)
    np.testing.assert_allclose(mix.theta, np.array(ref.theta), rtol=0, atol=1e-12)


@pytest.mark.parametrize("optimism", [0.0, 0.3])
def test_learn_and_learn_loss_agree(optimism):
    """`learn(ce, a, loss - theta[a] @ ce)` and `learn_loss(ce, a, loss)` take the same step
    (up to rounding: `learn` rebuilds the loss from the mixture's residual): same costs and
    weights every round of a three-penalty mixture. A `learn_loss` that took the loss for
    a residual (or scored the models after learning) fails."""
    a_mix = RidgeMixture(3, (0.5, 5.0, 50.0), 0.5, optimism)
    b_mix = RidgeMixture(3, (0.5, 5.0, 50.0), 0.5, optimism)
    for c, a, loss in _stream(T=300, p=4, seed=6, grow_at=40):
        ce, costs, U = a_mix.lower(c)
        ce2, costs2, U2 = b_mix.lower(c)
        np.testing.assert_allclose(costs, costs2, rtol=0, atol=1e-12)
        a_mix.learn(ce, a, loss - float(a_mix.theta[a] @ ce), U)
        b_mix.learn_loss(ce2, a, loss, U2)
        np.testing.assert_allclose(a_mix.weights, b_mix.weights, rtol=0, atol=1e-12)
    assert abs(a_mix.weights[0] - 1 / 3) > 0.01  # (the weights moved)
    np.testing.assert_allclose(a_mix.Theta, b_mix.Theta, rtol=0, atol=1e-12)


def test_costs_and_row_lend_the_cached_costs_and_row():
    """`costs_and_row(v)` is `(costs(v), (1, v))` where the model has exactly v's columns:
    the row `lower` uses, the costs `lower`'s bounds (one computation per context, the same
    arrays until `learn_loss`, then new ones). Otherwise the row is None and the costs those
    of `costs`, the model not grown."""
    model = RidgeMixture(3, (1.0, 30.0), 0.5)
    rounds = list(_stream(T=50, p=3, seed=7))
    assert model.costs_and_row(rounds[0][0])[1] is None  # (not grown yet)
    model.lower(rounds[0][0])  # (grown to the stream's columns)
    for c, a, loss in rounds:
        costs, row = model.costs_and_row(c)
        ce, bounds, U = model.lower(c)
        assert row is ce and costs is model.costs(c)
        np.testing.assert_array_equal(row, np.concatenate([[1.0], c]))
        np.testing.assert_array_equal(costs, bounds)
        assert model.costs_and_row(c)[0] is costs  # (cached)
        model.learn_loss(ce, a, loss, U)
        after = model.costs(c)
        assert after is not costs and not np.array_equal(after, costs)  # (learnt: recomputed)
    before = pickle.dumps(model)
    for v in (np.array([0.2, -0.4]), np.array([0.3, -1.0, 0.5, 2.0])):  # fewer, more columns
        costs, row = model.costs_and_row(v)
        assert row is None
        np.testing.assert_allclose(costs, copy.deepcopy(model).lower(v)[1], rtol=0, atol=1e-12)
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("penalties", [(0.5, 5.0, 50.0), (0.5, 50.0)])
def test_prediction_is_the_exponentially_weighted_average_of_the_single_models(penalties):
    """Transcription of the rule: weights proportional to exp(-rate * sum of each model's
    squared error on the played arm's loss, measured before the model learns it), the
    prediction their weighted average. Scoring after learning, another rate, or selecting
    the best model instead of averaging fails (two penalties: the written-out path)."""
    rate = 0.5
    mix = RidgeMixture(3, penalties, 0.5, rate=rate)
    singles = [_ArmRidge(3, lam, 0.5) for lam in penalties]
    cum = np.zeros(len(penalties))
    for c, a, loss in _stream(T=200, seed=1):
        preds = []
        for m in singles:
            ce, costs, _ = m.lower(c)
            preds.append(costs)
        w = np.exp(-rate * (cum - cum.min()))
        w /= w.sum()
        ce, costs, U = mix.lower(c)
        np.testing.assert_allclose(costs, w @ np.array(preds), rtol=0, atol=1e-10)
        np.testing.assert_allclose(mix.weights, w, rtol=0, atol=1e-12)
        cum += (np.array(preds)[:, a] - loss) ** 2
        mix.learn(ce, a, loss - float(mix.theta[a] @ ce), U)
        for m in singles:
            ce1 = m.lower(c)[0]
            m.learn(ce1, a, loss - float(m.theta[a] @ ce1))


def test_mixture_squared_error_within_2_ln_m_of_the_best_penalty():
    """The squared loss is 1/2-exp-concave in the prediction p while |p - y| <= 1, so at rate
    1/2 the mixture's cumulative squared error on the played rounds is at most the best
    penalty's plus 2 ln M (the premise is checked on every model's prediction)."""
    penalties = (0.1, 3.0, 300.0)
    mix = RidgeMixture(3, penalties, 0.5)
    total, premise = 0.0, True
    for c, a, loss in _stream(T=600, p=5, seed=2):
        ce, costs, U = mix.lower(c)
        total += (costs[a] - loss) ** 2
        premise &= bool(np.all(np.abs(mix.Theta[:, a] @ ce - loss) <= 1.0))
        mix.learn(ce, a, loss - float(mix.theta[a] @ ce), U)
    assert premise
    assert total <= min(mix.loss) + 2 * math.log(3)
    assert total < max(mix.loss)  # (and below the worst model's)


def test_weights_follow_the_penalty_the_data_prefer():
    """A strong linear signal over 400 rounds: the small penalty takes all the weight; pure
    noise around the start over 60 rounds of 20 columns: the large penalty (which stays near
    the start instead of fitting the noise) takes most of it (measured 0.78)."""
    rng = np.random.default_rng(3)
    signal = RidgeMixture(2, (1.0, 1000.0), 0.5)
    noise = RidgeMixture(2, (1.0, 1000.0), 0.5)
    theta = np.array([0.3, -0.2, 0.25, 0.1])
    for model, T, p in ((signal, 400, 4), (noise, 60, 20)):
        for _ in range(T):
            c = rng.normal(size=p)
            loss = 0.5 + (theta @ c + 0.05 * rng.normal() if model is signal
                          else 0.2 * rng.normal())
            ce, _, U = model.lower(c)
            model.learn(ce, 0, loss - float(model.theta[0] @ ce), U)
    assert signal.weights[0] > 0.999
    assert noise.weights[1] > 0.7


def test_costs_of_a_longer_context_do_not_grow_the_model():
    """`costs` of a context with columns the model has not seen: the same numbers as a
    model grown to them (new columns weigh 0, prior precision lambda_j), the model unchanged."""
    model = RidgeMixture(3, (1.0, 20.0), 0.5, optimism=0.2)
    _run(model, _stream(T=100, p=3))
    before = pickle.dumps(model)
    v = np.array([0.3, -1.0, 0.5, 2.0, -0.7])
    got = model.costs(v)
    assert pickle.dumps(model) == before
    grown = copy.deepcopy(model)
    np.testing.assert_allclose(got, grown.lower(v)[1], rtol=0, atol=1e-12)


@pytest.mark.parametrize("kwargs", [dict(penalties=()), dict(penalties=(1.0, 0.0)),
                                    dict(penalties=(1.0, -2.0)), dict(penalties=(math.nan,)),
                                    dict(penalties=(math.inf,)), dict(rate=0.0),
                                    dict(rate=math.nan)])
def test_bad_parameters_raise(kwargs):
    args = dict(k=3, penalties=(1.0, 10.0), start=0.5, **{})
    args.update(kwargs)
    name = next(iter(kwargs))
    with pytest.raises(ValueError, match=name):
        RidgeMixture(**args)


@pytest.mark.parametrize("bad", [(), [], (1.0, 0.0), (1.0, -1.0), (1.0, math.nan),
                                 (1.0, "a"), (1.0, math.inf)])
def test_boblo_refuses_bad_penalty_sequences(bad):
    with pytest.raises(ValueError, match="model_l2"):
        BoBLO(model_l2=bad)


def _arm_laws(**kw):
    policy = BoBLO(seed=0, transformer=None, **kw)
    stream = LinearBandit(d=4, k=3, seed=2, n_rounds=300)
    laws = []
    for context, arm_ids in stream:
        arm = policy.pull(arm_ids, context)
        laws.append(policy.arm_probabilities)
        policy.update(arm, context, stream.reward(arm))
    return np.array(laws), policy


def test_boblo_with_one_penalty_in_a_tuple_plays_as_with_the_number():
    """`model_l2=(lam,)` is the single ridge model: the same arm laws, round by round."""
    one, _ = _arm_laws(model_l2=(7.0,))
    plain, _ = _arm_laws(model_l2=7.0)
    np.testing.assert_allclose(one, plain, rtol=0, atol=1e-12)


def test_boblo_default_mixes_two_penalties_and_pickles():
    """The default loss model is the (1, 100) mixture; its weights move from the uniform
    prior, and a pickled policy continues as the original (the context cache is no state)."""
    assert BoBLO().model_l2 == (1.0, 100.0)
    laws, policy = _arm_laws()
    model = policy._model
    assert isinstance(model, RidgeMixture)
    assert tuple(model.penalties) == (1.0, 100.0)
    assert abs(model.weights[0] - 0.5) > 0.05
    twin = pickle.loads(pickle.dumps(policy))
    context = {"x0": 0.1, "x1": -0.3, "x2": 1.2, "x3": 0.0}
    assert twin.pull([0, 1, 2], context) == policy.pull([0, 1, 2], context)
    np.testing.assert_array_equal(twin.arm_probabilities, policy.arm_probabilities)


def test_on_model_learner_plays_on_the_mixture():
    """The default weak learner plays on whatever loss model BoBLO holds: with corrections
    pinned at 0 the arm law is (1 - eta) softmax(-m_t / tau) + eta / k of the mixture's
    predictions."""
    learner = learners.FeaturePolicy(l2=1e9, temperature=0.05, n_features=0, residual=True,
                                     on_model=True)
    policy = BoBLO(learner, transformer=None, seed=3, exploration=0.05, count_bonus=0.0)
    stream = LinearBandit(d=2, k=3, seed=4, n_rounds=200)
    for context, arm_ids in stream:
        v = np.array([context[key] for key in sorted(context)])
        arm = policy.pull(arm_ids, context)
        m = policy._model.costs(v)
        w = np.exp(-(m - m.min()) / 0.05)
        want = 0.95 * w / w.sum() + 0.05 / 3
        np.testing.assert_allclose(policy.arm_probabilities, want, rtol=0, atol=1e-6)
        policy.update(arm, context, stream.reward(arm))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_huge_losses_on_the_blo_face_keep_the_arm_law_finite():
    """Losses of magnitude 1e200 overflow every model's squared error: the weights fall back
    to uniform instead of NaN (inf - inf), so the arm law stays a distribution."""
    from onlineboost import sets

    policy = BoBLO(decision_set=sets.Simplex(3), seed=0)
    for t in range(20):
        policy.predict_one({"a": 0.1 * t})
        policy.learn_one({"a": 0.1 * t}, 1e200 if t % 2 else -1e200)
        p = policy.arm_probabilities
        assert np.all(np.isfinite(p)) and abs(p.sum() - 1.0) < 1e-9
    assert np.all(np.isfinite(policy._model.weights))


def test_a_discount_and_new_columns_keep_the_mixture_the_average_of_the_single_models():
    """BoBLO's drift alarm discounts the model's past (`_discount`: every precision block
    times the factor, the weights kept) and a new column grows it. Through both, the mixture's
    means and squared widths (the seen columns' plus `tail` / lambda for unseen ones) stay
    the weighted average of single models discounted and grown alike: a discount that skips
    a block or scales the weights, or a width with another prior term, fails it."""
    penalties, rate = (0.5, 50.0), 0.5
    mix = RidgeMixture(3, penalties, 0.5, rate=rate)
    singles = [_ArmRidge(3, lam, 0.5) for lam in penalties]
    cum = np.zeros(2)
    for t, (c, a, loss) in enumerate(_stream(T=240, seed=4, grow_at=120)):
        if t in (80, 160):  # an alarm: the past counts a quarter
            for m in (mix, *singles):
                m._discount(0.25)
        w = np.exp(-rate * (cum - cum.min()))
        w /= w.sum()
        ce, costs, U = mix.lower(c)
        ces = [m.lower(c)[0] for m in singles]
        means = np.array([m._means(e) for m, e in zip(singles, ces)])
        np.testing.assert_allclose(costs, w @ means, rtol=0, atol=1e-10)
        seen = None  # (the singles' squared widths of the seen columns alone, tail 0)
        for tail in (0.0, 2.5):
            widths = np.array([m._widths_unseen(e, tail) for m, e in zip(singles, ces)])
            np.testing.assert_allclose(mix._widths_unseen(ce, tail), w @ widths, rtol=1e-10)
            seen = widths if seen is None else seen
            # the prior term itself: tail / lambda
            np.testing.assert_allclose(widths[:, 0] - seen[:, 0],
                                       [tail / lam for lam in penalties], rtol=1e-12)
        cum += (means[:, a] - loss) ** 2
        mix.learn(ce, a, loss - float(mix.theta[a] @ ce), U)
        for m, e in zip(singles, ces):
            m.learn(e, a, loss - float(m.theta[a] @ e))
