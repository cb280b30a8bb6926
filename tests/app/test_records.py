"""`onlineboost.app.records`: the parser's argument checks, the bound on values, CSV headers, and
`skip_bytes` on a stream that hands its bytes out a few at a time (a pipe)."""

from __future__ import annotations

import io
import zlib

import pytest

from onlineboost.app.records import RecordError, RecordParser, skip_bytes


class _Trickle(io.RawIOBase):
    """A pipe-like stream: every read returns at most `size` bytes."""

    def __init__(self, data: bytes, size: int):
        self._data, self._size = data, size

    def readable(self):
        return True

    def read(self, n=-1):
        n = self._size if n is None or n < 0 else min(n, self._size)
        chunk, self._data = self._data[:n], self._data[n:]
        return chunk


@pytest.mark.parametrize("size", [1, 2, 3, 1000])
def test_skip_bytes_skips_exactly_n_bytes_read_in_pieces(size):
    # a resume skips exactly the checkpoint's offset: one byte short (or over) re-reads (or
    # loses) part of a line
    data = b"0123456789"
    for n in (0, 1, 5, 10):
        stream = _Trickle(data, size)
        assert skip_bytes(stream, n) == zlib.crc32(data[:n])
        assert stream.read(100) == data[n:n + min(100, size)]


def test_skip_bytes_on_a_shorter_stream_names_how_far_it_got():
    with pytest.raises(RecordError, match="input ends after 7 bytes, before the checkpoint's "
                                          "offset 9"):
        skip_bytes(_Trickle(b"0123456", 2), 9)


def test_values_up_to_max_abs_are_read_and_beyond_refused():
    parser = RecordParser("jsonl", target="y", max_abs=1e6)
    assert parser.parse(b'{"a": 1e6, "y": -1e6}').x == {"a": 1e6}
    with pytest.raises(RecordError, match="exceeds the bound max_abs"):
        parser.parse(b'{"a": 1000000.0001, "y": 0}')
    small = RecordParser("jsonl", target="y", max_abs=0.5)  # any finite bound > 0
    assert small.parse(b'{"a": 0.5, "y": 0}').y == 0.0


@pytest.mark.parametrize("kwargs, name", [
    (dict(task="bandit", target="y", rewards=("a", "b")), "rewards"),
    (dict(task="bandit", rewards=("a",)), "rewards"),
    (dict(target="y", delimiter="ab"), "delimiter"),
    (dict(target="y", delimiter="\n"), "delimiter"),
    (dict(target="y", delimiter='"'), "delimiter"),
    (dict(target="y", delimiter=5), "delimiter"),
    (dict(target="y", features=("",)), "features"),
    (dict(target="y", features=(1,)), "features"),
    (dict(target="y", ignore=("",)), "ignore"),
    (dict(target="y", max_abs=True), "max_abs"),
    (dict(target="y", max_abs=0.0), "max_abs"),
    (dict(target="y", max_abs=float("inf")), "max_abs"),
    (dict(target="y", max_abs="5"), "max_abs"),
])
def test_bad_parser_arguments_are_refused_by_name(kwargs, name):
    with pytest.raises(ValueError, match=name):
        RecordParser("csv", **kwargs)


@pytest.mark.parametrize("header", [b"a,a,y\n", b"a,,y\n", b"y, a ,a\n"])
def test_a_csv_header_with_repeated_or_empty_names_is_refused(header):
    parser = RecordParser("csv", target="y")
    with pytest.raises(RecordError, match="empty or repeated"):
        parser.read_header(header)
    assert parser.needs_header
