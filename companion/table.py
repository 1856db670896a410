"""The table as the web page sees it: state to show, actions to carry out, live events.

Implements :class:`web.app.TableProtocol` over a :class:`~companion.session.Session`:
every session event is published to the web page's event broker, and the page's
actions (undo, confirm, corrections of a field or of the dice, a new game, virtual panel
buttons) come back here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from companion.core import GAMES, Game, find_game
from companion.gamelog import GameLog
from companion.infer import FieldView
from companion.layout import Layout
from companion.session import Event, Session
from web.broker import EventBroker

#: At most this many moves are listed on the page.
LOG_LENGTH = 200


def layout_for_page(layout: Layout) -> dict[str, Any]:
    """The layout in the form the page's SVG drawing needs."""
    fields = []
    for f in layout.fields.values():
        attrs = f.attrs
        colour = attrs.get("colour") or attrs.get("zone")
        label = attrs.get("symbol") or ""
        if layout.game == "spexxx":
            label = f.name.replace("x", "×")
        fields.append({
            "name": f.name, "x": f.x_mm, "y": f.y_mm, "size": f.size_mm,
            "colour": colour, "label": label, "playable": attrs.get("playable", True),
        })
    mills = layout.extra.get("mills", [])
    lines = [
        [layout.fields[m[0]].centre_mm, layout.fields[m[-1]].centre_mm] for m in mills
    ]
    return {
        "game": layout.game,
        "board_size_mm": list(layout.board_size_mm),
        "fields": fields,
        "lines": lines,
        "round_fields": bool(mills),
        "field_colours": layout.field_colours,
        "piece_colours": layout.piece_colours,
        "piece_diameter": layout.piece.diameter_mm,
        "provisional": list(layout.provisional),
    }


class Table:
    """A session plus what the page shows around it (messages, flags, log, panel)."""

    def __init__(
        self,
        session: Session,
        broker: EventBroker | None = None,
        log: GameLog | None = None,
        simulate: bool = False,
        panel: Any = None,
        corners_callback: Callable[[list[list[float]]], None] | None = None,
    ) -> None:
        self.broker = broker or EventBroker()
        self.log = log
        self.simulate = simulate
        self.panel = panel
        self.corners_callback = corners_callback
        self.message: str | None = None
        self.frame: bytes | None = None
        self._moves: list[dict[str, Any]] = []
        self._lock = threading.RLock()
        self.session = session
        self._attach(session)

    def __repr__(self) -> str:
        return f"<Table {self.session!r}, {self.broker.client_count} watching>"

    def _attach(self, session: Session) -> None:
        self.session = session
        self._layout_json = layout_for_page(session.game.layout)
        self._moves = [
            {"player": "", "text": str(m)} for m in session.game.moves
        ][-LOG_LENGTH:]
        session.listeners.append(self._on_event)

    def _on_event(self, event: Event) -> None:
        with self._lock:
            if event.kind == "move":
                self._moves.append({"player": event.data["player"], "text": event.data["text"]})
                del self._moves[:-LOG_LENGTH]
                self.message = None
            elif event.kind == "undo":
                if self._moves:
                    self._moves.pop()
                self.message = f"took back: {event.data['text']}; set the board back to match"
            elif event.kind == "correction" and event.data.get("replaced") and self._moves:
                self._moves.pop()  # the misread throw: its correction follows as a move
            elif event.kind == "correction" and event.data.get("rewound"):
                # throws taken back to put a missed placement before them: they follow it
                del self._moves[max(0, len(self._moves) - event.data["rewound"]):]
            elif event.kind in ("confirm", "waiting") or (
                    event.kind == "correction" and "message" in event.data):
                self.message = event.data["message"]
            elif event.kind == "cleared":
                self.message = None
        payload = {k: v for k, v in event.to_dict().items() if k != "status"}
        self.broker.publish(payload)

    # -- what the page shows ------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        with self._lock:
            game = self.session.game
            flag = self.session.flag
            return {
                "status": game.status(),
                "layout": self._layout_json,
                "flag": {"rule": flag.reason, "fields": list(flag.changed)} if flag else None,
                "message": self.message,
                "choices": [str(move) for move in self.session.pending_choice],
                "log": list(self._moves),
                "games": [{"name": n, "title": c.title} for n, c in sorted(GAMES.items())],
                "panel": self.panel.virtual_state() if self.panel is not None else None,
                "simulate": self.simulate,
            }

    def frame_jpeg(self) -> bytes | None:
        return self.frame

    def record(self) -> dict[str, Any]:
        return self.session.game.to_record()

    # -- what the page may do -------------------------------------------------------------

    def act(self, action: str, payload: dict[str, Any]) -> dict[str, Any]:
        handler = getattr(self, f"_act_{action}", None)
        if handler is None:
            raise ValueError(f"unknown action {action!r}")
        return handler(payload)

    def _act_undo(self, payload: dict[str, Any]) -> dict[str, Any]:
        move = self.session.undo()
        if move is None:
            raise ValueError("there is no move to take back")
        return {"message": f"took back {move}; set the board back to match"}

    def _act_confirm(self, payload: dict[str, Any]) -> dict[str, Any]:
        if not self.session.confirm():
            raise ValueError("there is nothing to confirm")
        return {"message": "confirmed"}

    def _act_choose(self, payload: dict[str, Any]) -> dict[str, Any]:
        index = payload.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            raise ValueError("index: give the number of the choice, counting from 0")
        choices = self.session.pending_choice
        chosen = str(choices[index]) if 0 <= index < len(choices) else None
        if not self.session.choose(index):
            raise ValueError(self.session.flag.reason if self.session.flag else "refused")
        return {"message": f"chose {chosen}"}

    def _act_cannot_play(self, payload: dict[str, Any]) -> dict[str, Any]:
        if not self.session.cannot_play():
            raise ValueError(self.session.flag.reason if self.session.flag else "refused")
        return {"message": "the piece is set aside"}

    def _act_correct(self, payload: dict[str, Any]) -> dict[str, Any]:
        name = payload.get("field")
        stack = payload.get("stack")
        if not isinstance(name, str):
            raise ValueError("field: give the field's name, e.g. \"D3\"")
        if not isinstance(stack, list) or not all(isinstance(p, str) for p in stack):
            raise ValueError("stack: give the pieces bottom to top as a list of players")
        players = self.session.game.players
        strangers = [p for p in stack if p not in players]
        if strangers:
            raise ValueError(f"stack: {strangers[0]!r} is not a player ({', '.join(players)})")
        view = FieldView(stack[-1] if stack else None, len(stack))
        result = self.session.correct({name: view})
        if result.kind in ("illegal", "unexplained"):
            raise ValueError(f"that correction is not a legal move: {result.reason}")
        return {"message": {"move": f"accepted: {result.move}", "same": "no change"}.get(
            result.kind, result.reason or result.kind)}

    def _act_dice(self, payload: dict[str, Any]) -> dict[str, Any]:
        dice = payload.get("dice")
        missed = payload.get("missed", False)
        if not isinstance(dice, list) or not all(isinstance(d, int) for d in dice):
            raise ValueError("dice: give the dice as a list of numbers, e.g. [1, 2, 2, 5, 6]")
        if not isinstance(missed, bool):
            raise ValueError("missed: true to add a throw the camera missed, "
                             "false to correct the last throw")
        self.session.correct_throw(tuple(dice), missed)
        shown = " ".join(map(str, dice))
        return {"message": f"added the missed throw {shown}" if missed
                else f"the last throw is now {shown}"}

    def _act_new_game(self, payload: dict[str, Any]) -> dict[str, Any]:
        name = payload.get("game")
        players = payload.get("players")
        options = payload.get("options", {})
        if not isinstance(name, str):
            raise ValueError("game: give a game name")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise ValueError("players: give a list of player names")
        if not isinstance(options, dict):
            raise ValueError("options: give an object")
        game: Game = find_game(name)(players, options)
        with self._lock:
            self._attach(Session(game, self.log))
            self.message = f"new game of {game.title}: {', '.join(players)}"
        self.broker.publish({"kind": "new_game", "game": name, "players": players})
        return {"message": self.message}

    def _act_press(self, payload: dict[str, Any]) -> dict[str, Any]:
        if not self.simulate or self.panel is None:
            raise ValueError("virtual buttons exist only in --simulate mode")
        button = payload.get("button")
        if button not in ("confirm", "undo", "menu"):
            raise ValueError("button: one of confirm, undo, menu")
        self.panel.press(button)
        self.panel.release(button)
        return {"message": f"pressed {button}"}

    def _act_corners(self, payload: dict[str, Any]) -> dict[str, Any]:
        corners = payload.get("corners")
        if (
            not isinstance(corners, list) or len(corners) != 4
            or not all(isinstance(c, list) and len(c) == 2
                       and all(isinstance(v, int | float) for v in c) for c in corners)
        ):
            raise ValueError("corners: give four [x, y] pixel points (TL, TR, BR, BL)")
        if self.corners_callback is None:
            raise ValueError("this table has no camera to calibrate")
        self.corners_callback(corners)
        return {"message": "corners set"}
