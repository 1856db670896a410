"""One interface for every game, in the spirit of python-chess variants.

A :class:`Game` is both the rules and the state of one game in progress: subclasses
set class attributes (``name``, ``title``, player counts, options) and fill in hooks
(``_check``, ``_apply``, ``legal_moves``, ``scores``). The registry finds a game by
name. Illegal moves raise :class:`IllegalMove`, a ``ValueError`` whose message names
the broken rule in words a player understands.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from companion.layout import Layout, load_layout
from companion.moves import Move, SetAside, Throw, move_to_dict


class IllegalMove(ValueError):
    """A move the rules forbid; the message says which rule, in plain words."""

    def __init__(self, game: str, rule: str, move: Move | None = None) -> None:
        super().__init__(f"{game}: {rule}")
        self.rule = rule
        self.move = move


class GameSetupError(ValueError):
    """Wrong players or options for a game."""


class UnknownGame(ValueError):
    """No game of that name is registered."""


@dataclass(frozen=True, slots=True)
class ScoreLine:
    label: str
    points: int


@dataclass(frozen=True, slots=True)
class Score:
    """A player's score with the lines that make it up, so a person can follow it."""

    player: str
    total: int
    lines: tuple[ScoreLine, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "total": self.total,
            "lines": [{"label": line.label, "points": line.points} for line in self.lines],
        }


@dataclass(frozen=True, slots=True)
class Outcome:
    winners: tuple[str, ...]
    reason: str

    def __str__(self) -> str:
        if not self.winners:
            return f"no winner ({self.reason})"
        joint = " and ".join(self.winners)
        return f"{joint} {'win' if len(self.winners) > 1 else 'wins'}: {self.reason}"


@dataclass(slots=True)
class StoneCount:
    """Where a player's pieces are: the sum never changes during a game."""

    on_board: int
    in_supply: int
    removed: int

    @property
    def total(self) -> int:
        return self.on_board + self.in_supply + self.removed


GAMES: dict[str, type[Game]] = {}


def register(cls: type[Game]) -> type[Game]:
    """Class decorator: make a game findable by its ``name``."""
    GAMES[cls.name] = cls
    return cls


def find_game(name: str) -> type[Game]:
    import companion.games  # noqa: F401  (registers the games)

    try:
        return GAMES[name.lower()]
    except KeyError:
        raise UnknownGame(f"unknown game {name!r} (known: {', '.join(sorted(GAMES))})") from None


def new_game(
    name: str,
    players: Sequence[str],
    options: Mapping[str, Any] | None = None,
    layout: Layout | str | None = None,
) -> Game:
    return find_game(name)(players, options, layout)


class Game:
    """Rules and state of one game; subclasses are the variants."""

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    default_options: ClassVar[Mapping[str, Any]] = {}
    #: Pieces stack into towers (Just 4 Fun stones, Cuatro roofs).
    stacking: ClassVar[bool] = False
    uses_dice: ClassVar[bool] = False
    #: What the page calls a player's pieces out of play (:attr:`StoneCount.removed`).
    removed_label: ClassVar[str] = "set aside"
    #: Options random play adds unless the user sets them (games that can wander for ever).
    random_play_options: ClassVar[Mapping[str, Any]] = {}

    def __init__(
        self,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        layout: Layout | str | None = None,
    ) -> None:
        players = tuple(players)
        if not self.min_players <= len(players) <= self.max_players:
            span = (
                str(self.min_players)
                if self.min_players == self.max_players
                else f"{self.min_players}-{self.max_players}"
            )
            raise GameSetupError(f"{self.title} is played by {span} players, not {len(players)}")
        if len(set(players)) != len(players) or not all(players):
            raise GameSetupError(f"player names must be distinct and not empty: {players}")
        options = dict(options or {})
        unknown = sorted(set(options) - set(self.default_options))
        if unknown:
            known = ", ".join(sorted(self.default_options)) or "none"
            raise GameSetupError(f"{self.title} has no option {unknown[0]!r} (options: {known})")
        for key, value in options.items():
            default = self.default_options[key]
            if default is not None and not isinstance(value, type(default)):
                raise GameSetupError(
                    f"{self.title} option {key!r} takes a {type(default).__name__}, not {value!r}"
                )
        self.options: dict[str, Any] = {**self.default_options, **options}
        if isinstance(layout, Layout):
            self.layout = layout
        else:
            self.layout = load_layout(layout or self.name)
        self.players: tuple[str, ...] = players
        self.moves: list[Move] = []
        self.current = 0
        self.turn = 1
        self.outcome: Outcome | None = None
        self.setup()

    # -- hooks for subclasses -------------------------------------------------

    def setup(self) -> None:
        """Create the starting position."""

    def _check(self, move: Move) -> str | None:
        """The broken rule for ``move`` in words, or None when it is legal."""
        raise NotImplementedError

    def _apply(self, move: Move) -> None:
        """Carry out a legal move; call :meth:`_end_turn` when the turn is over."""
        raise NotImplementedError

    def legal_moves(self) -> list[Move]:
        """Every move the current player may choose now (throws excluded: they are chance)."""
        raise NotImplementedError

    def scores(self) -> dict[str, Score]:
        """The scores as kept move by move."""
        raise NotImplementedError

    def recount_scores(self) -> dict[str, Score]:
        """The scores counted afresh from the board as it stands (must equal :meth:`scores`;
        this is what `companion score` does with a photo of a finished board)."""
        raise NotImplementedError

    def stacks(self) -> dict[str, tuple[str, ...]]:
        """Occupied fields -> owners of the pieces from bottom to top."""
        raise NotImplementedError

    def stone_counts(self) -> dict[str, StoneCount]:
        raise NotImplementedError

    @property
    def max_rounds(self) -> int | None:
        return None

    # -- the interface --------------------------------------------------------

    @property
    def current_player(self) -> str:
        return self.players[self.current]

    @property
    def next_player(self) -> str:
        """Whose turn comes after the current one's (the referee's suspect for a stone set
        out of turn)."""
        return self.players[(self.current + 1) % len(self.players)]

    @property
    def round(self) -> int:
        """The round in play (after the last turn of the last round it stays the last)."""
        current = (self.turn - 1) // len(self.players) + 1
        limit = self.max_rounds
        return current if limit is None else min(current, limit)

    @property
    def round_text(self) -> str:
        limit = self.max_rounds
        return f"round {self.round}" + (f" of {limit}" if limit else "")

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    def check(self, move: Move) -> str | None:
        """The rule ``move`` breaks (in words), or None if it is legal now."""
        if self.outcome is not None:
            return f"the game is over ({self.outcome})"
        return self._check(move)

    def apply(self, move: Move) -> None:
        """Play ``move`` for the current player or raise :class:`IllegalMove`."""
        broken = self.check(move)
        if broken is not None:
            raise IllegalMove(self.title, broken, move)
        self._apply(move)
        self.moves.append(move)

    def undo(self) -> Move:
        """Take back the last move (rebuilt from the start: simple and always right)."""
        if not self.moves:
            raise IllegalMove(self.title, "there is no move to take back")
        moves = self.moves[:-1]
        last = self.moves[-1]
        fresh = type(self)(self.players, self.options, self.layout)
        for move in moves:
            fresh.apply(move)
        self.__dict__.update(fresh.__dict__)
        return last

    def copy(self) -> Game:
        clone = copy.copy(self)
        for key, value in self.__dict__.items():
            if key != "layout":
                clone.__dict__[key] = copy.deepcopy(value)
        return clone

    def random_move(self, rng: random.Random) -> Move:
        """A uniformly chosen legal move (dice games also roll); used by random play."""
        return rng.choice(self.legal_moves())

    def to_record(self) -> dict[str, Any]:
        """The game so far as a JSON-ready game record."""
        return {
            "format": "board-companion-record",
            "version": 1,
            "game": self.name,
            "players": list(self.players),
            "options": dict(self.options),
            "moves": [move_to_dict(m) for m in self.moves],
        }

    def status(self) -> dict[str, Any]:
        """What a display shows: whose turn, the round, scores, outcome."""
        return {
            "game": self.name,
            "title": self.title,
            "players": list(self.players),
            "current_player": None if self.is_over else self.current_player,
            "turn": self.turn,
            "round": self.round,
            "max_rounds": self.max_rounds,
            "round_text": self.round_text,
            "is_over": self.is_over,
            "winners": list(self.outcome.winners) if self.outcome else [],
            "outcome": str(self.outcome) if self.outcome else None,
            "scores": {p: s.to_dict() for p, s in self.scores().items()},
            "stacks": {f: list(owners) for f, owners in self.stacks().items()},
            "pieces": {p: asdict(count) for p, count in self.stone_counts().items()},
            "removed_label": self.removed_label,
        }

    def __repr__(self) -> str:
        state = f"over: {self.outcome}" if self.outcome else f"{self.current_player} to play"
        return (
            f"<{type(self).__name__} {','.join(self.players)} {self.round_text}, "
            f"turn {self.turn}, {state}>"
        )

    # -- helpers for subclasses -----------------------------------------------

    def _end_turn(self) -> None:
        self.current = (self.current + 1) % len(self.players)
        self.turn += 1

    def _finish(self, winners: Iterable[str], reason: str) -> None:
        self.outcome = Outcome(tuple(winners), reason)

    def _finish_by_score(self, reason: str) -> None:
        """End the game with the highest total(s) as winner(s)."""
        scores = self.scores()
        best = max(s.total for s in scores.values())
        self._finish([p for p in self.players if scores[p].total == best], reason)


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


class DiceGame(Game):
    """Shared bookkeeping of the dice games: throws of five dice, counted per turn."""

    uses_dice = True
    dice_count: ClassVar[int] = 5
    max_throws: ClassVar[int]

    def setup(self) -> None:
        self.throws: list[tuple[int, ...]] = []

    @property
    def dice(self) -> tuple[int, ...] | None:
        """The last throw of this turn, or None before the first."""
        return self.throws[-1] if self.throws else None

    @property
    def throw_count(self) -> int:
        return len(self.throws)

    def _check_throw(self, move: Throw) -> str | None:
        if len(move.dice) != self.dice_count or not all(1 <= d <= 6 for d in move.dice):
            return f"a throw is {self.dice_count} dice showing 1-6, not {list(move.dice)}"
        if len(self.throws) >= self.max_throws:
            return (
                f"you may throw at most {self.max_throws} times; "
                f"{self.current_player} has thrown {_times(len(self.throws))}"
            )
        return None

    def _end_turn(self) -> None:
        self.throws = []
        super()._end_turn()

    def random_move(self, rng: random.Random) -> Move:
        """Throw at least once, then stop at random while a placement is possible."""
        if self.throws:
            moves = self.legal_moves()
            placements = [m for m in moves if not isinstance(m, SetAside)]
            if len(self.throws) >= self.max_throws or (placements and rng.random() < 0.5):
                return rng.choice(moves)
        return Throw(tuple(rng.randint(1, 6) for _ in range(5)))

    def status(self) -> dict[str, Any]:
        return {
            **super().status(),
            "throws": len(self.throws),
            "max_throws": self.max_throws,
            "dice": list(self.dice) if self.dice else None,
        }
