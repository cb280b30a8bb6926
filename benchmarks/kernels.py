"""Projection and extension-gradient kernels: vectorised stacks against per-point loops.

Run: `python -m benchmarks.kernels` (add `--quick` for a smoke run). Writes the `kernels`
section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks import report
from onlineboost import losses, sets
from onlineboost.extension import Extension


class _GenericSquared(losses.Squared):
    """The squared loss routed through the generic solvers (bisection / ADMM)."""

    slope_bound = 1e3


def _generic(ext):
    K = ext.decision_set
    solve = ext._bisect if K.dim == 1 else ext._admm
    return lambda x, y: (x - solve(x, y)) / ext.delta


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat")
    args = parser.parse_args(argv)
    sizes = [10, 1_000, 10_000] if args.quick else [10, 1_000, 100_000]
    dims = [1, 10, 100]
    repeat = 1 if args.quick else 5
    rng = np.random.default_rng(0)
    rows = []
    for d in dims:
        kinds = {
            "Box.project": sets.Box(-np.ones(d), np.ones(d)),
            "Ball.project": sets.Ball(np.zeros(d), 1.0),
            "Simplex.project": sets.Simplex(d),
            "CappedSimplex.project": sets.CappedSimplex(d, cap=min(1.0, 2.0 / d)),
        }
        for name, K in kinds.items():
            for n in sizes:
                x = rng.normal(scale=2.0, size=(n, d))
                t_vec = report.median_time(lambda: K.project(x), repeat=repeat)
                m = min(n, 2_000)  # time the loop on a prefix, scale to n
                t_loop = report.median_time(lambda: [K.project(p) for p in x[:m]], repeat=1) * n / m
                rows.append((name, d, n, t_vec, t_loop))
        K = sets.Box(-np.ones(d), np.ones(d))
        ext = Extension(losses.Squared(), K, delta=0.5, kappa=2.0)
        for n in sizes:
            x = rng.normal(scale=5.0, size=(n, d))
            t_vec = report.median_time(lambda: ext.gradient(x, 0.3), repeat=repeat)
            m = min(n, 2_000)
            t_loop = report.median_time(lambda: [ext.gradient(p, 0.3) for p in x[:m]], repeat=1)
            rows.append(("Extension(Squared, Box).gradient", d, n, t_vec, t_loop * n / m))
    lines = [
        "## Kernels: vectorised stacks vs per-point loops",
        "",
        f"`python -m benchmarks.kernels` — {report.machine()}. Median seconds per call over "
        f"{repeat} repeats; the loop calls the same method point by point (timed on up to 2,000 "
        "points and scaled).",
        "",
        "| kernel | d | points | stack (s) | loop (s) | loop / stack |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, d, n, tv, tl in rows:
        lines.append(f"| {name} | {d} | {n:,} | {tv:.2e} | {tl:.2e} | {tl / tv:,.0f}× |")

    # Closed forms against the generic solvers, on the same squared loss.
    lines += [
        "",
        "Closed form (squared loss, completing the square) against the generic path the same "
        "loss would otherwise take (bisection for d = 1, ADMM for d > 1), 10,000 points:",
        "",
        "| set | d | closed form (s) | generic (s) | generic / closed | max abs. difference |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for d in dims:
        for K in (sets.Box(-np.ones(d), np.ones(d)), sets.Ball(np.zeros(d), 1.0)):
            x = rng.normal(scale=3.0, size=(10_000, d))
            closed = Extension(losses.Squared(), K, delta=0.5, kappa=2.0)
            generic = _generic(Extension(_GenericSquared(), K, delta=0.5, kappa=2.0, tol=1e-12))
            t_c = report.median_time(lambda: closed.gradient(x, 0.3), repeat=repeat)
            t_g = report.median_time(lambda: generic(x, np.float64(0.3)), repeat=repeat)
            diff = np.abs(closed.gradient(x, 0.3) - generic(x, np.float64(0.3))).max()
            lines.append(f"| {type(K).__name__} | {d} | {t_c:.2e} | {t_g:.2e} | "
                         f"{t_g / t_c:,.1f}× | {diff:.1e} |")
    print("\n".join(lines))
    if not args.quick:
        report.write_section("10_kernels", "\n".join(lines))


if __name__ == "__main__":
    main()
