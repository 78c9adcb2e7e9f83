"""Files unostats writes for the user (a report, the reports index, an export, a tuned seat):
where it may write, how it writes, and an ``OSError`` in words.

``check_output`` is the one rule every writer follows, checked before any work is done:

- a path too long for the file system, or under a file, is refused up front;
- the results store is never written over, even with ``--overwrite``: a DuckDB database (found
  by its header, whichever file it is), its ``.wal``, anything in a Parquet store's folder;
- nor is anything but a regular file (a FIFO, a device, a socket, a folder);
- an existing file is replaced only if unostats wrote it (``ours``) or with ``overwrite``.

``write_output`` writes through a temporary file in the same folder and renames it into place,
so a stopped write leaves no half file and a symbolic link at the path is replaced, never
written through. ``read_head`` reads the start of a file without ever blocking on a FIFO.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path

from ..sql import StoreError
from .parquet import MARKER as PARQUET_MARKER  # the file that makes a folder a store

NAME_MAX = 255  # bytes in one file name (Linux, macOS)
PATH_MAX = 4096  # bytes in a whole path (Linux)
DUCKDB_MAGIC = (8, b"DUCK")  # where a DuckDB database file says what it is


class OutputRefused(StoreError):
    """A path unostats will not write to (a usage error: the user names another)."""


def check_output(path: str | os.PathLike, *, overwrite: bool = False,
                 ours: Callable[[Path], bool] | None = None, option: str = "--out",
                 what: str = "the file") -> Path:
    """``path`` if unostats may write it, else raise ``OutputRefused`` (one sentence naming
    ``option``), or ``StoreError`` for a path no file can have (too long, under a file).
    ``ours(path)`` says whether an existing regular file is one unostats wrote (replaced
    without ``overwrite``)."""
    path = Path(path)
    shown = f"{option} {short_path(path)}"
    size = len(os.fsencode(path))
    longest = max((len(os.fsencode(p)) for p in path.parts), default=0)
    if size > PATH_MAX or longest > NAME_MAX:
        raise StoreError(f"cannot write {what} {short_path(path)}: the file name is too long for "
                         f"the file system ({size:,} bytes, a name of {longest:,}; at most "
                         f"{NAME_MAX} bytes a name and {PATH_MAX:,} in all); give a shorter one "
                         f"with {option}")
    store = results_store(path)
    if store:
        raise OutputRefused(f"{shown} is {store}: unostats never writes over the results "
                            "store, even with --overwrite; choose another file name")
    try:
        info = os.stat(path)  # through a link: what a write would reach
    except FileNotFoundError:
        return path
    except OSError as e:
        raise StoreError(f"cannot write {what} {short_path(path)}: "
                         f"{write_problem(e, path)}") from None
    if not stat.S_ISREG(info.st_mode):
        raise OutputRefused(f"{shown} is {_kind(info.st_mode)}, not a regular file: unostats "
                            "writes only regular files, even with --overwrite; choose another "
                            "file name")
    if not overwrite and not (ours is not None and ours(path)):
        raise OutputRefused(f"{shown} exists and unostats did not write it; choose another "
                            "file name, or add --overwrite to replace it")
    return path


def write_output(path: str | os.PathLike, write: str | Callable[[Path], None], *, what: str,
                 overwrite: bool = False, ours: Callable[[Path], bool] | None = None,
                 option: str = "--out") -> Path:
    """Write ``path`` (text, or ``write(temporary_path)`` that makes the file) after
    ``check_output``, creating its folder; a failure is a ``StoreError`` naming ``what``."""
    path = check_output(path, overwrite=overwrite, ours=ours, option=option, what=what)
    make_folder(path.parent, what=what)
    tmp = path.with_name(f".{secrets.token_hex(6)}.unostats.tmp")  # short: any name fits
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))  # umask applies
        if isinstance(write, str):
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(write)
        else:
            write(tmp)
        os.replace(tmp, path)
    except OSError as e:
        raise StoreError(f"cannot write {what} {short_path(path)}: "
                         f"{write_problem(e, path)}") from None
    finally:
        if os.path.lexists(tmp):
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return path


def make_folder(folder: Path, *, what: str = "the file") -> None:
    """Create ``folder`` and the folders above it (one at a time: no recursion, whatever the
    depth); a failure is a ``StoreError`` naming ``what``."""
    missing = []
    for p in (folder, *folder.parents):
        if os.path.isdir(p):
            break
        missing.append(p)
    try:
        for p in reversed(missing):
            os.mkdir(p)
    except OSError as e:
        raise StoreError(f"cannot write {what} in {short_path(folder)}: "
                         f"{write_problem(e, folder / 'x')}") from None


def results_store(path: Path) -> str | None:
    """What results store ``path`` is part of, in words (None: none): a DuckDB database, its
    write-ahead log, or a file in a Parquet store's folder."""
    real = Path(os.path.realpath(path))
    if _is_duckdb(real):
        return "a DuckDB results database"
    for side in (".wal", ".wal.checkpoint", ".wal.recovery"):  # what DuckDB keeps beside it
        if real.name.endswith(side) and _is_duckdb(real.with_name(real.name[:-len(side)])):
            return "a file DuckDB keeps beside a results database (its write-ahead log)"
    for folder in real.parents:
        if os.path.isfile(folder / PARQUET_MARKER):
            return f"in the Parquet results store {short_path(folder)}"
    return None


def _is_duckdb(path: Path) -> bool:
    if not is_regular(path):  # a device is never opened (opening some has effects)
        return False
    at, magic = DUCKDB_MAGIC
    head = read_head(path, at + len(magic))
    return head is not None and head[at:] == magic


def read_head(path: str | os.PathLike, size: int) -> bytes | None:
    """The first ``size`` bytes of a regular file; None for anything else (a FIFO is opened
    without waiting for a writer, then left alone) or when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, size)
    except OSError:
        return None
    finally:
        os.close(fd)


def is_regular(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a regular file (through a link), without opening it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def short_path(path: str | os.PathLike, most: int = 120) -> str:
    """A path for a message: a long one as its start, its end and its length."""
    text = os.fsdecode(path).encode("utf-8", "surrogateescape").decode("utf-8",
                                                                        "backslashreplace")
    if len(text) <= most:
        return text
    return f"{text[:most // 2]}...{text[-most // 4:]} ({len(text):,} characters)"


def write_problem(e: OSError, path: Path) -> str:
    """An OSError while writing ``path`` in words, with what to do."""
    if e.errno == errno.ENAMETOOLONG:
        return "the file name is too long for the file system; give a shorter one with --out"
    if e.errno in (errno.ENOTDIR, errno.EEXIST) and not path.parent.is_dir():
        return f"{short_path(_first_non_folder(path.parent))} is a file, not a folder"
    if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"{e.strerror} (the folder is not writable); choose another --out"
    if e.errno == errno.ENOSPC:
        return "no space left on the device"
    if e.errno == errno.ELOOP:
        return "too many levels of symbolic links"
    return e.strerror or str(e)


def _first_non_folder(folder: Path) -> Path:
    for p in reversed((folder, *folder.parents)):
        if p.exists() and not p.is_dir():
            return p
    return folder
