r"""`onlineboost run`: a model on a live stream, prequentially, with exactly-once checkpoints.

For each record (a line of CSV or JSON lines, `onlineboost.app.records`) the runner writes the
answer — `LINE,PREDICTION` (classification: `LINE,LABEL,P_TRUE`; bandits: `LINE,ARM`), where
`LINE` is the record's line number in the input — and flushes it *before* the model learns
from the record. A malformed record is written to the reject file as a JSON line
`{"line", "reason", "record"}` and never reaches the model; with `strict=True` it stops the run.

Checkpoints hold the whole run (model with its RNG states, parser, metrics, counters) and its
position: bytes and lines of input consumed with their CRC-32, and bytes of answers and rejects
written. They are written atomically (`onlineboost.app.checkpoint`) at the start, every
`checkpoint_every` records and at the end, after the answers and rejects written so far have
been fsynced. Resuming:

* input: the same stream is read again from its start and the checkpoint's bytes are skipped
  (read, CRC-checked, discarded — seekable or not), or with `resume_input="continue"` the input
  starts right after the checkpoint (e.g. a queue that keeps its own offsets);
* answers written after the checkpoint are reconciled: an answer *file* is truncated back to the
  checkpoint's size, so the records after it are answered again, once, identically; on standard
  output they cannot be taken back, so a consumer keeps the last answer it got for each `LINE`
  (the resumed run says on stderr from which line it answers again).

SIGINT/SIGTERM finish the current record, write a checkpoint and stop (exit status 130/143).
"""

from __future__ import annotations

import json
import math
import os
import signal
import stat
import sys
import time

from . import checkpoint, records, runconfig
from .records import RecordError

__all__ = ["Run", "RunError"]

VERSION = 1


class RunError(RuntimeError):
    """A run that cannot go on: a bad header, a `strict` reject, a mismatched resume."""


class _Stop(Exception):
    pass


class _Sink:
    """A binary output (file or standard stream) that counts the bytes written to it."""

    def __init__(self, path: str | None, std: str, size: int | None = None):
        self.path = path
        self.bytes = 0 if size is None else size
        if path in (None, "-"):
            stream = getattr(sys, std)  # looked up now: tests and notebooks replace it
            self.file, self.regular = getattr(stream, "buffer", _TextAdapter(stream)), False
            return
        try:
            self.file = open(path, "wb" if size is None else "r+b")
        except FileNotFoundError:
            raise RunError(f"{path!r} is missing: the checkpoint says {size} bytes were "
                           "written to it") from None
        # a regular file can be synced and reconciled; a device or a FIFO cannot (like stdout)
        self.regular = stat.S_ISREG(os.fstat(self.file.fileno()).st_mode)
        if size is not None and self.regular:
            have = os.fstat(self.file.fileno()).st_size
            if have < size:
                raise RunError(f"{path!r} has {have} bytes, fewer than the {size} the checkpoint "
                               "recorded: it was truncated or replaced")
            self.file.truncate(size)  # drop what was written after the checkpoint
            self.file.seek(size)

    def write(self, data: bytes) -> None:
        self.file.write(data)
        self.file.flush()
        self.bytes += len(data)

    def sync(self) -> None:
        self.file.flush()
        if self.regular:
            os.fsync(self.file.fileno())

    def close(self) -> None:
        if self.regular:
            self.file.close()
        else:
            self.file.flush()


class _TextAdapter:
    """Bytes into a text-only stream (e.g. a replaced `sys.stdout`)."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, data: bytes) -> None:
        self.stream.write(data.decode("utf-8"))

    def flush(self) -> None:
        self.stream.flush()


class Metrics:
    """Running prequential metrics: MAE and RMSE, accuracy and log loss, or mean reward.

    (Plain sums rather than `river.metrics`, whose import costs a second at start-up.)
    """

    def __init__(self, task: str):
        self.task = task
        self.n = 0
        self.s1 = 0.0  # sum of |error|, of hits, or of rewards
        self.s2 = 0.0  # sum of squared errors, or of log losses

    def update(self, y, pred) -> None:
        self.n += 1
        if self.task == "regression":
            e = float(y) - float(pred)
            self.s1 += abs(e)
            self.s2 += e * e
        elif self.task == "classification":
            label, p = pred
            self.s1 += float(label == y)
            q = min(max(p if y else 1.0 - p, 1e-15), 1.0)
            self.s2 -= math.log(q)
        else:
            self.s1 += float(y)

    def get(self) -> dict:
        n = max(self.n, 1)
        if self.task == "regression":
            return {"MAE": self.s1 / n, "RMSE": math.sqrt(self.s2 / n)}
        if self.task == "classification":
            return {"accuracy": self.s1 / n, "log_loss": self.s2 / n}
        return {"mean_reward": self.s1 / n}


def _fmt(value) -> str:
    try:
        return repr(float(value))
    except TypeError:
        return ",".join(repr(float(v)) for v in value)


class Run:
    r"""A prequential run of a model on a stream of records, with checkpoints.

    Build it with `Run.start(settings, ...)` or `Run.resume(path, ...)`, then call `loop()`.

    Parameters
    ----------
    state
        The checkpointed part: settings, model, parser, metrics, counters, positions.
    source, output, rejects
        Input path (`"-"`: standard input), answer and reject paths (`None`/`"-"`: standard
        output; rejects default to standard error).
    checkpoint_path, checkpoint_every, report_every, strict
        Where and how often (in records) to checkpoint; how often to report on standard error;
        stop at the first reject instead of setting it aside.

    Examples
    --------
    >>> import os, tempfile
    >>> from onlineboost.app import runconfig
    >>> from onlineboost.app.run import Run
    >>> d = tempfile.mkdtemp()
    >>> with open(os.path.join(d, "in.csv"), "w") as f:
    ...     _ = f.write("a,y\n0.5,0.25\nbad,0.1\n-0.5,-0.25\n")
    >>> settings = runconfig.resolve(target="y", learner="ridge", n_learners=2, format="csv")
    >>> run = Run.start(settings, os.path.join(d, "in.csv"), os.path.join(d, "out.csv"),
    ...                 os.path.join(d, "rejects.jsonl"), report_every=0)
    >>> run.loop()
    >>> print(open(os.path.join(d, "out.csv")).read(), end="")
    2,0.0
    4,0.02777...
    >>> print(open(os.path.join(d, "rejects.jsonl")).read(), end="")
    {"line": 3, "reason": "feature 'a': cannot read 'bad' as a number", "record": "bad,0.1"}
    """

    def __init__(self, state: dict, source: str, output: str | None, rejects: str | None,
                 checkpoint_path: str | None = None, checkpoint_every: int = 10_000,
                 report_every: int = 10_000, strict: bool = False, resume_input: str = "replay",
                 log=None):
        if checkpoint_every < 1:
            raise ValueError(f"checkpoint_every must be >= 1, got {checkpoint_every!r}")
        if resume_input not in ("replay", "continue"):
            raise ValueError(f"resume_input must be 'replay' or 'continue', got {resume_input!r}")
        self.state = state
        self.checkpoint_path = checkpoint_path
        self.checkpoint_every = checkpoint_every
        self.report_every = report_every
        self.strict = strict
        self.log = log if log is not None else sys.stderr
        resumed = state["records"] > 0 or state["input"]["offset"] > 0
        stream = sys.stdin.buffer if source in (None, "-") else open(source, "rb")
        pos = state["input"]
        if resumed and resume_input == "replay":
            if records.skip_bytes(stream, pos["offset"]) != pos["crc"]:
                raise RunError("the input's first bytes differ from those the checkpoint "
                               "consumed (CRC-32 mismatch): not the same stream")
        self.reader = records.LineReader(stream, state["settings"]["data"]["max_line_bytes"],
                                         pos["offset"], pos["line"], pos["crc"])
        fresh = state["output_bytes"] is None
        self.out = _Sink(output, "stdout", None if fresh else state["output_bytes"])
        self.rej = _Sink(rejects, "stderr", None if fresh else state["reject_bytes"])
        self._model = state["model"]
        self._contextual = _is_contextual(self._model)
        self._busy, self._stop = False, None
        self._t0, self._n0 = time.perf_counter(), state["records"]
        if resumed and not self.out.regular:
            self._say(f"resumed after line {pos['line']}: answers for later lines are written "
                      "again (keep the last one per line)")

    @classmethod
    def start(cls, settings: dict, source: str, output=None, rejects=None, **kwargs) -> Run:
        """A fresh run: builds the model and parser from resolved `settings`."""
        data = settings["data"]
        data["format"] = data["format"] or runconfig.default_format(source)
        parser = records.RecordParser(
            data["format"], data["target"], data["features"], data["ignore"], data["task"],
            data["rewards"], data["delimiter"], data["encoding"])
        state = {"version": VERSION, "settings": settings, "model": runconfig.build_model(settings),
                 "parser": parser, "metrics": Metrics(data["task"]), "records": 0,
                 "answered": 0, "rejected": 0, "input": {"offset": 0, "line": 0, "crc": 0},
                 "output_bytes": None, "reject_bytes": None,
                 "paths": {"source": source, "output": output, "rejects": rejects}}
        run = cls(state, source, output, rejects, **kwargs)
        run._checkpoint()  # so that `--resume` works even if killed before the first K records
        return run

    @classmethod
    def resume(cls, path: str, source=None, output=None, rejects=None, **kwargs) -> Run:
        """Continue the run checkpointed at `path`; paths default to the checkpointed ones."""
        state = checkpoint.load(path)
        if not isinstance(state, dict) or state.get("version") != VERSION:
            raise checkpoint.CheckpointError(f"{path!r} is not a checkpoint of this version")
        paths = state["paths"]
        kwargs.setdefault("checkpoint_path", path)
        return cls(state, source or paths["source"], output or paths["output"],
                   rejects or paths["rejects"], **kwargs)

    # -- the loop --------------------------------------------------------------------------

    def loop(self) -> None:
        """Answer, then learn, every record until the input ends (or a stop signal)."""
        old = _install(self._on_signal)
        try:
            for number, raw in self.reader:
                self._busy = True
                self._record(number, raw)
                self._commit()
                self._busy = False
                if self._stop is not None:
                    raise _Stop
        except _Stop:
            self._busy = True  # a second signal now must not interrupt the checkpoint
            self._checkpoint()
            self._summary(final=True)
            raise SystemExit(128 + self._stop) from None
        finally:
            _install(old)
            self.out.sync()
            self.rej.sync()
        self._checkpoint()
        self._summary(final=True)
        self.out.close()
        self.rej.close()

    def _record(self, number: int, raw: bytes | None) -> None:
        parser, st = self.state["parser"], self.state
        if raw is not None and not raw.strip():
            return
        if raw is None and parser.needs_header:
            raise RunError(f"line {number}: the CSV header is longer than "
                           f"{self.reader.max_line_bytes} bytes")
        if parser.needs_header:
            try:
                parser.read_header(raw)
            except RecordError as e:
                raise RunError(f"line {number}: bad CSV header: {e}") from None
            return
        st["records"] += 1
        if raw is None:
            return self._reject(number, f"line longer than {self.reader.max_line_bytes} bytes",
                                b"")
        try:
            x, y = parser.parse(raw)
        except RecordError as e:
            return self._reject(number, str(e), raw)
        task = st["settings"]["data"]["task"]
        try:
            answer = self._answer(x, task)
        except ValueError as e:
            return self._reject(number, f"model refused the record: {e}", raw)
        self.out.write(f"{number},{answer[0]}\n".encode())
        st["answered"] += 1
        try:
            self._learn(x, y, answer[1], task)
        except ValueError as e:  # the answer stands; the model's state is unchanged (§3)
            return self._reject(number, f"model refused to learn (answered): {e}", raw)

    def _answer(self, x, task):
        model = self._model
        if task == "bandit":
            arms = list(self.state["settings"]["data"]["rewards"])
            arm = model.pull(arms, x) if self._contextual else model.pull(arms)
            return str(arm), arm
        if task == "classification":
            proba = model.predict_proba_one(x)
            p = float(proba.get(True, 0.0))
            return f"{int(p > 0.5)},{_fmt(p)}", (p > 0.5, proba)
        y_pred = model.predict_one(x)
        return _fmt(y_pred), y_pred

    def _learn(self, x, y, pred, task):
        m = self.state["metrics"]
        if task == "bandit":
            reward = y[pred]
            if self._contextual:
                self._model.update(pred, x, reward)
            else:
                self._model.update(pred, reward)
            m.update(reward, pred)
            return
        self._model.learn_one(x, y)
        if task == "classification":
            m.update(y, (pred[0], float(pred[1].get(True, 0.0))))
        elif isinstance(pred, float):
            m.update(y, pred)

    def _reject(self, number: int, reason: str, raw: bytes) -> None:
        if self.strict:
            raise RunError(f"line {number}: {reason} (--strict)")
        self.state["rejected"] += 1
        text = raw.decode("utf-8", "replace").rstrip("\r\n")[:200]
        self.rej.write((json.dumps({"line": number, "reason": reason, "record": text})
                        + "\n").encode())

    def _commit(self) -> None:
        st, r = self.state, self.reader
        st["input"] = {"offset": r.offset, "line": r.line_number, "crc": r.crc}
        st["output_bytes"], st["reject_bytes"] = self.out.bytes, self.rej.bytes
        n = st["records"]
        if n and n % self.checkpoint_every == 0 and st.get("_last_ckpt") != n:
            self._checkpoint()
        if self.report_every and n and n % self.report_every == 0 and st.get("_last_rep") != n:
            st["_last_rep"] = n
            self._summary()

    def _checkpoint(self) -> None:
        if not self.checkpoint_path:
            return
        self.out.sync()  # the answers a checkpoint vouches for are on disk before it is
        self.rej.sync()
        st = self.state
        st["output_bytes"], st["reject_bytes"] = self.out.bytes, self.rej.bytes
        st["_last_ckpt"] = st["records"]
        checkpoint.save(self.checkpoint_path, st)

    # -- reporting and signals ---------------------------------------------------------------

    def summary(self) -> dict:
        """Counts, metrics and records per second of this process."""
        st = self.state
        elapsed = time.perf_counter() - self._t0
        out = {"records": st["records"], "answered": st["answered"], "rejected": st["rejected"]}
        out.update(st["metrics"].get())
        out["records_per_s"] = (st["records"] - self._n0) / elapsed if elapsed > 0 else 0.0
        return out

    def _summary(self, final: bool = False) -> None:
        parts = [f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}"
                 for k, v in self.summary().items()]
        self._say(("done: " if final else "") + " ".join(parts))

    def _say(self, text: str) -> None:
        print(f"onlineboost run: {text}", file=self.log, flush=True)

    def _on_signal(self, signum, frame) -> None:
        del frame
        self._stop = signum
        if not self._busy:  # waiting for input: stop now, at the last finished record
            raise _Stop


def _is_contextual(model) -> bool:
    import inspect

    pull = getattr(model, "pull", None)
    if pull is None:
        return False
    return len(inspect.signature(pull).parameters) >= 2


def _install(handler):
    """Install `handler` for SIGINT and SIGTERM (main thread only); returns the old ones."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None
    if isinstance(handler, tuple):
        signal.signal(signal.SIGINT, handler[0])
        signal.signal(signal.SIGTERM, handler[1])
        return None
    if handler is None:
        return None
    return signal.signal(signal.SIGINT, handler), signal.signal(signal.SIGTERM, handler)


def command(args) -> int:
    """`onlineboost run` (arguments from `runconfig.add_arguments`)."""
    from .checkpoint import CheckpointError

    options = {"checkpoint_every": args.checkpoint_every, "report_every": args.report_every,
               "strict": args.strict, "resume_input": args.resume_input}
    if args.checkpoint:
        options["checkpoint_path"] = args.checkpoint
    try:
        if args.resume:
            run = Run.resume(args.resume, args.input, args.output, args.rejects, **options)
        else:
            config = runconfig.load_config(args.config) if args.config else None
            names = ("format", "target", "task", "features", "ignore", "rewards", "delimiter",
                     "encoding", "max_line_bytes", "booster", "learner", "n_learners", "gamma",
                     "step_size", "delta", "decision_set", "loss", "seed", "scale", "policy")
            settings = runconfig.resolve(config, **{k: getattr(args, k) for k in names})
            run = Run.start(settings, args.input or "-", args.output, args.rejects, **options)
        run.loop()
    except (RunError, CheckpointError, ValueError, OSError) as e:
        print(f"onlineboost run: error: {e}", file=sys.stderr)
        return 2
    return 0
