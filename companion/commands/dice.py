"""``companion dice PHOTO``: read the dice in a photo and print (or draw) what was read."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2

from companion.cli import CommandError
from vision.dice import DiceConfig, DiceInputError, DieReading, annotate_dice, read_dice


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "dice",
        help="read the dice in a photo: each die's value and where it lies",
        description="Read the dice in a photo. A die whose top face cannot be read safely "
        "(leaning, cut by the edge of the picture) is listed as unreadable.",
    )
    parser.add_argument("photo", help="path of the photo (PNG or JPEG)")
    parser.add_argument("--json", action="store_true", help="print the dice as JSON")
    parser.add_argument("--annotate", metavar="OUT.png",
                        help="write a copy of the photo with each die's box and value")
    parser.add_argument("--setup", default="closeup", choices=["closeup", "table"],
                        help="camera set-up: a webcam near the dice (closeup, white dice with "
                        "dark pips) or the camera over the whole board (table)")
    parser.add_argument("--config", metavar="CONFIG.json",
                        help="dice reader thresholds (instead of --setup)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    frame = cv2.imread(args.photo) if Path(args.photo).is_file() else None
    if frame is None:
        raise CommandError(f"cannot read the photo {args.photo}: missing or not an image")
    try:
        config = (DiceConfig.from_json(args.config) if args.config
                  else DiceConfig.preset(args.setup))
        readings = read_dice(frame, config=config)
    except DiceInputError as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        print(json.dumps({"photo": args.photo, "dice": dice_to_json(readings)}))
    else:
        print_dice(readings)
    if args.annotate:
        annotate_dice(frame, readings)
        if not cv2.imwrite(args.annotate, frame):
            raise CommandError(f"cannot write {args.annotate}: use a .png or .jpg name in a "
                               "folder that exists")
    return 0


def dice_to_json(readings: list[DieReading]) -> list[dict]:
    return [{"value": r.value, "confidence": r.confidence, "box": list(r.box),
             "centre": [round(c, 1) for c in r.centre]} for r in readings]


def print_dice(readings: list[DieReading]) -> None:
    values = [r.value for r in readings if r.value is not None]
    unreadable = sum(r.value is None for r in readings)
    print(f"{len(readings)} dice: {' '.join(map(str, values)) or '-'}"
          + (f" ({unreadable} unreadable)" if unreadable else "")
          + (f", total {sum(values)}" if values else ""))
    for r in readings:
        x, y, w, h = r.box
        shown = r.value if r.value is not None else "unreadable"
        print(f"  {shown} at ({x}, {y}) size {w}x{h}, confidence {r.confidence:.2f}")
