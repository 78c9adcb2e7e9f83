"""What the engine's tests share (a plain module, not a test module): rule sets that reach every
rare path (``RULE_SETS``, with ``BUSY`` seats), ``play`` and ``mixed_seats``, every bundled
scenario's cells (``bundled_cells``), and ``assert_invariants``: cards conserved, every round
ends, the winner holds no cards, scores add up."""

from __future__ import annotations

import polars as pl
import pytest

from unostats.engine.simulate import simulate_batches
from unostats.rules import POLICIES, RuleSet
from unostats.scenario import bundled_dir, load_scenario
from unostats.seats import Seat

# Behaviour that makes every rare path happen often: bluffs, challenges, missed UNO calls.
BUSY = {"bluff": 0.5, "challenge": 0.5, "forget_uno": 0.5, "catch_uno": 0.5, "jump_in": 0.7,
        "silence_break": 0.2, "mistake": 0.1}
RULE_SETS = {
    "official": {},
    "reference": {"first_card": "number_only", "wild_draw_four": "free", "uno_penalty": 0},
    "colour_cycle_draw_two": {"colour_cycle": True, "draw": "two"},
    "draw_until_playable": {"draw": "until_playable", "wild_draw_four": "free"},
    "draw_one_then_pass": {"draw": "one_then_pass", "max_turns": 400, "first_card": "extreme"},
    "big_hands_capped": {"hand_size": 12, "deck": {"numbers": 3}, "uno_penalty": 10,
                         "max_turns": 60, "max_rounds": 30},
    # Turn variants (issue 4), in combinations that make them meet.
    "restricted_wilds_house": {"wild": "no_matching_colour", "challenge": "house",
                               "multi_play": "two_matching", "colour_cycle": True},
    "restricted_extreme_same_rank": {"wild": "no_matching_colour", "challenge": "extreme",
                                     "multi_play": "same_rank", "draw": "two"},
    "stacking_sum": {"stack_draw_two": "sum", "stack_draw_four": "sum", "double_action": True,
                     "draw_two_on_draw_four": True, "jump_in": "numbers"},
    "stacking_pass_on_back": {"stack_draw_two": "pass_on", "stack_draw_four": "pass_on",
                              "reverse_deflects": "back", "jump_in": "all_but_draw_four",
                              "wild": "no_matching_colour"},
    "deflect_back_only": {"reverse_deflects": "back", "stack_skip": True, "skip_escape": True},
    "escalation_jump_in_extreme": {"reverse_deflects": "extreme", "jump_in": "extreme",
                                   "stack_skip": True, "skip_escape": True,
                                   "double_action": True, "first_card": "extreme",
                                   "challenge": "extreme", "wild": "no_matching_colour"},
    # Scoring (issue 5): R5 card_count, R7 a lone 0 worth 100.
    "card_count_lone_zero": {"scoring": "card_count", "lone_zero_value": 100, "target_score": 60},
    # Number-card rules and mistakes (issue 5) over the turn variants they meet in UNO-Extreme.
    "slaps_silence_seven_mistakes": {"zero_slap": 4, "uno_slap": 2, "silence": "seven",
                                     "mistake_penalty": 2, "jump_in": "extreme",
                                     "reverse_deflects": "extreme", "max_turns": 400},
    "silence_black_take_back": {"silence": "black", "wild": "no_matching_colour",
                                "challenge": "house", "colour_cycle": True,
                                "multi_play": "two_matching"},
    "silence_two": {"silence": "two", "jump_in": "numbers", "zero_slap": 1},
    # UNO-Extreme as scenarios/extreme.yaml plays it (N6 with jump-ins, silence, slaps).
    "extreme": {"first_card": "extreme", "wild_draw_four": "no_matching_colour",
                "wild": "no_matching_colour", "challenge": "extreme",
                "reverse_deflects": "extreme", "stack_skip": True, "jump_in": "extreme",
                "zero_slap": 4, "silence": "seven", "eight_cover": True, "mistake_penalty": 2,
                "scoring": "own_points_low_wins", "lone_zero_value": 100, "target_score": 200},
    "eight_cover_jump_in": {"eight_cover": True, "jump_in": "all_but_draw_four",
                            "draw": "two", "colour_cycle": True},
    "lazy": {"scoring": "lazy", "target_score": 4, "first_card": "official",
             "seven_zero": True, "lone_zero_value": 50},
    "seven_rounds": {"round_end": "seven_rounds", "hand_size": 4, "eight_cover": True,
                     "jump_in": "numbers", "silence": "two", "max_turns": 800},
    "seven_zero_five_swap": {"seven_zero": True, "five_swap": True, "jump_in": "extreme",
                             "uno_slap": 1},
    "deck_extras_draw_ten_swap_one": {
        "deck": {"blank": 3, "hit_all_one": 2, "hit_all_two": 2, "swap_hands": 2,
                 "custom_wild": 2},
        "blank_effect": "draw_ten", "custom_wild_effect": "swap_one_with_next",
        "first_card": "extreme", "jump_in": "all_but_draw_four", "max_turns": 600},
    "deck_extras_h2o": {
        "deck": {"blank": 2, "hit_all_one": 3, "hit_all_two": 3, "swap_hands": 1,
                 "custom_wild": 2},
        "custom_wild_effect": "everyone_draws_two", "h2o_bonus": True,
        "scoring": "own_points_lose_at", "stack_draw_four": "sum", "max_turns": 600},
    "own_points_low_wins": {"scoring": "own_points_low_wins", "target_score": 150,
                            "zero_slap": 2},
    "own_points_lose_at": {"scoring": "own_points_lose_at", "lone_zero_value": 50},
    # R9: rounds played to the last, with every rule that counts seats or hands meeting it.
    "to_the_last_lazy": {"round_end": "to_the_last", "scoring": "lazy", "target_score": 3,
                         "seven_zero": True, "five_swap": True, "silence": "two",
                         "zero_slap": 2, "uno_slap": 1, "jump_in": "extreme",
                         "reverse_deflects": "extreme", "stack_skip": True, "skip_escape": True,
                         "eight_cover": True, "lone_zero_value": 50, "max_turns": 1500,
                         "max_rounds": 6},
    "to_the_last_h2o": {
        "round_end": "to_the_last", "deck": {"hit_all_one": 3, "hit_all_two": 3, "swap_hands": 2,
                                             "custom_wild": 2, "blank": 2},
        "custom_wild_effect": "everyone_draws_two", "blank_effect": "draw_ten",
        "h2o_bonus": True, "scoring": "own_points_low_wins", "target_score": 300,
        "stack_draw_two": "sum", "reverse_deflects": "back", "silence": "black",
        "mistake_penalty": 1, "wild": "no_matching_colour", "challenge": "house",
        "multi_play": "same_rank", "max_turns": 1500, "max_rounds": 4},
    "tournament": {"first_card": "number_only", "jump_in": "numbers", "double_action": True,
                   "stack_draw_two": "sum", "stack_draw_four": "pass_on",
                   "wild_draw_four": "free", "uno_penalty": 2},
}
REFERENCE_RULES = RULE_SETS["reference"]


def mixed_seats(players: int) -> list[Seat]:
    """Every policy, and uneven reaction weights for the jump-in races."""
    return [Seat(POLICIES[(i + players) % len(POLICIES)], {**BUSY, "reaction": 0.5 + 0.4 * i})
            for i in range(players)]


def play(rules: dict, players: int, seats, games: int, seed: int, **kw):
    batches = list(simulate_batches(rules=RuleSet.from_mapping(rules), players=players,
                                    seats=seats, games=games, seed=seed, **kw))
    return [pl.concat(frames) for frames in zip(*batches)]


def bundled_cells():
    """Every cell of every bundled scenario; a tournament's tables seat its profiles in turn, a
    league's cell its policies in turn, as many tables as it takes to seat each of them."""
    for path in sorted(bundled_dir().glob("*.yaml")):
        scenario = load_scenario(path)
        for cell in scenario.cells():
            tables = [cell.seats]
            if scenario.tournament:
                profiles = list(scenario.tournament.profiles.values())
                tables = [tuple(profiles[i % len(profiles)] for i in range(cell.players))]
            if scenario.league:
                policies = scenario.league.policies
                tables = [tuple(policies[(t * cell.players + i) % len(policies)]
                                for i in range(cell.players))
                          for t in range(-(-len(policies) // cell.players))]
            for t, seats in enumerate(tables):
                yield pytest.param(cell.variant.rules, cell.players, list(seats),
                                   id=f"{path.stem}-{cell.variant.name}-{cell.players}"
                                      + (f"-table{t}" if len(tables) > 1 else ""))


def assert_invariants(rules, players, n_games, games, game_seats, rounds, round_seats):
    """Every round ends, the winner has no cards, scores add up, finishing places, ranks and
    losers follow the scoring mode (the referee checks that cards are conserved)."""
    n_rounds = rounds.height
    assert games.height == n_games and game_seats.height == n_games * players
    assert round_seats.height == n_rounds * players

    # Every round ends: by a win (the winner has no cards) or by the turn cap (no winner); N6:
    # a turn whose chain of covers outgrows the deck ends its round at the cap before it.
    won = rounds.filter(pl.col("ended_by") == "win")
    capped = rounds.filter(pl.col("ended_by") == "cap")
    assert won.height + capped.height == n_rounds
    assert won["winner_seat"].null_count() == 0 and capped["winner_seat"].null_count() == capped.height
    assert (capped["points"] == 0).all()
    max_turns = rules.values["max_turns"]
    covers_capped = (pl.col("cards_played") > int(rules.deck_counts().sum())) \
        & pl.lit(bool(rules.values["eight_cover"]))
    assert capped.filter((pl.col("turns") != max_turns) & ~covers_capped).height == 0
    assert (rounds["turns"] <= max_turns).all()
    winners = round_seats.join(won.select("game", "round", "winner_seat", "winner_position"),
                               on=["game", "round"]).filter(pl.col("seat") == pl.col("winner_seat"))
    assert winners.height == won.height
    assert (winners["cards_left"] == 0).all()
    assert (winners["position"] == winners["winner_position"]).all()

    # Positions are a permutation of 0..n-1 in every round, position 0 is the first seat.
    per_round = round_seats.group_by("game", "round").agg(
        pl.col("position").sort().alias("positions"))
    assert all(list(p) == list(range(players)) for p in per_round["positions"])
    firsts = round_seats.filter(pl.col("position") == 0).join(
        rounds.select("game", "round", "first_seat"), on=["game", "round"])
    assert (firsts["seat"] == firsts["first_seat"]).all()

    # Points: the winner scores the other hands' points (R5 card_count: their cards; R3/R4:
    # every seat its own hand); scores add up round by round.
    scoring = rules.values["scoring"]
    own_points = scoring.startswith("own_points")
    others = round_seats.join(won.select("game", "round", "winner_seat", "points"),
                              on=["game", "round"])
    if not own_points:
        others = others.filter(pl.col("seat") != pl.col("winner_seat"))
    counted = "cards_left" if scoring == "card_count" else "hand_points"
    if scoring == "lazy":  # R6: a round won is worth 1, whatever the hands hold
        others = others.with_columns(pl.lit(1).alias(counted)).filter(
            pl.col("seat") == (pl.col("winner_seat") + 1) % players)
    summed = others.group_by("game", "round").agg(pl.col(counted).sum(), pl.first("points"))
    # R8: emptying a hand for good with a hit-all +1 / +2 takes 20 / 40 off that seat's own
    # total (R9: each finisher's).
    bonus = summed.with_columns((pl.col(counted) - pl.col("points")).alias("bonus"))
    to_the_last = rules.values["round_end"] == "to_the_last"
    emptiers = players - 1 if to_the_last else 1
    allowed = list(range(0, 40 * emptiers + 1, 20)) if rules.values["h2o_bonus"] else [0]
    assert bonus["bonus"].is_in(allowed).all()
    # R9: the finishing order of a won round is a permutation of 1..n, the winner first and
    # the loser last, every finisher without cards; other modes place only the winner, 1.
    places = round_seats.join(rounds.select("game", "round", "winner_seat", "loser_seat",
                                            "ended_by"), on=["game", "round"])
    if to_the_last:
        won_places = places.filter(pl.col("ended_by") == "win")
        per_round = won_places.group_by("game", "round").agg(pl.col("finish_place").sort())
        assert all(list(p) == list(range(1, players + 1)) for p in per_round["finish_place"])
        assert (won_places.filter(pl.col("finish_place") == 1)["seat"]
                == won_places.filter(pl.col("finish_place") == 1)["winner_seat"]).all()
        last = won_places.filter(pl.col("finish_place") == players)
        assert last.height == won.height and (last["seat"] == last["loser_seat"]).all()
        assert (places.filter(pl.col("finish_place") < players)["cards_left"] == 0).all()
    else:
        assert (places["finish_place"].is_not_null()
                == (places["seat"] == places["winner_seat"]).fill_null(False)).all()
        assert (places["finish_place"].drop_nulls() == 1).all()
    # R6: the round's loser holds the most hand points (then the most cards).
    if to_the_last:
        assert rounds.filter(pl.col("ended_by") == "win")["loser_seat"].null_count() == 0
    elif scoring == "lazy":
        most = round_seats.join(won.select("game", "round", "loser_seat"), on=["game", "round"])
        top = most.group_by("game", "round").agg(
            pl.col("hand_points").max().alias("top"), pl.first("loser_seat"))
        loser_points = most.filter(pl.col("seat") == pl.col("loser_seat")).select(
            "game", "round", pl.col("hand_points").alias("held"))
        check = top.join(loser_points, on=["game", "round"])
        assert check.height == won.height and (check["held"] == check["top"]).all()
    else:
        assert rounds["loser_seat"].null_count() == rounds.height
    gained = round_seats.sort("game", "round").with_columns(
        (pl.col("score_after") - pl.col("score_after").shift(1, fill_value=0)
         .over("game", "seat")).alias("gained"))
    credited = gained.join(rounds.select("game", "round", "winner_seat", "points", "ended_by"),
                           on=["game", "round"]).join(
        bonus.select("game", "round", "bonus"), on=["game", "round"], how="left").with_columns(
        pl.when(pl.col("ended_by") == "cap").then(0)
        .when(pl.lit(own_points)).then(pl.col("hand_points"))
        .when(pl.col("seat") == pl.col("winner_seat")).then(pl.col("points")).otherwise(0)
        .alias("expected"))
    # Own points: each seat gains its hand points less its R8 bonus, which only a seat that
    # emptied its hand for good can have; the bonuses add up to the round's.
    credited = credited.with_columns((pl.col("expected") - pl.col("gained")).alias("taken"))
    emptied = credited["finish_place"].is_not_null() & (credited["cards_left"] == 0)
    assert credited.filter(~emptied)["taken"].eq(0).all()
    assert credited["taken"].is_in([0, 20, 40]).all()
    taken = credited.group_by("game", "round").agg(pl.col("taken").sum(), pl.first("bonus"))
    assert (taken["taken"] == taken["bonus"].fill_null(0)).all()

    # Games: rounds and turns add up; final scores are the last score_after; ranks and margin.
    per_game = rounds.group_by("game").agg(pl.len().alias("n"), pl.col("turns").sum().alias("t"))
    check = games.join(per_game, on="game")
    assert (check["rounds"] == check["n"]).all() and (check["turns"] == check["t"]).all()
    last = round_seats.join(games.select("game", "rounds"), on="game").filter(
        pl.col("round") == pl.col("rounds")).select("game", "seat", "score_after")
    finals = game_seats.join(last, on=["game", "seat"])
    assert (finals["final_score"] == finals["score_after"]).all()
    target = rules.values["target_score"]
    sign = -1 if own_points else 1  # sign * score: higher is better
    for game in games.iter_rows(named=True):
        scores = game_seats.filter(pl.col("game") == game["game"]).sort("seat")
        final = scores["final_score"].to_list()
        keys = [sign * x for x in final]
        ranked = sorted(keys, reverse=True)
        assert game["margin"] == ranked[0] - ranked[1]
        assert scores["rank"].to_list() == [1 + sum(x > k for x in keys) for k in keys]
        if game["ended_by"] == "target":
            assert max(final) >= target and keys[game["winner_seat"]] == max(keys)
            assert scores["is_winner"].to_list() == [s == game["winner_seat"] for s in range(players)]
            if scoring == "lazy":  # R6: the seats that lost the most rounds
                lost = rounds.filter(pl.col("game") == game["game"])["loser_seat"].drop_nulls()
                counts = [int((lost == s).sum()) for s in range(players)]
                losers = [c == max(counts) for c in counts]
            elif scoring == "own_points_lose_at":
                losers = [x >= target for x in final]
            else:
                losers = [k == min(keys) for k in keys]
            assert scores["is_loser"].to_list() == losers
        else:
            assert not any(scores["is_loser"])
            assert game["winner_seat"] is None and max(final) < target
            assert game["rounds"] == rules.values["max_rounds"]
