"""Files the store and the report write: an ``OSError`` in words, with what to do."""

from __future__ import annotations

import errno
from pathlib import Path


def write_problem(e: OSError, path: Path) -> str:
    """An OSError while writing ``path`` in words, with what to do."""
    if e.errno == errno.ENAMETOOLONG:
        return "the file name is too long for the file system; give a shorter one with --out"
    if e.errno in (errno.ENOTDIR, errno.EEXIST) and not path.parent.is_dir():
        return f"{_first_non_folder(path.parent)} is a file, not a folder"
    if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"{e.strerror} (the folder is not writable); choose another --out"
    if e.errno == errno.ENOSPC:
        return "no space left on the device"
    return e.strerror or str(e)


def _first_non_folder(folder: Path) -> Path:
    for p in reversed((folder, *folder.parents)):
        if p.exists() and not p.is_dir():
            return p
    return folder
