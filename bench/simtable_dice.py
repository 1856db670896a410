"""The dice reader on the referee's simulated table, against the script's dice frame by frame.

    python bench/simtable_dice.py [--seeds 1,2,3] [--only cuatro,spexxx] [--frames 300]

Each seeded game is played on `companion.simtable.SimTable` (35 degree tilt, illegal stones,
passing hands) and refereed with the dice read from the camera (`CameraDice`). Over the frames
where no hand is over the table and the dice lie as in the frame before, it counts the frames
read with exactly as many dice as lie there and with the true values (sorted), and the dice
read right (sorted values matched; a missing or an extra die is a wrong one). Throws: a true
throw is settled right when `CameraDice` reports its values before the next throw lands.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.core import find_game  # noqa: E402
from companion.referee import Referee  # noqa: E402
from companion.session import Session  # noqa: E402
from companion.simtable import SimOptions, SimTable  # noqa: E402
from hardware.camera import Frame  # noqa: E402
from vision.config import VisionConfig  # noqa: E402

PLAYERS = {"cuatro": ["red", "blue"], "spexxx": ["black", "white"]}


def score_game(game: str, seed: int, limit: int) -> Counter:
    """Frame and throw counts of one seeded game's first ``limit`` frames."""
    table = SimTable(game, PLAYERS[game], seed, fps=10,
                     options=SimOptions(illegal_moves=frozenset({4, 15, 30}),
                                        passing_hands=0.15))
    session = Session(find_game(game)(list(PLAYERS[game])))
    referee = Referee(session, colours=table.colours, config=VisionConfig(k1=table.pose.k1))
    counts: Counter = Counter()
    settled: list[tuple[int, tuple[int, ...]]] = []
    truth: list[tuple[int, tuple[int, ...]]] = []
    read_throw = referee.dice.settled

    def watch(frame, board):
        values = read_throw(frame, board)
        if values is not None:
            settled.append((frame.index, tuple(sorted(values))))
        return values

    referee.dice.settled = watch
    before = None
    for index, sim in enumerate(table.frames()):
        if index >= limit:
            break
        referee.step(Frame(sim.image, sim.timestamp, index))
        if sim.truth.throw:
            truth.append((index, tuple(sorted(sim.truth.throw))))
        dice = sim.truth.dice
        if not sim.truth.hand and dice == before:
            true = Counter(d.value for d in dice)
            seen = Counter(r.value for r in referee.dice.seen)
            counts["still frames"] += 1
            counts["right count"] += sum(seen.values()) == len(dice)
            counts["extra die"] += sum(seen.values()) > len(dice)
            counts["right values"] += seen == true
            counts["dice"] += max(len(dice), sum(seen.values()))
            counts["dice right"] += sum((seen & true).values())
        before = dice
    for k, (at, values) in enumerate(truth):
        end = truth[k + 1][0] if k + 1 < len(truth) else limit
        counts["throws"] += 1
        counts["throws right"] += any(at - 5 <= i < end and v == values for i, v in settled)
    counts["throws reported"] += len(settled)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--only", default="cuatro,spexxx")
    parser.add_argument("--frames", type=int, default=300, help="frames per game")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    total: Counter = Counter()
    for game in args.only.split(","):
        for seed in (int(s) for s in args.seeds.split(",")):
            c = score_game(game, seed, args.frames)
            total += c
            print(f"{game} seed {seed}: right count {c['right count']}/{c['still frames']}, "
                  f"right values {c['right values']}/{c['still frames']}, extra die "
                  f"{c['extra die']}, dice {c['dice right']}/{c['dice']}, throws "
                  f"{c['throws right']}/{c['throws']} ({c['throws reported']} reported)")
    n = max(total["still frames"], 1)
    print(f"still frames: right count {total['right count']}/{n} = "
          f"{100 * total['right count'] / n:.1f} %, right values {total['right values']}/{n} = "
          f"{100 * total['right values'] / n:.1f} %, extra die {total['extra die']}; per die "
          f"{total['dice right']}/{total['dice']} = "
          f"{100 * total['dice right'] / max(total['dice'], 1):.1f} %; throws settled right "
          f"{total['throws right']}/{total['throws']} ({total['throws reported']} reported)")


if __name__ == "__main__":
    main()
