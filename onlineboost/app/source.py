"""Where records come from: a file or standard input, positioned where a checkpoint left it.

Resuming with `resume_input="replay"` reads the input again from its start and skips the
checkpointed bytes, checking their CRC-32 (a pipe works too). With `"continue"`, a named
regular file is *seeked* to the checkpointed offset (it must be at least that long); standard
input is taken as already starting after those bytes (a queue that keeps its own offsets).
"""

from __future__ import annotations

import os
import stat
import sys

from . import records
from .errors import RunError

__all__ = ["open_input"]


def open_input(path: str | None, position, resume_input: str, max_line_bytes: int):
    """A `records.LineReader` on `path` (`None`/`"-"`: standard input) at `position`."""
    if path in (None, "-"):
        stream = sys.stdin.buffer
    else:
        try:
            stream = open(path, "rb")
        except OSError as e:
            raise RunError(f"cannot read the input {path!r}: {e.strerror}") from None
    resumed = position.offset > 0 or position.line > 0
    if resumed and resume_input == "replay":
        try:
            crc = records.skip_bytes(stream, position.offset)
        except records.RecordError as e:
            raise RunError(str(e)) from None
        if crc != position.crc:
            raise RunError("the input's first bytes differ from those the checkpoint consumed "
                           "(CRC-32 mismatch): not the same stream")
    elif resumed and path not in (None, "-"):
        st = os.fstat(stream.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise RunError(f"--resume-input continue: {path!r} is not a regular file; pipe the "
                           "rest of the stream to standard input instead")
        if st.st_size < position.offset:
            raise RunError(f"--resume-input continue: {path!r} has {st.st_size} bytes, fewer "
                           f"than the {position.offset} the checkpoint consumed")
        stream.seek(position.offset)
    return records.LineReader(stream, max_line_bytes, position.offset, position.line,
                              position.crc)
