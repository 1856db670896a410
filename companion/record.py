"""Game records: the JSON documents in which games are saved, shared and tested."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.core import Game, find_game
from companion.layout import load_layout
from companion.moves import Move, move_from_dict

FORMAT = "board-companion-record"


class BadRecord(ValueError):
    """A record that is not well formed; the message names the bad field."""


@dataclass(frozen=True)
class Record:
    game: str
    players: tuple[str, ...]
    options: dict[str, Any]
    moves: tuple[Move, ...]
    #: the player each move claims to be by (None where the record does not say)
    movers: tuple[str | None, ...]
    layout: str | None = None

    def new_game(self) -> Game:
        """The starting position this record begins from."""
        layout = load_layout(self.layout) if self.layout else None
        return find_game(self.game)(self.players, self.options, layout)

    def replay(self) -> Iterator[tuple[int, str, Move, Game]]:
        """Apply the moves one by one, yielding (index, player, move, game after it).

        Raises IllegalMove at the first illegal move, and BadRecord when a move names
        a player other than the one whose turn it is."""
        game = self.new_game()
        for i, (move, mover) in enumerate(zip(self.moves, self.movers, strict=True)):
            if mover is not None and mover != game.current_player:
                raise BadRecord(
                    f"moves[{i}].player: it is {game.current_player}'s turn, "
                    f"but the record says {mover}"
                )
            player = game.current_player
            game.apply(move)
            yield i, player, move, game


def parse_record(data: Any) -> Record:
    """Check and convert a record's JSON form."""
    if not isinstance(data, Mapping):
        raise BadRecord("record: expected a JSON object")
    if data.get("format", FORMAT) != FORMAT:
        raise BadRecord(f"format: expected {FORMAT!r}, got {data.get('format')!r}")
    game = data.get("game")
    if not isinstance(game, str):
        raise BadRecord(f"game: expected a game name, got {game!r}")
    try:
        find_game(game)
    except ValueError as exc:
        raise BadRecord(f"game: {exc}") from None
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) and p for p in players):
        raise BadRecord(f"players: expected a list of player names, got {players!r}")
    options = data.get("options", {})
    if not isinstance(options, Mapping):
        raise BadRecord(f"options: expected an object, got {options!r}")
    layout = data.get("layout")
    if layout is not None and not isinstance(layout, str):
        raise BadRecord(f"layout: expected a layout name or path, got {layout!r}")
    cls = find_game(game)
    if not cls.min_players <= len(players) <= cls.max_players or len(set(players)) != len(players):
        raise BadRecord(
            f"players: {cls.title} needs {cls.min_players}-{cls.max_players} distinct players, "
            f"got {players!r}"
        )
    unknown = sorted(set(options) - set(cls.default_options))
    if unknown:
        raise BadRecord(f"options.{unknown[0]}: {cls.title} has no such option")
    raw_moves = data.get("moves")
    if not isinstance(raw_moves, list):
        raise BadRecord(f"moves: expected a list of moves, got {raw_moves!r}")
    moves = []
    movers = []
    for i, raw in enumerate(raw_moves):
        try:
            moves.append(move_from_dict(raw, f"moves[{i}]"))
        except ValueError as exc:
            raise BadRecord(str(exc)) from None
        mover = raw.get("player")
        if mover is not None and mover not in players:
            raise BadRecord(f"moves[{i}].player: {mover!r} is not one of the players")
        movers.append(mover)
    record = Record(game, tuple(players), dict(options), tuple(moves), tuple(movers), layout)
    try:
        record.new_game()
    except ValueError as exc:  # a bad option value or an unreadable layout
        raise BadRecord(f"{'layout' if 'layout' in str(exc) else 'options'}: {exc}") from None
    return record


def load_record(path: str | Path) -> Record:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise BadRecord(f"{path}: cannot read ({exc.strerror})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadRecord(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    return parse_record(data)
