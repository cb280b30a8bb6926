"""Boosted stacked online trees against river's trees: samples/s and progressive MAE, one run.

Run: `python -m benchmarks.tree_speed` (`--quick` for a smoke run). Writes the `tree_speed`
section of BENCHMARKS.md. Every model sees the same stream through its own river
`StandardScaler`; targets are scaled into K = [-1, 1] by hand (the stream's largest |y - mid|,
with mid the midpoint of its range) and MAE is reported on that scale. Each model runs
`--repeat` full progressive-validation passes (predict then learn, every sample); the time is the
median pass, the MAE is the same every pass (all models are seeded).

BoOCO runs in the gradient-boosting regime of Algorithm 1: a small constant step
$\\eta = 0.01$ and $\\gamma = 0.02$, so $x^i \\approx x^{i-1} + \\tfrac12 W_i$ with $W_i$ the
copy's fit of the residual target $\\mu - g_i$ (`lam` = 1): every copy adds half the residual it
fits (a shrinkage of 1/2), whatever $N$.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from river import datasets, forest, preprocessing, tree

import learners
from benchmarks import report
from onlineboost import BoOCO
from streams import StumpMixture

BOOST = {"gamma": 0.02, "step_size": 0.01, "delta": 0.01, "lam": 1.0}


def _scaled(pairs):
    y = np.array([t for _, t in pairs])
    mid = 0.5 * (y.min() + y.max())
    half = float(np.abs(y - mid).max())
    return [(x, (t - mid) / half) for x, t in pairs]


def _streams(quick: bool):
    n_sm = 600 if quick else 3000
    trump = list(datasets.TrumpApproval())
    return {
        "TrumpApproval": _scaled(trump[:300] if quick else trump),
        "StumpMixture": _scaled(list(StumpMixture(n_features=5, n_stumps=5, noise=0.1,
                                                  seed=1).take(n_sm))),
    }


def _models():
    def boosted(learner, n):
        return lambda: preprocessing.StandardScaler() | BoOCO(learner, n_learners=n, seed=0,
                                                              **BOOST)

    return {
        "river HoeffdingTreeRegressor": lambda: preprocessing.StandardScaler()
        | tree.HoeffdingTreeRegressor(),
        "river ARFRegressor(n_models=10)": lambda: preprocessing.StandardScaler()
        | forest.ARFRegressor(n_models=10, seed=0),
        "OnlineTreeRegressor": lambda: preprocessing.StandardScaler()
        | learners.OnlineTreeRegressor(),
        "BoOCO(OnlineTree, N=1)": boosted(learners.OnlineTree(), 1),
        "BoOCO(OnlineTree, N=10)": boosted(learners.OnlineTree(), 10),
        "BoOCO(river HoeffdingTreeRegressor, N=10)": boosted(tree.HoeffdingTreeRegressor(), 10),
    }


def _pass(model, stream):
    abs_err = 0.0
    start = time.perf_counter()
    for x, y in stream:
        abs_err += abs(float(model.predict_one(x)) - y)
        model.learn_one(x, y)
    return time.perf_counter() - start, abs_err / len(stream)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    streams = _streams(args.quick)
    models = _models()
    results = {}  # (model, stream) -> (samples/s, MAE)
    for sname, stream in streams.items():
        for mname, make in models.items():
            runs = [_pass(make(), stream) for _ in range(args.repeat)]
            seconds = float(np.median([r[0] for r in runs]))
            results[mname, sname] = (len(stream) / seconds, runs[0][1])
            print(f"{sname:14s} {mname:44s} {len(stream) / seconds:8.0f}/s "
                  f"MAE {runs[0][1]:.4f}", flush=True)
    arf = "river ARFRegressor(n_models=10)"
    names = list(streams)
    lines = [
        "## Stacked online trees: cost and quality against river's trees",
        "",
        f"`python -m benchmarks.tree_speed --repeat {args.repeat}`"
        f"{' --quick' if args.quick else ''} ({report.machine()}). Learn + predict per sample, "
        f"median of {args.repeat} passes; progressive MAE on targets scaled into [-1, 1]; "
        "features through river's `StandardScaler`. BoOCO: "
        + ", ".join(f"{k}={v}" for k, v in BOOST.items())
        + " (each copy adds half its fitted residual). Streams: "
        + ", ".join(f"{s} ({len(streams[s])} samples)" for s in names) + ".",
        "",
        "| model | " + " | ".join(f"{s} samples/s | vs ARF(10) | {s} MAE" for s in names)
        + " |",
        "|---|" + "---:|---:|---:|" * len(names),
    ]
    for mname in models:
        cells = []
        for s in names:
            rate, mae = results[mname, s]
            cells += [f"{rate:,.0f}", f"{rate / results[arf, s][0]:.1f}x", f"{mae:.4f}"]
        lines.append(f"| {mname} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "`vs ARF(10)`: samples/s relative to `ARFRegressor(n_models=10)` in the same run "
        "(above 1: cheaper per sample).",
    ]
    report.write_section("tree_speed", "\n".join(lines))


if __name__ == "__main__":
    main()
