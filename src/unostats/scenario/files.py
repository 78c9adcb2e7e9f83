"""Reading a scenario file: regular files only, bounded in size, UTF-8."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..checking.problems import Problem, ScenarioError

MAX_FILE_BYTES = 4 << 20  # the largest bundled scenario is ~20 kB


def read_scenario_file(path: Path) -> str:
    """The text of a scenario file: a regular file only (a FIFO, a device or a folder would
    block or never end), at most MAX_FILE_BYTES, UTF-8."""
    def fail(message: str) -> ScenarioError:
        return ScenarioError([Problem(str(path), None, "", message)])

    try:  # O_NONBLOCK: opening a FIFO must not wait for a writer
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise fail(f"cannot read the file: {e.strerror or e}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = ("a folder" if stat.S_ISDIR(info.st_mode) else
                    "a FIFO (named pipe)" if stat.S_ISFIFO(info.st_mode) else
                    "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
                    else "a socket" if stat.S_ISSOCK(info.st_mode) else "not a regular file")
            raise fail(f"is {kind}; a scenario must be a regular file")
        if info.st_size > MAX_FILE_BYTES:
            raise fail(f"is {info.st_size:,} bytes; a scenario file has at most "
                       f"{MAX_FILE_BYTES:,}")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise fail(f"cannot read the file: {e.strerror or e}") from None
    finally:
        os.close(fd)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ScenarioError([Problem(str(path), line, "", f"not UTF-8 text: byte 0x{data[e.start]:02x} "
                                     "cannot be decoded (save the file as UTF-8)")]) from None
