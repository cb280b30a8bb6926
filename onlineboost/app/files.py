r"""The files a run owns: absolute paths, no two roles on one file, one run per checkpoint.

* `absolute(path)`: paths are resolved against the directory the run *starts* in and stored so
  in the checkpoint, so `--resume` from another directory writes to the same files;
* `check_roles(...)`: the input, the answers, the rejects, the checkpoint and its lock must be
  different files (a path, a symbolic link or a hard link to the same file is refused) and the
  directories written to must exist — checked before anything is opened for writing;
* `Lock`: an exclusive `fcntl.flock` on `<checkpoint>.lock`, held while the run lives, so two
  processes never run (or resume) on one checkpoint at once.

Standard streams (`None` or `"-"`) and character devices such as `/dev/null` may serve several
roles.
"""

from __future__ import annotations

import os
import stat

from .errors import RunError

__all__ = ["Lock", "absolute", "check_roles", "lock_path"]


def absolute(path: str | None) -> str | None:
    """`path` made absolute (standard streams `None` and `"-"` are kept as they are)."""
    if path in (None, "-"):
        return path
    return os.path.abspath(path)


def lock_path(checkpoint: str) -> str:
    """The lock file of a checkpoint."""
    return checkpoint + ".lock"


def _identity(path: str):
    """What makes two paths one file: (device, inode) if it exists, else its real path."""
    try:
        st = os.stat(path)
    except OSError:
        return ("path", os.path.realpath(path))
    if stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
        return None  # /dev/null, a terminal, a named pipe: may serve several roles
    return ("inode", st.st_dev, st.st_ino)


def check_roles(roles: dict, written: tuple = ()) -> None:
    """Refuse (`RunError`) when two roles name one file, or a written role's directory is
    missing. `roles` maps a role (e.g. `"--output"`) to a path or `None`; `written` lists the
    roles opened for writing.

    >>> import os, tempfile
    >>> from onlineboost.app.files import check_roles
    >>> d = tempfile.mkdtemp()
    >>> check_roles({"input": os.path.join(d, "in.csv"), "--output": os.path.join(d, "out")})
    >>> check_roles({"input": os.path.join(d, "in.csv"),
    ...              "--rejects": os.path.join(d, ".", "in.csv")})
    Traceback (most recent call last):
    ...
    onlineboost.app.errors.RunError: input and --rejects name the same file ...
    """
    seen = {}
    for role, path in roles.items():
        if path in (None, "-"):
            continue
        ident = _identity(path)
        if ident is None:
            continue
        if ident in seen:
            raise RunError(f"{seen[ident]} and {role} name the same file ({path!r}): the run "
                           "would overwrite one with the other")
        seen[ident] = role
    for role in written:
        path = roles.get(role)
        if path in (None, "-"):
            continue
        directory = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(directory):
            raise RunError(f"{role} {path!r}: the directory {directory!r} does not exist")
        if os.path.isdir(path):
            raise RunError(f"{role} {path!r} is a directory")


class Lock:
    """An exclusive lock on a checkpoint (`fcntl.flock` on `<checkpoint>.lock`), held until
    `release()` or the process ends (a killed run leaves no stale lock: the kernel drops it).

    >>> import os, tempfile
    >>> from onlineboost.app.files import Lock
    >>> path = os.path.join(tempfile.mkdtemp(), "model.ckpt")
    >>> lock = Lock(path)
    >>> try:
    ...     Lock(path)
    ... except Exception as e:
    ...     print(type(e).__name__)
    RunError
    >>> lock.release()
    >>> Lock(path).release()
    """

    def __init__(self, checkpoint: str):
        import fcntl

        self.path = lock_path(checkpoint)
        try:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise RunError(f"cannot create the lock file {self.path!r}: {e.strerror}") from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._fd)
            self._fd = None
            raise RunError(f"checkpoint {checkpoint!r} is in use by another running "
                           f"`onlineboost run` (locked: {self.path!r})") from None

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None
