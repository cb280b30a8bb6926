"""The `onlineboost` command line: one subcommand a job.

* `onlineboost table` — Hazan & Singh (2021) Table 1, reproduced and extended
  (`onlineboost.app.table`).
* `onlineboost run` — a model on a live stream, with checkpoints (`onlineboost.app.run`).
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["main"]


def _table(args) -> int:
    from streams import regression_data

    from . import table

    data = {}
    for name in args.datasets:
        try:
            X, y, _ = regression_data.load_dataset(name, args.data_dir)
        except FileNotFoundError as e:
            print(f"skipping {name}: {e}", file=sys.stderr)
            continue
        data[name] = (X, regression_data.scale_target(y))
    if not data:
        print("no data set available", file=sys.stderr)
        return 1
    from .backends import engine, is_distributed

    jobs = -1 if is_distributed(args.backend, args.scheduler) else args.jobs
    with engine(args.backend, args.scheduler, n_workers=max(args.jobs, 1)):
        results = table.run_table(data, args.learners, runs=args.runs, n_max=args.n_max,
                                  gamma=args.gamma, step_size=args.step_size, delta=args.delta,
                                  jobs=jobs, progress=not args.no_progress)
    print(table.format_table(results, n_max=args.n_max))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table.format_table(results, n_max=args.n_max, markdown=True) + "\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="onlineboost", description="Online boosting on streams.")
    sub = parser.add_subparsers(dest="command", required=True)

    t = sub.add_parser("table", help="reproduce Hazan & Singh (2021) Table 1",
                       description="Online regression with the square loss: BoOCO over weak "
                                   "regressors, normalised by the weak regressor alone.")
    t.add_argument("--datasets", nargs="+", default=["diabetes"],
                   choices=["diabetes", "boston", "california"])
    t.add_argument("--learners", nargs="+", default=["stump", "ridge", "mlp"],
                   help="ours: stump ridge mlp; paper-like scikit-learn: sk-stump sk-ridge sk-mlp")
    t.add_argument("--runs", type=int, default=20, help="shuffles per cell")
    t.add_argument("--n-max", type=int, default=5, help="largest N (every N <= it is reported)")
    t.add_argument("--gamma", type=float, default=0.1)
    t.add_argument("--step-size", default="0.01", help="a number, or 'theory' for min(2/i, 1)")
    t.add_argument("--delta", type=float, default=0.01, help="smoothing of the extension")
    t.add_argument("--data-dir", default=None,
                   help="folder with boston.csv and california_housing.csv "
                        "(default: $ONLINEBOOST_DATA or ../shared/data)")
    t.add_argument("--jobs", type=int, default=2, help="joblib processes")
    t.add_argument("--backend", choices=["loky", "threading", "dask", "ray"], default=None,
                   help="where the grid runs (default: local processes; dask/ray: extras)")
    t.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask scheduler (or Ray head with --backend ray) to run the grid on")
    t.add_argument("--markdown", default=None, help="also write the table as Markdown here")
    t.add_argument("--no-progress", action="store_true", help="no progress bar")
    t.set_defaults(func=_table)

    from . import run, runconfig

    r = sub.add_parser("run", help="a model on a live stream, with checkpoints",
                       description="A model on a live stream: answer each record, then "
                                   "learn from it; checkpoint and resume exactly once.")
    runconfig.add_arguments(r)
    r.set_defaults(func=run.command)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
