"""Fuzzing the record parser of `onlineboost run`: random bytes, random JSON, huge lines, odd
encodings. Every line is either a valid example (finite numbers only) or a `RecordError` —
never another exception — and the line reader accounts for every byte."""

from __future__ import annotations

import io
import json
import math
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onlineboost.app import runconfig
from onlineboost.app.records import Example, LineReader, RecordError, RecordParser
from onlineboost.app.run import Run

FUZZ = settings(max_examples=300, deadline=None, derandomize=True)


def _csv_parser(**kwargs):
    parser = RecordParser("csv", target="y", **kwargs)
    parser.read_header(b"a,b,y\n")
    return parser


def _parse_or_reject(parser, raw):
    try:
        example = parser.parse(raw)
    except RecordError as e:
        assert str(e)
        return None
    assert isinstance(example, Example)
    for value in example.x.values():
        assert type(value) is float and math.isfinite(value)
    return example


@FUZZ
@given(st.binary(max_size=200))
def test_random_bytes_are_parsed_or_rejected(raw):
    for parser in (_csv_parser(), RecordParser("jsonl", target="y"),
                   RecordParser("jsonl", target="y", task="classification"),
                   RecordParser("jsonl", task="bandit", rewards=("a", "b"))):
        example = _parse_or_reject(parser, raw)
        if example is not None and parser.task == "regression":
            assert math.isfinite(example.y)


@FUZZ
@given(st.lists(st.sampled_from(["1", "-2.5e3", "nan", "inf", "", " ", "x", '"', '"1"', ",",
                                 "1e999", "0x10", "1_0", "\x00", "\r", "é", "\ufeff1",
                                 "\u0661", "1e101", "-1e100", "١٢", " 7 ", "+.5e-3", "Infinity"]),
                max_size=6))
def test_csv_fields_from_a_nasty_alphabet(fields):
    example = _parse_or_reject(_csv_parser(), ",".join(fields).encode() + b"\n")
    if example is not None:
        assert len(fields) == 3 and set(example.x) == {"a", "b"}
        # only ASCII decimal literals within max_abs are numbers (issue 14 item 18)
        assert all(f.strip(" ").lstrip("+-").replace(".", "").replace("e", "").replace("-", "")
                   .isascii() and "_" not in f and "x" not in f for f in fields)
        assert all(abs(v) <= 1e100 for v in (*example.x.values(), example.y))


json_values = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=10),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=3), children, max_size=3),
    max_leaves=10)


@FUZZ
@given(st.dictionaries(st.sampled_from(["a", "b", "y", "z", ""]), json_values, max_size=5))
def test_random_json_objects_are_parsed_or_rejected(obj):
    raw = json.dumps(obj).encode()  # NaN and Infinity included: Python writes them
    example = _parse_or_reject(RecordParser("jsonl", target="y"), raw)
    if example is not None:
        assert math.isfinite(example.y) and "y" not in example.x


def test_pathological_json_is_rejected():
    parser = RecordParser("jsonl", target="y")
    for raw in [b"[" * 100_000, b'{"y": ' + b"[" * 100_000, b'{"y": 1e400}', b'{"y": 1' +
                b"0" * 5000 + b"}", b'{"a": 1, "a": "dup", "y": 1}', b"\xff\xfe{\x00",
                b'{"y": NaN}', b"", b"null", b'"y"']:
        assert _parse_or_reject(parser, raw) is None, raw[:40]


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.binary(max_size=3000), st.integers(1, 64))
def test_line_reader_accounts_for_every_byte(data, limit):
    """Every complete line is consumed and counted; an unterminated last line is not (issue 14
    item 5: its producer may still be writing it)."""
    reader = LineReader(io.BytesIO(data), max_line_bytes=limit)
    lines = list(reader)
    complete = data[:data.rfind(b"\n") + 1]
    assert reader.offset == len(complete) and reader.crc == zlib.crc32(complete)
    assert reader.pending == len(data) - len(complete)
    assert reader.line_number == len(lines) == data.count(b"\n")
    physical = data.split(b"\n")
    for (number, raw), text in zip(lines, physical):
        if raw is None:
            assert len(text) > limit  # only over-long lines are dropped
        else:
            assert raw.rstrip(b"\n") == text and len(raw) <= limit + 1


@pytest.mark.parametrize("limit", [1, 7, 1 << 20])
def test_a_line_of_max_line_bytes_is_read_and_one_byte_more_is_dropped(limit):
    # the limit counts the line's bytes, not its newline (1 MiB by default); a longer line is
    # dropped whole and counted, and the next line is read as usual
    data = b"a" * limit + b"\n" + b"b" * (limit + 1) + b"\n" + b"c" * (limit - 1) + b"\n"
    reader = (LineReader(io.BytesIO(data)) if limit == 1 << 20
              else LineReader(io.BytesIO(data), max_line_bytes=limit))
    assert list(reader) == [(1, b"a" * limit + b"\n"), (2, None),
                            (3, b"c" * (limit - 1) + b"\n")]
    assert (reader.offset, reader.line_number, reader.pending) == (len(data), 3, 0)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "10", None])
def test_max_line_bytes_must_be_a_positive_integer(bad):
    with pytest.raises(ValueError, match="max_line_bytes"):
        LineReader(io.BytesIO(b""), max_line_bytes=bad)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.text(max_size=40), st.sampled_from(["utf-16", "latin-1", "cp1252", "utf-8",
                                               "utf-32", "shift_jis"]))
def test_odd_encodings(text, encoding):
    try:
        raw = ("1,2," + text).encode(encoding)
    except UnicodeEncodeError:
        return
    _parse_or_reject(_csv_parser(), raw)  # a UTF-8 reader: parsed or rejected
    _parse_or_reject(_csv_parser(encoding="latin-1"), raw)  # every byte decodes in latin-1


def test_a_stream_of_garbage_never_stops_the_run(tmp_path):
    rng = np.random.default_rng(0)
    lines = [b"a,b,y"]
    for i in range(400):
        kind = i % 4
        if kind == 0:
            lines.append(b"%r,%r,%r" % tuple(rng.normal(size=3).tolist()))
        elif kind == 1:
            lines.append(rng.integers(0, 256, size=rng.integers(0, 60), dtype=np.uint8)
                         .tobytes().replace(b"\n", b""))
        elif kind == 2:
            lines.append(b"1," * int(rng.integers(1, 50_000)))
        else:
            lines.append("é,ü,\u2028".encode("utf-16"))
    (tmp_path / "in.csv").write_bytes(b"\n".join(lines) + b"\n")
    settings_ = runconfig.resolve(target="y", learner="ridge", n_learners=2, format="csv",
                                  max_line_bytes=10_000)
    run = Run.start(settings_, str(tmp_path / "in.csv"), str(tmp_path / "out"),
                    str(tmp_path / "rej"), report_every=0, log=io.StringIO())
    run.loop()
    summary = run.summary()
    n_rejects = sum(1 for _ in open(tmp_path / "rej", "rb"))
    n_answers = sum(1 for _ in open(tmp_path / "out", "rb"))
    assert summary["answered"] == n_answers >= 100  # every good line was answered
    assert summary["rejected"] == n_rejects
    assert summary["records"] == n_answers + n_rejects
    assert math.isfinite(summary["MAE"])
