"""Files that are either complete or absent (run folders, reports)."""
from __future__ import annotations

import errno
import os
import stat
import tempfile
from typing import Any, Callable


def not_a_file(path: str) -> str | None:
    """Why ``path``, which should name a file to read, does not: ``not found``, ``is a folder`` or ``is not a
    regular file (a device or a pipe?)``; None for a regular file."""
    if os.path.isfile(path):
        return None
    if not os.path.exists(path):
        return "not found"
    if os.path.isdir(path):
        return "is a folder"
    return "is not a regular file (a device or a pipe?)"


#: the largest JSON or TOML file sensei reads (a config, or a run folder's summary, manifest or resume state;
#: the largest a run writes is well under a megabyte)
TEXT_LIMIT = 64 * 2 ** 20


def read_limited(path: str, limit: int = TEXT_LIMIT) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes. ``FileNotFoundError`` (an OSError)
    where it is missing; ValueError naming the problem where it is no regular file (a pipe is opened without
    waiting for a writer, so that it cannot hang the reader) or larger than ``limit`` (damaged, or not the
    file it should be), so that a caller's ``except (OSError, ValueError)`` gives its one line."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("is not a regular file (a device or a pipe?)" if not stat.S_ISDIR(st.st_mode)
                             else "is a folder")
        if st.st_size > limit:
            raise ValueError(f"is {st.st_size:,} bytes, more than the {limit:,} such a file may have (damaged, or "
                             "not the file it should be?)")
        with os.fdopen(fd, "rb") as fh:
            fd = -1
            data = fh.read(limit + 1)
        if len(data) > limit:  # (grew while being read)
            raise ValueError(f"is more than the {limit:,} bytes such a file may have")
        return data
    finally:
        if fd >= 0:
            os.close(fd)


def atomic_write(path: str, write: Callable[[Any], None], binary: bool = True, sync_dir: bool = True) -> None:
    """Write ``path`` so that it is either complete or absent: ``write(fh)`` fills a temporary file in
    the same folder, which is flushed, fsynced and renamed over ``path``; then the folder is fsynced
    (``sync_dir``), so that the new name also survives a power failure."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        full = _os_error_of(exc, path)
        if full is not None:
            raise full from exc
        raise
    if sync_dir:
        _fsync_dir(folder)


#: what a writer that is not Python's own (polars' parquet writer) says when the system refuses a write
_SYSTEM_REFUSALS = {"No space left on device": errno.ENOSPC, "Disk quota exceeded": errno.EDQUOT,
                    "Read-only file system": errno.EROFS}


def _os_error_of(exc: BaseException, path: str) -> OSError | None:
    """The OSError that ``exc`` stands for when a writer reported the system's refusal as an error of its
    own (polars raises ``ComputeError: ... No space left on device``), so that callers see an OSError."""
    if isinstance(exc, OSError) or not isinstance(exc, Exception):
        return None
    text = str(exc)
    for words, code in _SYSTEM_REFUSALS.items():
        if words in text:
            return OSError(code, words, path)
    return None


def _fsync_dir(folder: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # some platforms cannot open a folder; the rename itself is still atomic
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
