r"""The prequential loop of `onlineboost run`: answer each record, then learn from it.

For each record (a line of CSV or JSON lines, `onlineboost.app.records`) the runner writes the
answer (`onlineboost.app.task`) — `LINE,PREDICTION`, `LINE,LABEL,P_TRUE` or `LINE,ARM`, where
`LINE` is the record's line number in the input — and flushes it *before* the model learns
from the record. A record that cannot be used is written to the reject file as a JSON line
`{"line", "reason", "record"}` and the stream goes on; with `strict=True` it stops the run.
Rejected are: malformed records (the parser's reasons), records bringing new feature names
beyond `max_features`, and records the model or policy cannot digest — any exception from
`predict_one`/`predict_proba_one`/`pull` (rejected unanswered) or from `learn_one`/`update`
(the answer stands; rejected "answered"), or an answer that is not finite.

**No half-updated model.** A model that raises may have changed part of its state first. The
run keeps a *snapshot* of the model (its pickle, refreshed every `SNAPSHOT_EVERY` records) and
a journal of the records given to it since; when the model raises, the run restores the
snapshot and replays the journal — the same calls in the same order, so a deterministic model
is back bit for bit where it was before the failing call (for a learn that failed: after the
answer, which stands). Its cost is one pickle per `SNAPSHOT_EVERY` records, and a replay only
when a model fails.

Checkpoints hold the whole run (`onlineboost.app.state.RunState`) and are written atomically
(`onlineboost.app.checkpoint`) at the start, every `checkpoint_every` records and at the end,
after the answers and rejects written so far have been fsynced. See `onlineboost.app.source`
for how a resumed run positions its input and `onlineboost.app.sinks` for how it reconciles
its outputs. SIGINT/SIGTERM finish the current record, write a checkpoint and stop (exit
status 130/143).
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import sys
import time

from . import checkpoint, files, runconfig, source
from .errors import RunError
from .records import RecordError
from .sinks import Sink
from .state import RunState
from .task import make_task

__all__ = ["SNAPSHOT_EVERY", "Run"]

SNAPSHOT_EVERY = 1000


class _Stop(Exception):
    pass


class Run:
    r"""A prequential run of a model on a stream of records, with checkpoints.

    Build it with `Run.start(settings, ...)` or `Run.resume(path, ...)`, then call `loop()`.
    Both check the files first (`onlineboost.app.files`): paths made absolute, no file in two
    roles, existing directories, the checkpoint locked for this run — before anything is
    opened for writing.

    Parameters
    ----------
    state
        The checkpointed part (`RunState`).
    checkpoint_path, checkpoint_every, report_every, strict, resume_input
        Where and how often (in records) to checkpoint; how often to report on standard error
        (0: only at the end); stop at the first reject instead of setting it aside; how a
        resumed run finds its place in the input (`"replay"` or `"continue"`).

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
    4,0.25
    >>> print(open(os.path.join(d, "rejects.jsonl")).read(), end="")
    {"line": 3, "reason": "feature 'a': cannot read 'bad' as a number", "record": "bad,0.1"}
    """

    def __init__(self, state: RunState, checkpoint_path: str | None = None,
                 checkpoint_every: int = 10_000, report_every: int = 10_000,
                 strict: bool = False, resume_input: str = "replay", log=None, lock=None):
        self.state = state
        self.checkpoint_path = checkpoint_path
        self.checkpoint_every = checkpoint_every
        self.report_every = report_every
        self.strict = strict
        self.log = log if log is not None else sys.stderr
        self._lock = lock
        self.task = make_task(state.settings, state.model)
        paths, data = state.paths, state.settings["data"]
        self.reader = source.open_input(paths["source"], state.position, resume_input,
                                        data["max_line_bytes"])
        fresh = state.output_bytes is None
        self.out = Sink(paths["output"], "stdout", None if fresh else state.output_bytes,
                        "--output")
        self.rej = Sink(paths["rejects"], "stderr", None if fresh else state.reject_bytes,
                        "--rejects")
        self._max_features = data["max_features"]
        self._busy, self._stop = False, None
        self._last_ckpt = self._last_rep = None
        self._t0, self._n0 = time.perf_counter(), state.records
        self._snapshot, self._journal = None, []
        self._take_snapshot()
        if state.resumed:
            self._say(f"resumed run {state.run_id} after line {state.position.line} "
                      f"({state.records} records): answers from line {state.position.line + 1} "
                      "on are written again" + ("" if self.out.regular else
                                                " (keep the last one per line)"))

    @staticmethod
    def _check_options(checkpoint_every=10_000, report_every=10_000, resume_input="replay",
                       **_):
        for name, value, low in (("checkpoint_every", checkpoint_every, 1),
                                 ("report_every", report_every, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
        if resume_input not in ("replay", "continue"):
            raise ValueError(f"resume_input must be 'replay' or 'continue', got {resume_input!r}")

    @staticmethod
    def _claim(paths: dict, checkpoint_path: str | None, lock=None):
        """Check the roles of the files, then lock the checkpoint (unless `lock` holds it
        already) and remove the temporaries a killed run left; returns the lock."""
        roles = {"input": paths["source"], "--output": paths["output"],
                 "--rejects": paths["rejects"], "--checkpoint": checkpoint_path,
                 "the checkpoint's lock": checkpoint_path and files.lock_path(checkpoint_path)}
        files.check_roles(roles, written=("--output", "--rejects", "--checkpoint"))
        if not checkpoint_path:
            return None
        lock = lock or files.Lock(checkpoint_path)
        checkpoint.remove_stale_temporaries(checkpoint_path)
        return lock

    @classmethod
    def start(cls, settings: dict, source: str | None, output=None, rejects=None,
              **kwargs) -> Run:
        """A fresh run: builds the model and parser from resolved `settings`."""
        cls._check_options(**kwargs)
        paths = {"source": files.absolute(source or "-"), "output": files.absolute(output),
                 "rejects": files.absolute(rejects)}
        ck = files.absolute(kwargs.pop("checkpoint_path", None))
        data = settings["data"]
        data["format"] = data["format"] or runconfig.default_format(source)
        parser = runconfig.build_parser(settings)
        model = runconfig.build_model(settings)
        task = make_task(settings, model)  # the model can do the task: checked before any file
        state = RunState(settings=settings, model=model, parser=parser, metrics=task.metrics(),
                         paths=paths)
        lock = cls._claim(paths, ck)
        try:
            if ck and os.path.exists(ck):
                raise RunError(f"--checkpoint {ck!r} exists: continue that run with --resume "
                               f"{ck}, or remove it to start afresh")
            run = cls(state, checkpoint_path=ck, lock=lock, **kwargs)
            run._checkpoint()  # so that `--resume` works even if killed before the first K
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        return run

    @classmethod
    def resume(cls, path: str, source=None, output=None, rejects=None, **kwargs) -> Run:
        """Continue the run checkpointed at `path`; paths default to the checkpointed ones."""
        cls._check_options(**kwargs)
        path = files.absolute(path)
        kwargs.pop("checkpoint_path", None)
        lock = files.Lock(path) if os.path.exists(path) else None
        try:
            state = RunState.from_payload(checkpoint.load(path), path)
            for key, value in (("source", source), ("output", output), ("rejects", rejects)):
                if value is not None:
                    state.paths[key] = files.absolute(value)
            lock = cls._claim(state.paths, path, lock)
            run = cls(state, checkpoint_path=path, lock=lock, **kwargs)
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        return run

    # -- the loop --------------------------------------------------------------------------

    def loop(self) -> None:
        """Answer, then learn, every record until the input ends (or a stop signal)."""
        try:
            self._loop()
        finally:
            self._release()

    def _loop(self) -> None:
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
        if self.reader.pending:
            self._say(f"line {self.reader.line_number + 1} has no newline yet "
                      f"({self.reader.pending} bytes): not read; it is read once complete "
                      "(--resume)")
        self.state.finished = True
        self._checkpoint()
        self._summary(final=True)
        self.out.close()
        self.rej.close()

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _record(self, number: int, raw: bytes | None) -> None:
        st = self.state
        parser = st.parser
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
            skip = {parser.target, *parser.rewards, *parser.ignore}
            n = len(parser.features or [c for c in parser.columns if c not in skip])
            if n > self._max_features:
                raise RunError(f"line {number}: the CSV header has {n} feature columns, more "
                               f"than max_features = {self._max_features} (--max-features)")
            return
        st.records += 1
        if raw is None:
            return self._reject(number, f"line longer than {self.reader.max_line_bytes} bytes",
                                b"")
        try:
            x, y = parser.parse(raw, first=number == 1)
        except RecordError as e:
            return self._reject(number, str(e), raw)
        new = () if st.features.issuperset(x) else x.keys() - st.features
        if new:
            if len(st.features) + len(new) > self._max_features:
                return self._reject(number, f"brings new feature names {sorted(new)[:5]} beyond "
                                            f"max_features = {self._max_features}", raw)
            st.features.update(new)
        try:
            text, answer = self.task.answer(st.model, x)
        except Exception as e:  # noqa: BLE001 - whatever the model raises, the stream goes on
            self._rollback()
            return self._reject(number, f"model refused the record: {_why(e)}", raw)
        self.out.write(f"{number},{text}\n".encode())
        st.answered += 1
        st.metrics.update(self.task.measure(y, answer), answer)
        try:
            self.task.learn(st.model, x, y, answer)
        except Exception as e:  # noqa: BLE001 - the answer stands; the model is restored
            self._rollback(x, y)
            return self._reject(number, f"model refused to learn (answered): {_why(e)}", raw)
        self._journal.append((x, y, True))
        if len(self._journal) >= SNAPSHOT_EVERY:
            self._take_snapshot()

    # -- snapshot and rollback -------------------------------------------------------------

    def _take_snapshot(self) -> None:
        try:
            self._snapshot = pickle.dumps(self.state.model, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - an unpicklable model: no rollback (nor checkpoint)
            self._snapshot = None
        self._journal = []

    def _rollback(self, *answered) -> None:
        """Restore the model to the snapshot and replay the journal (and, for a failed learn,
        the answer to `answered = (x, y)`)."""
        if self._snapshot is None:
            return
        journal = self._journal + ([(*answered, False)] if answered else [])
        model = pickle.loads(self._snapshot)
        try:
            for x, y, learned in journal:
                _, a = self.task.answer(model, x)
                if learned:
                    self.task.learn(model, x, y, a)
        except Exception as e:  # noqa: BLE001
            raise RunError(f"the model did not replay its own records ({_why(e)}): it is not "
                           "deterministic, so a failed call cannot be undone") from None
        self.state.model = model
        self._take_snapshot()

    # -- outputs, checkpoints, reports -----------------------------------------------------

    def _reject(self, number: int, reason: str, raw: bytes) -> None:
        if self.strict:
            raise RunError(f"line {number}: {reason} (--strict)")
        self.state.rejected += 1
        text = raw.decode("utf-8", "replace").rstrip("\r\n")[:200]
        self.rej.write((json.dumps({"line": number, "reason": reason, "record": text})
                        + "\n").encode())

    def _commit(self) -> None:
        st, r = self.state, self.reader
        st.position.offset, st.position.line, st.position.crc = r.offset, r.line_number, r.crc
        st.output_bytes, st.reject_bytes = self.out.bytes, self.rej.bytes
        n = st.records
        if n and n % self.checkpoint_every == 0 and self._last_ckpt != n:
            self._checkpoint()
        if self.report_every and n and n % self.report_every == 0 and self._last_rep != n:
            self._last_rep = n
            self._summary()

    def _checkpoint(self) -> None:
        if not self.checkpoint_path:
            return
        self.out.sync()  # the answers a checkpoint vouches for are on disk before it is
        self.rej.sync()
        st = self.state
        st.output_bytes, st.reject_bytes = self.out.bytes, self.rej.bytes
        self._last_ckpt = st.records
        checkpoint.save(self.checkpoint_path, st.to_payload())

    def summary(self) -> dict:
        """Counts, metrics and records per second of this process."""
        st = self.state
        elapsed = time.perf_counter() - self._t0
        out = {"records": st.records, "answered": st.answered, "rejected": st.rejected}
        out.update(st.metrics.get())
        out["records_per_s"] = (st.records - self._n0) / elapsed if elapsed > 0 else 0.0
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


def _why(e: BaseException) -> str:
    text = str(e) or "(no message)"
    return text if isinstance(e, ValueError) else f"{type(e).__name__}: {text}"


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

