r"""Records of a stream, read one line at a time: CSV or JSON lines, in constant memory.

`LineReader` reads a binary stream (a file or standard input) line by line with a bound on the
line length, and keeps the position a checkpoint needs: lines and bytes consumed, and a CRC-32 of
every byte consumed (so a resumed run can check that it is reading the same stream).
`RecordParser` turns one line into an `Example` $(x, y)$ — features as a `dict` of finite floats,
and a target (a finite number, a binary label, or one reward per arm) — or raises
`RecordError` with the reason. A record is never half-parsed: either every field is valid or
nothing is returned.

One record is one physical line: CSV fields quoted across line breaks are not supported.
Blank lines are skipped (they still count in line numbers). A last line without its newline is
never consumed (not parsed, not counted): its producer may still be writing it, and it is read
once it is complete (on a resumed run, or when a live pipe sends the rest).

Numbers are ASCII decimal literals (`1`, `-2.5e3`, `.5`; surrounding blanks allowed): `"1_0"`,
`"0x10"` and non-ASCII digits are not numbers (a JSON string holding a literal is read as
that number, as a CSV field is; JSON booleans and nulls are not numbers). Every number must be
finite and at most `max_abs` (default `MAX_ABS` = 1e100) in absolute value: squares and sums of
squares of such values (a scaler's variance, ridge's Gram matrix, the RMSE) stay finite over
any stream a run can see, so one record cannot overflow the model's or the metrics' running
sums.
"""

from __future__ import annotations

import csv
import json
import math
import zlib
from typing import IO, NamedTuple

__all__ = ["MAX_ABS", "Example", "LineReader", "RecordError", "RecordParser", "parse_label"]

MAX_ABS = 1e100
_BOM = b"\xef\xbb\xbf"

TASKS = ("regression", "classification", "bandit")
_TRUE = {"1", "1.0", "true", "yes", "+1"}
_FALSE = {"0", "0.0", "-1", "-1.0", "false", "no"}


class RecordError(ValueError):
    """A record (or a CSV header) that cannot be used; the message is the reason."""


class Example(NamedTuple):
    """One parsed record: features `x` and target `y` (a float, a bool, or `{arm: reward}`)."""

    x: dict
    y: object


class LineReader:
    r"""Lines of a binary stream with their numbers, in memory bounded by `max_line_bytes`.

    Iterating yields `(line_number, raw)` where `raw` is the line's bytes (newline included),
    or `None` for a line longer than `max_line_bytes`, whose bytes are skipped without being
    held in memory. `offset`, `line_number` and `crc` always describe the bytes consumed so far.
    A last line without a newline is not consumed: iteration stops before it, `offset` stays at
    its start and `pending` holds how many of its bytes were seen (the stream is left after
    them; a resumed run reads the line again from its start, complete by then).

    Parameters
    ----------
    stream
        A binary stream with `readline(limit)`, e.g. `open(path, "rb")` or `sys.stdin.buffer`.
    max_line_bytes
        Longest accepted line, in bytes.
    offset, line_number, crc
        The position the stream is already at (when resuming after a skip).

    Examples
    --------
    >>> import io
    >>> from onlineboost.app.records import LineReader
    >>> reader = LineReader(io.BytesIO(b"a,b\n1,2\n" + b"9" * 50 + b"\n3,4"), max_line_bytes=20)
    >>> list(reader)
    [(1, b'a,b\n'), (2, b'1,2\n'), (3, None)]
    >>> reader.offset, reader.line_number, reader.pending
    (59, 3, 3)
    """

    def __init__(self, stream: IO[bytes], max_line_bytes: int = 1 << 20, offset: int = 0,
                 line_number: int = 0, crc: int = 0):
        if isinstance(max_line_bytes, bool) or not (isinstance(max_line_bytes, int)
                                                    and max_line_bytes >= 1):
            raise ValueError(f"max_line_bytes must be an integer >= 1, got {max_line_bytes!r}")
        self.stream = stream
        self.max_line_bytes = max_line_bytes
        self.offset = offset
        self.line_number = line_number
        self.crc = crc
        self.pending = 0  # bytes of an unterminated last line seen (not consumed)

    def __iter__(self):
        limit = self.max_line_bytes
        while True:
            chunk = self.stream.readline(limit + 1)
            if not chunk:
                return
            size, crc = len(chunk), zlib.crc32(chunk, self.crc)
            if len(chunk) > limit and not chunk.endswith(b"\n"):
                while not chunk.endswith(b"\n"):  # drop the rest of the line, 64 KiB at a time
                    chunk = self.stream.readline(1 << 16)
                    if not chunk:
                        self.pending = size  # unterminated: not consumed
                        return
                    size, crc = size + len(chunk), zlib.crc32(chunk, crc)
                raw = None
            elif not chunk.endswith(b"\n"):
                self.pending = size  # unterminated: its producer may still be writing it
                return
            else:
                raw = chunk
            self.offset += size
            self.crc = crc
            self.line_number += 1
            self.pending = 0
            yield self.line_number, raw


def skip_bytes(stream: IO[bytes], n: int) -> int:
    """Read and discard `n` bytes of `stream` (works on pipes); returns their CRC-32.

    Raises `RecordError` when the stream ends first.
    """
    crc, left = 0, n
    while left > 0:
        chunk = stream.read(min(left, 1 << 20))
        if not chunk:
            raise RecordError(f"input ends after {n - left} bytes, before the checkpoint's "
                              f"offset {n}: it is not the stream the checkpoint was taken on")
        crc = zlib.crc32(chunk, crc)
        left -= len(chunk)
    return crc


def _number(value, name: str, max_abs: float = MAX_ABS) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise RecordError(f"{name} must be a number, got {type(value).__name__}")
    if isinstance(value, str):
        if not value.strip():
            raise RecordError(f"{name} is missing (empty field)")
        if not value.isascii() or "_" in value:  # what float() takes beyond ASCII literals
            raise RecordError(f"{name}: cannot read {value[:40]!r} as a number")
    try:
        v = float(value)
    except (ValueError, OverflowError):
        raise RecordError(f"{name}: cannot read {str(value)[:40]!r} as a number") from None
    if not math.isfinite(v):
        raise RecordError(f"{name} must be finite, got {str(value)[:40]!r}")
    if abs(v) > max_abs:
        raise RecordError(f"{name}: |{str(value)[:40]}| exceeds the bound max_abs = {max_abs:g}")
    return v


def parse_label(value, name: str = "target") -> bool:
    """A binary label from `1/0/-1`, `true/false` or `yes/no` (case-insensitive), else
    `RecordError`.

    >>> from onlineboost.app.records import parse_label
    >>> parse_label("True"), parse_label(-1), parse_label(" 1 ")
    (True, False, True)
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = repr(float(value)) if math.isfinite(value) else "nan"
    if isinstance(value, str):
        key = value.strip().lower()
        if key in _TRUE:
            return True
        if key in _FALSE:
            return False
    raise RecordError(f"{name} must be a binary label (1/0/-1, true/false), got "
                      f"{str(value)[:40]!r}")


class RecordParser:
    r"""Turns one line of CSV or JSON lines into an `Example`, or raises `RecordError`.

    Parameters
    ----------
    format
        `"csv"` (the first non-blank line is the header) or `"jsonl"` (one JSON object a line).
    target
        The target field (regression and classification).
    features
        Feature fields, in order; `None` takes every field but the target, the rewards and
        `ignore`.
    ignore
        Fields that are neither features nor targets (identifiers, timestamps).
    task
        `"regression"` (finite float target), `"classification"` (binary label) or `"bandit"`
        (no target; `rewards` names one reward field per arm, the arm id being the field name).
    rewards
        The reward fields of a bandit stream.
    delimiter
        CSV delimiter.
    encoding
        Text encoding of the input; undecodable lines are rejected.
    max_abs
        Largest accepted absolute value of a number (features, target, rewards).

    Examples
    --------
    >>> from onlineboost.app.records import RecordParser, RecordError
    >>> parser = RecordParser("csv", target="y")
    >>> parser.read_header(b"a,b,y\n")
    >>> parser.parse(b"1.5,-2,0.25\n")
    Example(x={'a': 1.5, 'b': -2.0}, y=0.25)
    >>> try:
    ...     parser.parse(b"1.5,nan,0.25\n")
    ... except RecordError as e:
    ...     print(e)
    feature 'b' must be finite, got 'nan'
    >>> RecordParser("jsonl", task="bandit", rewards=("left", "right")).parse(
    ...     b'{"c": 1, "left": 0, "right": 1}')
    Example(x={'c': 1.0}, y={'left': 0.0, 'right': 1.0})
    """

    def __init__(self, format: str = "csv", target: str | None = None,
                 features: tuple | None = None, ignore: tuple = (), task: str = "regression",
                 rewards: tuple = (), delimiter: str = ",", encoding: str = "utf-8",
                 max_abs: float = MAX_ABS):
        if format not in ("csv", "jsonl"):
            raise ValueError(f"format must be 'csv' or 'jsonl', got {format!r}")
        if task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}, got {task!r}")
        if task == "bandit":
            if target is not None or len(rewards) < 2:
                raise ValueError("rewards must name at least 2 reward fields (one per arm) and "
                                 f"target must be None for a bandit stream, got {rewards!r}")
        elif not target:
            raise ValueError(f"target must name the target field, got {target!r}")
        if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in "\r\n\"":
            raise ValueError(f"delimiter must be one character (not a quote or newline), got "
                             f"{delimiter!r}")
        try:
            "".encode(encoding)
        except (LookupError, TypeError):
            raise ValueError(f"encoding must name a text encoding, got {encoding!r}") from None
        for arg, names in (("features", features), ("ignore", ignore), ("rewards", rewards)):
            if names is not None and not all(isinstance(n, str) and n for n in names):
                raise ValueError(f"{arg} must be field names (non-empty strings), got {names!r}")
        leaked = sorted({target, *rewards} & set(features or ()) - {None})
        if leaked:
            raise ValueError(f"features must not contain the target or reward fields: {leaked}")
        if isinstance(max_abs, bool) or not isinstance(max_abs, (int, float)) or not (
                0 < max_abs < math.inf):
            raise ValueError(f"max_abs must be a finite number > 0, got {max_abs!r}")
        self.format = format
        self.target = target
        self.features = None if features is None else tuple(features)
        self.ignore = tuple(ignore)
        self.task = task
        self.rewards = tuple(rewards)
        self.delimiter = delimiter
        self.encoding = encoding
        self.max_abs = float(max_abs)
        self.columns: tuple | None = None  # the CSV header, once read

    @property
    def needs_header(self) -> bool:
        return self.format == "csv" and self.columns is None

    def _text(self, raw: bytes, first: bool = False) -> str:
        if first and raw.startswith(_BOM) and self.encoding.lower().replace("-", "").replace(
                "_", "") in ("utf8", "utf8sig"):
            raw = raw[3:]  # byte-order mark
        try:
            return raw.decode(self.encoding).rstrip("\r\n")
        except UnicodeDecodeError as e:
            raise RecordError(f"not valid {self.encoding} at byte {e.start}") from None

    def _csv_fields(self, text: str) -> list:
        try:
            rows = list(csv.reader([text], delimiter=self.delimiter, strict=True))
        except csv.Error as e:
            raise RecordError(f"malformed CSV: {e}") from None
        if len(rows) != 1:
            raise RecordError("malformed CSV: not one row")
        return rows[0]

    def read_header(self, raw: bytes) -> None:
        """Read the CSV header; raises `RecordError` if the named fields are not in it."""
        columns = tuple(c.strip() for c in self._csv_fields(self._text(raw, first=True)))
        if len(set(columns)) != len(columns) or "" in columns:
            raise RecordError(f"CSV header has empty or repeated column names: {columns!r}")
        named = [self.target] if self.target else []
        named += list(self.rewards) + list(self.features or ())
        missing = [c for c in named if c not in columns]
        if missing:
            raise RecordError(f"CSV header {columns!r} lacks the fields {missing!r}")
        self.columns = columns

    def _fields(self, raw: bytes, first: bool) -> dict:
        text = self._text(raw, first)
        if self.format == "csv":
            values = self._csv_fields(text)
            if len(values) != len(self.columns):
                raise RecordError(f"expected {len(self.columns)} fields, got {len(values)}")
            return dict(zip(self.columns, values))
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError) as e:
            raise RecordError(f"malformed JSON: {str(e)[:80]}") from None
        if not isinstance(obj, dict):
            raise RecordError(f"a JSON line must be an object, got {type(obj).__name__}")
        return obj

    def parse(self, raw: bytes, first: bool = False) -> Example:
        """The `Example` of one line, or `RecordError` with the reason; `first`: the stream's
        first line (a UTF-8 byte-order mark is dropped)."""
        fields = self._fields(raw, first)
        if self.features is not None:
            names = self.features
        else:
            skip = set(self.ignore) | set(self.rewards) | {self.target}
            names = [k for k in fields if k not in skip]
        x = {}
        for name in names:
            if name not in fields:
                raise RecordError(f"missing feature {name!r}")
            x[name] = _number(fields[name], f"feature {name!r}", self.max_abs)
        if self.task == "bandit":
            y = {}
            for arm in self.rewards:
                if arm not in fields:
                    raise RecordError(f"missing reward {arm!r}")
                y[arm] = _number(fields[arm], f"reward {arm!r}", self.max_abs)
            return Example(x, y)
        if self.target not in fields:
            raise RecordError(f"missing target {self.target!r}")
        value = fields[self.target]
        if self.task == "classification":
            return Example(x, parse_label(value, f"target {self.target!r}"))
        return Example(x, _number(value, f"target {self.target!r}", self.max_abs))
