"""The kernel's int64 columns as narrow columns, in one pass (njit, no GIL): simulate.py's copy-out.

The kernel writes its outputs column-major (``_layout``): column c of a table's rows is
``cols[c, :m]``, contiguous. ``narrow`` casts the columns it is asked for to 64, 32, 16 or 8 bits
into the rows of one 2-D array per width (row k of ``out32`` is the k-th 32-bit column,
contiguous: an Arrow array views it as it is), each a contiguous loop LLVM vectorises, and writes
bitmaps (Arrow's layout: bit i of byte i // 8, least significant first): the validity of the
columns that take nulls, and the values of the boolean ones; from any row on (a part's rows
arrive a step of games at a time). No rule lives here.
"""

from ._jit import kernel


@kernel(inline=True)
def _take(cols, m, take, out, at):
    """cols[take[k], i] -> out[k, at + i] for i < m (one width's columns)."""
    for k in range(take.shape[0]):
        src, dst = cols[take[k], :m], out[k, at:at + m]
        for i in range(m):  # from 0 over views: no negative-index checks
            dst[i] = src[i]


@kernel(inline=True)
def _bitmap(src, m, unset, row, at):
    """Bit at + i of ``row`` set for each i < m with src[i] != unset, a byte at a time (the
    bits of rows before ``at`` are kept); returns how many are not set."""
    left = 0
    i = 0
    while i < m:
        j = at + i
        first = j & 7
        end = min(m, i + 8 - first)  # the rows of byte j >> 3
        byte = 0
        for q in range(i, end):
            bit = 1 if src[q] != unset else 0
            byte |= bit << (first + q - i)
            left += 1 - bit
        row[j >> 3] |= byte
        i = end
    return left


@kernel(entry=True)
def narrow(cols, m, at, take64, out64, take32, out32, take16, out16, take8, out8, bitcols,
           unset, bits, unset_count):
    """cols[take64[k], i] -> out64[k, at + i] for every row i < m (likewise 32, 16 and 8
    bits). Bit at + i of bits[k] is set unless cols[bitcols[k], i] == unset[k], which adds one
    to unset_count[k]. ``bits`` and ``unset_count`` come cleared (from 0 to ``at`` they hold
    the rows narrowed before); the other outputs need not be."""
    _take(cols, m, take64, out64, at)
    _take(cols, m, take32, out32, at)
    _take(cols, m, take16, out16, at)
    _take(cols, m, take8, out8, at)
    for k in range(bitcols.shape[0]):
        unset_count[k] += _bitmap(cols[bitcols[k], :m], m, unset[k], bits[k], at)
