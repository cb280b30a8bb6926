"""Exp4: the expected-regret bound 2 sqrt(T k ln M) holds on seeded streams, and the weights
follow the importance-weighted losses (a wrong sign or a missing weight fails these)."""

from __future__ import annotations

import numpy as np
import pytest

from onlineboost.exp4 import Exp4


def run(seed, T=2000, k=4, M=6, adaptive=False, cls=Exp4):
    """Pseudo-regret sum <p_t, l_t> - min_j sum <pi^j_t, l_t> of Exp4 against M experts."""
    rng = np.random.default_rng(seed)
    agg = cls(M, k)
    means = rng.uniform(0.2, 0.8, size=k)
    means[rng.integers(k)] = 0.1  # one good arm
    played, experts = 0.0, np.zeros(M)
    for t in range(T):
        advice = rng.dirichlet(np.ones(k), size=M)
        if adaptive:  # the advice reacts to the aggregator's own weights
            advice[0] = np.eye(k)[int(np.argmin(means))] * 0.9 + 0.1 / k
            advice[1] = agg.weights[:k] / agg.weights[:k].sum() if M >= k else advice[1]
        else:
            advice[0] = np.eye(k)[int(np.argmin(means))] * 0.9 + 0.1 / k
        losses = (rng.random(k) < means).astype(float)  # Bernoulli losses in {0, 1}
        p = agg.distribution(advice)
        np.testing.assert_allclose(p.sum(), 1.0)
        a = int(min(np.searchsorted(np.cumsum(p), rng.random(), side="right"), k - 1))
        agg.update(a, float(losses[a]))
        played += float(p @ losses)
        experts += advice @ losses
    return played - experts.min(), agg


@pytest.mark.parametrize("adaptive", [False, True])
def test_regret_bound_holds_on_seeded_streams(adaptive):
    T, k, M = 2000, 4, 6
    regrets = []
    for seed in range(6):
        regret, agg = run(seed, T, k, M, adaptive)
        assert regret <= agg.bound(T), (seed, regret, agg.bound(T))
        regrets.append(regret)
        assert agg.weights.argmax() == 0  # the expert of the good arm wins
    # and the bound is not vacuous here: always following expert 1 (random advice) loses more
    assert np.mean(regrets) < 0.5 * agg.bound(T)


class _Unweighted(Exp4):
    """A wrong Exp4: charges the raw loss without the importance weight 1/p(a)."""

    def update(self, arm, loss):
        p = self._advice[1]
        super().update(arm, loss * p[arm])


def test_the_bound_catches_a_wrong_estimator():
    """Guard on the test itself: without importance weights the played arm's experts are
    overcharged and the aggregator drifts to experts that avoid the good arm."""
    regrets = [run(seed, cls=_Unweighted)[0] for seed in range(3)]
    assert max(regrets) > Exp4(6, 4).bound(2000)


def test_log_domain_weights_do_not_underflow():
    agg = Exp4(3, 2)
    advice = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    for _ in range(20_000):
        p = agg.distribution(advice)
        agg.update(1 if p[1] > 0.5 else 0, 1.0)  # every arm always loses 1
    assert np.all(np.isfinite(agg.weights)) and np.isclose(agg.weights.sum(), 1.0)


@pytest.mark.parametrize("kwargs", [{"n_experts": 0}, {"n_arms": 0}, {"n_experts": 2.5}])
def test_bad_parameters(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        Exp4(**{"n_experts": 2, "n_arms": 2, **kwargs})


def _transcribed_weights(prior, advice_seq, arms, losses):
    """Exp4 (Auer et al. 2002; Bubeck & Cesa-Bianchi 2012, Theorem 3.1) written out afresh,
    sharing no code with the library: after t charged rounds the weights are
    q_{t+1, j} proportional to pi_0(j) exp(-eta_{t+1} Lhat_{t, j}), with
    eta_{t+1} = sqrt(ln M / ((t + 1) k)) and Lhat_{t, j} = sum_s pi^j_s(a_s) l_s / p_s(a_s)."""
    prior = np.asarray(prior, float) / np.sum(prior)
    M, k = advice_seq[0].shape
    Lhat = np.zeros(M)
    out = []
    q = prior.copy()
    for t, (advice, a, loss) in enumerate(zip(advice_seq, arms, losses), start=1):
        p = q @ advice
        Lhat = Lhat + advice[:, a] * loss / p[a]
        eta = np.sqrt(np.log(M) / ((t + 1) * k))
        w = prior * np.exp(-eta * (Lhat - Lhat.min()))
        q = w / w.sum()
        out.append((p, q))
    return out


@pytest.mark.parametrize("prior", [None, [1.0, 3.0, 0.5, 2.0]])
def test_weights_match_a_transcription_of_exp4(prior):
    """Round by round, Exp4's law and weights equal the formula's: a wrong rate (another
    schedule, a missing k or ln M), a prior dropped or unnormalised, or a loss charged to
    the wrong experts fails it."""
    rng = np.random.default_rng(3)
    M, k, T = 4, 3, 300
    advice_seq = [rng.dirichlet(np.ones(k), size=M) for _ in range(T)]
    agg = Exp4(M, k, prior=prior)
    arms, losses, got = [], [], []
    for advice in advice_seq:
        p = agg.distribution(advice)
        a = int(rng.choice(k, p=p))
        loss = float(rng.random())
        agg.update(a, loss)
        arms.append(a)
        losses.append(loss)
        got.append((p, agg.weights))
    want = _transcribed_weights(np.ones(M) if prior is None else prior, advice_seq, arms, losses)
    for t, ((p, q), (p_want, q_want)) in enumerate(zip(got, want)):
        np.testing.assert_allclose(p, p_want, rtol=1e-12, err_msg=f"round {t}")
        np.testing.assert_allclose(q, q_want, rtol=1e-10, atol=1e-300, err_msg=f"round {t}")
    # the rate the next round uses, as `lr` reports it
    assert agg.lr == pytest.approx(np.sqrt(np.log(M) / ((T + 1) * k)), rel=1e-15)


def test_the_prior_is_normalised_and_bounds_the_regret_against_each_expert():
    agg = Exp4(2, 3, prior=[1.0, 3.0])
    np.testing.assert_allclose(agg.prior, [0.25, 0.75])
    np.testing.assert_allclose(agg.weights, [0.25, 0.75])  # q_1 = pi_0
    T, k, log_m = 100, 3, np.log(2)
    for j, w in ((0, 0.25), (1, 0.75), (None, 0.25)):  # None: the worst case, min pi_0
        want = np.sqrt(T * k) * (np.log(1 / w) / np.sqrt(log_m) + np.sqrt(log_m))
        assert agg.bound(T, j) == pytest.approx(want, rel=1e-14)
    # the uniform prior's bound is 2 sqrt(T k ln M)
    assert Exp4(4, 3).bound(T) == pytest.approx(2 * np.sqrt(T * 3 * np.log(4)), rel=1e-14)


def test_one_expert_and_one_arm_are_valid():
    """The smallest aggregators: a lone expert keeps weight 1 and its law is played."""
    agg = Exp4(1, 2)
    advice = np.array([[0.3, 0.7]])
    for a in (0, 1, 1):
        np.testing.assert_allclose(agg.distribution(advice), advice[0])
        agg.update(a, 0.5)
    np.testing.assert_allclose(agg.weights, [1.0])
    agg = Exp4(2, 1)
    np.testing.assert_allclose(agg.distribution(np.ones((2, 1))), [1.0])


@pytest.mark.parametrize("prior", [[1.0, 0.0], [1.0, -1.0], [1.0, np.nan], [1.0, np.inf],
                                   [1.0, 2.0, 3.0], [[1.0, 2.0]], "ab"])
def test_bad_priors_are_refused(prior):
    with pytest.raises(ValueError, match="prior"):
        Exp4(2, 2, prior=prior)


def test_last_advice_is_the_pending_advice():
    agg = Exp4(2, 2)
    assert agg.last_advice is None
    advice = np.array([[0.9, 0.1], [0.2, 0.8]])
    agg.distribution(advice)
    got = agg.last_advice
    np.testing.assert_array_equal(got, advice)  # the advice, not the law it gave
    got[0, 0] = 0.0  # a copy: writing to it moves nothing
    assert agg.last_advice[0, 0] == 0.9
    agg.update(0, 1.0)
    assert agg.last_advice is None
