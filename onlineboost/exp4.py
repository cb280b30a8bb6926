r"""Exp4: exponential weights over experts' arm distributions, under bandit feedback.

$M$ experts each advise a distribution $\pi^j_t$ over $k$ arms. Exp4 plays
$p_t = \sum_j q_{t,j}\, \pi^j_t$ with $q_t \propto \exp(-\eta_t \hat L_{t-1})$, draws
$a_t \sim p_t$, sees the loss $\ell_t(a_t) \in [0, 1]$ of that arm only, and charges expert
$j$ the importance weighted loss $\hat\ell_{t,j} = \pi^j_t(a_t)\, \ell_t(a_t) / p_t(a_t)$, an
unbiased estimate of $\langle \pi^j_t, \ell_t\rangle$. With the anytime rate
$\eta_t = \sqrt{\ln M / (t k)}$ the expected regret against the best expert in hindsight is at
most $2\sqrt{T k \ln M}$, whatever the advice (chosen adaptively, e.g. by learners trained on
the same rounds) [^1][^2]. With a prior $\pi_0$ on the experts ($q_1 = \pi_0$) the regret
against expert $j$ is at most $\sqrt{T k}\,(\ln(1/\pi_0(j))/\sqrt{\ln M} + \sqrt{\ln M})$ (the
same proof: the potential starts at $\pi_0$; the variance term is
$\mathbb E \sum_j q_j \hat\ell_j^2 \le k$), so an expert holding half the prior costs $\ln 2$
in place of $\ln M$ in the first term.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import check_int

__all__ = ["Exp4"]


class Exp4:
    r"""Exp4 over `n_experts` experts on `n_arms` arms, anytime learning rate.

    `distribution(advice)` returns $p_t$ for the advice matrix (`(M, k)`, rows are distributions);
    `update(arm, loss)` charges the experts for the arm drawn from that $p_t$ and its loss in
    $[0, 1]$. Weights are kept in the log domain (cumulative estimated losses), so they cannot
    underflow.

    Parameters
    ----------
    n_experts
        $M \ge 1$.
    n_arms
        $k \ge 1$.
    prior
        Prior weights $\pi_0$ on the experts (positive; normalised), or `None` (uniform).

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.exp4 import Exp4
    >>> agg = Exp4(n_experts=2, n_arms=2)
    >>> advice = np.array([[1.0, 0.0], [0.0, 1.0]])  # expert 0 always says arm 0, expert 1 arm 1
    >>> rng = np.random.default_rng(0)
    >>> for t in range(2000):
    ...     p = agg.distribution(advice)
    ...     a = int(rng.random() >= p[0])
    ...     agg.update(a, 0.2 if a == 0 else 0.8)  # arm 0 is better
    >>> agg.weights.round(3)
    array([1., 0.])

    References
    ----------
    [^1]: Auer, P., Cesa-Bianchi, N., Freund, Y. and Schapire, R. E., 2002. The nonstochastic
    multiarmed bandit problem. SIAM J. Comput. 32(1), Exp4.
    [^2]: Bubeck, S. and Cesa-Bianchi, N., 2012. Regret analysis of stochastic and
    nonstochastic multi-armed bandit problems, Theorem 3.1 (anytime rate) and section 4.2.
    """

    def __init__(self, n_experts: int, n_arms: int, prior=None):
        self.n_experts = check_int("n_experts", n_experts, 1)
        self.n_arms = check_int("n_arms", n_arms, 1)
        if prior is None:
            prior = np.full(self.n_experts, 1.0 / self.n_experts)
        else:
            try:
                prior = np.asarray(prior, dtype=np.float64)
            except (TypeError, ValueError):
                prior = np.zeros(0)
            if prior.shape != (self.n_experts,) or not np.all(np.isfinite(prior)) \
                    or not np.all(prior > 0):
                raise ValueError(f"prior must hold {self.n_experts} positive weights")
            prior = prior / prior.sum()
        self.prior = prior
        self._log_prior = np.log(prior)
        # cumulative estimated losses L^_{t-1}, in plain floats (a handful of experts)
        self._L = [0.0] * self.n_experts
        self._t = 0  # rounds charged
        self._log_m = math.log(self.n_experts)
        self._q = prior.copy()
        self._advice = None  # (advice, p) of the last distribution(), for update()

    @property
    def weights(self) -> np.ndarray:
        """$q_t$, the experts' current weights (a distribution)."""
        return self._q.copy()

    @property
    def last_advice(self) -> np.ndarray | None:
        """The advice of the last `distribution` call not yet charged by `update` (or None)."""
        return None if self._advice is None else self._advice[0].copy()

    @property
    def lr(self) -> float:
        """$\\eta_t = \\sqrt{\\ln M / (t k)}$ of the next round."""
        return math.sqrt(self._log_m / ((self._t + 1) * self.n_arms))

    def bound(self, T: int, expert: int | None = None) -> float:
        """The expected-regret bound after `T` rounds against `expert` (`None`: against every
        expert, the uniform prior's $2\\sqrt{T k \\ln M}$ or its prior's worst case)."""
        log_m = max(self._log_m, 1e-300)
        w = float(self.prior.min() if expert is None else self.prior[expert])
        return math.sqrt(T * self.n_arms) * (math.log(1.0 / w) / math.sqrt(log_m)
                                              + math.sqrt(log_m))

    def distribution(self, advice: np.ndarray) -> np.ndarray:
        """$p_t = q_t^\\top \\Pi_t$ for the advice `(M, k)` (rows: the experts' distributions).

        Not validated: the caller passes finite rows on the simplex."""
        p = self._q @ advice
        self._advice = (advice, p)
        return p

    def update(self, arm: int, loss: float) -> None:
        r"""Charge $\hat\ell_j = \pi^j(a)\, \ell / p(a)$ for the arm drawn from the last
        `distribution` and its loss $\ell \in [0, 1]$ (not validated: the caller checks it)."""
        advice, p = self._advice
        self._advice = None
        self._t += 1
        # the elementwise steps in plain floats (the same operations entry by entry); exp and
        # the normalising sum stay numpy's
        scale = loss / float(p[arm])
        L = self._L = [a + b * scale for a, b in zip(self._L, advice[:, arm].tolist())]
        eta = math.sqrt(self._log_m / ((self._t + 1) * self.n_arms))  # eta_{t+1}
        z = [a - eta * b for a, b in zip(self._log_prior.tolist(), L)]
        top = max(z)  # log domain: the heaviest expert at exp(0) = 1
        q = np.exp(np.array([v - top for v in z]))
        self._q = q / q.sum()
