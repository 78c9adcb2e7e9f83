"""Integer codes shared by the kernels, the referee and the store that are no rule value.

Only constants live here: policy and behaviour indices, features, trace event kinds, draw
reasons and per-round counters. A rule value's code is derived from its row of the rule table
(rules.py ``VALUE_CODES``).
"""

# --- How the kernel chooses a seat's card (B2). Bundled policies are presets of weights
# (seats.PRESETS) but those seats.CODED lists, each with a code POLICY_<NAME> of its own
# (tests/test_codes.py checks).
POLICY_SCORED = 0  # by the seat's weights (a policy written as data, or a preset)
POLICY_UNIFORM = 1  # by weights that are all 0: every card scores the same, no score computed
POLICY_STRATEGIST = 2  # the strategist's ranked classes (engine/_policies.py)

# --- Features a weighted policy scores a card by: columns of the float64 [seats, N_FEATURES]
# weights (docs/engine.md "Policies as data"). The first ten are card kinds (0 or 1).
F_NUMBER = 0
F_SKIP = 1
F_REVERSE = 2
F_DRAW_TWO = 3
F_WILD = 4
F_WILD_DRAW_FOUR = 5
F_BLANK = 6
F_HIT_ALL = 7
F_SWAP_HANDS = 8
F_CUSTOM_WILD = 9
F_POINTS = 10  # the card's scoring value
F_COLOUR_MATCH = 11  # 1: a coloured card of the current colour
F_RANK_MATCH = 12  # 1: the same number or symbol as the top card
F_COLOUR_HELD = 13  # other cards of its colour in the hand (black counts as a colour)
F_RANK_HELD = 14  # other cards of its number or symbol in the hand
F_LINKS = 15  # other cards sharing its colour or its number or symbol
F_ATTACK = 16  # 1: Skip, Reverse, Draw Two or Wild Draw Four while the next seat holds <= 2
N_FEATURES = 17
FEATURE_NAMES = ("number", "skip", "reverse", "draw_two", "wild", "wild_draw_four", "blank",
                 "hit_all", "swap_hands", "custom_wild", "points", "colour_match", "rank_match",
                 "colour_held", "rank_held", "links", "attack")

# --- Behaviour (B1 probabilities, the reaction weight, P5's keep_drawn): columns of the float64
# [seats, N_BEHAVIOUR] array. ---
B_FORGET_UNO = 0
B_CATCH_UNO = 1
B_CHALLENGE = 2
B_BLUFF = 3
B_JUMP_IN = 4
B_SILENCE_BREAK = 5
B_MISTAKE = 6
B_REACTION = 7
B_KEEP_DRAWN = 8
N_BEHAVIOUR = 9

# --- Trace events: rows of an int64 [n, 4] array (kind, seat, a, b); -1 where unused. ---
EV_ROUND_START = 1  # seat = dealer, a = round number (from 1)
EV_DEAL = 2  # seat receives card a
EV_FLIP = 3  # card a turned up as a candidate first discard
EV_FLIP_RETURN = 4  # card a goes back into the draw pile (first_card rule), flip again
EV_TURN = 5  # seat starts a turn (turns counter +1)
EV_PLAY = 6  # seat plays card a onto the discard pile
EV_COLOUR = 7  # seat names colour a (after a black card)
EV_DRAW = 8  # seat draws card a; b = draw reason (DRAW_*)
EV_DRAW_FAIL = 9  # seat should draw but both piles are exhausted; b = draw reason
EV_PASS = 10  # seat ends its turn without playing
EV_SKIP = 11  # seat misses its turn
EV_DIRECTION = 12  # direction becomes a (+1 clockwise, -1 counter-clockwise)
EV_CHALLENGE = 13  # seat challenges seat a's black card; b = 1 guilty, 0 innocent
EV_UNO_CALL = 14  # seat calls UNO
EV_UNO_MISS = 15  # seat forgot UNO; a = catching seat or -1 if nobody noticed
EV_RESHUFFLE = 16  # a cards of the discard pile (all but its top) become the draw pile
EV_ROUND_END = 17  # seat = winner (-1 if capped); a = ROUND_END_*; b = points of the round
EV_SCORE = 18  # seat: a = hand points left, b = score after the round
EV_GAME_END = 19  # seat = game winner (-1 if capped); a = GAME_END_*
EV_JUMP_IN = 20  # seat plays card a out of turn (J1, A8)
EV_TAKE_BACK = 21  # seat takes its challenged black card a back into its hand (P4 house/extreme)
# Number-card rules, deck extras, scoring and round modes (docs/engine.md).
EV_MISTAKE = 22  # seat makes a rule mistake (U2); a = cards it draws for it
EV_SLAP = 23  # seat is the slowest in a slap (N4) and draws; a = seat that started it, b = SLAP_*
EV_SILENCE_BREAK = 24  # seat breaks a silence (N5); a = cards it draws for it
EV_SWAP_HANDS = 25  # seat swaps its whole hand with seat a (N1 seven, D5 Wild Swap Hands)
EV_PASS_HANDS = 26  # every hand in the round moves on in direction a (N1 zero); seat = player
EV_GIVE = 27  # seat gives card a to seat b (N2 five swap, D5 swap one with the next player)
EV_FINISH = 28  # seat has emptied its hand and leaves the round in place a, from 1 (R9)
EV_NEW_HAND = 29  # seat emptied its hand number a and draws b new cards (R10 seven_rounds)

EVENT_NAMES = {
    EV_ROUND_START: "round_start",
    EV_DEAL: "deal",
    EV_FLIP: "flip",
    EV_FLIP_RETURN: "flip_return",
    EV_TURN: "turn",
    EV_PLAY: "play",
    EV_COLOUR: "colour",
    EV_DRAW: "draw",
    EV_DRAW_FAIL: "draw_fail",
    EV_PASS: "pass",
    EV_SKIP: "skip",
    EV_DIRECTION: "direction",
    EV_CHALLENGE: "challenge",
    EV_UNO_CALL: "uno_call",
    EV_UNO_MISS: "uno_miss",
    EV_RESHUFFLE: "reshuffle",
    EV_ROUND_END: "round_end",
    EV_SCORE: "score",
    EV_GAME_END: "game_end",
    EV_JUMP_IN: "jump_in",
    EV_TAKE_BACK: "take_back",
    # number-card rules, deck extras, scoring and round modes
    EV_MISTAKE: "mistake",
    EV_SLAP: "slap",
    EV_SILENCE_BREAK: "silence_break",
    EV_SWAP_HANDS: "swap_hands",
    EV_PASS_HANDS: "pass_hands",
    EV_GIVE: "give",
    EV_FINISH: "finish",
    EV_NEW_HAND: "new_hand",
}

# Why a card is drawn (b of EV_DRAW / EV_DRAW_FAIL).
DRAW_NORMAL = 0  # no legal card (P5)
DRAW_DRAW_TWO = 1  # penalty of a Draw Two
DRAW_DRAW_FOUR = 2  # penalty of a Wild Draw Four
DRAW_CHALLENGE = 3  # penalty of a challenge (either side)
DRAW_UNO = 4  # caught without calling UNO
# number-card rules and deck extras (penalties, except cover: a normal draw, and refill: neither)
DRAW_MISTAKE = 5  # a rule mistake (U2)
DRAW_SLAP = 6  # slowest in a slap (N4)
DRAW_SILENCE = 7  # broke a silence (N5)
DRAW_COVER = 8  # drawn until the player can cover its 8 (N6)
DRAW_BLANK = 9  # a blank played as +10 (D3)
DRAW_HIT_ALL = 10  # an H2O hit-all +1 / +2 (D4)
DRAW_CUSTOM_WILD = 11  # a customizable wild: everyone draws two (D5)
DRAW_REFILL = 12  # a new hand under round_end seven_rounds (R10)
DRAW_REASON_NAMES = ("normal", "draw_two", "draw_four", "challenge", "uno",
                     # number-card rules, deck extras, scoring and round modes
                     "mistake", "slap", "silence", "cover", "blank", "hit_all", "custom_wild",
                     "refill")
# What started a slap (b of EV_SLAP).
SLAP_ZERO = 0  # a 0 was played (N4 zero_slap)
SLAP_UNO = 1  # UNO was called (N4 uno_slap)
SLAP_NAMES = ("zero", "uno")

# How a round / game ended.
ROUND_END_WIN = 0
ROUND_END_CAP = 1
ROUND_END_NAMES = ("win", "cap")
GAME_END_TARGET = 0
GAME_END_CAP = 1
GAME_END_NAMES = ("target", "cap")

# --- Per-round counters: columns of the kernel's int64 round-statistics output. ---
C_TURNS = 0
C_CARDS_PLAYED = 1
C_CARDS_DRAWN = 2  # all cards drawn, any reason
C_NORMAL_DRAWS = 3  # drawn for having no legal card
C_PENALTY_CARDS = 4  # drawn as a penalty (Draw Two, Wild Draw Four, challenge, UNO)
C_RESHUFFLES = 5
C_DIRECTION_CHANGES = 6
C_CHALLENGES = 7
C_CHALLENGES_WON = 8  # won by the challenger (the player was guilty)
C_UNO_PENALTIES = 9
C_SKIPS = 10
C_JUMP_INS = 11  # cards played out of turn (J1 jump-ins, A8 escapes)
C_HAND_SWAPS = 12  # whole hands swapped or passed on (N1, D5)
C_CARD_SWAPS = 13  # single cards given (N2, D5)
C_SLAPS = 14  # N4
C_SILENCE_BREAKS = 15  # N5
C_MISTAKES = 16  # U2
N_COUNTERS = 17
COUNTER_NAMES = (
    "turns",
    "cards_played",
    "cards_drawn",
    "normal_draws",
    "penalty_cards",
    "reshuffles",
    "direction_changes",
    "challenges",
    "challenges_won",
    "uno_penalties",
    "skips",
    "jump_ins",
    "hand_swaps",
    "card_swaps",
    "slaps",
    "silence_breaks",
    "mistakes",
)
# How a round played (engine/_measures.py, docs/guide/how-it-plays.md): round columns after the
# counters and largest_penalty, which the referee recomputes from the trace.
MEASURE_NAMES = (
    "hand_leader_changes",  # the seat alone holding the fewest cards changed
    "winner_largest_deficit",  # the winner's largest card deficit to the fewest held (null: none)
    "decision_turns",  # turns with more than one distinct legal card
    "legal_cards_on_decisions",  # distinct legal cards summed over those turns
    "uno_stops",  # a seat on one card skipped or made to draw a penalty
    "uno_stops_still_won",  # those of the round's winner
)
# The store's sums over a cell's games (``store.sums``) each of them gives: NULL where a run did
# not count them.
MEASURE_SUMS = {"hand_leader_changes": ("hand_leader_changes", "hand_leader_changes_sq"),
                "winner_largest_deficit": ("winner_deficit", "winner_deficit_sq"),
                "decision_turns": ("decision_turns",),
                "legal_cards_on_decisions": ("legal_cards_on_decisions",),
                "uno_stops": ("uno_stops",), "uno_stops_still_won": ("uno_stops_still_won",)}
