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
