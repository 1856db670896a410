"""``companion calibrate PHOTO --game G --pieces A1=red,F6=blue --out colours.json``: learn
the players' piece colours from a setup photo, for ``read`` and ``play --calibration``."""

from __future__ import annotations

import argparse
import math
from dataclasses import replace
from pathlib import Path

import cv2

from companion.cli import CommandError
from companion.commands.read import _corners
from companion.layout import LayoutError, load_layout
from vision.calibration import ColourCalibration
from vision.config import VisionConfig
from vision.errors import VisionError
from vision.reader import BoardTracker, learn_calibration, read_board


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "calibrate",
        help="learn the players' piece colours from a setup photo",
        description="At setup each player puts one piece on a known field and a photo is "
        "taken; the colours seen there, under this table's light and camera, are saved for "
        "`companion read` and `companion play` (--calibration). The photo is then read "
        "with them, and nothing is saved unless every piece reads as its colour.",
    )
    parser.add_argument("photo", help="setup photo of the table (PNG or JPEG)")
    parser.add_argument("--game", required=True, help="game name or layout file (.json)")
    parser.add_argument("--pieces", required=True, metavar="FIELD=COLOUR,...",
                        help="where each player's piece lies, e.g. A1=red,F6=blue")
    parser.add_argument("--out", required=True, metavar="COLOURS.json",
                        help="where to save the learned colours")
    parser.add_argument("--corners", metavar="X1,Y1,...,X4,Y4",
                        help="pixel corners of the board for a board without markers")
    parser.add_argument("--config", metavar="FILE", help="vision settings (.json or .toml)")
    parser.set_defaults(func=run)


def _pieces(text: str, fields: dict) -> dict[str, str]:
    placements: dict[str, str] = {}
    for item in text.split(","):
        name, _, colour = item.strip().partition("=")
        if not name or not colour.strip():
            raise CommandError(f"--pieces: {item.strip()!r} is not FIELD=COLOUR")
        if name not in fields:
            raise CommandError(f"--pieces: the board has no field {name}")
        if name in placements:
            raise CommandError(f"--pieces: {name} is given twice")
        placements[name] = colour.strip()
    return placements


def run(args: argparse.Namespace) -> int:
    try:
        layout = load_layout(args.game)
    except LayoutError as exc:
        raise CommandError(str(exc)) from None
    frame = cv2.imread(args.photo, cv2.IMREAD_COLOR) if Path(args.photo).is_file() else None
    if frame is None:
        raise CommandError(f"cannot read the photo {args.photo}: missing or not an image")
    placements = _pieces(args.pieces, layout.fields)
    corners = _corners(args.corners)
    try:
        config = VisionConfig.load(args.config) if args.config else VisionConfig()
        config = replace(config, frame_size=(frame.shape[1], frame.shape[0]))
        learned = learn_calibration(frame, layout, placements, config, corners)
        reading = read_board(frame, layout, learned, config,
                             BoardTracker(layout, learned, config, corners))
    except VisionError as exc:
        raise CommandError(str(exc)) from None
    if not reading.ok:
        raise CommandError(f"cannot read the board: {reading.problem}")
    wrong = [_misread(name, colour, reading) for name, colour in placements.items()]
    wrong = [w for w in wrong if w]
    if wrong:
        raise CommandError("nothing saved: " + "; ".join(wrong)
                           + " (one piece of each colour, nothing over the board)")
    default = ColourCalibration.default(
        layout, [c for c in learned.colours if c in layout.piece_colours] or None)
    if mistaken := _board_taken_for_pieces(frame, layout, placements, reading, default,
                                           config, corners):
        raise CommandError(f"nothing saved: with the colours learned, {mistaken} (the "
                           "layout's colours read them empty): under this light those pieces "
                           "cannot be told from the board's print; play without --calibration")
    learned.save(args.out)
    nominal = default.colours
    for colour, lab in learned.colours.items():
        known = nominal.get(colour)
        off = f", {math.dist(lab, known):.0f} from the layout's {colour}" if known else ""
        print(f"{colour}: Lab {lab[0]:.0f} {lab[1]:.0f} {lab[2]:.0f}{off}")
    print(f"saved {args.out}; use it with --calibration {args.out}")
    return 0


def _board_taken_for_pieces(frame, layout, placements: dict[str, str], reading,
                            default: ColourCalibration, config: VisionConfig,
                            corners) -> str:
    """The empty fields the learned colours read as pieces while the layout's read them
    empty, as "the empty violet fields C1, F2 read as blue pieces", or "". A piece painted
    close to a field's print (a violet-ish blue) reads back on its own field, yet would
    then be seen on every field of that print."""
    plain = read_board(frame, layout, default, config,
                       BoardTracker(layout, default, config, corners))
    taken: dict[tuple[str, str], list[str]] = {}
    for name, field in reading.fields.items():
        if name in placements or field.height == 0 or name not in plain.fields:
            continue
        if plain.fields[name].height == 0:
            printed = layout.fields[name].printed or "board"
            taken.setdefault((printed, field.top_colour), []).append(name)
    return "; ".join(f"the empty {printed} fields {', '.join(names)} read as {colour} pieces"
                     for (printed, colour), names in taken.items())


def _misread(name: str, colour: str, reading) -> str:
    """Why a setup piece does not read back as one piece of its colour, or ""."""
    if name in reading.hidden_fields:
        return f"{name} is hidden"
    field = reading.fields[name]
    if field.height == 1 and field.top_colour == colour:
        return ""
    seen = "empty" if field.height == 0 else f"{field.top_colour} x{field.height}"
    return f"{name} reads {seen}, not one {colour} piece"
