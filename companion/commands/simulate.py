"""``companion simulate``: a random legal game played out in the terminal."""

from __future__ import annotations

import argparse
import json
import random

from companion.cli import CommandError
from companion.core import find_game
from companion.report import describe_position, final_report


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "simulate",
        help="play a random legal game in the terminal and score it",
        description="Plays a seeded random legal game, printing each move and the final "
        "scores; --record writes it as a game record for `companion replay`.",
    )
    parser.add_argument("--game", default="cuatro", help="just4fun, spexxx, cuatro or muehle")
    parser.add_argument("--players", default="red,blue", help="comma-separated player names")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a game option, e.g. five_in_a_row=true (repeatable)")
    parser.add_argument("--record", metavar="PATH", help="write the game record here")
    parser.add_argument("--quiet", action="store_true", help="print only the final report")
    parser.set_defaults(func=run)


def parse_options(pairs: list[str]) -> dict:
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise CommandError(f"--option {pair!r}: expected KEY=VALUE")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    return options


def run(args: argparse.Namespace) -> int:
    try:
        cls = find_game(args.game)
        # a game whose random play can wander for ever names options that end it
        options = {**cls.random_play_options, **parse_options(args.option)}
        game = cls(args.players.split(","), options)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    rng = random.Random(seed)
    print(f"{game.title}, players {', '.join(game.players)}, seed {seed}")
    while not game.is_over:
        player = game.current_player
        move = game.random_move(rng)
        game.apply(move)
        if not args.quiet:
            print(f"  {player}: {move}  ->  {describe_position(game)}")
    print(final_report(game))
    if args.record:
        with open(args.record, "w", encoding="utf-8") as fh:
            json.dump(game.to_record(), fh, indent=1)
        print(f"record written to {args.record}")
    return 0
