"""``companion read PHOTO --game G``: read the board in one photo and print it."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from companion.cli import CommandError
from companion.commands.dice import dice_to_json, print_dice
from companion.layout import LayoutError, load_layout
from vision.calibration import ColourCalibration
from vision.config import VisionConfig
from vision.dice import DiceConfig, DiceInputError, DieReading, annotate_dice, read_dice
from vision.errors import VisionError
from vision.reader import BoardTracker, annotate, read_board


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "read",
        help="read the board in a photo: every field's top colour and tower height",
        description="Find the board in a photo by its four markers (or four corners given "
        "by hand) and print each field's state. Hidden fields (a hand over the board) are "
        "listed, never guessed.",
    )
    parser.add_argument("photo", help="photo of the table (PNG or JPEG)")
    parser.add_argument("--game", required=True, help="game name or layout file (.json)")
    parser.add_argument("--corners", metavar="X1,Y1,...,X4,Y4",
                        help="pixel corners of the board (top-left, top-right, bottom-right, "
                        "bottom-left) for a board without markers")
    parser.add_argument("--calibration", metavar="FILE",
                        help="colour calibration (JSON); default: the layout's piece colours")
    parser.add_argument("--players", metavar="C1,C2",
                        help="the colours in play, e.g. red,blue (default: all)")
    parser.add_argument("--config", metavar="FILE", help="vision settings (.json or .toml)")
    parser.add_argument("--json", action="store_true", help="print the reading as JSON")
    parser.add_argument("--annotate", metavar="OUT.png",
                        help="also write the photo with each field's reading drawn on it")
    parser.add_argument("--dice", action="store_true",
                        help="also read the dice: in the layout's dice area when the board is "
                        "found, else anywhere in the photo")
    parser.set_defaults(func=run)


def _corners(text: str | None) -> np.ndarray | None:
    if text is None:
        return None
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise CommandError(f"--corners: {text!r} is not a list of numbers") from None
    if len(values) != 8:
        raise CommandError("--corners needs eight numbers: x1,y1,x2,y2,x3,y3,x4,y4")
    return np.array(values).reshape(4, 2)


def run(args: argparse.Namespace) -> int:
    try:
        layout = load_layout(args.game)
    except LayoutError as exc:
        raise CommandError(str(exc)) from None
    if not Path(args.photo).is_file():
        raise CommandError(f"no photo {args.photo}")
    frame = cv2.imread(args.photo, cv2.IMREAD_COLOR)
    if frame is None:
        raise CommandError(f"{args.photo} is not an image OpenCV can read")
    players = [p.strip() for p in args.players.split(",")] if args.players else None
    try:
        config = VisionConfig.load(args.config) if args.config else VisionConfig()
        # A photo may come from any camera: read it at its own size.
        config = replace(config, frame_size=(frame.shape[1], frame.shape[0]))
        if args.calibration:
            calibration = ColourCalibration.load(args.calibration)
            if players:
                calibration = calibration.only(players)
        else:
            calibration = ColourCalibration.default(layout, players)
        tracker = BoardTracker(layout, calibration, config, _corners(args.corners))
        reading = read_board(frame, layout, calibration, config, tracker)
    except VisionError as exc:
        raise CommandError(str(exc)) from None
    result = {"game": layout.game, "photo": args.photo, "board": reading.to_dict()}
    dice = _read_dice(frame, reading, layout, tracker.localiser.camera) if args.dice else None
    if dice is not None:
        result["dice"] = dice_to_json(dice)
    if args.annotate:
        picture = annotate(frame, reading, layout)
        if dice is not None:
            annotate_dice(picture, dice)
        if not cv2.imwrite(args.annotate, picture):
            raise CommandError(f"cannot write {args.annotate}")
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        _print_text(reading, layout)
        if dice is not None:
            print_dice(dice)
    return 0 if reading.ok else 3


def _read_dice(frame: np.ndarray, reading, layout, camera) -> list[DieReading]:
    region = region_mm = None
    if reading.homography is not None and layout.dice_area_mm is not None:
        x0, y0, x1, y1 = layout.dice_area_mm
        region_mm = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)
        region = camera.board_to_frame(reading.homography, region_mm)
    try:
        return read_dice(frame, region, DiceConfig.preset("table"), region_mm)
    except DiceInputError as exc:
        raise CommandError(str(exc)) from None


def _print_text(reading, layout) -> None:
    if not reading.ok:
        print(f"cannot read the board: {reading.problem}")
        return
    for name in layout.fields:
        if name in reading.hidden_fields:
            print(f"{name:>8}: hidden")
            continue
        f = reading.fields[name]
        state = "empty" if f.height == 0 else f"{f.top_colour} x{f.height}"
        print(f"{name:>8}: {state}{'  (unsure)' if f.confidence < 0.6 else ''}")
    if reading.occluded:
        print(f"occluded: {reading.notes}")
