"""``companion replay RECORD.json``: replay a game record and check every move."""

from __future__ import annotations

import argparse
import json

from companion.cli import CommandError
from companion.core import Game, IllegalMove
from companion.moves import move_to_dict
from companion.record import BadRecord, load_record
from companion.report import describe_position, final_report

EXIT_ILLEGAL = 2


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "replay",
        help="replay a game record: the state after each move, the final scores and winner",
        description="Replay a game record (JSON, see README). Stops at the first illegal "
        "move with the rule it breaks (exit code 2); a malformed record is exit code 1.",
    )
    parser.add_argument("record", help="path of the game record (.json)")
    parser.add_argument("--json", action="store_true", help="print the replay as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        record = load_record(args.record)
    except BadRecord as exc:
        raise CommandError(str(exc)) from None
    steps: list[dict] = []
    game: Game = record.new_game()
    try:
        for i, player, move, game in record.replay():
            if args.json:
                steps.append({"index": i, "player": player, "move": move_to_dict(move),
                              **_brief(game)})
            else:
                print(f"{i + 1:4}. {player}: {move}  ->  {describe_position(game)}")
    except IllegalMove as exc:
        index = len(game.moves) if game else 0
        if args.json:
            print(json.dumps({"moves": steps, "illegal": {"index": index, "rule": str(exc)}},
                             indent=1))
        else:
            print(f"illegal move {index + 1} ({exc.move}): {exc}")
        return EXIT_ILLEGAL
    except BadRecord as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        print(json.dumps({"moves": steps, "final": game.status()}, indent=1))
    else:
        print(final_report(game))
    return 0


def _brief(game: Game) -> dict:
    status = game.status()
    return {k: status[k] for k in ("turn", "round", "current_player", "is_over")} | {
        "scores": {p: s["total"] for p, s in status["scores"].items()}
    }
