"""The game log: every accepted event, appended to SQLite before anyone is told of it.

WAL journal with ``synchronous=FULL``: a committed event survives a crash or a power
cut, so ``companion play --resume`` continues where the table was. The log stores
records' moves (the same JSON form as game records) plus corrections and undos, and
exports a game as a game record.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.core import Game, find_game
from companion.layout import load_layout
from companion.moves import Move, move_from_dict

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    players TEXT NOT NULL,
    options TEXT NOT NULL,
    layout TEXT,
    started REAL NOT NULL,
    finished REAL
);
CREATE TABLE IF NOT EXISTS events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    time REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""

#: Event kinds that change the game; others (flags, notes) are kept for the story only.
MOVE, UNDO, FINISHED = "move", "undo", "finished"


class GameLogError(ValueError):
    """The log file is unreadable or holds no game to resume."""


@dataclass(frozen=True)
class LoggedGame:
    id: int
    game: str
    players: tuple[str, ...]
    options: dict[str, Any]
    layout: str | None
    finished: bool


class GameLog:
    """An append-only log of games in one SQLite file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise GameLogError(f"{self.path}: not a usable game log ({exc})") from None

    def __enter__(self) -> GameLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def __repr__(self) -> str:
        return f"<GameLog {self.path}>"

    def start(self, game: Game, layout: str | None = None) -> int:
        """Record a new game; returns its id."""
        cursor = self._db.execute(
            "INSERT INTO games (game, players, options, layout, started) VALUES (?, ?, ?, ?, ?)",
            (game.name, json.dumps(game.players), json.dumps(game.options), layout, time.time()),
        )
        return int(cursor.lastrowid)

    def append(self, game_id: int, kind: str, payload: Mapping[str, Any]) -> int:
        """Append one event, durable when this returns; returns its sequence number."""
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            (seq,) = self._db.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE game_id = ?", (game_id,)
            ).fetchone()
            self._db.execute(
                "INSERT INTO events (game_id, seq, kind, payload, time) VALUES (?, ?, ?, ?, ?)",
                (game_id, seq, kind, json.dumps(dict(payload)), time.time()),
            )
            if kind == FINISHED:
                self._db.execute(
                    "UPDATE games SET finished = ? WHERE id = ?", (time.time(), game_id)
                )
        return int(seq)

    def games(self) -> list[LoggedGame]:
        rows = self._db.execute(
            "SELECT id, game, players, options, layout, finished FROM games ORDER BY id"
        ).fetchall()
        return [
            LoggedGame(gid, name, tuple(json.loads(players)), json.loads(options), layout,
                       finished is not None)
            for gid, name, players, options, layout, finished in rows
        ]

    def events(self, game_id: int) -> list[tuple[int, str, dict[str, Any], float]]:
        rows = self._db.execute(
            "SELECT seq, kind, payload, time FROM events WHERE game_id = ? ORDER BY seq",
            (game_id,),
        ).fetchall()
        return [(seq, kind, json.loads(payload), t) for seq, kind, payload, t in rows]

    def latest(self, unfinished_only: bool = False) -> LoggedGame:
        games = [g for g in self.games() if not (unfinished_only and g.finished)]
        if not games:
            which = "unfinished game" if unfinished_only else "game"
            raise GameLogError(f"{self.path}: no {which} to continue")
        return games[-1]

    def moves(self, game_id: int) -> list[Move]:
        """The moves in force: each undo takes back the move before it."""
        moves: list[Move] = []
        for seq, kind, payload, _ in self.events(game_id):
            if kind == MOVE:
                payload = {k: v for k, v in payload.items() if k != "player"}
                moves.append(move_from_dict(payload, f"event {seq}"))
            elif kind == UNDO and moves:
                moves.pop()
        return moves

    def restore(self, game_id: int) -> Game:
        """The game as the log leaves it (moves replayed through the rules)."""
        logged = next((g for g in self.games() if g.id == game_id), None)
        if logged is None:
            raise GameLogError(f"{self.path}: no game {game_id}")
        layout = load_layout(logged.layout) if logged.layout else None
        game = find_game(logged.game)(logged.players, logged.options, layout)
        for move in self.moves(game_id):
            game.apply(move)
        return game

    def export(self, game_id: int) -> dict[str, Any]:
        """The game as a game record (the format `companion replay` reads)."""
        game = self.restore(game_id)
        record = game.to_record()
        logged = next(g for g in self.games() if g.id == game_id)
        if logged.layout:
            record["layout"] = logged.layout
        return record
