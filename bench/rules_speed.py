"""Full random games per second for each game, on one core (target: >= 200 games/s each).

    python bench/rules_speed.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from companion.core import GAMES, find_game
from companion.playout import play_random


def games_per_second(name: str, players: int, seconds: float) -> tuple[float, float]:
    """(games per second, median turns per game) over ``seconds`` of play."""
    cls = find_game(name)
    names = ["red", "blue", "green", "yellow"][:players]
    options = dict(cls.random_play_options)  # Mühle's random games end only by a draw rule
    rng = random.Random(1)
    layout = cls(names, options).layout  # loaded once, as a session would
    turns = []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or len(turns) < 5:
        game = play_random(cls(names, options, layout), rng)
        turns.append(game.turn)
    elapsed = time.perf_counter() - start
    return len(turns) / elapsed, statistics.median(turns)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per game and player count")
    args = parser.parse_args()
    find_game("cuatro")
    print(f"{'game':10} {'players':>7} {'games/s':>9} {'turns':>6}")
    for name, cls in sorted(GAMES.items()):
        for players in range(cls.min_players, cls.max_players + 1):
            rate, turns = games_per_second(name, players, args.seconds)
            flag = "" if rate >= 200 else "  (below 200)"
            print(f"{name:10} {players:7} {rate:9.0f} {turns:6.0f}{flag}")


if __name__ == "__main__":
    main()
