"""How many full random Cuatro games one core plays per second (target: >= 200).

Run from the repository root: python -m bench.cuatro_speed [games]
Prints the median of 5 runs per player count.
"""

from __future__ import annotations

import random
import statistics
import sys
import time

from companion.core import new_game
from companion.playout import play_random

PLAYERS = ("red", "blue", "green", "yellow")


def games_per_second(n_players: int, games: int, seed: int) -> float:
    rng = random.Random(seed)
    start = time.perf_counter()
    for _ in range(games):
        play_random(new_game("cuatro", PLAYERS[:n_players]), rng)
    return games / (time.perf_counter() - start)


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    for n in (2, 3, 4):
        rates = [games_per_second(n, games, seed) for seed in range(5)]
        print(f"{n} players: median {statistics.median(rates):.0f} games/s "
              f"(min {min(rates):.0f}, max {max(rates):.0f}, {games} games per run)")


if __name__ == "__main__":
    main()
