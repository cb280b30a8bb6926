r"""`onlineboost run`: a model on a live stream, prequentially, with exactly-once checkpoints.

The command (`command`) and the names it is built from, one concept a module:

* `onlineboost.app.runconfig` — settings (flags, TOML/JSON) and the model they build;
* `onlineboost.app.records` — lines of the input and the records they hold;
* `onlineboost.app.source` / `onlineboost.app.sinks` — the input, positioned on resume; the
  answer and reject outputs, reconciled on resume;
* `onlineboost.app.files` — absolute paths, one file per role, the checkpoint's lock;
* `onlineboost.app.task` — answer, learn, measure, by task;
* `onlineboost.app.metrics` — running prequential metrics;
* `onlineboost.app.state` / `onlineboost.app.checkpoint` — the typed run state and its signed,
  atomic checkpoints;
* `onlineboost.app.loop` — `Run`, the loop itself (rejects, rollback, signals, reports).
"""

from __future__ import annotations

import sys

from . import runconfig
from .checkpoint import CheckpointError
from .errors import RunError
from .loop import Run

__all__ = ["Run", "RunError", "command"]

_NAMES = ("format", "target", "task", "features", "ignore", "rewards", "delimiter", "encoding",
          "max_line_bytes", "max_abs", "max_features", "booster", "learner", "n_learners",
          "gamma", "step_size", "delta", "decision_set", "loss", "seed", "scale", "policy")


def command(args) -> int:
    """`onlineboost run` (arguments from `runconfig.add_arguments`): 0 when the input ended,
    2 with `error: ...` on standard error when the run cannot start or go on, 128 + the signal
    number after SIGINT/SIGTERM."""
    options = {"checkpoint_every": args.checkpoint_every, "report_every": args.report_every,
               "strict": args.strict, "resume_input": args.resume_input}
    try:
        if args.resume:
            run = Run.resume(args.resume, args.input, args.output, args.rejects, **options)
        else:
            if args.checkpoint:
                options["checkpoint_path"] = args.checkpoint
            config = runconfig.load_config(args.config) if args.config else None
            settings = runconfig.resolve(config, **{k: getattr(args, k, None) for k in _NAMES})
            run = Run.start(settings, args.input or "-", args.output, args.rejects, **options)
        run.loop()
    except (RunError, CheckpointError, ValueError, OSError) as e:
        print(f"onlineboost run: error: {e}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as e:  # noqa: BLE001 - never a traceback: say what failed
        print(f"onlineboost run: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    return 0
