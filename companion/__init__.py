"""Board Companion: a camera referee for physical board games."""

from companion.core import (
    GAMES,
    Game,
    GameSetupError,
    IllegalMove,
    Outcome,
    Score,
    ScoreLine,
    UnknownGame,
    find_game,
    new_game,
)
from companion.moves import Move, Place, SetAside, Step, Throw

__all__ = [
    "GAMES", "Game", "GameSetupError", "IllegalMove", "Move", "Outcome", "Place", "Score",
    "ScoreLine", "SetAside", "Step", "Throw", "UnknownGame", "find_game", "new_game",
]
