"""Moves are plain, hashable values; every game speaks the same small vocabulary.

The JSON form is what game records store (see README, "Game records"):
``{"throw": [3, 3, 5, 1, 2]}``, ``{"place": "D3"}`` (optionally ``"cards": 3,
"colour": "green"`` in Just 4 Fun, ``"capture": "d7"`` in Mühle),
``{"from": "a1", "to": "a4"}`` (Mühle, optionally with ``"capture"``) and
``{"set_aside": true}`` (the "cannot play" turn).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


class BadMove(ValueError):
    """A move value that is malformed, before any rule is asked."""


@dataclass(frozen=True, slots=True)
class Throw:
    """The five dice as they lie after a throw (set-aside dice included)."""

    dice: tuple[int, ...]

    def __str__(self) -> str:
        return "throw " + " ".join(map(str, self.dice))


@dataclass(frozen=True, slots=True)
class Place:
    """A piece put on ``field``; ``cards``/``colour`` are the cards a Just 4 Fun
    player says they played, ``capture`` the stone a Mühle player takes after a mill."""

    field: str
    cards: int | None = None
    colour: str | None = None
    capture: str | None = None

    def __str__(self) -> str:
        text = f"place {self.field}"
        if self.cards is not None:
            text += f" with {self.cards} {self.colour or ''} card{'s' if self.cards != 1 else ''}"
        if self.capture:
            text += f", take {self.capture}"
        return text.replace("  ", " ")


@dataclass(frozen=True, slots=True)
class Step:
    """A piece moved (or, when flying, jumped) from ``src`` to ``dst``."""

    src: str
    dst: str
    capture: str | None = None

    def __str__(self) -> str:
        return f"{self.src}-{self.dst}" + (f", take {self.capture}" if self.capture else "")


@dataclass(frozen=True, slots=True)
class SetAside:
    """The turn of a player who cannot place: a stone or roof leaves the game."""

    def __str__(self) -> str:
        return "set a piece aside"


Move = Throw | Place | Step | SetAside


def move_to_dict(move: Move) -> dict[str, Any]:
    """The record form of ``move`` (only the keys that carry information)."""
    match move:
        case Throw(dice):
            return {"throw": list(dice)}
        case Place(field, cards, colour, capture):
            out: dict[str, Any] = {"place": field}
            if cards is not None:
                out["cards"] = cards
            if colour is not None:
                out["colour"] = colour
            if capture is not None:
                out["capture"] = capture
            return out
        case Step(src, dst, capture):
            out = {"from": src, "to": dst}
            if capture is not None:
                out["capture"] = capture
            return out
        case SetAside():
            return {"set_aside": True}
    raise BadMove(f"not a move: {move!r}")


def _text(data: Mapping[str, Any], key: str, where: str) -> str:
    value = data[key]
    if not isinstance(value, str) or not value:
        raise BadMove(f"{where}.{key}: expected a field name, got {value!r}")
    return value


def _optional_text(data: Mapping[str, Any], key: str, where: str) -> str | None:
    return _text(data, key, where) if data.get(key) is not None else None


def move_from_dict(data: Any, where: str = "move") -> Move:
    """Parse the record form; ``where`` names the place in the record for error messages."""
    if not isinstance(data, Mapping):
        raise BadMove(f"{where}: expected an object such as {{\"place\": \"D3\"}}, got {data!r}")
    known = {"throw", "place", "cards", "colour", "capture", "from", "to", "set_aside", "player"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise BadMove(f"{where}.{unknown[0]}: unknown key (known: {', '.join(sorted(known))})")
    if "throw" in data:
        dice = data["throw"]
        if (
            not isinstance(dice, list)
            or len(dice) != 5
            or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice)
        ):
            raise BadMove(f"{where}.throw: expected five dice values 1-6, got {dice!r}")
        return Throw(tuple(dice))
    if "place" in data:
        cards = data.get("cards")
        if cards is not None and (type(cards) is not int or cards < 1):
            raise BadMove(f"{where}.cards: expected a positive number of cards, got {cards!r}")
        return Place(
            _text(data, "place", where),
            cards,
            _optional_text(data, "colour", where),
            _optional_text(data, "capture", where),
        )
    if "from" in data or "to" in data:
        for key in ("from", "to"):
            if key not in data:
                raise BadMove(f"{where}.{key}: a step needs both 'from' and 'to'")
        return Step(
            _text(data, "from", where),
            _text(data, "to", where),
            _optional_text(data, "capture", where),
        )
    if data.get("set_aside") is True:
        return SetAside()
    raise BadMove(f"{where}: expected one of 'throw', 'place', 'from'/'to' or 'set_aside'")
