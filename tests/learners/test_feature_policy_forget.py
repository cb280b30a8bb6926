"""FeaturePolicyStack and RidgePolicyStack with forgetting stay the exact discounted ridge fit
over long streams.

Recursive least squares with a forgetting factor rho multiplies A^{-1} by 1/rho every round; an
antisymmetric rounding error in A^{-1} is never damped by the data, so it grows as rho^-t and,
at rho = 0.995, wrecked BoBLO()'s weak learner after about 8,000 rounds (on `LinearBandit`
with 20,000 rounds its expected reward per round fell from 0.99 of the optimum to 0.80). The
batch solution below is the reference, whatever the update's implementation."""

from __future__ import annotations

import numpy as np
import pytest

from learners.feature_policy import FeaturePolicyStack
from learners.ridge_policy import RidgePolicyStack
from onlineboost import sets


@pytest.mark.parametrize("n_features, n", [(0, 1), (0, 2), (8, 2), (None, 2)],
                         ids=["shared", "shared-2", "fourier", "ridge-policy"])
def test_forgetting_fit_is_the_discounted_ridge_solution_after_many_rounds(n_features, n):
    rho, l2, T, d, k = 0.99, 2.0, 6000, 4, 3  # rho^-T = e^60: any undamped error shows
    if n_features is None:
        stack = RidgePolicyStack(n, sets.Simplex(k), l2=l2, forget=rho)
        stack.features = lambda c: np.tile(np.concatenate(([1.0], c)), (n, 1))
    else:
        stack = FeaturePolicyStack(n, sets.Simplex(k), l2=l2, forget=rho,
                                   n_features=n_features, seeds=list(range(n)))
    rng = np.random.default_rng(0)
    theta_true = rng.normal(size=(k, 1 + d))
    q = None
    for t in range(T):
        c = rng.normal(size=d)
        G = np.tile(theta_true[:, 1:] @ c + theta_true[:, 0], (n, 1)) + rng.normal(size=(n, k))
        stack.learn_vector(c, G)
        phi = stack.features(c)  # (n, q), after the map has grown
        if q is None:
            q = phi.shape[1]
            A = np.stack([l2 * np.eye(q)] * n)
            B = np.zeros((n, q, k))
        A = rho * A + phi[:, :, None] * phi[:, None, :]
        B = rho * B + phi[:, :, None] * G[:, None, :]
    c = rng.normal(size=d)
    phi = stack.features(c)
    want = np.einsum("nq,nqk->nk", phi, np.linalg.solve(A, B))  # the batch discounted fit
    np.testing.assert_allclose(stack.predicted_costs(c), want, rtol=1e-6, atol=1e-8)
