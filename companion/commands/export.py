"""``companion export --out record.json``: a logged game as a game record."""

from __future__ import annotations

import argparse
import json

from companion.cli import CommandError
from companion.commands.play import DEFAULT_LOG
from companion.gamelog import GameLog


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "export",
        help="write a game from the game log as a game record (JSON)",
        description="Writes the moves in force (undos applied) of a logged game in the "
        "record format `companion replay` reads.",
    )
    parser.add_argument("--log", default=DEFAULT_LOG, help=f"game log (default {DEFAULT_LOG})")
    parser.add_argument("--game-id", type=int, help="which game (default: the latest)")
    parser.add_argument("--out", required=True, help="where to write the record")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        with GameLog(args.log) as log:
            game_id = args.game_id if args.game_id is not None else log.latest().id
            record = log.export(game_id)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    try:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(record, fh, indent=1)
    except OSError as exc:
        raise CommandError(f"cannot write {args.out}: {exc.strerror}") from None
    print(f"game {game_id} ({record.get('game')}, {len(record.get('moves', []))} moves) "
          f"written to {args.out}")
    return 0
