"""The kernel's int64 rows as narrow columns, in one pass (njit, no GIL): ``_output``'s copy-out.

``narrow`` reads a table of kernel rows a tile at a time and writes the columns it is asked for,
each cast to 64, 32, 16 or 8 bits, into the rows of one 2-D array per width (row k of ``out32``
is the k-th 32-bit column, contiguous: an Arrow array views it as it is), and the validity
bitmaps (Arrow's layout: bit i of byte i // 8, least significant first) of the columns that take
nulls, from any row on (a part's rows arrive a step of games at a time). numpy's casts read a
row-major buffer once per column, so a part's round rows came from memory once per column; here
once, a tile of rows at a time while it is in the cache. No rule lives here.
"""

from ._jit import kernel

TILE = 1024  # rows narrowed column by column at a time (about 220 kB of round rows: in L2)


@kernel(inline=True)
def _take(tile, take, out, j0):
    """tile[i, take[k]] -> out[k, j0 + i] for every row i of the tile (one width's columns)."""
    m = tile.shape[0]
    for k in range(take.shape[0]):
        c, dst = take[k], out[k, j0:j0 + m]
        for i in range(m):  # from 0 over views: no negative-index checks
            dst[i] = tile[i, c]


@kernel(entry=True)
def narrow(rows, at, take64, out64, take32, out32, take16, out16, take8, out8, nullable,
           null_value, bits, nulls):
    """rows[i, take64[k]] -> out64[k, at + i] for every row i (likewise 32, 16 and 8 bits). Bit
    at + i of bits[k] is set unless rows[i, nullable[k]] == null_value[k] (a null), which adds
    one to nulls[k]. ``bits`` and ``nulls`` come cleared (from 0 to ``at`` they hold the rows
    narrowed before); the other outputs need not be. A tile of rows at a time, column by
    column: each column's writes run on, which is faster than row by row."""
    n = rows.shape[0]
    for t0 in range(0, n, TILE):
        tile = rows[t0:min(n, t0 + TILE)]
        m, j0 = tile.shape[0], at + t0
        _take(tile, take64, out64, j0)
        _take(tile, take32, out32, j0)
        _take(tile, take16, out16, j0)
        _take(tile, take8, out8, j0)
        for k in range(nullable.shape[0]):
            c, null = nullable[k], null_value[k]
            for i in range(m):
                if tile[i, c] == null:
                    nulls[k] += 1
                else:
                    j = j0 + i
                    bits[k, j >> 3] |= 1 << (j & 7)
