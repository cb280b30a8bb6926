"""The `onlineboost` command line: one subcommand a job.

* `onlineboost table` — the main job: boosting weak online regressors, Hazan & Singh (2021)
  Table 1 reproduced (`--protocol paper`) and extended (`onlineboost.app.table`).
* `onlineboost run` — a model on a live stream, with checkpoints (`onlineboost.app.run`).

Only the chosen subcommand's options are built, so that `onlineboost --help` and
`onlineboost table --help` start without numpy or river (`run`'s options need both).
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["build_parser", "main"]

COMMANDS = {
    "table": "the main job: boosting weak online regressors (Hazan & Singh 2021, Table 1)",
    "run": "a model on a live stream, with checkpoints",
}


def _table(args) -> int:
    from streams import regression_data

    from . import table

    settings = {key: (getattr(args, key) if getattr(args, key) is not None else value)
                for key, value in table.PROTOCOLS[args.protocol].items()}
    data, missing = {}, []
    for name in dict.fromkeys(args.datasets):
        try:
            X, y, _ = regression_data.load_dataset(name, args.data_dir)
        except regression_data.DataNotFoundError as e:
            where = "; ".join(f"{folder} ({why.replace('data_dir', '--data-dir')})"
                              for folder, why in e.searched) \
                or "no folder: no --data-dir, no $ONLINEBOOST_DATA, no checkout of onlineboost here"
            missing.append(f"{name}: {e.filename} not found (looked in: {where}){e.detail}")
            continue
        data[name] = (X, regression_data.scale_target(y))
    if missing:
        print("onlineboost table: error: " + "\n  ".join(["data set not found", *missing]),
              file=sys.stderr)
        print("Pass --data-dir DIR (a folder holding the file) or set ONLINEBOOST_DATA; "
              "diabetes ships with scikit-learn and needs no file.", file=sys.stderr)
        return 1
    from .backends import engine, is_distributed

    jobs = -1 if is_distributed(args.backend, args.scheduler) else args.jobs
    n_max = settings["n_max"]
    with engine(args.backend, args.scheduler, n_workers=args.jobs if args.jobs > 0 else None):
        results = table.run_table(data, settings["learners"], runs=args.runs, n_max=n_max,
                                  gamma=settings["gamma"], step_size=settings["step_size"],
                                  delta=settings["delta"], jobs=jobs,
                                  progress=not args.no_progress)
    paper = args.protocol == "paper"
    print(table.format_table(results, n_max=n_max, paper=paper))
    print()
    print("\n".join(table.LEGENDS[args.protocol]))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table.format_table(results, n_max=n_max, markdown=True, paper=paper) + "\n")
    return 0


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _jobs(text: str) -> int:
    return -1 if text.strip() == "-1" else _positive_int(text)


def _add_table(sub) -> None:
    from .backends import BACKENDS
    from .table import LEARNERS, PROTOCOLS

    fw, paper = PROTOCOLS["frank-wolfe"], PROTOCOLS["paper"]

    def by_protocol(key, show=str):
        return f"(default: {show(fw[key])}; with --protocol paper: {show(paper[key])})"

    t = sub.add_parser(
        "table", help=COMMANDS["table"],
        description="Online regression with the square loss: BoOCO over weak online "
                    "regressors, its mean squared error for N = 1, 2, ... normalised by the "
                    "weak regressor's alone (Hazan & Singh 2021, Table 1).")
    t.add_argument("--protocol", choices=list(PROTOCOLS), default="frank-wolfe",
                   help="frank-wolfe: gamma = 1, Frank-Wolfe steps, N up to 10, stumps (what "
                        "boosting adds); paper: the paper's gamma = 0.1, eta = 0.01, N up to 5, "
                        "stump ridge mlp, beside its numbers (default: %(default)s)")
    t.add_argument("--datasets", nargs="+", default=["diabetes"],
                   choices=["diabetes", "boston", "california"],
                   help="diabetes ships with scikit-learn; boston and california are read "
                        "from --data-dir (default: %(default)s)")
    t.add_argument("--learners", nargs="+", default=None, choices=LEARNERS, metavar="LEARNER",
                   help="ours: stump ridge mlp; paper-like scikit-learn ones: sk-stump sk-ridge "
                        "sk-mlp " + by_protocol("learners", " ".join))
    t.add_argument("--runs", type=_positive_int, default=20,
                   help="seeded shuffles per cell (default: %(default)s)")
    t.add_argument("--n-max", type=_positive_int, default=None,
                   help="largest N (every N up to it is reported) " + by_protocol("n_max"))
    t.add_argument("--gamma", type=float, default=None,
                   help="weak learning edge " + by_protocol("gamma"))
    t.add_argument("--step-size", default=None,
                   help="a number, 'theory' for min(2/i, 1) or 'frank-wolfe' for 2/(i+1) "
                        + by_protocol("step_size"))
    t.add_argument("--delta", type=float, default=None,
                   help="smoothing of the extension " + by_protocol("delta"))
    t.add_argument("--data-dir", default=None, metavar="DIR",
                   help="folder holding boston.csv and california_housing.csv (default: "
                        "$ONLINEBOOST_DATA, else ../shared/data beside a checkout, else, "
                        "for california, scikit-learn's fetch_california_housing cache)")
    t.add_argument("--jobs", type=_jobs, default=2,
                   help="local joblib processes, -1 for one per core (default: %(default)s)")
    t.add_argument("--backend", choices=BACKENDS, default=None,
                   help="where the grid runs (default: local processes; dask and ray need "
                        "their extras)")
    t.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask scheduler (or Ray head with --backend ray) to run the grid on "
                        "(default: none)")
    t.add_argument("--markdown", default=None, metavar="PATH",
                   help="also write the table as Markdown here (default: none)")
    t.add_argument("--no-progress", action="store_true",
                   help="no progress bar on standard error")
    t.set_defaults(func=_table)


def _add_run(sub) -> None:
    from . import run, runconfig

    r = sub.add_parser("run", help=COMMANDS["run"],
                       description="A model on a live stream: answer each record, then "
                                   "learn from it; checkpoint and resume exactly once.")
    runconfig.add_arguments(r)
    r.set_defaults(func=run.command)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The `onlineboost` parser. With `command` ('table' or 'run'), that subcommand's options
    are built; without, only the list of commands (enough for `--help` and `--version`)."""
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="onlineboost", description="Online boosting on streams.",
        epilog="The main job: onlineboost table. Options of a command: onlineboost COMMAND "
               "--help.")
    parser.add_argument("--version", action="version", version=f"onlineboost {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name, add in (("table", _add_table), ("run", _add_run)):
        if command == name:
            add(sub)
        else:
            sub.add_parser(name, help=COMMANDS[name], add_help=False)
    return parser


def _command(argv: list[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option)."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = _command(argv)
    parser = build_parser(command)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.error("a command is required: 'table' (the main job) or 'run' (a model on a "
                     "stream); see onlineboost --help")
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
