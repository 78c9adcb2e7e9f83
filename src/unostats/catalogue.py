"""The rule catalogue: every rule id (D1 ... B3) with its meaning and sources, and the page
``docs/rules.md`` rendered from it and from the rule table (``rules.py``: the scenario keys that
set each rule, their values and defaults).

The catalogue says what each rule of UNO is and where it comes from; the rule table says how a
scenario sets it. ``docs/rules.md`` is generated (``python -m unostats.catalogue --write``, or
``make docs``) and tests/test_catalogue.py fails if the page, the catalogue and the rule table
disagree (an id or a key missing or extra, an option naming an id the catalogue lacks).
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from . import cards, rules, seats

# The four source documents, by tag: the tag each rule names, the document's title as published
# and what it is.
SOURCES: dict[str, tuple[str, str]] = {
    "TOUR": ("«Второй ЧемпиУНат по игре в UNO в Санкт-Петербурге»",
             ("the announcement and rules of the second St Petersburg UNO championship "
              "(23 November, café-club «Свой Круг»): tables of 6, games to 500")),
    "UA": ("«Як грати в УНО»",
           "a Ukrainian how-to page: the standard rules plus simple variations"),
    "WIKI": ("«Уно», Russian Wikipedia",
             ("the article: official rules, optional rules and its section «Дополнительные "
              "правила UNO-Extreme»")),
    "HOUSE": ("«Карточная игра «Уно». Правила игры в «Уно»»",
              "a Russian rules page with many house rules"),
}


@dataclass(frozen=True)
class Rule:
    id: str  # "P5"
    name: str  # a few words
    meaning: str
    sources: str  # tags of SOURCES, "all", or "UNO-Extreme" (a WIKI section)
    elsewhere: str = ""  # how unostats plays it when no rule-table option sets it


@dataclass(frozen=True)
class Section:
    number: int
    title: str
    slug: str  # the catalogue's short name for the section
    rules: tuple[Rule, ...]


R = Rule
CATALOGUE: tuple[Section, ...] = (
    Section(1, "Deck", "deck", (
        R("D1", "Standard deck", "108 cards: per colour (red, yellow, green, blue) one 0, two "
          "each of 1-9, two each of Skip, Reverse and Draw Two; 4 Wild and 4 Wild Draw Four.",
          "all"),
        R("D2", "Card values", "For scoring, number cards count their face value, Skip, "
          "Reverse and Draw Two 20, black cards 50.", "all",
          "always: the card values of every scoring mode"),
        R("D3", "Blank cards", "4 extra blank cards (a 112-card deck), inert unless a rule "
          "gives them meaning; HOUSE makes them \"+10\": the next player draws 10 and loses the "
          "turn.", "WIKI, HOUSE"),
        R("D4", "H2O hit-all cards", "Black \"hit-all\" cards +1 and +2: the player names a "
          "colour and every other player draws 1 (or 2); an H2O deck has 2 of each kind.",
          "WIKI, HOUSE", "the kinds `hit_all_one`, `hit_all_two`"),
        R("D5", "Newer-deck black cards", "Wild Swap Hands (name a colour, swap the whole hand "
          "with a chosen player) and customizable wilds whose effect the table chooses, e.g. "
          "everyone draws 2, or swap one card with the next player; a newer deck has 1 and 3.",
          "UA", "the kinds `swap_hands`, `custom_wild`"),
        R("D6", "Custom decks", "Any card count can be changed; the deck is checked (no "
          "negative counts, enough cards to deal every hand and a first card).",
          "none (unostats' own)"),
    )),
    Section(2, "Deal and start of a round", "deal", (
        R("S1", "Players and hand size", "2 to 10 players; 7 cards each.", "UA, WIKI",
          "`players` (2-10) in the scenario"),
        R("S2", "First discard", "`number_only`: a card that is not a number goes back into "
          "the deck and the next is turned, until a number shows (TOUR, HOUSE). `official`: the "
          "card takes effect: a Skip skips the first player, a Draw Two makes them draw 2 and "
          "skips them, a Reverse lets the dealer start in the other direction, a Wild lets the "
          "first player name the colour, a Wild Draw Four goes back and another is turned "
          "(WIKI). `extreme`: as official, but a black first card makes the first player draw 4 "
          "and the dealer names the colour before looking at the hand.", "TOUR, WIKI, HOUSE"),
        R("S3", "Dealer and first player", "The dealer moves clockwise every round; the player "
          "left of the dealer starts. Lazy scoring (R12) changes this.", "TOUR, HOUSE",
          "always"),
    )),
    Section(3, "A turn", "play", (
        R("P1", "Matching", "A card matches by colour, or by number or symbol; black cards "
          "match anything.", "all", "always"),
        R("P2", "Wild Draw Four restriction", "`free`: playable at any time (TOUR). "
          "`no_matching_colour`: only without a card of the current colour (WIKI, HOUSE, UA); "
          "players may bluff and the victim may challenge (P4).", "TOUR, UA, WIKI, HOUSE"),
        R("P3", "Plain Wild restriction", "`free`, or `no_matching_colour` as the Wild Draw Four "
          "(UNO-Extreme: both black cards are restricted and can be challenged).",
          "UNO-Extreme"),
        R("P4", "Challenge penalties", "Official: guilty, the player of the card draws 4 "
          "instead of the victim; innocent, the challenger draws 6. HOUSE: guilty, the card goes "
          "back to the hand, its player draws 4 and misses the turn; innocent, the challenger "
          "draws 6 and is skipped. UNO-Extreme: guilty, the card goes back and its player draws "
          "4 more; innocent, the challenger draws 8.", "WIKI, HOUSE"),
        R("P5", "No playable card", "`one_may_play`: draw one and play it if it fits (all "
          "sources), or keep it in the hand without penalty (WIKI; a seat's choice, its "
          "`keep_drawn` behaviour); `one_then_pass`: draw one and pass; `two`: draw two (UA, \"a slower "
          "game\"), a fitting one may be played; `until_playable`: draw until a card fits, then "
          "play it.", "all"),
        R("P6", "Empty draw pile", "The discard pile except its top card is shuffled into a new "
          "draw pile; if both run out the draw fails and the turn passes (never an endless "
          "loop).", "UA, WIKI", "always"),
        R("P7", "Colour choice and colour cycle", "A black card's colour is chosen by the "
          "player's policy; with the colour cycle it is the next colour of a fixed cycle in the "
          "direction of play.", "HOUSE"),
    )),
    Section(4, "Action cards and their variants", "actions", (
        R("A1", "Action cards", "Skip: the next player misses the turn. Reverse: the direction "
          "flips (with 2 players it acts as a Skip). Draw Two: the next player draws 2 and "
          "misses the turn. Wild Draw Four: a colour is named, the next player draws 4 and "
          "misses the turn.", "all", "always"),
        R("A2", "Double actions", "Two identical coloured action cards in one turn: two "
          "Reverses cancel, two Skips skip two players, two Draw Twos count twice.", "TOUR"),
        R("A3", "Draw Two stacking", "`none`: the next player draws. `sum`: the next player may "
          "add a Draw Two of any colour and the penalty adds up (2, 4, 6...) until someone "
          "cannot go on and draws it all (TOUR, WIKI, HOUSE). `pass_on`: the chain goes on but "
          "the last player draws only 2 (HOUSE, UA).", "TOUR, UA, WIKI, HOUSE"),
        R("A4", "Wild Draw Four stacking", "`none`; `sum`: a +4 on a +4 makes 8, the last "
          "player of the chain names the colour (WIKI, HOUSE); `pass_on`: a +4 on a +4 still "
          "gives the next player 4 (TOUR).", "TOUR, WIKI, HOUSE"),
        R("A5", "Draw Two on a Wild Draw Four", "A Draw Two of the named colour cancels a "
          "pending +4, and the chain goes on as a Draw Two.", "UA, HOUSE"),
        R("A6", "Reverse deflects a penalty", "A Reverse of the right colour sends a pending "
          "Draw Two (HOUSE: also a Wild Draw Four) back to the previous player. UNO-Extreme: a "
          "Reverse on a pending Draw Two makes the player who just drew miss the turn again, and "
          "the penalty grows by 2 each time (+2, +4, +6, +8) while the +2/Reverse sequence "
          "lasts.", "WIKI, HOUSE"),
        R("A7", "Skip stacking", "A Skip right after a Skip covers the next two players, then "
          "three, while the sequence lasts.", "UNO-Extreme"),
        R("A8", "Skip escape", "A skipped player cancels the Skip by jumping in with an "
          "identical Skip.", "UA, HOUSE"),
        R("A9", "Cards of the extra decks", "The blank +10 (D3), the H2O hit-all cards (D4), "
          "Wild Swap Hands and the customizable wilds (D5) act as those rules say.",
          "WIKI, HOUSE, UA", "whenever the deck holds them (`deck`, `blank_effect`, "
          "`custom_wild_effect`)"),
    )),
    Section(5, "Out-of-turn play", "jump_in", (
        R("J1", "Jump-in", "A player holding a card identical to the top discard (same colour "
          "and same number or symbol) may play it out of turn; play goes on from them. "
          "`numbers`: number cards only (TOUR); `all_but_draw_four`: action cards and the plain "
          "Wild too (HOUSE); `extreme`: no black cards, and a jump-in on a pending +2 or Skip "
          "does not cancel it, except that a player who deflects a +2/Reverse from themselves "
          "draws nothing (WIKI).", "TOUR, WIKI, HOUSE"),
        R("J2", "Not on the first discard", "Nobody jumps in on the first discard of a round.",
          "TOUR, HOUSE"),
        R("J3", "Two identical cards", "Two identical cards are played one at a time: play "
          "one, then jump in on yourself; the next player may act first and block the second.",
          "WIKI, HOUSE"),
        R("J4", "Who jumps in first", "When several players can jump in, the behaviour model "
          "decides (`reaction`, B1).", "none (the sources leave it open)"),
    )),
    Section(6, "Number-card rules", "numbers", (
        R("N1", "7-0", "A 0 makes every player pass their hand to the next in the direction of "
          "play; a 7 makes its player swap hands with a player of their choice.", "WIKI, HOUSE"),
        R("N2", "Swap on 5", "The player of a 5 swaps one card with any player; each side "
          "chooses the card it gives.", "HOUSE"),
        R("N3", "Several cards in one turn", "`same_rank`: cards of the same number or symbol "
          "together (a green 5 and a yellow 5 onto a blue 5; WIKI \"overlay\"); `two_matching`: "
          "up to two cards that each match the top card at the start of the turn (UA, the speed "
          "version).", "UA, WIKI"),
        R("N4", "Slap", "UNO-Extreme 0: everyone puts a hand in the centre and the last one "
          "draws 4. HOUSE \"UNO in the centre\": the same on an UNO call, the last one draws 2.",
          "WIKI, HOUSE"),
        R("N5", "Silence", "UNO-Extreme 7: silence until the 7's player moves again; whoever "
          "breaks it draws 4 and the silence ends. HOUSE \"silent twos\": a 2 starts silence "
          "until the turn comes back to its player, a breaker draws 2; or black cards start "
          "silence until the colour changes.", "WIKI, HOUSE"),
        R("N6", "Cover the 8", "UNO-Extreme 8: its player must cover it with a matching card "
          "from the hand, drawing until able, even when the 8 was the last card; a jump-in on "
          "the 8 moves the duty to the jumper.", "UNO-Extreme"),
    )),
    Section(7, "The UNO call", "uno_call", (
        R("U1", "Calling UNO", "A player going down to one card must call UNO before the next "
          "player acts; caught forgetting, they draw 2 (WIKI, TOUR) or 4 (HOUSE, \"last card "
          "rule\"); if nobody notices, nothing happens (UA). Forgetting and catching are "
          "behaviour probabilities (B1).", "TOUR, UA, WIKI, HOUSE"),
        R("U2", "Mistake penalty", "Any rule mistake costs 1 card (UNO-Extreme \"Затупил\"; "
          "HOUSE: 2), played as a per-turn mistake probability (B1).", "WIKI, HOUSE"),
    )),
    Section(8, "End of a round and scoring", "scoring", (
        R("R1", "End of a round", "A round ends when a player has no cards; the others' hands "
          "are counted (D2).", "all", "always (R9 and R10 change when it ends)"),
        R("R2", "Winner takes all", "The round's winner scores the others' hands; the first "
          "to reach the target (500; 1000 for slower games, UA) wins the game.", "all"),
        R("R3", "Own points, lowest wins", "Each player adds their own hand; when anyone "
          "reaches the target (500) the lowest total wins.", "WIKI, UNO-Extreme"),
        R("R4", "Own points, lose at 200", "Each player adds their own hand; whoever reaches "
          "200 loses, the others win.", "UA, HOUSE"),
        R("R5", "Card count", "The round's winner scores the number of cards left in the other "
          "hands; first to 100 wins.", "UA"),
        R("R6", "Lazy scoring", "No running totals: each round names a winner (out first) and a "
          "loser (the highest hand); the winner starts the next round, the loser deals.",
          "HOUSE"),
        R("R7", "Lone zero", "A hand of exactly one 0 at the end of a round is worth 50 (HOUSE) "
          "or 100 (UNO-Extreme).", "WIKI, HOUSE"),
        R("R8", "H2O finishing bonus", "Going out with a +1 takes 20 off one's own total, with "
          "a +2 takes 40.", "HOUSE"),
        R("R9", "Play to the last", "The round goes on until one player is left; the finishing "
          "order is recorded, the first out wins and the last loses.", "HOUSE"),
        R("R10", "UNO in seven rounds", "A player who empties a hand of 7 draws 6 new cards and "
          "goes on, then 5, and so on down to 1; the round ends when someone plays the final "
          "single card.", "HOUSE"),
        R("R11", "Who wins the game", "Under R3 the lowest total wins; under R2 the first to "
          "reach the target.", "all", "`scoring` (always as R2-R6 define it)"),
        R("R12", "Lazy scoring deals", "Lazy scoring sets who deals and who starts (S3).",
          "HOUSE", "`scoring: lazy`"),
    )),
    Section(9, "Tournament", "tournament", (
        R("T1", "Tables by lot", "Entrants are drawn by lot onto tables of 6 (configurable); "
          "each table plays one game to 500.", "TOUR",
          "a scenario's `tournament:` section (`entrants`, `table_size`, the variant's rules)"),
        R("T2", "Stages", "The best 2 of each table (or 3, depending on the number of entrants) "
          "reach the semifinal tables, their winners the final table; one game to 500 per "
          "stage.", "TOUR", "`tournament.stages` (`advance`, by entrant count)"),
        R("T3", "Consolation", "Players knocked out in the first stage play a consolation "
          "tournament of the same format.", "TOUR", "`tournament.consolation`"),
        R("T4", "What a tournament reports", "Per player profile: the chance to reach each "
          "stage and to win; how long each stage lasts (rounds, turns).", "none (what unostats "
          "reports of TOUR)",
          "the tournament summary, the `tournament_*` views and the report's championship "
          "section; durations in minutes by `seconds_per_turn`"),
    )),
    Section(10, "Behaviour model", "players", (
        R("B1", "Behaviour parameters", "Rules that depend on people (calling UNO, catching, "
          "challenging, reacting, keeping silent, making mistakes) are per-player "
          "probabilities, each with a documented default, so their effect is measured rather "
          "than ignored.", "none (the model unostats plays)", "`seats[].behaviour` (the table below)"),
        R("B2", "Play policies", "Each seat plays by a policy: `random` (uniform over legal "
          "moves), `first_legal`, `colour_first`, `number_first`, `actions_first`, "
          "`save_actions`, `high_value_first`, `wild_last`, and unostats' stronger `strategist`; "
          "a black card's colour is the one held most. A policy may also be written as data: "
          "weights of card features, the best-scoring legal card played.",
          "none (the model unostats plays)", "`seats[].policy` (the table below)"),
        R("B3", "Mixed tables", "Any seat may have any policy and behaviour, so skill edges can "
          "be measured against the first player's advantage.", "none (the model unostats plays)",
          "`seats:` as a list, one mapping per seat"),
    )),
)
del R

RULE_IDS: tuple[str, ...] = tuple(r.id for s in CATALOGUE for r in s.rules)
RULES_BY_ID: dict[str, Rule] = {r.id: r for s in CATALOGUE for r in s.rules}
_ID = re.compile(r"([A-Z])(\d+)")


def expand_ids(text: str) -> tuple[str, ...]:
    """The catalogue ids a rule table entry names: "P5" -> (P5,), "J1-J4" -> (J1, J2, J3, J4),
    "D1, D3-D6" -> (D1, D3, D4, D5, D6), "-" -> ()."""
    out: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if part in ("", "-"):
            continue
        first, _, last = part.partition("-")
        a, b = _ID.fullmatch(first.strip()), _ID.fullmatch((last or first).strip())
        if a is None or b is None or a.group(1) != b.group(1):
            raise ValueError(f"not a rule id or range: {part!r}")
        out += [f"{a.group(1)}{i}" for i in range(int(a.group(2)), int(b.group(2)) + 1)]
    return tuple(out)


def options_for(rule_id: str) -> tuple[str, ...]:
    """The rule table's keys that set rule ``rule_id`` (``deck`` for the deck's ids)."""
    keys = [o.key for o in rules.RULE_OPTIONS if rule_id in expand_ids(o.rule_ids)]
    if rule_id in expand_ids(rules.DECK_RULE_IDS):
        keys.append(rules.DECK_KEY)
    return tuple(keys)


# --- docs/rules.md -----------------------------------------------------------------------------

DOC_PATH = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def _show(value: object) -> str:
    return json.dumps(value) if isinstance(value, bool) else str(value)


def _code(value: object) -> str:
    return f"`{_show(value)}`"


def markdown() -> str:
    """The text of docs/rules.md."""
    out = [
        "# The rule catalogue",
        "",
        "<!-- Generated by `python -m unostats.catalogue --write` (make docs) from",
        "     src/unostats/catalogue.py and the rule table src/unostats/rules.py; edit those. -->",
        "",
        "Every rule unostats plays has an id (D1 ... B3), used in scenario descriptions, the",
        "rule table, the report and `docs/engine.md`. Each rule says what it means, which",
        "source documents have it and which scenario keys set it (\"Scenario keys\" below lists",
        "each key's values and default). Where the sources disagree, each reading is an option;",
        "none is silently picked. `docs/engine.md` fixes every choice a rule leaves open.",
        "",
        "## Sources",
        "",
        "| tag | document | what it is |",
        "|---|---|---|",
        *(f"| {tag} | {title} | {what} |" for tag, (title, what) in SOURCES.items()),
        "",
        ("\"UNO-Extreme\" is the section «Дополнительные правила UNO-Extreme» of the WIKI "
         "article; \"all\" means every source."),
        "",
        "## Vocabulary",
        "",
        "- **round** (a deal): cards are dealt, players take turns, it ends when someone empties",
        "  their hand (or by a variant's own end condition).",
        "- **game** (a match): rounds repeat, scores accumulating, until a target score ends it.",
        "- **turn**: one player's opportunity to act. A skipped player gets no turn; out-of-turn",
        "  plays (jump-ins) are counted separately.",
        "- **seat**: a fixed place at the table, 0 .. n-1 clockwise; the **dealer** moves",
        "  clockwise each round and the **first player** of a round is the seat after the dealer",
        "  unless a rule changes it.",
        "- **position**: a seat's offset from the round's first player (position 0 acts first);",
        "  the first player's advantage is measured by position, never by seat.",
        "",
    ]
    for section in CATALOGUE:
        out += [f"## {section.number}. {section.title} (`{section.slug}`)", ""]
        for r in section.rules:
            keys = options_for(r.id)
            how = ", ".join(f"`{k}`" for k in keys) if keys else r.elsewhere
            if keys and r.elsewhere:
                how = f"{how}; {r.elsewhere}"
            out.append(f"- **{r.id} {r.name}.** {r.meaning} *Sources: {r.sources}.* "
                       f"In unostats: {how}.")
        out.append("")
    out += [
        "## Scenario keys",
        "",
        "A variant's `rules:` sets these keys (defaults: the official rules, the first value).",
        "",
        "| key | rules | values (default first) | what it sets |",
        "|---|---|---|---|",
    ]
    for o in rules.RULE_OPTIONS:
        if o.int_range is not None:
            lo, hi = o.int_range
            default = "by `scoring`" if o.default is None else _code(o.default)
            values = f"{default}; {lo}..{hi}"
        else:
            values = ", ".join(_code(v) for v in o.values)
        out.append(f"| `{o.key}` | {o.rule_ids} | {values} | {o.doc} |")
    out.append(f"| `{rules.DECK_KEY}` | {rules.DECK_RULE_IDS} | card counts by kind, "
               f"{rules.DECK_RANGE[0]}..{rules.DECK_RANGE[1]} each (below) | the deck |")
    out += ["", "Values that need others (a scenario that breaks one is refused):", ""]
    out += [f"- `{o.key}` {' or '.join(_code(v) for v in n.values)} needs `{n.other}` "
            f"{' or '.join(_code(v) for v in n.allowed)}: {n.why}."
            for o in rules.RULE_OPTIONS for n in o.needs]
    out += [
        "",
        "`deck` kinds and their standard counts (per colour for "
        + ", ".join(f"`{k}`" for k in cards.PER_COLOUR_DECK_KEYS)
        + "; `numbers` is the copies of each of 1-9 per colour; the others are totals): "
        + ", ".join(f"`{k}` {n}" for k, n in cards.DECK_KEYS.items()) + ".",
        "",
        "Seats (B1-B3): `seats:` is one mapping for every seat or a list with one per seat, each",
        "with a `policy` and `behaviour` probabilities.",
        "",
        "| behaviour | default | meaning |",
        "|---|---|---|",
        *(f"| `{k}` | {d} | {m} |" for k, (d, m) in rules.BEHAVIOUR.items()),
        "",
        "| policy | how it plays |",
        "|---|---|",
        *(f"| `{p}` | {rules.POLICY_DOCS[p]} |" for p in rules.POLICIES),
        "",
        "A `policy` may also be a mapping: `name` (its label in the results), `weights` (a number",
        f"per feature: {', '.join(f'`{f}`' for f in seats.FEATURES)}; missing ones are 0),",
        "`colour` (`most_held` or `random`) and `ties` (`random` or `first`). Every legal card",
        "scores sum(weight x feature) and the best is played (docs/engine.md, \"Policies as",
        "data\", defines each feature).",
        "",
    ]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    """``--write``: (re)write docs/rules.md; ``--check``: exit 1 if it is not current; else print
    the page."""
    text = markdown()
    if "--write" in argv:
        DOC_PATH.write_text(text, encoding="utf-8")
        print(f"wrote {DOC_PATH}", file=sys.stderr)
    elif "--check" in argv:
        current = DOC_PATH.read_text(encoding="utf-8") if DOC_PATH.exists() else ""
        if current != text:
            print(f"{DOC_PATH} is out of date: run `make docs`", file=sys.stderr)
            return 1
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":  # pragma: no cover - a developer tool (make docs)
    sys.exit(main(sys.argv[1:]))
