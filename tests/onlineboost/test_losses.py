"""The losses against independent oracles: each value is its documented formula, each gradient
the slope of the value (finite differences, away from kinks), each prox the minimiser of the
proximal objective (scipy's bounded scalar minimiser, coordinate by coordinate) and each
`lipschitz(K, y)` the largest gradient norm over K (exact on boxes and for the squared and linear
losses, an upper bound of a dense sample elsewhere)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize

from onlineboost import losses, sets

FORMULAS = {
    "Squared": (losses.Squared(), lambda a, y: 0.5 * (a - y) ** 2),
    "Absolute": (losses.Absolute(), lambda a, y: np.abs(a - y)),
    "Huber": (losses.Huber(), lambda a, y: np.where(np.abs(a - y) <= 1.0, 0.5 * (a - y) ** 2,
                                                    np.abs(a - y) - 0.5)),
    "Huber 0.4": (losses.Huber(0.4), lambda a, y: np.where(
        np.abs(a - y) <= 0.4, 0.5 * (a - y) ** 2, 0.4 * (np.abs(a - y) - 0.2))),
    "Logistic": (losses.Logistic(), lambda a, y: np.log1p(np.exp(-y * a))),
    "Hinge": (losses.Hinge(), lambda a, y: np.maximum(0.0, 1.0 - y * a)),
}
MARGIN = ("Logistic", "Hinge")


def _targets(name, rng, shape):
    return rng.choice([-1.0, 1.0], size=shape) if name in MARGIN else rng.normal(size=shape)


def _case(name, seed, n, d):
    """The loss, its formula, n seeded actions of dimension d and a target."""
    loss, formula = FORMULAS[name]
    rng = np.random.default_rng(seed)
    return loss, formula, rng.normal(scale=2.0, size=(n, d)), _targets(name, rng, d)


@pytest.mark.parametrize("name", list(FORMULAS))
def test_values_are_the_formulas_summed_over_coordinates(name):
    loss, formula, a, y = _case(name, 0, 50, 3)
    np.testing.assert_allclose(loss.value(a, y), formula(a, y).sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(loss.value(a[0, :1].item(), y[0]), formula(a[0, 0], y[0]),
                               rtol=1e-12)  # a scalar action is a point of dimension 1
    point = loss.value(a[0], y)  # one point of dimension 3: one value
    assert np.shape(point) == () and point == pytest.approx(formula(a[0], y).sum(), rel=1e-12)
    assert loss.gradient(a[0], y).shape == (3,) and loss.gradient(1.5, y[0]).shape == (1,)


@pytest.mark.parametrize("name", list(FORMULAS))
def test_gradients_are_the_slopes_of_the_values(name):
    loss, formula, a, y = _case(name, 1, 200, 2)
    kinks = [0.0] if name == "Absolute" else [1.0, -1.0] if name.startswith("Huber") else \
        [1.0] if name == "Hinge" else []
    u = y * a if name in MARGIN else a - y
    scale = 0.4 if name == "Huber 0.4" else 1.0
    smooth = np.all([np.abs(u - scale * k) > 1e-3 for k in kinks], axis=0) if kinks else \
        np.ones(a.shape, dtype=bool)
    h = 1e-6
    slope = (formula(a + h, y) - formula(a - h, y)) / (2 * h)
    np.testing.assert_allclose(loss.gradient(a, y)[smooth], slope[smooth], atol=1e-6)


@pytest.mark.parametrize("name", list(FORMULAS) + ["Linear"])
@pytest.mark.parametrize("t", [0.05, 1.0, 7.0])
def test_prox_minimises_the_proximal_objective(name, t):
    if name == "Linear":
        loss, formula = losses.Linear(), None
    else:
        loss, formula = FORMULAS[name]
    rng = np.random.default_rng(2)
    v = rng.normal(scale=3.0, size=(20, 3))
    y = _targets(name, rng, 3)
    p = loss.prox(v, y, t)
    for i in range(len(v)):
        for j in range(3):
            if name == "Linear":  # <c, p> + |p - v|^2 / (2t): p = v - t c
                assert p[i, j] == pytest.approx(v[i, j] - t * y[j], abs=1e-12)
                continue

            def objective(q, i=i, j=j):
                return formula(q, y[j]) + (q - v[i, j]) ** 2 / (2 * t)

            lo, hi = v[i, j] - 3 * t - 3, v[i, j] + 3 * t + 3
            best = optimize.minimize_scalar(objective, bounds=(lo, hi), method="bounded",
                                            options={"xatol": 1e-12})
            assert objective(p[i, j]) <= best.fun + 1e-10
            assert p[i, j] == pytest.approx(best.x, abs=1e-5)


@pytest.mark.parametrize("name", list(FORMULAS) + ["Linear"])
@pytest.mark.parametrize("K", [sets.Interval(-2.0, 1.0), sets.Box([0.0, -1.0], [1.0, 3.0]),
                               sets.Ball([0.5, 0.0], 1.5), sets.Simplex(3),
                               sets.CappedSimplex(3, 0.5)], ids=lambda K: type(K).__name__)
def test_lipschitz_is_the_largest_gradient_norm_over_k(name, K):
    loss = losses.Linear() if name == "Linear" else FORMULAS[name][0]
    rng = np.random.default_rng(3)
    y = _targets(name, rng, K.dim) * (3.0 if name == "Linear" else 1.0)
    G = loss.lipschitz(K, y)
    sample = K.project(rng.normal(scale=4.0, size=(4000, K.dim)))  # includes the boundary
    if isinstance(K, sets.Box):  # and the corners, where a box's maximum sits
        corners = np.array(np.meshgrid(*zip(K.lower, K.upper))).reshape(K.dim, -1).T
        sample = np.vstack([sample, corners])
    norms = np.linalg.norm(loss.gradient(sample, y), axis=1)
    assert norms.max() <= G + 1e-9
    # (the absolute and hinge losses' gradients have entries +-1 off their kinks: sqrt(d))
    exact = isinstance(K, sets.Box) or name in ("Squared", "Linear", "Absolute", "Hinge")
    if exact:
        assert norms.max() == pytest.approx(G, rel=1e-6)  # attained (at a corner or vertex)


def test_refusals_name_their_argument():
    with pytest.raises(ValueError, match="h must be finite and > 0"):
        losses.Huber(0.0)
    with pytest.raises(ValueError, match="y must be finite"):
        losses.Squared().value([1.0], np.nan)
    with pytest.raises(ValueError, match=r"y must be a label in \{-1, \+1\}"):
        losses.Logistic().gradient([1.0], 0.5)
    assert losses.Huber().h == 1.0


def test_the_squared_losss_lipschitz_constant_in_closed_form():
    # the largest distance from y to K: to an end of an interval (a scalar target, the fast
    # path), to a vertex of a capped simplex (close to y: below the clamp at 0)
    loss = losses.Squared()
    assert loss.lipschitz(sets.Interval(-2.0, 1.0), 0.5) == 2.5
    assert loss.lipschitz(sets.Interval(-2.0, 1.0), -1.5) == 2.5
    assert loss.lipschitz(sets.Interval(-2.0, 1.0), -0.25) == 1.75
    centre = np.full(3, 1.0 / 3.0)  # the farthest vertices are the permutations of (1/2, 1/2, 0)
    assert loss.lipschitz(sets.CappedSimplex(3, 0.5), centre) == pytest.approx(np.sqrt(1 / 6))
