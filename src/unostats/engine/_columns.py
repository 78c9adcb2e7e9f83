"""The kernel's int64 rows as narrow columns, in one pass (njit, no GIL): simulate.py's copy-out.

``narrow`` reads each row of a table of kernel rows once and writes the columns it is asked for,
each cast to 64, 32, 16 or 8 bits, into the rows of one 2-D array per width (row k of ``out32``
is the k-th 32-bit column, contiguous: an Arrow array views it as it is), and the validity
bitmaps (Arrow's layout: bit i of byte i // 8, least significant first) of the columns that take
nulls. numpy's casts read a row-major buffer once per column: at 2 players a part's round rows
(7 MB) are read 27 times from memory; here once. No rule lives here.
"""

from ._jit import kernel


@kernel(entry=True)
def narrow(rows, take64, out64, take32, out32, take16, out16, take8, out8, nullable, null_value,
           bits, nulls):
    """rows[i, take64[k]] -> out64[k, i] for every row i (likewise 32, 16 and 8 bits). Bit i of
    bits[k] is 0 where rows[i, nullable[k]] == null_value[k] (a null), 1 elsewhere; nulls[k]
    counts the nulls. The output arrays need not be cleared."""
    n = rows.shape[0]
    for k in range(nullable.shape[0]):
        nulls[k] = 0
        for b in range(bits.shape[1]):
            bits[k, b] = 0
    for i in range(n):
        row = rows[i]
        for k in range(take64.shape[0]):
            out64[k, i] = row[take64[k]]
        for k in range(take32.shape[0]):
            out32[k, i] = row[take32[k]]
        for k in range(take16.shape[0]):
            out16[k, i] = row[take16[k]]
        for k in range(take8.shape[0]):
            out8[k, i] = row[take8[k]]
        for k in range(nullable.shape[0]):
            if row[nullable[k]] == null_value[k]:
                nulls[k] += 1
            else:
                bits[k, i >> 3] |= 1 << (i & 7)
