"""Scores from what a photo of a finished board shows: each field's top colour and height.

A photo shows less than a game record: the pieces under a tower's top, the order of the
moves and the pieces taken or set aside are not in it. Each game's own recount
(``recount_scores``, the board-only count the rules core keeps equal to its running score)
is run on a board built from the photo, and what a photo cannot show is said in ``notes``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from companion.core import Game, Score, find_game
from companion.games.spexxx import CHAIN_LENGTH
from companion.layout import Layout


class BoardScoreError(ValueError):
    """The board in the photo cannot be scored (e.g. a piece of a colour nobody plays)."""


@dataclass(frozen=True)
class BoardScore:
    scores: dict[str, Score]
    notes: tuple[str, ...]


def score_board(game_name: str, players: list[str], tops: Mapping[str, tuple[str, int]],
                layout: Layout | None = None) -> BoardScore:
    """Score a finished board: ``tops`` maps field -> (player on top, tower height)."""
    game = find_game(game_name)(players, {}, layout)
    strangers = sorted({p for p, _ in tops.values()} - set(players))
    if strangers:
        raise BoardScoreError(f"pieces of {', '.join(strangers)} lie on the board, but the "
                              f"players are {', '.join(players)}")
    unknown = sorted(set(tops) - set(game.layout.fields))
    if unknown:
        raise BoardScoreError(f"{game.title} has no field {unknown[0]}")
    builder = _BUILDERS.get(game.name)
    if builder is None:
        raise BoardScoreError(f"scoring {game.title} from a photo is not supported")
    notes = builder(game, tops)
    if game.name == "spexxx":
        # The block bonus depends on when each 3x3 block was completed, which no photo
        # shows: the chains alone, as the rules core's recount scores them.
        scores = {}
        for p, player in enumerate(game.players):
            chains = [run for run in game.board.runs(game.owner, p) if run[2] >= CHAIN_LENGTH]
            lines = game.board.score_lines(chains, [])
            scores[player] = Score(player, sum(line.points for line in lines), lines)
        return BoardScore(scores, tuple(notes))
    return BoardScore(game.recount_scores(), tuple(notes))


def _towers(game: Game, tops: Mapping[str, tuple[str, int]]) -> list[str]:
    """Cuatro and Just 4 Fun count only who is on top and how high: lower pieces are filled
    with the top's owner (they are not in the photo and do not score)."""
    names = list(game.board.names)
    for name, (player, height) in tops.items():
        game.towers[names.index(name)] = [player] * height
    return ["the pieces under each tower's top are not visible and do not count"]


def _spexxx(game: Game, tops: Mapping[str, tuple[str, int]]) -> list[str]:
    for name, (player, _) in tops.items():
        game.owner[game.board.index[name]] = game.players.index(player)
    blocks = []
    for top_left, square in game.board.windows.items():
        for p, player in enumerate(game.players):
            if all(game.owner[i] == p for i in square):
                blocks.append(f"{player} at {game.board.cells[top_left].name}")
    notes = ["the 3x3 block bonus is not included: a photo cannot show which blocks were "
             "completed in which order"]
    if blocks:
        notes.append(f"3x3 blocks on the board: {', '.join(blocks)}")
    return notes


def _muehle(game: Game, tops: Mapping[str, tuple[str, int]]) -> list[str]:
    names = list(game.board.names)
    for name, (player, _) in tops.items():
        game._stones[game.players.index(player)] |= 1 << names.index(name)  # noqa: SLF001
    game._in_hand = [0, 0]  # noqa: SLF001 - a finished game: every stone was placed
    return ["assumes every stone was placed: stones not on the board count as taken"]


_BUILDERS = {"cuatro": _towers, "just4fun": _towers, "spexxx": _spexxx, "muehle": _muehle}
