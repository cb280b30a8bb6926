"""Hazan & Singh (2021) Table 1, reproduced and extended: writes the `30_table1` section.

Run: `python -m benchmarks.table1` (about an hour on 2 cores; `--runs 2` for a smoke run).
It is the same code as `onlineboost table` (`onlineboost.app.table.run_table`), run for:

1. the paper's protocol (gamma = 0.1, eta_i = 0.01, N = 1..5) on Diabetes and Boston with our
   online weak learners and the paper-like scikit-learn ones, and on California with the online
   ones and the refitted scikit-learn stump (the scikit-learn `partial_fit` learners take minutes
   per 20,000-sample pass);
2. beyond the paper: gamma = 1 with the Frank-Wolfe schedule eta_i = 2 / (i + 1), N = 1..10
   (the protocol of `onlineboost table`'s default output, which runs its stump rows).

Both protocols' settings come from `onlineboost.app.table.PROTOCOLS`. A data set that cannot be
found stops the script (pass `--data-dir` or set `ONLINEBOOST_DATA`).
"""

from __future__ import annotations

import argparse
import sys

from benchmarks import report
from onlineboost.app import table
from streams import regression_data

CONFIGS = {name: {k: v for k, v in table.PROTOCOLS[name].items() if k != "learners"}
           for name in ("paper", "frank-wolfe")}
GRID = {
    "paper": {"diabetes": ["stump", "ridge", "mlp", "sk-stump", "sk-ridge", "sk-mlp"],
              "boston": ["stump", "ridge", "mlp", "sk-stump", "sk-ridge", "sk-mlp"],
              "california": ["stump", "ridge", "mlp", "sk-stump"]},
    "frank-wolfe": {"diabetes": ["stump", "ridge", "mlp", "sk-stump"],
                    "boston": ["stump", "ridge", "mlp", "sk-stump"],
                    "california": ["stump", "ridge", "mlp", "sk-stump"]},
}

INTRO = """## Hazan & Singh (2021), Table 1: online regression with the square loss

Normalised loss = mean squared error of BoOCO with N weak learners / that of the weak learner
alone (the same regressor trained directly on the targets, same shuffles), averaged over
{runs} shuffles; targets scaled to [-1, 1] by the data set's range, features standardised
online, K = [-1, 1], delta = 0.01, the regression reduction with lam_i = eta_i / gamma.
"best" is 1 - the smallest normalised loss; "(paper)" rows are the paper's Table 1 (its first
column is the weak learner, 1.000). `stump`, `ridge`, `mlp` are this package's online
learners (`OnlineStump`, exact recursive-least-squares `OnlineRidge`, `TinyMLP`); `sk-*` are
paper-like scikit-learn learners (`DecisionTreeRegressor(max_depth=1)` refitted on a geometric
schedule, `SGDRegressor(penalty="l2")`, `MLPRegressor((1,), solver="sgd")` by `partial_fit`).
"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    parts = [INTRO.format(runs=args.runs)]
    for name, config in CONFIGS.items():
        parts.append(f"### {name}: `onlineboost table --gamma {config['gamma']} --step-size "
                     f"{config['step_size']} --delta {config['delta']} --n-max {config['n_max']}`"
                     "\n")
        for dataset, learners_ in GRID[name].items():
            try:
                X, y, _ = regression_data.load_dataset(dataset, args.data_dir)
            except regression_data.DataNotFoundError as e:
                sys.exit(f"benchmarks.table1: {e} (here: --data-dir DIR)")
            results = table.run_table({dataset: (X, regression_data.scale_target(y))}, learners_,
                                      runs=args.runs, jobs=args.jobs, **config)
            parts.append(table.format_table(results, n_max=config["n_max"], markdown=True) + "\n")
    text = "\n".join(parts)
    print(text)
    if args.runs >= 20:
        report.write_section("30_table1", text)


if __name__ == "__main__":
    main()
