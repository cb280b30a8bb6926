"""A synthetic linear-payoff contextual bandit whose optimal policy is known exactly."""

from __future__ import annotations

import math
import numbers

import numpy as np

from onlineboost._checks import check_seed

from ._bandit import BanditStream

__all__ = ["LinearBandit"]


def _unit_rows(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    z = rng.normal(size=(n, d))
    return z / np.linalg.norm(z, axis=1, keepdims=True)


class LinearBandit(BanditStream):
    r"""Linear-payoff contextual bandit with $k$ arms on contexts in $\mathbb{R}^d$.

    Contexts $c_t$ and arm parameters $\theta_a$ are uniform on the unit sphere; the mean reward
    of arm $a$ is linear in the context,
    $$\mu_a(c) = \tfrac12\,(1 + \langle \theta_a, c\rangle) \in [0, 1],$$
    and the observed reward is $r = (1 - \sigma)\,\mu_a(c) + \sigma\,B$ with
    $B \sim \text{Bernoulli}(\mu_a(c))$, so that its mean is exactly $\mu_a(c)$ for every noise
    level $\sigma$ (`noise`) and it stays in $[0, 1]$. The optimal policy
    $c \mapsto \arg\max_a \mu_a(c)$ is known, so the regret $\sum_t \mu^\star(c_t) -
    \mu_{a_t}(c_t)$ is computed exactly by `onlineboost.evaluate.bandit`.

    With `switch_every = m` the arm parameters are redrawn every $m$ rounds (a switching,
    oblivious adversary fixed by the seed): no fixed policy is good throughout, and regret is
    then measured against the optimal policy of each segment.

    Parameters
    ----------
    d
        Context dimension.
    k
        Number of arms (ids `0, ..., k - 1`).
    noise
        $\sigma \in [0, 1]$: 0 gives deterministic rewards $\mu_a(c)$, 1 Bernoulli rewards.
    seed
        Seed of the parameters, contexts and noise; two passes with the same seed match.
    n_rounds
        Number of rounds per pass.
    switch_every
        `None` (stationary) or the segment length $m \ge 1$ of the switching variant.

    Examples
    --------
    >>> from streams import LinearBandit
    >>> stream = LinearBandit(d=5, k=4, noise=0.5, seed=1, n_rounds=2000)
    >>> best = sum(float(stream._round_expected().max()) for _ in stream)  # optimal policy
    >>> fixed = sum(stream.reward(0) for _ in stream)  # always arm 0
    >>> round(best / 2000, 3), round(fixed / 2000, 3)
    (0.741, 0.509)
    """

    def __init__(self, d: int = 5, k: int = 4, noise: float = 0.5, seed: int | None = None,
                 n_rounds: int = 10_000, switch_every: int | None = None):
        for name, value, low in (("d", d, 1), ("k", k, 2), ("n_rounds", n_rounds, 1)):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
        if not (isinstance(noise, numbers.Real) and math.isfinite(noise) and 0 <= noise <= 1):
            raise ValueError(f"noise must lie in [0, 1], got {noise!r}")
        if switch_every is not None and (isinstance(switch_every, bool) or not isinstance(
                switch_every, numbers.Integral) or switch_every < 1):
            raise ValueError(f"switch_every must be None or an integer >= 1, got {switch_every!r}")
        check_seed(seed)
        self.d = d
        self.k = k
        self.noise = noise
        self.seed = seed
        self.n_rounds = n_rounds
        self.switch_every = switch_every
        self.arm_ids = list(range(k))

    def __repr__(self) -> str:
        return (f"LinearBandit(d={self.d}, k={self.k}, noise={self.noise}, seed={self.seed}, "
                f"n_rounds={self.n_rounds}, switch_every={self.switch_every})")

    def _rounds(self):
        rng = np.random.default_rng(self.seed)
        theta = _unit_rows(rng, self.k, self.d)  # (k, d)
        names = [f"x{j}" for j in range(self.d)]
        block = 1024
        for start in range(0, self.n_rounds, block):
            m = min(block, self.n_rounds - start)
            C = _unit_rows(rng, m, self.d)
            U = rng.random((m, self.k))
            for j in range(m):
                t = start + j
                if self.switch_every is not None and t and t % self.switch_every == 0:
                    theta = _unit_rows(rng, self.k, self.d)
                mu = 0.5 * (1.0 + theta @ C[j])  # (k,) mean rewards, linear in the context
                r = (1.0 - self.noise) * mu + self.noise * (U[j] < mu)
                yield dict(zip(names, C[j].tolist())), r, mu
