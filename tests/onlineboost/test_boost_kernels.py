"""The extension's gradient for the linear loss at a few points of the simplex, compiled
(`onlineboost._boost_kernels`), against the numpy path it transcribes: the same floats,
bit for bit (the plain-float projection, numpy's pairwise sum of |r|^2, the pull), on and off
the simplex, with kappa = 0, on the shapes where the numpy path projects in plain floats; other
shapes and sets keep the numpy path."""

from __future__ import annotations

import numpy as np
import pytest

from onlineboost import _boost_kernels, extension, losses, sets

pytestmark = pytest.mark.skipif(not _boost_kernels.AVAILABLE,
                                reason="numba is not installed")


def _both(ext, X, y):
    ext._JIT = True
    fast = ext.gradient_unchecked(X, y)
    ext._JIT = False
    return fast, ext.gradient_unchecked(X, y)


@pytest.mark.parametrize("d", [2, 3, 5, 7, 8, 9, 10, 16, 20])
def test_same_floats_as_the_numpy_path(d):
    rng = np.random.default_rng(d)
    for n in (2, 3, 5, 10):
        if n * d > sets._SMALL:
            continue
        for t in range(150):
            kappa = 0.0 if t % 10 == 0 else float(rng.uniform(0.0, 3.0))
            ext = extension.Extension(losses.Linear(), sets.Simplex(d),
                                      delta=float(rng.uniform(0.01, 2.0)), kappa=kappa)
            X = rng.normal(size=(n, d)) * rng.choice([0.1, 1.0, 10.0])
            if t % 3:  # on the simplex (BoOCO's iterates usually are), with ties at 0
                X = sets.Simplex(d).project(X)
            y = rng.normal(size=d) * rng.choice([0.01, 1.0, 100.0])
            if t % 7 == 0:
                y[: d // 2] = y[0]  # equal costs: ties in the sort
            fast, slow = _both(ext, X, y)
            np.testing.assert_array_equal(fast, slow)


def test_a_wrong_sum_would_show():
    """The |r|^2 sum must be numpy's pairwise one for rows of 8 and more entries: a plain left to
    right sum differs in the last bit on some of these rows (so the test above can fail)."""
    rng = np.random.default_rng(0)
    R = rng.normal(size=(2000, 10)) ** 2
    pairwise = np.array([_boost_kernels._pairwise_sum(r) for r in R])
    np.testing.assert_array_equal(pairwise, np.add.reduce(R, axis=-1))
    assert (np.array([sum(r.tolist()) for r in R]) != pairwise).any()


def test_other_shapes_and_sets_keep_the_numpy_path():
    ext = extension.Extension(losses.Linear(), sets.Simplex(3), delta=0.1, kappa=1.0)
    assert ext._rows_compiled(np.zeros((4, 3)))
    assert not ext._rows_compiled(np.zeros((40, 3)))  # (numpy's vectorised projection)
    assert not ext._rows_compiled(np.zeros((4, 6))[:, ::2])  # (not C-ordered)
    capped = extension.Extension(losses.Linear(), sets.CappedSimplex(3, cap=0.5), delta=0.1,
                                 kappa=1.0)
    assert not capped._rows_compiled(np.zeros((4, 3)))
    X = sets.Simplex(3).project(np.random.default_rng(1).normal(size=(40, 3)))
    fast, slow = _both(ext, X, np.array([0.3, -0.2, 1.0]))
    np.testing.assert_array_equal(fast, slow)


def test_row_projection_is_the_plain_float_projection():
    rng = np.random.default_rng(5)
    for d in (2, 3, 5, 7, 10, 16):
        for t in range(200):
            X = rng.normal(size=(5, d)) * rng.choice([1e-17, 0.1, 1.0, 1e3])
            if t % 4 == 0:  # a simplex point with rounding residues below 0 (BoBLO's case)
                X = sets.Simplex(d).project(rng.normal(size=(5, d))) - 1e-17
            out = np.empty_like(X)
            _boost_kernels.project_rows(X, out)
            np.testing.assert_array_equal(out, sets.projection_simplex(X))


def test_project_small_serves_only_the_plain_float_shapes_on_a_plain_simplex():
    """`project_small`: the same floats as `Simplex.project` on a few short finite rows (with
    the residues below 0 BoOCO's chain leaves), None elsewhere: another set, a long stack,
    non-finite rows (which `Simplex.project` refuses by name)."""
    rng = np.random.default_rng(7)
    for _ in range(2000):
        n, d = int(rng.integers(1, 11)), int(rng.integers(2, 11))
        rows = rng.dirichlet(np.ones(d), size=n) + rng.normal(scale=1e-17, size=(n, d))
        rows[0, 0] -= 1e-16
        out = _boost_kernels.project_small(sets.Simplex(d), rows)
        if not _boost_kernels.AVAILABLE:
            assert out is None
            continue
        np.testing.assert_array_equal(out, sets.Simplex(d).project(rows))
    rows = np.full((2, 3), 1.0 / 3.0)
    assert _boost_kernels.project_small(sets.CappedSimplex(3, 0.5), rows) is None
    assert _boost_kernels.project_small(sets.Simplex(3), np.full((11, 3), 1 / 3)) is None
    bad = rows.copy()
    bad[1, 2] = np.nan
    assert _boost_kernels.project_small(sets.Simplex(3), bad) is None
    with pytest.raises(ValueError, match="finite"):
        sets.Simplex(3).project(bad)
