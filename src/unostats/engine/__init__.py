"""The simulation engine. Importing this package does not compile anything.

ENGINE_VERSION changes whenever game semantics change (same seed, different games); stored runs
record it so results are only compared or resumed under the engine that made them.

History:
1  official rules: D1, D2, S1, S2 official/number_only, S3, P1, P2, P4 official, P5
   one_may_play, P6, P7, A1, U1, R1, R2.
2  after a black first card that stays no colour is current (P2/P4 restriction and guilt);
   S2 extreme; P5 one_then_pass, two, until_playable; P7 colour_cycle.
3  the turn variants (P3, P4 house/extreme, A2-A8, J1-J4, N3) and the strategist
   policy; games under rules without them are unchanged.
4  the number-card, deck, scoring and round rules (N1, N2, N4-N6, U1 off, U2, D3-D6, R3-R10); a seat that jumps in on its
   own 8 (N6) no longer goes out before covering it; games under rules without them are
   unchanged.
5  under round_end to_the_last the card that empties a hand is not challenged (P4): its seat
   has finished and takes no part in anything (it used to be caught bluffing, take the card back
   and draw while counted as finished); games under other round modes, or without restricted
   black cards, are unchanged.
6  one mechanism for the policies: every bundled policy but the strategist is a preset of the
   weights of a policy written as data (seats.PRESETS), played by the same kernel code. So the
   card a seat gives away (N2 five_swap, D5 swap_one_with_next) is the one its preset scores
   best (first_legal: the lowest card id; high_value_first: the most points, ties at random and
   so with a draw; the class presets: one of their most preferred class, at random), no longer
   "numbers, then actions, then black, the most points" (which the strategist keeps); random's
   N3 two_matching extra number is drawn over the candidates in card-id order; number_first
   prefers a black card of the top card's kind to the other black cards. Games of random,
   first_legal, colour_first, actions_first, save_actions, high_value_first, wild_last and the
   strategist under rules without N2, D5 and (for random) N3 two_matching are unchanged. A
   seat answering a pending penalty (A3-A6) chooses its answer after its turn's N5 silence and
   U2 mistake draws, which may bring answers, as docs/engine.md says (it chose before them: a
   policy written as data could answer with a card it did not score best). A chain of jump-ins
   on one card ends after as many jump-ins as the deck holds copies of it (J1: a jumper caught
   forgetting UNO after a reshuffle drew back the card below and jumped in with it again, past
   the end of the kernel's jumpers array).
7  the expert (seats.SearchPolicy) plays other cards: its deals of the unseen cards give no seat
   a card of a kind it showed it lacked (it drew for want of a legal card), and it keeps its
   playout policy's card unless another beats it by more than a standard error (it played the
   best total). Games without an expert are unchanged.
"""

ENGINE_VERSION = 7
