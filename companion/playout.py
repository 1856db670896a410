"""Random legal play to the end: for property tests, benchmarks and the demo."""

from __future__ import annotations

import random

from companion.core import Game

#: Mühle has no round limit; random play stops there at the latest.
MAX_TURNS = 2000


def play_random(game: Game, rng: random.Random, max_turns: int = MAX_TURNS) -> Game:
    """Play random legal moves until the game is over (or ``max_turns`` turns)."""
    while not game.is_over and game.turn <= max_turns:
        game.apply(game.random_move(rng))
    return game
