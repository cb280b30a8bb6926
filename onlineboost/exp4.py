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

`LeadExp4` (issue 13) plays expert 0 alone until another expert's importance weighted
cumulative loss is ahead of it by more than the noise can explain (a margin from the exact
cumulants of the importance weights, never above Freedman's), then runs
Exp4 afresh: the bandit analogue of `onlineboost.BoOCO`'s aggregate, which plays its first
copy until a stage leads it by the aggregate's own bound.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import check_int, check_real

__all__ = ["Exp4", "LeadExp4"]


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


#: the upper bound $b$ on the centred increments $\hat D_t - D_t$ of the lead (`LeadExp4`):
#: $\hat D_t = \ell_t(a_t)(1 - \pi^j_t(a_t)/\pi^0_t(a_t)) \le 1$ and $D_t \ge -1$
_B = 2.0
#: the grid of Freedman rates $\lambda_i = 2^{-i}$, $i = 0..$`_GRID - 1` (`LeadExp4.margin`)
_GRID = 40


def ville_grid(n_tests: int, confidence: float) -> tuple:
    r"""The rates $\lambda_i = 2^{-i}$, $i = 0..39$, and $\ln(1/\delta_i)$ with $\delta_i =
    \delta/(n (i + 1)(i + 2))$: a union over `n_tests` $= n$ tests and the grid spends
    $\sum_i \delta_i \le \delta$ (`confidence`) in all (`LeadExp4`, `depth.FitLead`)."""
    i = np.arange(_GRID)
    return 0.5 ** i, np.log(max(n_tests, 1) * (i + 1) * (i + 2) / confidence)


def ville_margins(log_inv: np.ndarray, psi: np.ndarray, lam: np.ndarray) -> np.ndarray:
    r"""$B_j = \min_i (\ln(1/\delta_i) + \Psi_j(\lambda_i))/\lambda_i$ for the summed
    predictable cumulant bounds `psi` `(M, grid)`: with $\exp(\lambda S_{t,j} -
    \Psi_{t,j}(\lambda))$ a supermartingale for every $\lambda$, Ville's inequality with the
    union of `ville_grid` bounds every $S_{t,j}$ by $B_{t,j}$ at once, for all $t$, with
    probability $1 - \delta$."""
    return np.min((log_inv + psi) / lam, axis=1)


class LeadExp4:
    r"""Expert 0 alone until an expert leads it beyond noise, then Exp4 afresh.

    Same protocol as `Exp4` (`distribution(advice)`, then `update(arm, loss)`, losses in
    $[0, 1]$). **Phase 1** plays $p_t = \pi^0_t$, expert 0's advice, exactly, and tracks for
    every expert $j$ the importance weighted lead
    $$\hat\Lambda_{t,j} = \sum_{s \le t} \hat\ell_{s,0} - \hat\ell_{s,j}
      = \sum_{s \le t} \ell_s(a_s)\bigl(1 - \pi^j_s(a_s)/\pi^0_s(a_s)\bigr),$$
    whose increments have mean $D_{s,j} = \langle \pi^0_s - \pi^j_s, \ell_s\rangle$ given the
    past, and the predictable variance bound
    $V_{t,j} = \sum_{s \le t} \chi^2(\pi^j_s \,\|\, \pi^0_s)
      = \sum_{s \le t} \sum_a (\pi^j_s(a) - \pi^0_s(a))^2/\pi^0_s(a)$
    ($\ge$ the conditional second moment of each increment, since $\ell \in [0, 1]$).
    After the round where some $j$ has $\hat\Lambda_{t,j} \ge B_{t,j}$ (`margins`, below),
    **phase 2** runs `Exp4` with `prior` afresh (its losses counted from the next round).

    The margin. Write $u_s(a) = 1 - \pi^j_s(a)/\pi^0_s(a) \le 1$ and $\phi_\lambda(x) =
    e^{\lambda x} - 1 - \lambda x \ge 0$ (convex, 0 at 0). The increment $\ell_s(a_s) u_s(a_s)$,
    $a_s \sim \pi^0_s$, has $\mathbb E e^{\lambda(\hat D - D)} \le \exp \mathbb E
    \phi_\lambda(\ell u) \le \exp \psi_{s,j}(\lambda)$ with the predictable
    $$\psi_{s,j}(\lambda) = \sum_a \pi^0_s(a)\, \phi_\lambda(u_s(a))$$
    ($\phi_\lambda(\ell u) \le \phi_\lambda(u)$ for $\ell \in [0, 1]$, by convexity), so
    $\exp(\lambda \sum_s (\hat D_s - D_s) - \Psi_{t,j}(\lambda))$, $\Psi_{t,j} = \sum_{s \le t}
    \psi_{s,j}$, is a supermartingale for every $\lambda > 0$. By Ville's inequality with a
    union over the experts $j \ne 0$ and the rates $\lambda_i = 2^{-i}$ (confidence
    $\delta_i = \delta/((M - 1)(i + 1)(i + 2))$)
    $$B_{t,j} = \min_i \frac{\ln(1/\delta_i) + \Psi_{t,j}(\lambda_i)}{\lambda_i}$$
    (`margins`) bounds $\sum_{s \le t} \hat D_{s,j} - D_{s,j}$ for every $t$ and $j$ at once
    with probability at least $1 - \delta$ (`confidence` $= \delta$). So with probability
    $1 - \delta$ a switch is evidence: the expert that triggered it had a smaller expected
    cumulative loss than expert 0 over the rounds so far, $\sum_{s \le \tau} D_{s,j} > 0$.
    Since $\phi_\lambda(x) \le x^2 \lambda^2/(2(1 - \lambda b/3))$ for $x \le 1$ (any $b \ge 1$),
    $\Psi_{t,j}(\lambda) \le \lambda^2 V_{t,j}/(2(1 - \lambda b/3))$: $B_{t,j}$ is never above
    Freedman's margin with $b = 2$ (`margin`, $\approx \sqrt{2 V \ln(1/\delta')} +
    \tfrac{b}{3}\ln(1/\delta')$), and far below it when a few rounds have stage $j$ put its
    mass on an arm expert 0 almost never plays: in such a round $\phi_\lambda(u) \approx
    \lambda |u|$ grows linearly in the ratio $\pi^j/\pi^0$, where $\chi^2$ grows as its square,
    so a heavy tail of rare sharp rounds no longer dominates the margin (when every round is
    that sharp, the two margins are close: then no test can be quick, Lattimore 2015).

    **Guarantee** (expected regret over $T$ rounds, any adaptive advice, $\tau$ the switch
    round, $\tau = T$ if none):

    * against expert 0: $0$ in phase 1 ($p_t = \pi^0_t$), so at most Exp4's bound over the
      $T - \tau$ rounds of phase 2,
      $\sqrt{(T - \tau) k}\,(\ln(1/\pi_0(0))/\sqrt{\ln M} + \sqrt{\ln M})$;
    * against expert $j$: $\mathbb E[B_{\tau,j}] + 1$ in phase 1 (optional stopping: the
      expected regret is the expected lead, below the (non-decreasing) margin until the switch
      round, which adds at most 1), plus Exp4's bound against $j$ over phase 2.

    $B_{\tau,j}$ is small while the experts agree with expert 0 and grows with the mass
    stage $j$ puts where expert 0 rarely plays (the price of never playing other experts' arms
    in phase 1: a floor $\pi^0(a) \ge \epsilon$ keeps it finite). `bound(T, j)` gives the
    bound with the realised $\tau$ and margins.

    Parameters
    ----------
    n_experts
        $M \ge 1$ (expert 0 is the one played in phase 1).
    n_arms
        $k \ge 1$.
    prior
        Exp4's prior in phase 2 (`None`: uniform).
    confidence
        $\delta \in (0, 1)$ of the margin.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.exp4 import LeadExp4
    >>> agg = LeadExp4(n_experts=2, n_arms=2)
    >>> rng = np.random.default_rng(0)
    >>> advice = np.array([[0.9, 0.1], [0.1, 0.9]])  # expert 1 prefers arm 1, the better one
    >>> for t in range(1000):
    ...     p = agg.distribution(advice)
    ...     a = int(rng.random() >= p[0])
    ...     agg.update(a, float(rng.random() < (0.7 if a == 0 else 0.2)))
    >>> agg.switch_round, agg.lead.round(1), agg.margins.round(1)  # frozen at the switch
    (555, array([  0. , 209.8]), array([  3.7, 209.5]))
    >>> agg.variance.round(1), agg.margin(agg.variance).round(1)  # Freedman's margin: later
    (array([   0. , 3946.7]), array([  3.7, 231. ]))
    >>> agg.weights.round(2)  # then Exp4, afresh
    array([0.01, 0.99])

    Each round adds $\chi^2 = 0.8^2/0.9 + 0.8^2/0.1 \approx 7.1$ to the variance bound, and
    the expected lead grows by $0.5 \cdot 0.8 = 0.4$: the switch comes once the lead passes
    $B \approx 1.5\sqrt{2 V \ln(1/\delta)}$.
    """

    def __init__(self, n_experts: int, n_arms: int, prior=None, confidence: float = 0.05):
        self._exp4_args = (n_experts, n_arms, prior)
        proto = Exp4(n_experts, n_arms, prior)  # validates n_experts, n_arms, prior
        self.confidence = check_real("confidence", confidence, 0.0, 1.0, low_open=True)
        if self.confidence >= 1.0:
            raise ValueError(f"confidence must be below 1, got {confidence!r}")
        self.n_experts, self.n_arms, self.prior = proto.n_experts, proto.n_arms, proto.prior
        M = self.n_experts
        self._lead = np.zeros(M)  # Lambda^_{t,j}: expert 0's estimated loss minus expert j's
        self._var = np.zeros(M)  # V_{t,j}: summed chi^2(pi^j || pi^0)
        self._t = 0  # rounds charged
        self.switch_round = None  # tau: the round after which phase 2 began
        self._exp4 = None  # phase 2's Exp4
        self._advice = None
        # the margin's grid: lambda_i and ln(1/delta_i), i = 0 .. _GRID - 1
        self._lam, self._log_inv = ville_grid(M - 1, self.confidence)
        self._floor = float(self._log_inv.min())  # every margin is at least this (lambda <= 1)
        self._psi = np.zeros((M, _GRID))  # Psi_{t,j}(lambda_i): the summed predictable cumulants

    @property
    def margins(self) -> np.ndarray:
        r"""$B_{t,j}$ for every expert (class docstring), frozen at the switch: the lead expert
        $j$ must reach."""
        return ville_margins(self._log_inv, self._psi, self._lam)

    def margin(self, V):
        r"""Freedman's margin $\min_i \ln(1/\delta_i)/\lambda_i + \lambda_i V/(2(1 - 2\lambda_i/3))$
        for a variance bound `V` (a number or an array): an upper bound of `margins` given
        `variance` (class docstring)."""
        V = np.asarray(V, dtype=np.float64)[..., None]
        lam = self._lam
        return np.min(self._log_inv / lam + lam * V / (2.0 * (1.0 - lam * _B / 3.0)), axis=-1)

    @property
    def mixing(self) -> bool:
        """Whether phase 2 (Exp4) has begun."""
        return self._exp4 is not None

    @property
    def weights(self) -> np.ndarray:
        """The experts' weights: all on expert 0 in phase 1, Exp4's after."""
        if self._exp4 is None:
            return np.eye(1, self.n_experts)[0]
        return self._exp4.weights

    @property
    def lead(self) -> np.ndarray:
        r"""$\hat\Lambda_{t,j}$ for every expert (0 for expert 0), frozen at the switch."""
        return self._lead.copy()

    @property
    def variance(self) -> np.ndarray:
        """$V_{t,j}$ for every expert (0 for expert 0), frozen at the switch."""
        return self._var.copy()

    @property
    def last_advice(self) -> np.ndarray | None:
        """The advice of the last `distribution` call not yet charged by `update` (or None)."""
        if self._exp4 is not None:
            return self._exp4.last_advice
        return None if self._advice is None else self._advice.copy()

    def bound(self, T: int, expert: int | None = None) -> float:
        """The expected-regret bound after `T` rounds against `expert` (class docstring), with
        the realised switch round and variance (`None`: the largest over the experts)."""
        if expert is None:
            return max(self.bound(T, j) for j in range(self.n_experts))
        tau = self._t if self.switch_round is None else self.switch_round
        late = 0.0
        if self.switch_round is not None and T > tau:
            late = Exp4(*self._exp4_args).bound(T - tau, expert)
        if expert == 0:
            return late
        return float(self.margins[expert]) + 1.0 + late

    def distribution(self, advice: np.ndarray) -> np.ndarray:
        """Expert 0's row in phase 1 (the same floats), Exp4's mixture after.

        Not validated: the caller passes finite rows on the simplex, expert 0's positive."""
        if self._exp4 is not None:
            return self._exp4.distribution(advice)
        self._advice = advice
        return advice[0]

    def update(self, arm: int, loss: float) -> None:
        """Charge the round (`Exp4.update`); in phase 1, move the leads and variances and
        switch once a lead reaches its margin."""
        if self._exp4 is not None:
            self._exp4.update(arm, loss)
            return
        A = self._advice
        self._advice = None
        self._t += 1
        p0 = A[0]
        self._lead += loss * (1.0 - A[:, arm] / p0[arm])  # l (1 - pi^j(a) / pi^0(a))
        U = 1.0 - A / p0  # u(a) = 1 - pi^j(a) / pi^0(a) <= 1
        self._var += (p0 * U * U).sum(axis=1)  # chi^2(pi^j || pi^0)
        X = U[:, :, None] * self._lam  # lambda_i u(a), (M, k, grid)
        self._psi += np.einsum("a,jai->ji", p0, np.expm1(X) - X)  # sum_a pi^0(a) phi(u(a))
        lead = self._lead
        if lead.max() >= self._floor and np.any(lead >= self.margins):
            self.switch_round = self._t
            self._exp4 = Exp4(*self._exp4_args)
