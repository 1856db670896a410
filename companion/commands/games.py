"""``companion games``: which games the referee knows, with their options."""

from __future__ import annotations

import argparse

from companion.core import GAMES, find_game


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("games", help="list the games, their player counts and options")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    find_game("cuatro")  # imports and registers every game
    for name, cls in sorted(GAMES.items()):
        options = ", ".join(f"{k}={v!r}" for k, v in cls.default_options.items()) or "none"
        players = f"{cls.min_players}-{cls.max_players} players"
        print(f"{name:10} {cls.title:20} {players}, options: {options}")
    return 0
