"""The expert seat's speed and strength (issue 34): decisions/s and games/s at budgets 16, 64 and
256, and its share of rounds won against random bots at 2 and 6 players beside chausner/UnoAI's
MixBot (66.4% and 23.6% of hands). Prints tables; nothing is asserted.

Speed: games of the expert (playout random) against random seats, 2 players, official rules, one
thread, after a warm-up that compiles; a decision is a search (a choice of card with two
candidates or more, ``TABLE.searches``), its time the run's time over its searches (the turns
without a search are a small part of it). Strength: UnoAI's rules (no UNO call, Wild Draw Four
unrestricted, draw one and play it if it can be played, or keep it), the expert in seat 0
against RandomBots (a random legal card, a random colour, a drawn card always played), its goal
rounds won, playouts by the strategist, keeping a drawn black card while it holds more than two
cards (``keep_drawn: 2``, MixBot's own threshold); share of rounds won with its Wilson 95%
interval, on all threads. ``--seeds`` pools several seeds' rounds into one row.

    python benchmarks/expert_bench.py            # speed, then strength (tens of minutes)
    python benchmarks/expert_bench.py --quick    # a smoke run of a few seconds per step
    python benchmarks/expert_bench.py --speed    # speed only
    python benchmarks/expert_bench.py --strength --players 6 --budgets 64 --rounds 5000
    python benchmarks/expert_bench.py --strength --players 6 --budgets 256 --seeds 1 2 3

``--rounds`` plays games until that many rounds (about) are played per row: 5,000 rounds give a
Wilson interval of about +-1.2 points at 6 players, +-1.3 at 2.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from unostats.engine import _turns as T
from unostats.engine._inputs import KernelInputs, Outputs
from unostats.engine.simulate import simulate_batches
from unostats.rules import RuleSet
from unostats.seats import Seat, SearchPolicy, WeightedPolicy
from unostats.stats import wilson_interval

BUDGETS = (16, 64, 256)
UNOAI_RULES = {"uno_penalty": 0, "wild_draw_four": "free"}
RANDOM_BOT = Seat.playing(WeightedPolicy.of("random_bot", colour="random"))
MIXBOT = {2: 0.664, 6: 0.236}  # chausner/UnoAI README: MixBot's share of hands won
KEEP_DRAWN = {"keep_drawn": 2}  # MixBot's: a drawn black card is played only with 2 cards or fewer


def speed(budget: int, games: int) -> tuple[float, float, int]:
    """(decisions/s, games/s, decisions) of ``games`` games on one thread."""
    rules = RuleSet.from_mapping({})
    seats = [Seat.playing(SearchPolicy("expert", budget=budget)), Seat()]
    inputs = KernelInputs.build(rules, 2, seats)
    table = inputs.tables(1)[0]
    out = Outputs(games, games * rules.values["max_rounds"] // 10, 2)
    trace = np.zeros((1, 4), dtype=np.int64)
    start = time.perf_counter()
    done, _ = T.play_games(table, inputs.options, np.uint64(1), 0, games, out.game,
                           out.game_seat, out.round, out.round_seat, trace, -1, inputs.setups)
    seconds = time.perf_counter() - start
    searches = int(table["searches"])
    return searches / seconds, done / seconds, searches


ROUNDS_PER_GAME = {2: 16, 6: 7.5}  # rounds of a game to 500 points (measured), to plan runs


def strength(players: int, budget: int, games: int, seeds: list[int]) -> str:
    expert = SearchPolicy("expert", budget=budget, playout="strategist", goal="rounds")
    seats = [Seat.playing(expert, KEEP_DRAWN)] + [RANDOM_BOT] * (players - 1)
    won = rounds = 0
    start = time.perf_counter()
    for seed in seeds:
        for batch in simulate_batches(rules=RuleSet.from_mapping(UNOAI_RULES), players=players,
                                      seats=seats, games=games, seed=seed, batch_games=50):
            won += int((batch.rounds["winner_seat"] == 0).sum())
            rounds += batch.rounds.height
    share = wilson_interval(won, rounds)
    above = "above" if share.lo > MIXBOT[players] else "not above"
    return (f"{players:>7} {budget:>6} {rounds:>7} {100 * share.value:6.1f}% "
            f"[{100 * share.lo:.1f}, {100 * share.hi:.1f}]  MixBot {100 * MIXBOT[players]:.1f}%: "
            f"{above}  ({time.perf_counter() - start:.0f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    parser.add_argument("--speed", action="store_true", help="speed only")
    parser.add_argument("--strength", action="store_true", help="strength only")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 6], choices=[2, 6])
    parser.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS))
    parser.add_argument("--rounds", type=int, default=5000,
                        help="rounds per strength row, about (default 5000)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[2026],
                        help="seeds whose rounds a strength row pools, each --rounds (default 2026)")
    args = parser.parse_args()
    if not args.strength:
        speed(4, 1)  # compiles (or loads) the expert's entry point
        print("budget  decisions/s  ms/decision  games/s  (2 players, official rules, one thread)")
        for budget in args.budgets:
            games = 1 if args.quick else max(2, 2048 // budget)
            per_second, games_per_second, searches = speed(budget, games)
            print(f"{budget:>6} {per_second:>12.0f} {1000 / per_second:>12.2f} "
                  f"{games_per_second:>8.2f}  ({searches} decisions)", flush=True)
    if args.speed:
        return
    print("\nplayers budget  rounds  expert's share of rounds won [Wilson 95%]")
    for players in args.players:
        games = 4 if args.quick else round(args.rounds / ROUNDS_PER_GAME[players])
        for budget in args.budgets:
            print(strength(players, budget, games, seeds=args.seeds), flush=True)


if __name__ == "__main__":
    main()
