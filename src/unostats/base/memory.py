"""How a long run keeps its memory flat: glibc's allocator told to give large blocks back.

glibc's malloc raises its mmap threshold each time a large block is freed (up to 32 MB), after
which batch-sized arrays come from per-thread heaps that keep what is freed: a run's resident
memory then grew with every batch (600 MB and more at 100k games, measured). A fixed threshold
keeps every block of 128 kB or more in its own mapping, returned to the system when freed (the
page faults cost about a millisecond per batch). Elsewhere than glibc this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util

_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
MMAP_THRESHOLD = 128 * 1024
_done = False


def give_back_large_blocks() -> bool:
    """Fix glibc's mmap threshold for this process (once). Returns whether it was set."""
    global _done
    if _done:
        return True
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        _done = bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    except (OSError, AttributeError):  # not glibc (musl, macOS, Windows)
        return False
    return _done
