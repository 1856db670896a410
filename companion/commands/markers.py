"""``companion markers --game G --out markers.pdf``: print the board's four markers."""

from __future__ import annotations

import argparse

from companion.cli import CommandError
from companion.layout import LayoutError, load_layout
from vision.printout import marker_sheet, placement_text, write_pdf


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "markers",
        help="write a PDF with the four board markers at true size, to print and cut out",
        description="Write an A4 PDF with the four ArUco markers of a game's layout at true "
        "size, with cut marks and where each one goes. Print it at 100 %% (actual size).",
    )
    parser.add_argument("--game", required=True, help="game name or layout file (.json)")
    parser.add_argument("--out", default="markers.pdf", help="PDF to write (markers.pdf)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        layout = load_layout(args.game)
    except LayoutError as exc:
        raise CommandError(str(exc)) from None
    try:
        write_pdf(marker_sheet(layout), args.out)
    except OSError as exc:
        raise CommandError(f"cannot write {args.out}: {exc.strerror}") from None
    print(f"wrote {args.out}: print at 100 % (actual size) and check the 100 mm ruler")
    for index in range(4):
        print("  " + placement_text(layout, index))
    return 0
