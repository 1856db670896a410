"""The live referee end to end on the simulated table: whole seeded games of every game.

Each game is played physically by the scripted player (hands, falling pieces, thrown dice,
Mühle captures, illegal stones taken back, hands passing over) and refereed through the
full loop: renderer -> board reader -> stability filter -> session -> rules. Prints per game
and overall: the share of games ending with exactly the true moves, end and scores, and
the share ending with the true board, end and scores though a throw on the way was read
otherwise ("same end": what the players are told at the end is right); the
injected illegal moves flagged; the latency from the hand leaving the board to the move
being accepted (simulated time); and the loop's CPU per simulated second (rendering not
counted). In the dice games the throws are read from the frames by the dice reader;
``--scripted-dice`` takes them from the script instead, to measure the board loop alone.
Players who have played the last move and see no end on the page press confirm (counted).
``--players-answer``: the players enter on the page the dice they threw when a stone of theirs
stays flagged against other dice, or choose the move they made where the page asks which
(what the page asks of them); the answers are counted.

    python bench/referee_e2e.py [--games N] [--only cuatro,muehle] [--fps 10] [--seed 1]
                                [--scripted-dice] [--players-answer]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.referee import CameraDice, ScriptedDice  # noqa: E402
from companion.simtable import SimOptions, SimTable, referee_simulated  # noqa: E402
from hardware.panel import Panel  # noqa: E402

PLAYERS = {"cuatro": ["red", "blue"], "just4fun": ["red", "blue"],
           "spexxx": ["black", "white"], "muehle": ["white", "black"]}
#: An illegal stone is put down before these moves (or the next placement after them).
ILLEGAL_AT = frozenset({4, 15, 30})


def play_one(game: str, seed: int, fps: float, scripted_dice: bool,
             players_answer: bool) -> dict:
    table = SimTable(game, PLAYERS[game], seed, fps=fps,
                     options=SimOptions(illegal_moves=ILLEGAL_AT, passing_hands=0.15))
    with Panel(simulate=True, clock=lambda: table.current.timestamp if table.current else 0.0,
               background=False, sleep=lambda s: None) as panel:
        started = time.process_time()
        run = referee_simulated(table, panel=panel, scripted_dice=scripted_dice,
                                players_answer=players_answer)
        total_cpu = time.process_time() - started
    frames = run.referee.stats.frames
    return {
        "game": game, "seed": seed, "exact": run.exact, "same_end": run.same_end,
        "moves": len(table.game.moves),
        "accepted": len(run.session.game.moves), "injected": table.injected,
        "flagged": len(run.flagged), "false_flags": run.false_flags,
        "latencies": run.latencies(), "frames": frames,
        "loop_cpu": run.referee.stats.cpu_seconds, "sim_seconds": frames / fps,
        "total_cpu": total_cpu, "answers": run.answers, "differs": run.first_difference(),
        "end_confirmed": table.end_confirmed,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games per game kind")
    parser.add_argument("--only", default=",".join(PLAYERS), help="comma-separated games")
    parser.add_argument("--fps", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=1, help="first seed")
    parser.add_argument("--scripted-dice", action="store_true",
                        help="throws from the script, not the dice reader")
    parser.add_argument("--players-answer", action="store_true",
                        help="players enter their throw when the page flags a stone against "
                        "other dice")
    args = parser.parse_args()
    dice = ScriptedDice if args.scripted_dice else CameraDice
    print(f"note: {dice.label}")
    results = []
    for game in args.only.split(","):
        for seed in range(args.seed, args.seed + args.games):
            r = play_one(game, seed, args.fps, args.scripted_dice, args.players_answer)
            results.append(r)
            answered = f"players answered {r['answers']}, " if r["answers"] else ""
            if r["end_confirmed"]:
                answered += "no end shown: confirm pressed, "
            end = "" if r["exact"] else f" ({'same' if r['same_end'] else 'other'} end)"
            print(f"{game:9} seed {seed:3}: {'exact' if r['exact'] else 'DIFFERS'}{end}, "
                  f"{r['accepted']}/{r['moves']} moves, illegal flagged {r['flagged']}/"
                  f"{r['injected']}, false flags {len(r['false_flags'])}"
                  f"{' ' + repr(r['false_flags'][:2]) if r['false_flags'] else ''}, "
                  f"{answered}{'' if r['exact'] else r['differs'] + ', '}"
                  f"{r['frames']} frames, loop CPU {r['loop_cpu'] / r['sim_seconds']:.3f} s/s",
                  flush=True)
    print()
    for game in [*args.only.split(","), "all"]:
        rs = [r for r in results if game in ("all", r["game"])]
        lat = sorted(x for r in rs for x in r["latencies"])
        p95 = lat[min(len(lat) - 1, int(round(0.95 * (len(lat) - 1))))] if lat else float("nan")
        cpu = sum(r["loop_cpu"] for r in rs) / sum(r["sim_seconds"] for r in rs)
        print(f"{game:9}: exact {sum(r['exact'] for r in rs)}/{len(rs)} "
              f"({100 * sum(r['exact'] for r in rs) / len(rs):.0f} %), same end "
              f"{sum(r['same_end'] for r in rs)}/{len(rs)}, illegal flagged "
              f"{sum(r['flagged'] for r in rs)}/{sum(r['injected'] for r in rs)}, false flags "
              f"{sum(len(r['false_flags']) for r in rs)}, latency median "
              f"{statistics.median(lat) if lat else float('nan'):.2f} s p95 {p95:.2f} s "
              f"(n={len(lat)}), loop CPU {cpu:.3f} s per simulated s at {args.fps:g} fps, "
              f"confirm pressed for the end {sum(r['end_confirmed'] for r in rs)}")
        if args.players_answer:
            unaided = sum(r["exact"] and not r["answers"] for r in rs)
            print(f"{'':9}  players answered {sum(len(r['answers']) for r in rs)} times; "
                  f"exact without an answer {unaided}/{len(rs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
