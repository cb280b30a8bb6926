"""The extension operator: exact against a brute-force Moreau envelope, and Lemmas 3 and 5."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy import optimize

from onlineboost import losses, sets
from onlineboost.extension import Extension, _prox_distance_rows, prox_distance

LOSSES = [
    losses.Squared(), losses.Absolute(), losses.Huber(0.5), losses.Logistic(), losses.Hinge(),
    losses.Linear(),
]
SETS = [
    sets.Interval(-1.0, 1.0), sets.Box([0.0, -1.0], [1.0, 2.0]), sets.Ball([0.5, 0.0, -0.5], 1.5),
    sets.Simplex(3), sets.CappedSimplex(4, 0.4),
]


def make_y(loss, K, rng):
    if isinstance(loss, losses.Linear):
        return rng.normal(size=K.dim)
    if isinstance(loss, (losses.Logistic, losses.Hinge)):
        return float(rng.choice([-1.0, 1.0]))
    return float(rng.uniform(-1.5, 1.5))


def brute_force_envelope(ext, x, y):
    """min_p f(p) + kappa Dist(p, K) + |x - p|^2 / (2 delta), by scipy from several starts."""
    K = ext.decision_set

    def objective(p):
        return (float(ext.loss.value(p, y)) + ext.kappa * float(K.distance(p))
                + np.sum((x - p) ** 2) / (2 * ext.delta))

    if K.dim == 1:
        lo, hi = x[0] - 50, x[0] + 50
        res = optimize.minimize_scalar(lambda s: objective(np.array([s])), bounds=(lo, hi),
                                       method="bounded", options={"xatol": 1e-12})
        return res.fun
    best = np.inf
    for start in (x, K.project(x)):
        res = optimize.minimize(objective, start, method="Powell",
                                options={"xtol": 1e-10, "ftol": 1e-14, "maxfev": 40_000})
        res = optimize.minimize(objective, res.x, method="Nelder-Mead",
                                options={"xatol": 1e-10, "fatol": 1e-14, "maxfev": 40_000})
        best = min(best, res.fun)
    return best


@pytest.mark.parametrize("loss, K", list(itertools.product(LOSSES, SETS)), ids=repr)
def test_value_equals_brute_force_moreau_envelope(loss, K):
    rng = np.random.default_rng(0)
    ext = Extension(loss, K, delta=rng.uniform(0.2, 1.0), kappa=rng.uniform(0.5, 3.0))
    for _ in range(4):
        x = K.centroid + rng.normal(scale=2.0, size=K.dim)
        y = make_y(loss, K, rng)
        ours = float(ext.value(x, y))
        brute = brute_force_envelope(ext, x, y)
        assert ours <= brute + 1e-7  # ours is the minimum: never above any feasible value ...
        assert ours == pytest.approx(brute, abs=1e-5)  # ... and the oracle finds it too


@pytest.mark.parametrize("loss, K", list(itertools.product(LOSSES, SETS)), ids=repr)
def test_gradient_matches_finite_differences(loss, K):
    rng = np.random.default_rng(1)
    ext = Extension(loss, K, delta=0.5, kappa=2.0, tol=1e-12)
    h = 1e-6
    for _ in range(4):
        x = K.centroid + rng.normal(scale=3.0, size=K.dim)
        y = make_y(loss, K, rng)
        steps = x + h * np.eye(K.dim)
        fd = (ext.value(steps, y) - ext.value(x - h * np.eye(K.dim), y)) / (2 * h)
        np.testing.assert_allclose(ext.gradient(x, y), fd, atol=1e-5)


@pytest.mark.parametrize("loss, K", list(itertools.product(LOSSES, SETS)), ids=repr)
def test_lemma_5_and_smoothness(loss, K):
    """Lemma 5: |f^ - f| <= delta G^2 / 2 on K, f^(P x) <= f^(x) + G^2 delta everywhere;
    Lemma 3: the gradient of f^ is (1 / delta)-Lipschitz."""
    rng = np.random.default_rng(2)
    for delta in (0.05, 0.5, 2.0):
        y = make_y(loss, K, rng)
        G = loss.lipschitz(K, y)
        ext = Extension(loss, K, delta=delta, kappa=G)
        inside = K.sample(100, rng)
        gap = np.abs(ext.value(inside, y) - loss.value(inside, y))
        assert np.all(gap <= delta * G**2 / 2 + 1e-9)
        for scale in (0.5, 3.0, 1e3):  # far outside K too: BoOCO evaluates at x / gamma
            x = K.centroid + rng.normal(scale=scale, size=(100, K.dim))
            assert np.all(ext.value(K.project(x), y) <= ext.value(x, y) + G**2 * delta + 1e-9)
            x2 = x + rng.normal(scale=0.1 * scale, size=x.shape)
            dg = np.linalg.norm(ext.gradient(x, y) - ext.gradient(x2, y), axis=-1)
            assert np.all(dg <= np.linalg.norm(x - x2, axis=-1) / delta * (1 + 1e-6) + 1e-9)


def test_extension_agrees_with_loss_deep_inside_k_for_smooth_losses():
    # f^ -> f pointwise as delta -> 0 (Lemma 3.2), here for the squared loss on an interval.
    K, loss = sets.Interval(-1.0, 1.0), losses.Squared()
    x = np.linspace(-0.9, 0.9, 19)[:, None]
    for delta in (1e-2, 1e-4):
        ext = Extension(loss, K, delta=delta, kappa=loss.lipschitz(K, 0.3))
        np.testing.assert_allclose(ext.value(x, 0.3), loss.value(x, 0.3), atol=delta * 2)


def test_closed_forms_agree_with_the_iterative_paths():
    """The Squared and Linear closed forms equal what the generic solvers compute."""
    rng = np.random.default_rng(3)

    class GenericSquared(losses.Squared):  # same loss, routed through bisection / ADMM
        pass

    GenericSquared.slope_bound = 1e3  # a bound valid for |p - y| <= 1e3 (our points are close)

    for K in SETS:
        ext = Extension(losses.Squared(), K, delta=0.3, kappa=1.7)
        generic = Extension(GenericSquared(), K, delta=0.3, kappa=1.7, tol=1e-13)
        generic.prox = lambda x, y, g=generic: (
            g._bisect(K._points(x)[0], np.float64(y)) if K.dim == 1
            else g._admm(K._points(x)[0], np.float64(y))
        )
        x = K.centroid + rng.normal(scale=2.0, size=(20, K.dim))
        np.testing.assert_allclose(ext.prox(x, 0.4), generic.prox(x, 0.4), atol=1e-8)


def test_prox_distance_is_the_prox():
    rng = np.random.default_rng(4)
    K = sets.Ball([0.0, 0.0], 1.0)
    for _ in range(20):
        z, lam = rng.normal(scale=3, size=2), rng.uniform(0.1, 2.0)
        p = prox_distance(z, K, lam)
        res = optimize.minimize(lambda q: lam * K.distance(q) + 0.5 * np.sum((q - z) ** 2), z,
                                method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-14})
        np.testing.assert_allclose(p, res.x, atol=1e-5)


@pytest.mark.parametrize("bad", [[np.nan], [np.inf], [0.0, 0.0]])
def test_bad_points_raise(bad):
    ext = Extension(losses.Squared(), sets.Interval(-1, 1), delta=1.0, kappa=1.0)
    with pytest.raises(ValueError, match="x"):
        ext.gradient(bad, 0.0)


@pytest.mark.parametrize(
    "kwargs, match",
    [({"delta": 0.0}, "delta"), ({"delta": np.nan}, "delta"), ({"kappa": -1.0}, "kappa")],
)
def test_invalid_parameters_raise(kwargs, match):
    params = {"delta": 1.0, "kappa": 1.0, **kwargs}
    with pytest.raises(ValueError, match=match):
        Extension(losses.Squared(), sets.Interval(-1, 1), **params)


def test_bad_labels_and_targets_raise():
    ext = Extension(losses.Logistic(), sets.Interval(-1, 1), delta=1.0, kappa=1.0)
    with pytest.raises(ValueError, match="y"):
        ext.gradient([0.0], 0.5)
    ext = Extension(losses.Squared(), sets.Interval(-1, 1), delta=1.0, kappa=1.0)
    with pytest.raises(ValueError, match="y"):
        ext.gradient([0.0], np.nan)


def test_prox_distance_interval_equals_the_vectorised_kernel():
    from onlineboost.extension import prox_distance_interval

    rng = np.random.default_rng(5)
    K = sets.Interval(-1.0, 2.0)
    z, lam = rng.normal(scale=4, size=500), rng.uniform(0, 3, size=500)
    expected = [prox_distance(np.array([zi]), K, li)[0] for zi, li in zip(z, lam)]
    got = [prox_distance_interval(float(zi), -1.0, 2.0, float(li)) for zi, li in zip(z, lam)]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)


@pytest.mark.parametrize("K", [sets.Simplex(5), sets.Simplex(12), sets.CappedSimplex(4, 0.4),
                               sets.Box([0.0, -1.0, 0.5], [1.0, 2.0, 0.6]),
                               sets.Ball([0.5, 0.0, -0.5], 1.5)], ids=repr)
@pytest.mark.parametrize("kappa", [0.0, 0.7, 30.0])
def test_plain_float_kernels_equal_the_vectorised_ones(K, kappa):
    """One short row takes plain floats (`prox_distance`, and `gradient_unchecked` for the
    linear loss); a stack of more than 64 entries takes the vectorised numpy kernel. Both give
    the same prox and gradient, for points inside K, near it and far from it (the pull by
    lam Dist stops at K or short of it)."""
    rng = np.random.default_rng(3)
    d = K.dim
    for n in (1, 2, 5):
        x = K.centroid + rng.normal(size=(n, d)) * rng.choice([0.01, 1.0, 30.0], size=(n, 1))
        y = rng.normal(size=d) * rng.choice([0.1, 5.0])
        ext = Extension(losses.Linear(), K, delta=0.1, kappa=kappa)
        big = np.repeat(x, 70, axis=0)  # > 64 entries: the numpy kernels
        z = x - 0.1 * y
        np.testing.assert_allclose(prox_distance(z, K, 0.1 * kappa),
                                   prox_distance(np.repeat(z, 70, axis=0), K, 0.1 * kappa)[::70],
                                   rtol=1e-13, atol=1e-13)
        got = ext.gradient_unchecked(x, y)
        want = (big - ext.prox(big, y)) / 0.1
        np.testing.assert_allclose(got, want[::70], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got, ext.gradient(x, y), rtol=1e-12, atol=1e-12)
        if kappa == 0.0:  # no pull towards K: the linear loss's own gradient y
            np.testing.assert_allclose(got, np.broadcast_to(y, (n, d)), rtol=1e-9, atol=1e-9)


class _ShiftedSimplex(sets.Simplex):
    """A subclass with its own projection: the extension must call it, not the simplex kernel."""

    def _project(self, x):
        return super()._project(x) + 0.25


def _gradient_by_projection(ext, x, y):
    """`gradient_unchecked`'s plain-float operations around `K.project_unchecked` (the path
    before the simplex kernel was called directly)."""
    delta = ext.delta
    z = [a - delta * b for a, b in zip(x[0].tolist(), y.tolist())]
    p = ext.decision_set.project_unchecked(np.array([z])).tolist()
    p = _prox_distance_rows([z], p, delta * ext.kappa)[0]
    return np.array([[(a - b) / delta for a, b in zip(x[0].tolist(), p)]])


@pytest.mark.parametrize("K", [sets.Simplex(2), sets.Simplex(10), sets.Simplex(48),
                               sets.Simplex(60), sets.CappedSimplex(7, 1.5),
                               sets.CappedSimplex(7, 0.3), _ShiftedSimplex(6)], ids=repr)
def test_simplex_row_kernel_gives_the_projection_bit_for_bit(K):
    """On a (capped, cap >= 1) simplex `gradient_unchecked` calls `sets`' plain-float kernel
    on its row directly; the gradient is the one through `K.project_unchecked`, bit for bit,
    for points inside, near and far from K (up to 1e300); other sets (cap < 1, a subclass
    with its own `_project`) keep their projection."""
    rng = np.random.default_rng(11)
    d = K.dim
    for scale in (0.0, 0.01, 1.0, 30.0, 1e8, 1e300):
        for kappa in (0.0, 0.7, 30.0):
            x = K.centroid + rng.normal(size=(1, d)) * scale
            y = rng.normal(size=d) * rng.choice([0.1, 5.0])
            ext = Extension(losses.Linear(), K, delta=0.1, kappa=kappa)
            np.testing.assert_array_equal(ext.gradient_unchecked(x, y),
                                          _gradient_by_projection(ext, x, y))


@pytest.mark.parametrize("K", [sets.Box([0.0, -1.0], [1.0, 1.0]), sets.Simplex(4)], ids=repr)
def test_prox_distance_with_no_pull_warns_nothing(K):
    """lam = 0 (kappa = 0: BoOCO's running kappa before the first non-zero cost) on a stack
    taken by numpy, with rows in K (distance 0): the prox of 0 Dist is the identity, with no
    0/0 and no RuntimeWarning (Pi_K z + (z - Pi_K z), z to rounding)."""
    rng = np.random.default_rng(5)
    z = np.vstack([K.project(K.sample(40, rng)), K.centroid + rng.normal(size=(40, K.dim))])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = prox_distance(z, K, 0.0)
    np.testing.assert_allclose(p, z, rtol=0, atol=1e-15)


@pytest.mark.parametrize("loss, K", [(losses.Squared(), sets.Interval(-1.0, 1.0)),
                                     (losses.Linear(), sets.Simplex(3)),
                                     (losses.Huber(0.5), sets.Box([0.0, -1.0], [1.0, 2.0]))],
                         ids=repr)
def test_one_point_is_the_stack_of_one(loss, K):
    """`prox`, `gradient`, `value` and `value_and_gradient` of a single point (a scalar on an
    interval, a vector elsewhere) are the first row of the same calls on the stack of that
    one point, in the point's own shape."""
    ext = Extension(loss, K, delta=0.3, kappa=2.0)
    rng = np.random.default_rng(11)
    y = make_y(loss, K, rng)
    for _ in range(3):
        x = K.centroid + 2.0 * rng.normal(size=K.dim)
        point = float(x[0]) if K.dim == 1 else x
        stack = x.reshape(1, -1)
        p, g = ext.prox(point, y), ext.gradient(point, y)
        assert np.shape(p) == np.shape(g) == np.shape(point)
        np.testing.assert_allclose(np.reshape(p, -1), ext.prox(stack, y)[0], rtol=1e-12)
        np.testing.assert_allclose(np.reshape(g, -1), ext.gradient(stack, y)[0], rtol=1e-12)
        value, grad = ext.value_and_gradient(point, y)
        assert np.ndim(value) == 0
        np.testing.assert_allclose(value, ext.value(stack, y)[0], rtol=1e-12)
        np.testing.assert_allclose(np.reshape(grad, -1), ext.gradient(stack, y)[0], rtol=1e-12)
