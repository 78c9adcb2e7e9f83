"""The kernels' data layout: the rule options, the table record and the output columns.

Plain numpy, no Numba: simulate.py builds these and reads the outputs, the jitted family files
read and write them. Every kernel takes the two instead of long argument lists:

``opt`` (``Options``, a NamedTuple): one int64 field per option of the rule table
    (``rules.RULE_OPTIONS``), named by its scenario key (``opt.stack_draw_two``) and holding
    ``RuleOption.code`` of the value (an enum's index in its ``values``, a bool as 0/1, an integer
    as itself). Built from the rule table, so a new option needs no change here. A tuple of
    scalars is a value: LLVM keeps the fields it reads in registers (as a structured record, read
    through memory, it made a turn 25% slower: every store to the table might have changed it).

``st`` (``TABLE``, a structured record): everything a game changes, as named fields (below), plus
    the seats' policies, behaviour, the card points and the deck to deal, copied in once per
    call; ``COUNTING_TABLE`` adds the counters of how a round plays (games that count it). A record reaches a jitted function as a pointer: passing it costs no reference
    counting, so the helpers of the turn loop take records and scalars only and need no inlining
    to be fast.

Trace events go to ``st.ring`` and the game loop moves them to the caller's trace array after each
step (``_table.flush``), so no helper needs the trace array either.
"""

from collections import namedtuple

import numpy as np

from .. import cards, codes, rules

MAX_SEATS = 10
# The largest deck a scenario may build: every deck key at the top of rules.DECK_RANGE.
MAX_CARDS = (cards.N_COLOURS * (1 + 9 + 3) + 7) * rules.DECK_RANGE[1]
MAX_JUMPS = rules.DECK_RANGE[1] + 1  # jump-ins in one turn: at most the copies of a card type
SHOWN = 4  # the showings of an empty hand (of legal cards) an expert remembers per seat
# Trace rows one step of the game loop may record before a flush: every card of the largest
# deck drawn (each after a reshuffle) with room to spare.
RING = 4 * MAX_CARDS

Options = namedtuple("Options", [o.key for o in rules.RULE_OPTIONS])


def options_record(rule_set: rules.RuleSet) -> Options:
    """The kernel codes of ``rule_set``'s values, as Python ints: Numba types them int64 as
    it does numpy's, and reads their type at each engine call in half the time."""
    return Options(*(int(o.code(rule_set.values[o.key])) for o in rules.RULE_OPTIONS))


_FIELDS = [
    # The call: seats, scripted decks, tracing.
    ("n", np.int64),  # seats at the table
    ("tracing", np.int64),  # 1: record every event
    ("stacked", np.int64),  # 1: the deck order is scripted (tests); draws take the top card
    ("ring_n", np.int64),  # trace rows in ``ring`` since the last flush
    ("tpos", np.int64),  # trace rows flushed so far (may pass the trace's end: see _trace)
    ("policy", np.int64, (MAX_SEATS,)),  # B2 policy code per seat (codes.POLICY_*)
    ("behaviour", np.float64, (MAX_SEATS, codes.N_BEHAVIOUR)),  # B1 probabilities per seat
    # The weights a seat plays by (codes.F_*; a bundled preset's too), its colour and ties.
    ("weights", np.float64, (MAX_SEATS, codes.N_FEATURES)),
    ("colour_random", np.int64, (MAX_SEATS,)),  # 1: a black card names a random colour
    ("ties_first", np.int64, (MAX_SEATS,)),  # 1: ties go to the lowest card id, 0: at random
    # The expert (engine/_expert.py): deals sampled per choice of card (0: the seat plays its
    # policy, which for an expert is its playout policy), 1 where it sees every hand, 1 where
    # its goal is rounds won (0: what the scoring counts), 1 where it searches the colour a
    # black card names (0: its playout policy names it).
    ("budget", np.int64, (MAX_SEATS,)),
    ("sees_all", np.int64, (MAX_SEATS,)),
    ("rounds_goal", np.int64, (MAX_SEATS,)),
    ("colour_search", np.int64, (MAX_SEATS,)),
    ("resume", np.int64),  # a playout's first card: the candidate it plays out (-1: none)
    ("named", np.int64),  # 1 + the colour the next black card names (a search's), 0: the policy's
    ("searches", np.int64),  # the experts' searches so far (benchmarks read it)
    ("side_key", np.uint64),  # the game's side stream (_rng.side_quarter): random colours
    ("side_n", np.int64),  # draws made from it so far
    ("points", np.int64, (cards.N_TYPES,)),  # D2 scoring value per card type
    ("full", np.uint8, (MAX_CARDS,)),  # the draw pile before a deal (top last), ncards cards
    ("ncards", np.int64),
    ("acceptable", np.int64),  # S2: cards of the deck that may stay as the first discard
    # The game.
    ("scores", np.int64, (MAX_SEATS,)),  # running totals (R2-R5)
    ("lost", np.int64, (MAX_SEATS,)),  # R6 lazy: rounds each seat lost
    # The cards of the round.
    ("hand", np.int64, (MAX_SEATS, cards.N_TYPES)),  # copies of each card type per seat
    ("hcol", np.int64, (MAX_SEATS, cards.N_COLOURS + 1)),  # cards per colour (4: black)
    ("hsize", np.int64, (MAX_SEATS,)),  # cards held
    ("piles", np.uint8, (2, MAX_CARDS)),  # DRAW_PILE[:npile], DISCARDS[:ndisc] (top last)
    ("npile", np.int64),
    ("ndisc", np.int64),
    # The table: what the next move plays on.
    # uint8 (as the card tables): LLVM then knows colour * 13 + rank is no negative index and
    # drops Numba's negative-index fix-up of every hand lookup built from them.
    ("col", np.uint8),  # current colour (4: none, after a black first card that stays)
    ("rank", np.uint8),  # rank of the top card
    ("dir", np.int64),  # direction of play: 1 clockwise, -1 counter-clockwise
    ("winner", np.int64),  # the round's winner once a seat has gone out, else -1
    # Pending penalties and runs (A3-A7).
    ("pending", np.int64),  # cards owed by the seat that acts next, 0 if none
    ("pending_reason", np.int64),  # the chain's kind: DRAW_DRAW_TWO or DRAW_DRAW_FOUR
    ("escalation", np.int64),  # A6 extreme: value of the open +2/Reverse sequence, 0 if closed
    ("skip_run", np.int64),  # A7: players the last Skip skipped
    # Jump-ins (J1-J4): the seats of a turn's jump-ins, and the last one's card, whether its
    # player held the colour it covered (P4) and that colour.
    ("jumpers", np.int64, (MAX_JUMPS,)),
    ("jump_card", np.int64),
    ("jump_guilty", np.int64),
    ("jump_colour", np.int64),
    # Number-card rules (N5, N6).
    ("silence_owner", np.int64),  # the seat whose next turn ends a seven/two silence, else -1
    ("silence_colour", np.int64),  # the colour whose change ends a black silence, else -1
    ("cover", np.int64),  # 1: the seat the effect returned must now cover its 8
    # Round modes and scoring (R8-R10).
    ("hands", np.int64, (MAX_SEATS,)),  # R10: hands each seat has emptied
    ("place", np.int64, (MAX_SEATS,)),  # R9: finishing place, 0 while in the round
    ("bonus", np.int64, (MAX_SEATS,)),  # R8: what the hand-emptying card takes off the score
    ("out", np.int64),  # R9: bit mask of the seats that have finished
    ("left", np.int64),  # R9: seats in the round
    ("counters", np.int64, (codes.N_COUNTERS,)),  # the round's counters (codes.C_*)
    ("largest_penalty", np.int64),  # the most penalty cards one seat drew at once this round
]
# How the round plays (_measures), in the tables of the games that count it only: the hand
# leader (-1: none yet) and its changes, each seat's largest deficit to the fewest cards held,
# decisions and UNO stops per seat.
_COUNTING_FIELDS = [
    ("leader", np.int64),
    ("leader_changes", np.int64),
    ("decision_turns", np.int64),
    ("legal_on_decisions", np.int64),
    ("deficit", np.int64, (MAX_SEATS,)),
    ("stops", np.int64, (MAX_SEATS,)),
    ("held", np.int64, (MAX_SEATS,)),  # the card types each seat holds, a bit each (_cards.add)
]
# What the experts' deals of unseen cards respect (engine/_expert.py "inference"), in the tables
# of the games that seat an expert only: the cards each seat has taken this game, and its last
# SHOWN showings of holding no card legal on the table (latest first): the card types then
# legal, a bit each, and its intake then.
_SEARCH_FIELDS = [
    ("intake", np.int64, (MAX_SEATS,)),
    ("shown", np.int64, (MAX_SEATS,)),
    ("shown_mask", np.int64, (MAX_SEATS, SHOWN)),
    ("shown_intake", np.int64, (MAX_SEATS, SHOWN)),
]
_RING = [("ring", np.int64, (RING, 4))]  # trace rows (kind, seat, a, b) not yet flushed
TABLE = np.dtype(_FIELDS + _RING, align=True)
# The table of games that count how each round plays: its type tells the kernels to count
# (_table.counts), so a game that does not count neither keeps nor stores a counter.
COUNTING_TABLE = np.dtype(_FIELDS + _COUNTING_FIELDS + _RING, align=True)
# The tables of games that seat an expert (_table.searched: the kernels keep each seat's
# intake), without and with counting.
SEARCH_TABLES = (np.dtype(_FIELDS + _SEARCH_FIELDS + _RING, align=True),
                 np.dtype(_FIELDS + _COUNTING_FIELDS + _SEARCH_FIELDS + _RING, align=True))

# One game of a call that plays a game per entry (``play_games``' ``setups``): its seats and its
# random stream (``seed_stream(seed, stream)``: game ``stream`` of a run seeded ``seed``). The
# table size, rules and deck are the call's.
GAME_SETUP = np.dtype([
    ("seed", np.uint64),
    ("stream", np.int64),
    ("policy", np.int64, (MAX_SEATS,)),
    ("behaviour", np.float64, (MAX_SEATS, codes.N_BEHAVIOUR)),
    ("weights", np.float64, (MAX_SEATS, codes.N_FEATURES)),
    ("colour_random", np.int64, (MAX_SEATS,)),
    ("ties_first", np.int64, (MAX_SEATS,)),
    ("budget", np.int64, (MAX_SEATS,)),
    ("sees_all", np.int64, (MAX_SEATS,)),
    ("rounds_goal", np.int64, (MAX_SEATS,)),
    ("colour_search", np.int64, (MAX_SEATS,)),
], align=True)

# Rows of ``st.piles``.
DRAW_PILE = 0
DISCARDS = 1

# Columns of the round output (the counters, then the largest penalty and how the round played,
# at the end).
RO_GAME = 0
RO_ROUND = 1
RO_DEALER = 2
RO_FIRST = 3
RO_WINNER = 4
RO_WINNER_POS = 5
RO_ENDED_BY = 6
RO_POINTS = 7
RO_LOSER = 8  # R6 lazy, R9 to_the_last: the round's loser (-1: none)
RO_COUNTERS = 9
RO_LARGEST_PENALTY = RO_COUNTERS + codes.N_COUNTERS  # most penalty cards drawn at once
RO_HAND_LEADER_CHANGES = RO_LARGEST_PENALTY + 1  # _measures: how the round played
RO_WINNER_LARGEST_DEFICIT = RO_HAND_LEADER_CHANGES + 1  # -1: no winner
RO_DECISION_TURNS = RO_WINNER_LARGEST_DEFICIT + 1
RO_LEGAL_CARDS_ON_DECISIONS = RO_DECISION_TURNS + 1
RO_UNO_STOPS = RO_LEGAL_CARDS_ON_DECISIONS + 1
RO_UNO_STOPS_STILL_WON = RO_UNO_STOPS + 1
N_RO = RO_UNO_STOPS_STILL_WON + 1

# Columns of the round-seat output [round, seat, col].
RS_POSITION = 0
RS_CARDS_LEFT = 1
RS_HAND_POINTS = 2
RS_SCORE_AFTER = 3
RS_HANDS_EMPTIED = 4
RS_FINISH_PLACE = 5  # R9: 1.. in finishing order; 1 for the winner of other modes; 0: none
N_RS = 6

# Columns of the game output.
GO_GAME = 0
GO_ROUNDS = 1
GO_TURNS = 2
GO_FIRST = 3
GO_WINNER = 4
GO_MARGIN = 5
GO_ENDED_BY = 6
N_GO = 7

# Columns of the game-seat output [game, seat, col].
GS_FINAL_SCORE = 0
GS_RANK = 1
GS_IS_LOSER = 2
N_GS = 3
