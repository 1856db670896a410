"""The ``companion`` command: one subcommand per job, each in ``companion/commands/``."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

#: Modules that each define ``add_parser(subparsers)``, setting ``func`` on their parser.
COMMANDS = [
    "companion.commands.games",
    "companion.commands.markers",
    "companion.commands.read",
    "companion.commands.calibrate",
    "companion.commands.replay",
    "companion.commands.simulate",
    "companion.commands.selftest",
    "companion.commands.dice",
    "companion.commands.play",
    "companion.commands.export",
    "companion.commands.score",
]


class CommandError(Exception):
    """A failure the user can fix; printed as one line, never a traceback."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Board Companion: a camera referee for Just 4 Fun Colours, Spexxx, "
        "Cuatro and Mühle.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(name).add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except CommandError as exc:
        print(f"companion {args.command}: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `companion simulate | head`
        sys.stderr.close()
        return 0
