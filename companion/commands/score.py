"""``companion score PHOTO --game G --players ...``: score a finished board from one photo."""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2

from companion.cli import CommandError
from companion.commands.read import _corners
from companion.core import find_game
from companion.referee import player_colours
from companion.scoring import score_board
from vision.calibration import ColourCalibration
from vision.config import VisionConfig
from vision.errors import VisionError
from vision.reader import BoardTracker, read_board


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "score",
        help="score a finished board from one photo",
        description="Reads every field's top colour and tower height from the photo and "
        "scores the board as the game's rules count a finished board. What a photo cannot "
        "show (Spexxx block bonus, pieces taken) is said, not guessed.",
    )
    parser.add_argument("photo", help="photo of the finished board (PNG or JPEG)")
    parser.add_argument("--game", required=True, help="just4fun, spexxx, cuatro or muehle")
    parser.add_argument("--players", required=True,
                        help="comma-separated players in seat order (colour names pick that "
                        "piece colour, e.g. red,blue)")
    parser.add_argument("--corners", metavar="X1,Y1,...,X4,Y4",
                        help="pixel corners of the board (TL, TR, BR, BL) if it has no markers")
    parser.add_argument("--k1", type=float, default=0.0,
                        help="the camera's radial lens distortion (OpenCV k1), if known")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    players = [p.strip() for p in args.players.split(",") if p.strip()]
    try:
        game = find_game(args.game)(players, {})
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    layout = game.layout
    if not Path(args.photo).is_file():
        raise CommandError(f"no photo {args.photo}")
    frame = cv2.imread(args.photo, cv2.IMREAD_COLOR)
    if frame is None:
        raise CommandError(f"{args.photo} is not an image OpenCV can read")
    try:
        colours = player_colours(players, layout.piece_colours)
        config = VisionConfig(frame_size=(frame.shape[1], frame.shape[0]), k1=args.k1)
        calibration = ColourCalibration.default(layout, list(colours.values()))
        tracker = BoardTracker(layout, calibration, config, _corners(args.corners))
        reading = read_board(frame, layout, calibration, config, tracker)
    except (VisionError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    if reading.problem:
        raise CommandError(f"the board cannot be read: {reading.problem}")
    if reading.hidden_fields:
        raise CommandError(f"fields {', '.join(sorted(reading.hidden_fields))} are hidden; "
                           "take the photo with nothing over the board")
    owner = {c: p for p, c in colours.items()}
    tops = {name: (owner[f.top_colour], f.height) for name, f in reading.fields.items()
            if f.height and f.top_colour in owner}
    try:
        result = score_board(game.name, players, tops, layout)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    unsure = sorted(n for n, f in reading.fields.items() if f.confidence < config.uncertain_below)
    print(f"{game.title}, scored from {args.photo}:")
    for player, score in result.scores.items():
        print(f"  {player}: {score.total} points")
        for line in score.lines:
            print(f"      {line.points:+4}  {line.label}")
    for note in result.notes:
        print(f"  note: {note}")
    if unsure:
        print(f"  note: the camera is unsure about {', '.join(unsure)}; check those fields")
    return 0
