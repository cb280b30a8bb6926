r"""Leveraging coefficients for SecBoost (Step 2.3): `Solve_α` and the smoothness rule."""

from __future__ import annotations

import typing

import numpy as np

from .secboost_losses import curvature_noise, v_derivative

__all__ = ["AlphaStep", "solve_alpha_extended", "alpha_from_smoothness"]


class AlphaStep(typing.NamedTuple):
    alpha: float  # alpha_t, the leveraging coefficient (nan if none was found)
    W2: float  # bar W_{2,t} > 0, satisfying (11)
    epsilon: float  # epsilon_t > 0 of (9)


def solve_alpha_extended(
    F, w, yh, e_prev, v_prev, M: float, delta: float = 1.0, max_halvings: int = 100
) -> AlphaStep:
    r"""Algorithm 3 (`Solve_extended`) of appendix C.1: $\alpha_t$, $\overline{W}_{2,t}$,
    $\varepsilon_t$ from loss values.

    Step 2 halves $\delta$ until $\alpha = \delta \operatorname{sign}(\eta)$ satisfies (19),
    $|\eta(\tilde w(\alpha), h) - \eta| < |\eta|$, with the partial update (20)
    $\tilde w_i(\alpha) = -\delta_{v_{(t-1)i}} F(\alpha y_i h(x_i) + \tilde e_{(t-1)i})$.
    Step 3 sets $\overline{W}_{2,t}$ to the absolute value of the LHS of (11) (Theorem 5.8);
    if that is machine zero, to the largest $2^{-k}$ with $|\alpha| \le |\eta| / (W M^2)$.
    Machine zero is relative to the loss values the second $v$-derivatives are made of: the
    LHS is taken as 0 when it is at most the mean over $i$ of the rounding error those four
    values may carry (`curvature_noise`, weighted as in (11)): a loss linear in the edge gives
    rounding noise there ($10^{-17}$ to $10^{-16}$ in the tests), not an exact 0.
    Step 4: $\varepsilon = b_{\sup} / |\alpha| - 1$, $b_{\sup} = |\eta| / (W M^2)$ (the paper
    writes $\alpha$; with $\alpha < 0$ that would make $\varepsilon$ negative, so $|\alpha|$).

    `w` are the weights $w_t$, `yh` the values $y_i h_t(x_i)$, `e_prev` the edges
    $\tilde e_{(t-1)i}$, `v_prev` the offsets $v_{(t-1)i}$, `M` is $M_t$, `delta` the initial
    $\delta$ of (84). If no $\alpha$ is found after `max_halvings`, `alpha` is `nan`.

    Examples
    --------
    >>> import numpy as np
    >>> F = lambda z: np.logaddexp(0.0, -z)
    >>> w = -(F(np.full(4, 0.1)) - F(np.zeros(4))) / 0.1  # weights at H = 0, offsets 0.1
    >>> yh = np.array([1.0, 1.0, 1.0, -1.0])  # h is right on 3 of 4 examples
    >>> step = solve_alpha_extended(F, w, yh, np.zeros(4), np.full(4, 0.1), M=1.0)
    >>> step.alpha, round(step.W2, 4), round(step.epsilon, 4)
    (1.0, 0.2296, 0.0618)
    """
    eta = float(np.mean(w * yh))  # (83)
    sign = 1.0 if eta > 0 else -1.0
    found = False
    for _ in range(max_halvings):
        alpha = delta * sign
        w_tilde = -v_derivative(F, alpha * yh + e_prev, v_prev)  # (20)
        eta_new = float(np.mean(w_tilde * yh))
        if abs(eta_new - eta) < abs(eta):
            found = True
            break
        delta /= 2.0
    if not found:
        return AlphaStep(float("nan"), float("nan"), float("nan"))
    h2 = (yh / M) ** 2  # y_i^2 = 1
    second, noise = curvature_noise(F, e_prev, alpha * yh, v_prev)
    W = abs(float(np.mean(second * h2)))  # (11)
    if W <= float(np.mean(noise * h2)) or not np.isfinite(W):  # machine zero
        W = 1.0  # W_init, (85)
        while abs(alpha) > abs(eta) / (W * M**2):
            W /= 2.0
    b_sup = abs(eta) / (W * M**2)
    return AlphaStep(alpha, W, b_sup / abs(alpha) - 1.0)


def alpha_from_smoothness(eta: float, M: float, beta: float, epsilon: float) -> AlphaStep:
    r"""Step 2.3 with the bound of Lemma 5.7: $\overline{W}_{2,t} = 2\beta$ and, taking
    $\pi_t = 0$ in (9), $\alpha_t = \eta_t / (2(1 + \varepsilon_t) M_t^2 \overline{W}_{2,t})$.

    Examples
    --------
    >>> alpha_from_smoothness(eta=0.1, M=1.0, beta=0.25, epsilon=1.0)
    AlphaStep(alpha=0.05, W2=0.5, epsilon=1.0)
    """
    W2 = 2.0 * beta
    return AlphaStep(eta / (2.0 * (1.0 + epsilon) * M**2 * W2), W2, float(epsilon))
