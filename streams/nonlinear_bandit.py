"""A synthetic contextual bandit whose optimal policy is not linear in the context."""

from __future__ import annotations

import numpy as np
from scipy import special

from onlineboost._checks import check_int, check_real, check_seed

from ._bandit import BanditStream

__all__ = ["NonlinearBandit"]


class NonlinearBandit(BanditStream):
    r"""Radial-payoff contextual bandit: arm $a$ pays best on the $a$-th ring of the context.

    Contexts are standard normal in $\mathbb{R}^d$ (so standardising them online changes
    little). Their radius is mapped to a uniform score by the $\chi^2_d$ distribution function,
    $\rho(c) = F_{\chi^2_d}(\lVert c\rVert^2) \in [0, 1]$, and arm $a$ (of $k$) is centred on
    the ring $\rho_a = (a + \tfrac12)/k$:
    $$\mu_a(c) = \tfrac12 + \tfrac{g}{2}\cos\bigl(2\pi(\rho(c) - \rho_a)\bigr)
      \in [\tfrac{1 - g}{2}, \tfrac{1 + g}{2}],$$
    $g$ the `gap`. The optimal policy $c \mapsto \arg\max_a \mu_a(c)$ picks the arm of the
    nearest ring (circularly in $\rho$): its decision boundaries are spheres, so no policy that
    is the arg max of per-arm functions linear in $c$ (LinUCB's class, or BoBLO's first copy)
    comes close. $\rho$ is uniform, so every arm's mean reward is exactly $\tfrac12$, and every
    $\mu_a$ is even in $c$, so its best linear fit over $(1, c)$ is that constant: a linear
    learner sees no signal at all, while per-arm functions of random Fourier features of $c$
    can express the rings (the stream `benchmarks/bandit_compare.py` uses to show what
    `BoBLO(n_learners=5)`'s later copies add).

    The observed reward is $r = (1 - \sigma)\,\mu_a(c) + \sigma\,B$ with
    $B \sim \text{Bernoulli}(\mu_a(c))$, as `LinearBandit`: its mean is $\mu_a(c)$ for every
    `noise` $\sigma$, and it stays in $[0, 1]$. The expected rewards are known, so
    `onlineboost.evaluate.bandit` computes the regret exactly.

    Parameters
    ----------
    d
        Context dimension ($\ge 1$).
    k
        Number of arms (ids `0, ..., k - 1`, $\ge 2$).
    gap
        $g \in (0, 1]$: the spread of the mean rewards.
    noise
        $\sigma \in [0, 1]$: 0 gives deterministic rewards $\mu_a(c)$, 1 Bernoulli rewards.
    seed
        Seed of the contexts and the noise; two passes with the same seed match.
    n_rounds
        Number of rounds per pass.
    switch_every
        `None` (stationary) or the segment length $m \ge 1$ of the switching variant: every $m$
        rounds the rings move one arm on, arm $a$ taking the ring $\rho_{(a + s) \bmod k}$ in
        segment $s = \lfloor t/m \rfloor$ (an oblivious adversary; the contexts and the noise
        are those of the stationary stream with the same seed). A policy that does not forget
        keeps playing the last segment's arms.

    Examples
    --------
    >>> from streams import NonlinearBandit
    >>> stream = NonlinearBandit(d=2, k=3, seed=1, n_rounds=3000)
    >>> best = sum(float(stream._round_expected().max()) for _ in stream)  # optimal policy
    >>> fixed = [sum(stream.reward(a) for _ in stream) for a in stream.arm_ids]  # one arm
    >>> round(best / 3000, 3), [round(f / 3000, 3) for f in fixed]
    (0.83, [0.502, 0.508, 0.491])
    """

    def __init__(self, d: int = 2, k: int = 3, gap: float = 0.8, noise: float = 0.5,
                 seed: int | None = None, n_rounds: int = 10_000,
                 switch_every: int | None = None):
        for name, value, low in (("d", d, 1), ("k", k, 2), ("n_rounds", n_rounds, 1)):
            check_int(name, value, low)
        if switch_every is not None:
            check_int("switch_every", switch_every, 1)
        check_real("gap", gap, 0.0, 1.0, low_open=True)
        check_real("noise", noise, 0.0, 1.0)
        check_seed(seed)
        self.d = d
        self.k = k
        self.gap = gap
        self.noise = noise
        self.seed = seed
        self.n_rounds = n_rounds
        self.switch_every = switch_every
        self.arm_ids = list(range(k))

    def __repr__(self) -> str:
        return (f"NonlinearBandit(d={self.d}, k={self.k}, gap={self.gap}, noise={self.noise}, "
                f"seed={self.seed}, n_rounds={self.n_rounds}"
                + ("" if self.switch_every is None else f", switch_every={self.switch_every}")
                + ")")

    def expected(self, C: np.ndarray, segment=0) -> np.ndarray:
        r"""The mean rewards $\mu_a(c)$ of every arm for contexts `C` `(m, d)`, shape `(m, k)`;
        `segment` $s$ (an int, or one per row): the rings of the switching variant's segment
        $s$, arm $a$ on ring $(a + s) \bmod k$ (0: the stationary stream's)."""
        C = np.asarray(C, dtype=np.float64)
        rho = special.gammainc(self.d / 2.0, 0.5 * np.einsum("ij,ij->i", C, C))  # chi2_d CDF
        ring = (np.arange(self.k) + np.asarray(segment)[..., None]) % self.k
        centres = (ring + 0.5) / self.k
        return 0.5 + 0.5 * self.gap * np.cos(2.0 * np.pi * (rho[:, None] - centres))

    def _rounds(self):
        rng = np.random.default_rng(self.seed)
        names = [f"x{j}" for j in range(self.d)]
        block = 1024
        for start in range(0, self.n_rounds, block):
            m = min(block, self.n_rounds - start)
            C = rng.normal(size=(m, self.d))
            U = rng.random((m, self.k))
            segment = (0 if self.switch_every is None
                       else np.arange(start, start + m) // self.switch_every)
            mu = self.expected(C, segment)  # (m, k), even in each context
            R = (1.0 - self.noise) * mu + self.noise * (U < mu)
            for j in range(m):
                yield dict(zip(names, C[j].tolist())), R[j], mu[j]
