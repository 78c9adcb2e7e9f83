"""The compiled pass of ``keep.game_totals``: each round of a batch added to its game's totals,
from the standings after it too (who leads, who is last, the winner's deficit). Numba, so only
a run that keeps games or summary imports it (readers import no compiler)."""

import numba


@numba.njit(cache=True, nogil=True)
def totals(first, rg, rr, dealer, turns, points, ended, position, measured, valid, sg, sr, ss,
            score, players, sign, winners, out, counts, state):  # pragma: no cover (compiled)
    """Add each round of a part of a batch to its game's totals (``out``'s columns: ``_OUT``;
    ``counts``: each measure's non-NULL values; ``ended``: 0 won, 1 capped; ``state``: the last
    game, round and leader, carried from part to part). False if the rounds are not in (game,
    round) order or their seats not in (game, round, seat) order, ``players`` each."""
    if sg.size != rg.size * players:
        return False
    last_game, last_round, leader_before = state[0], state[1], state[2]
    for i in range(rg.size):
        g, r = rg[i] - first, rr[i]
        if g < last_game or (g == last_game and r <= last_round) or g >= winners.size:
            return False
        if g != last_game:
            out[g, 0] = dealer[i]
            leader_before = -1
        last_game, last_round = g, r
        out[g, 1] += 1
        t = turns[i]
        out[g, 4] += t
        out[g, 5] += float(t) * t
        if ended[i] == 0:
            out[g, 2] += 1
            p = points[i]
            out[g, 6] += p
            out[g, 7] += float(p) * p
            if position[i] == 0:
                out[g, 8] += 1
        elif ended[i] == 1:
            out[g, 3] += 1
        row = 9
        for k in range(measured.shape[0]):  # the first two with their squares
            if valid[k, i]:
                v = measured[k, i]
                counts[g, k] += 1
                out[g, row] += v
                if k < 2:
                    out[g, row + 1] += float(v) * v
            row += 2 if k < 2 else 1
        # the standings after the round: the seat alone at the top leads, the seat alone at the
        # bottom is last (a tie: nobody)
        base = i * players  # the round's seats: its block of ``players`` rows, seat by seat
        if sg[base] - first != g or sr[base] != r or ss[base] != 0:
            return False
        best = worst = sign * score[base]
        leader, last, n_best, n_worst = 0, 0, 1, 1
        for j in range(1, players):
            if ss[base + j] != j:
                return False
            v = sign * score[base + j]
            if v > best:
                best, leader, n_best = v, j, 1
            elif v == best:
                n_best += 1
            if v < worst:
                worst, last, n_worst = v, j, 1
            elif v == worst:
                n_worst += 1
        if n_best > 1:
            leader = -1
        if n_worst > 1:
            last = -1
        if leader >= 0:
            if leader_before >= 0 and leader != leader_before:
                out[g, 17] += 1
            leader_before = leader
        w = winners[g]
        if w >= 0:
            deficit = best - sign * score[base + w]
            if deficit > out[g, 19]:
                out[g, 19] = deficit
            if last == w:  # 2: it stood last; 1: others did; 0: nobody alone (NULL)
                out[g, 18] = 2
            elif last >= 0 and out[g, 18] == 0:
                out[g, 18] = 1
            if leader != w:
                out[g, 20] = r
    state[0], state[1], state[2] = last_game, last_round, leader_before
    return True
