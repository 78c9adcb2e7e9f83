"""Choosing: B2 play policies (first_legal, colour_first, number_first, actions_first,
save_actions, high_value_first, wild_last, strategist), P7 the colour a black card names (the
colour held most) and colour_cycle, and B1/B2 where a seat chooses a card to give away by its
policy (N2/D5: the card a preset scores best, the strategist's least useful card). Every policy
but the strategist is a preset of weights (seats.PRESETS): the referee checks their choices by
the scores; tests/rules/test_weighted.py checks the presets against the documented classes.

``CASES`` are scripted games (tests/rules/cases.py): each is played by the kernel and checked by
the referee, and, when it lists every event, its expected events pass the referee on their own.
The ``random`` policy has no scripted case (its choice is random); the kernel-vs-referee sweeps
of tests/test_engine.py seat it. The tests after the table give the referee games written in the
same notation (``cases.written``), legal ones and copies broken in one event
(tests/rules/traces.py), which it must reject.
"""

from __future__ import annotations

from cases import (
    Family,
    card,
    draws,
    game_rules,
    scores,
    written,
)
from traces import (
    action_cards,
    broken,
    changed,
    deleted,
    find,
    inserted,
    numbers,
    quick_win,
    the_round,
    with_policies,
    with_rules,
)

from unostats import codes
from unostats.engine.referee import check_trace
from unostats.rules import POLICIES

# The rule options this family owns: each is played on and off on one deal (cases.py).
OPTIONS = ("colour_cycle",)

FAMILY = Family(OPTIONS)
CASES, case = FAMILY.cases, FAMILY.case


# ---------------------------------------------------------------- B2: which legal card

# Seat 1 may play R-skip (the current colour, an action), Y5 (the number on top) or the Wild
# (the card worth the most); G9 is not legal. Each policy's most preferred class holds one card.
CHOICE = dict(players=2, hands={1: ["R-skip", "Y5", "wild", "G9"], 0: ["B1", "B2", "B3", "B4"]},
              flip="R5", draws=["B5", "B6", "B7", "B8", "B9"])
PLAYS = {
    "R-skip": [("play", 1, "R-skip"), ("skip", 0)],
    "Y5": [("play", 1, "Y5"), ("turn", 0)],
    # Seat 1 is left with one red, one yellow, one green card: red, the lowest index.
    "wild": [("play", 1, "wild"), ("colour", 1, "red")],
}
for policy, played in (("first_legal", "R-skip"),  # the lowest card id
                       ("colour_first", "R-skip"),  # the only red card
                       ("number_first", "Y5"),  # the only 5
                       ("actions_first", "R-skip"),  # the only coloured action card
                       ("save_actions", "Y5"),  # the only number card
                       ("high_value_first", "wild")):  # 50 points
    case(f"policy-{policy}-plays-{played}", **CHOICE, seats={1: {"policy": policy}},
         table=[("flip", "R5"), ("turn", 1), *PLAYS[played]], prefix=True)
# Seat 1 may play Y5 or the Wild: wild_last keeps the black card, high_value_first plays it
# (seat 1 is then left with a yellow, a green and a blue card: yellow, the lowest index).
LAST_WILD = dict(players=2, hands={1: ["Y5", "wild", "G9", "B9"], 0: ["B1", "B2", "B3", "B4"]},
                 flip="R5", draws=["B5", "B6", "B7", "B8"])
for policy, played in (("wild_last", [("play", 1, "Y5"), ("turn", 0)]),
                       ("high_value_first", [("play", 1, "wild"), ("colour", 1, "yellow")])):
    case(f"policy-{policy}-with-a-number-and-a-wild", **LAST_WILD,
         seats={1: {"policy": policy}}, table=[("flip", "R5"), ("turn", 1), *played],
         prefix=True)

# Two players, the dealer is seat 1: seat 0 acts first, then seat 1, a strategist holding a
# number, an action card and a Wild.
STRATEGIST_DRAWS = ["B7", "Y5", "Y6", "Y7", "Y8"]
for seat0, seat1, table, ending, name in (
        # Seat 0 is down to 2 cards: the strategist attacks with its Draw Two first; with seat 0
        # at 4 cards it sheds its number, and the Wild comes last.
        (["R1", "G2", "G4"], ["R9", "R+2", "wild"], [
            ("turn", 0), ("play", 0, "R1"),
            ("turn", 1), ("play", 1, "R+2"), *draws(0, ["B7", "Y5"], "draw_two"), ("skip", 0),
            ("turn", 1), ("play", 1, "R9"),
            ("turn", 0), ("draw", 0, "Y6", "normal"), ("pass", 0),
            ("turn", 1), ("play", 1, "wild"), ("colour", 1, "red"),
        ], [("round_end", 1, "win", 24), *scores((24, 0), (0, 24))], "attacks-with-draw-two"),
        # A Skip attacks too (a Draw Two would come before it).
        (["R1", "G2", "G4"], ["R9", "R-skip", "wild"], [
            ("turn", 0), ("play", 0, "R1"),
            ("turn", 1), ("play", 1, "R-skip"), ("skip", 0),
            ("turn", 1), ("play", 1, "R9"),
            ("turn", 0), ("draw", 0, "B7", "normal"), ("pass", 0),
            ("turn", 1), ("play", 1, "wild"), ("colour", 1, "red"),
        ], [("round_end", 1, "win", 13), *scores((13, 0), (0, 13))], "attacks-with-skip"),
        # Seat 0 draws instead and holds 4 cards: no attack, the highest number first; then the
        # action card before the Wild.
        (["G1", "G2", "G4"], ["R9", "R+2", "wild"], [
            ("turn", 0), ("draw", 0, "B7", "normal"), ("pass", 0),
            ("turn", 1), ("play", 1, "R9"),
            ("turn", 0), ("draw", 0, "Y5", "normal"), ("pass", 0),
            ("turn", 1), ("play", 1, "R+2"), *draws(0, ["Y6", "Y7"], "draw_two"), ("skip", 0),
            ("turn", 1), ("play", 1, "wild"), ("colour", 1, "red"),
        ], [("round_end", 1, "win", 32), *scores((32, 0), (0, 32))], "no-attack")):
    case(f"policy-strategist-{name}", 2, {1: seat1, 0: seat0}, "R5", STRATEGIST_DRAWS,
         dealer=1, seats={1: {"policy": "strategist"}}, table=[("flip", "R5"), *table],
         ending=ending)

# ---------------------------------------------------------------- P7: the colour named

# Only the wild matches the top card, so seat 1 plays it and names a colour.
for hand, top, colour, name in (
        (["Y1", "G2", "G3", "B4"], "R9", "green", "held-most"),
        (["R1", "R2", "B3", "B4", "B5"], "Y9", "blue", "held-most-of-five"),
        (["Y1", "B2", "B3", "Y4"], "R9", "yellow", "tie-yellow-blue-the-lower-index"),
        (["R1", "B2"], "Y9", "red", "tie-red-blue"),
        (["B1", "G2"], "R9", "green", "tie-green-blue")):
    filler = ["G8", "G8", "B8", "B8", "Y8", "Y8"][:len(hand) + 1]
    case(f"colour-named-{name}-{colour}", 2, {1: ["wild", *hand], 0: filler}, top,
         table=[("flip", top), ("turn", 1), ("play", 1, "wild"), ("colour", 1, colour)],
         prefix=True)
# R1 too: a tie of zeros.
case("colour-named-with-an-empty-hand-is-red", 2, {1: ["wild"], 0: ["Y8"]}, "B9",
     table=[("flip", "B9"), ("turn", 1), ("play", 1, "wild"), ("colour", 1, "red")],
     ending=[("round_end", 1, "win", 8), *scores((8, 0), (0, 8))])

# ---------------------------------------------------------------- P7 colour_cycle

# Clockwise after red comes blue (seat 1 holds green).
CYCLE_CW = dict(players=2, hands={1: ["wild", "G1"], 0: ["B2", "G2"]}, flip="R5", draws=["G2"])
case("colour_cycle-on-clockwise-sets-the-next-colour", **CYCLE_CW, rules={"colour_cycle": True},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "wild"), ("colour", 1, "blue"),
         ("turn", 0), ("play", 0, "B2"),
         ("turn", 1), ("draw", 1, "G2", "normal"), ("play", 1, "G2"),
         ("turn", 0), ("play", 0, "G2"),
     ],
     ending=[("round_end", 0, "win", 1), *scores((0, 1), (1, 0))])
case("colour_cycle-off-clockwise-the-colour-held-most", **CYCLE_CW,
     rules={"colour_cycle": False},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "wild"), ("colour", 1, "green"),
         ("turn", 0), ("play", 0, "G2"),
         ("turn", 1), ("play", 1, "G1"),
     ],
     ending=[("round_end", 1, "win", 2), *scores((2, 0), (0, 2))])
# A1 too: counter-clockwise after red comes yellow (seat 0 holds green).
CYCLE_CCW = dict(players=3, hands={1: ["R-reverse", "Y7"], 2: ["Y1", "G1"], 0: ["wild", "G4"]},
                 flip="R5", draws=["Y9"])
CCW_OPENING = [("flip", "R5"), ("turn", 1), ("play", 1, "R-reverse"), ("direction", -1)]
case("colour_cycle-on-counter-clockwise-after-a-reverse", **CYCLE_CCW,
     rules={"colour_cycle": True},
     table=[
         *CCW_OPENING,
         ("turn", 0), ("play", 0, "wild"), ("colour", 0, "yellow"),
         ("turn", 2), ("play", 2, "Y1"),
         ("turn", 1), ("play", 1, "Y7"),
     ],
     ending=[("round_end", 1, "win", 5), *scores((4, 0), (0, 5), (1, 0))])
case("colour_cycle-off-counter-clockwise-after-a-reverse", **CYCLE_CCW,
     rules={"colour_cycle": False},
     table=[
         *CCW_OPENING,
         ("turn", 0), ("play", 0, "wild"), ("colour", 0, "green"),
         ("turn", 2), ("play", 2, "G1"),
         ("turn", 1), ("draw", 1, "Y9", "normal"), ("pass", 1),
         ("turn", 0), ("play", 0, "G4"),
     ],
     ending=[("round_end", 0, "win", 17), *scores((0, 17), (16, 0), (1, 0))])
# The whole cycle both ways. Clockwise: a Wild as the last card still names a colour: the
# cycle's, not red for an empty hand. Counter-clockwise: a Reverse turned up first (3 players),
# and the dealer plays first.
for direction, top, colour in ((1, "R", "blue"), (1, "B", "green"), (1, "G", "yellow"),
                               (1, "Y", "red"), (-1, "R", "yellow"), (-1, "Y", "green"),
                               (-1, "G", "blue"), (-1, "B", "red")):
    if direction == 1:
        case(f"colour_cycle-whole-cycle-cw-{top}", 2, {1: ["wild"], 0: ["Y8"]}, f"{top}5",
             rules={"colour_cycle": True},
             table=[("flip", f"{top}5"), ("turn", 1), ("play", 1, "wild"),
                    ("colour", 1, colour)],
             ending=[("round_end", 1, "win", 8), *scores((8, 0), (0, 8))])
    else:
        case(f"colour_cycle-whole-cycle-ccw-{top}", 3, {1: ["Y8"], 2: ["G8"], 0: ["wild"]},
             f"{top}-reverse", rules={"colour_cycle": True},
             table=[("flip", f"{top}-reverse"), ("direction", -1),
                    ("turn", 0), ("play", 0, "wild"), ("colour", 0, colour)],
             ending=[("round_end", 0, "win", 16), *scores((0, 16), (8, 0), (8, 0))])
# S2 official too: a Wild first card lets the first player choose.
case("colour_cycle-a-wild-first-card-lets-the-first-player-choose", 2, {1: ["G3"], 0: ["Y8"]},
     "wild", rules={"colour_cycle": True},
     table=[("flip", "wild"), ("colour", 1, "green"), ("turn", 1), ("play", 1, "G3")],
     ending=[("round_end", 1, "win", 8), *scores((8, 0), (0, 8))])


test_case, test_every_option_is_played_on_and_off = FAMILY.tests()


def test_every_deterministic_policy_has_a_case():
    scripted = {spec["policy"] for c in CASES for spec in c.seats.values() if "policy" in spec}
    assert scripted == set(POLICIES) - {"random"}


# ---------------------------------------------------------------- P7 on hand-written traces


def test_wrong_colour_choice():
    trace = action_cards()
    at = find(trace, codes.EV_COLOUR, seat=1)
    broken(changed(trace, at, a=3), "must name green")


def test_colour_must_follow_a_black_card():
    trace = action_cards()
    broken(deleted(trace, find(trace, codes.EV_COLOUR, seat=1)),
           "expected colour named by seat 1 after wild")


def test_colour_after_a_coloured_card():
    trace = quick_win()
    at = find(trace, codes.EV_TURN, nth=1)
    broken(inserted(trace, at, codes.EV_COLOUR, 1, 0), "expected turn of seat 0")


def cycle_clockwise():
    """Clockwise after red comes blue, though seat 0 holds a yellow card."""
    return written(
        2, {0: ["wild", "Y2"], 1: ["B2", "B3"]}, dealer=1, rules=game_rules(colour_cycle=True),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "wild"), ("colour", 0, "blue"),
            ("turn", 1), ("play", 1, "B2"),
            ("turn", 0), ("play", 0, "Y2"),
        ],
        ending=[("round_end", 0, "win", 3), *scores((0, 3), (3, 0))],
        game_end=("game_end", 0, "target"))


def cycle_counter_clockwise():
    """The first Reverse turns play counter-clockwise: after yellow comes green."""
    return written(
        3, {0: ["G1", "R2"], 1: ["G3", "G4"], 2: ["wild", "B9"]},
        dealer=2, rules=game_rules(colour_cycle=True),
        table=[
            ("flip", "Y-reverse"), ("direction", -1),
            ("turn", 2), ("play", 2, "wild"), ("colour", 2, "green"),
            ("turn", 1), ("play", 1, "G3"),
            ("turn", 0), ("play", 0, "G1"),
            ("turn", 2), ("draw", 2, "G9", "normal"), ("play", 2, "G9"),
            ("turn", 1), ("play", 1, "G4"),
        ],
        ending=[("round_end", 1, "win", 11), *scores((2, 0), (0, 11), (9, 0))],
        game_end=("game_end", 1, "target"))


def test_colour_cycle():
    assert the_round(cycle_clockwise()).winner_seat == 0
    r = the_round(cycle_counter_clockwise())
    assert numbers(r, "first_seat", "winner_position", "direction_changes") == (2, 1, 1)


def test_wrong_cycle_colour():
    trace = cycle_clockwise()
    broken(changed(trace, find(trace, codes.EV_COLOUR), a=1),
           "colour_cycle: clockwise after red comes blue, so seat 0 must name blue")
    trace = cycle_counter_clockwise()
    broken(changed(trace, find(trace, codes.EV_COLOUR), a=3),
           "colour_cycle: counter-clockwise after yellow comes green")


def test_black_first_card_under_colour_cycle_is_chosen():
    trace = written(
        2, {0: ["Y1"], 1: ["B2"]}, dealer=1, rules=game_rules(colour_cycle=True),
        table=[
            ("flip", "wild"), ("colour", 0, "yellow"),
            ("turn", 0), ("play", 0, "Y1"),
        ],
        ending=[("round_end", 0, "win", 2), *scores((0, 2), (2, 0))],
        game_end=("game_end", 0, "target"))
    check_trace(trace)
    broken(changed(trace, find(trace, codes.EV_COLOUR), a=3), "must name yellow")


# ---------------------------------------------------------------- the card a seat gives away


def test_the_strategist_gives_by_class_then_points():  # N2, B2
    """The strategist gives numbers before coloured actions before black cards; the most points;
    the lowest id."""
    trace = written(
        2, {0: ["R5", "R-skip", "wild", "G-reverse"], 1: ["Y1", "Y-skip", "+4", "B2"]},
        dealer=1, rules=game_rules(five_swap=True),
        table=[
            ("flip", "R3"),
            ("turn", 0), ("play", 0, "R5"), ("give", 0, "R-skip", 1), ("give", 1, "B2", 0),
        ],
        ending=[("round_end", -1, "cap", 0), *scores((72, 0), (91, 0))])
    trace = with_policies(trace, "strategist", "strategist")
    trace = with_rules(trace, max_turns=1, max_rounds=1, target_score=10_000)
    r = the_round(trace)
    assert r.card_swaps == 1 and r.cards_left == (3, 4)
    # of its two actions worth 20, the lower id (R-skip); a preset may give either
    broken(changed(trace, find(trace, codes.EV_GIVE, seat=0), a=card("G-reverse")),
           r"seat 0 \(strategist\) must give its least useful card, R-skip \(N2\)")
    check_trace(changed(with_policies(trace, "save_actions", "wild_last"),
                        find(trace, codes.EV_GIVE, seat=0), a=card("G-reverse")))
