"""Cuatro (Noris 2013): throw Yatzy combinations, put roofs on matching fields, build towers.

A turn is up to five throws; only the last throw counts. The fewer throws a player
needed, the higher the tower they may build on (``max_throws - throws`` roofs at most),
and a tower of five is final. Four own top roofs in a row, or an own roof anywhere in
each of the three Yatzy towers, wins at once; otherwise after 15 rounds the heights of
each player's top roofs are summed (equal highest sums win jointly).

Every turn uses up exactly one roof, placed or (after a 5th throw that fits nowhere)
set aside, so with 15 roofs each all players run out together at the end of round 15:
no one is ever left without a roof while others still play.

Which combinations a throw makes is worked out once per multiset of dice and cached,
so random play-outs stay fast.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any

from companion.core import DiceGame, Score, ScoreLine, StoneCount, register
from companion.layout import Layout, LayoutError
from companion.moves import Move, Place, SetAside, Throw

#: How each field symbol is named in messages: (what the field is, what the dice lack).
SYMBOL_WORDS: dict[str, tuple[str, str]] = {
    **{f"P{n}": (f"the pair-of-{n}s field", f"has no pair of {n}s") for n in range(1, 7)},
    "3K": ("a three-of-a-kind field", "has no three of a kind"),
    "4K": ("a four-of-a-kind field", "has no four of a kind"),
    "ST": ("a straight field", "is no straight"),
    "FH": ("a full-house field", "is no full house"),
    "Y": ("a Yatzy field", "is no Yatzy"),
}

#: The four directions a row of four can run in: right, down and both diagonals.
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
ROW_LENGTH = 4


@cache
def _symbols_of_sorted(dice: tuple[int, ...]) -> frozenset[str]:
    counts = Counter(dice)
    most = max(counts.values())
    symbols = {f"P{face}" for face, n in counts.items() if n >= 2}
    if most >= 3:
        symbols.add("3K")
    if most >= 4:
        symbols.add("4K")
    if most == 5:
        # A Yatzy is the highest combination and may serve every lower field of its
        # face; that it also serves a full house is our reading (provisional in the layout).
        symbols.update(("Y", "FH"))
    if sorted(counts.values()) == [2, 3]:
        symbols.add("FH")
    if set(dice) in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}):
        symbols.add("ST")
    return frozenset(symbols)


@cache
def symbols_of(dice: tuple[int, ...]) -> frozenset[str]:
    """Every field symbol the five ``dice`` satisfy (a higher combination serves a lower
    field: four 3s fit 4K, 3K and P3)."""
    return _symbols_of_sorted(tuple(sorted(dice)))


class _Board:
    """The board's geometry from the layout: fields, symbols, rows of four. Immutable, so
    game copies share it."""

    def __init__(self, layout: Layout) -> None:
        self.names: tuple[str, ...] = tuple(layout.fields)
        self.index = {name: i for i, name in enumerate(self.names)}
        self.symbols: tuple[str, ...] = tuple(
            self._symbol(layout, name) for name in self.names
        )
        self.yatzy_fields = tuple(i for i, s in enumerate(self.symbols) if s == "Y")
        if len(self.yatzy_fields) != 3:
            raise LayoutError(
                f"{layout.source}: Cuatro needs 3 Yatzy fields, the layout has "
                f"{len(self.yatzy_fields)}"
            )
        self.places = tuple(Place(name) for name in self.names)
        self._fitting: dict[frozenset[str], tuple[int, ...]] = {}
        self.rows_through = self._rows_of_four(layout)

    def fields_fitting(self, symbols: frozenset[str]) -> tuple[int, ...]:
        """Fields whose symbol is one of ``symbols``, in board order (so that seeded random
        play does not depend on how Python happens to order a set)."""
        fields = self._fitting.get(symbols)
        if fields is None:
            fields = tuple(i for i, s in enumerate(self.symbols) if s in symbols)
            self._fitting[symbols] = fields
        return fields

    @staticmethod
    def _symbol(layout: Layout, name: str) -> str:
        symbol = layout.fields[name].attrs.get("symbol")
        if symbol not in SYMBOL_WORDS:
            raise LayoutError(
                f"{layout.source}: field {name} has symbol {symbol!r} "
                f"(known: {', '.join(SYMBOL_WORDS)})"
            )
        return symbol

    def _rows_of_four(self, layout: Layout) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """For each field, the rows of four neighbouring fields that contain it."""
        through: list[list[tuple[int, ...]]] = [[] for _ in self.names]
        for name in self.names:
            start = layout.fields[name]
            if start.row is None or start.col is None:
                raise LayoutError(
                    f"{layout.source}: Cuatro needs a grid; field {name} has no row/col"
                )
            for dr, dc in DIRECTIONS:
                row = []
                for k in range(ROW_LENGTH):
                    step = layout.field_at(start.row + k * dr, start.col + k * dc)
                    if step is None:
                        break
                    row.append(self.index[step.name])
                if len(row) == ROW_LENGTH:
                    for i in row:
                        through[i].append(tuple(row))
        return tuple(tuple(rows) for rows in through)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Board:
        return self


def _dice_text(dice: tuple[int, ...]) -> str:
    return " ".join(map(str, sorted(dice)))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@register
class Cuatro(DiceGame):
    name = "cuatro"
    title = "Cuatro"
    min_players = 2
    max_players = 4
    stacking = True
    max_throws = 5

    def setup(self) -> None:
        super().setup()
        self.board = _Board(self.layout)
        self.roofs_per_player = int(self.layout.extra.get("roofs_per_player", 15))
        # Every turn uses up one roof (placed or set aside), so the 15 rounds of the rules
        # are exactly the turns it takes every player to use up their 15 roofs.
        self.rounds = int(self.layout.extra.get("rounds", self.roofs_per_player))
        if self.rounds != self.roofs_per_player:
            raise LayoutError(
                f"{self.layout.source}: Cuatro plays one roof per turn, so 'rounds' "
                f"({self.rounds}) must equal 'roofs_per_player' ({self.roofs_per_player})"
            )
        self.towers: list[list[str]] = [[] for _ in self.board.names]
        self.supply = dict.fromkeys(self.players, self.roofs_per_player)
        self.set_aside = dict.fromkeys(self.players, 0)
        #: player -> {field index: height} of the player's top roofs, kept move by move.
        self.tops: dict[str, dict[int, int]] = {p: {} for p in self.players}
        self.fits: frozenset[str] = frozenset()

    @property
    def max_rounds(self) -> int:
        return self.rounds

    # -- rules ----------------------------------------------------------------

    def height_limit(self) -> int:
        """The tallest tower the current throw count allows building on."""
        return self.max_throws - len(self.throws)

    def _check(self, move: Move) -> str | None:
        if isinstance(move, Throw):
            return self._check_throw(move)
        if isinstance(move, SetAside):
            return self._check_set_aside()
        if isinstance(move, Place):
            return self._check_place(move)
        return f"Cuatro has no move {move}; throw, place a roof or set one aside"

    def _check_set_aside(self) -> str | None:
        if not self.throws:
            return "throw the dice first"
        if len(self.throws) < self.max_throws:
            return (
                f"a roof is set aside only when the {self.max_throws}th throw allows no "
                f"placement; {self.current_player} has thrown {_plural(len(self.throws), 'time')}"
                ", throw again or place a roof"
            )
        fitting = self._placements()
        if fitting:
            return (
                f"you must place a roof when you can; {_dice_text(self.dice)} fits "
                f"{', '.join(m.field for m in fitting)}"
            )
        return None

    def _check_place(self, move: Place) -> str | None:
        if not self.throws:
            return "throw the dice first"
        if move.cards is not None or move.colour is not None or move.capture is not None:
            return "in Cuatro a roof is just placed on a field, with no cards or captures"
        i = self.board.index.get(move.field)
        if i is None:
            return f"there is no field {move.field!r} on the Cuatro board (fields A0 to F5)"
        symbol = self.board.symbols[i]
        if symbol not in self.fits:
            is_field, lacks = SYMBOL_WORDS[symbol]
            text = f"{move.field} is {is_field}; {_dice_text(self.dice)} {lacks}"
            if any(symbol in symbols_of(d) for d in self.throws[:-1]):
                text += " (only the last throw counts)"
            return text
        height = len(self.towers[i])
        if height >= self.max_throws:
            return f"{move.field} is a tower of {height} roofs, which is final: no roof goes on top"
        limit = self.height_limit()
        if height > limit:
            throws = _plural(len(self.throws), "throw")
            if limit == 0:
                return (
                    f"after {throws} you may only place on an empty field; "
                    f"{move.field} has {_plural(height, 'roof')}"
                )
            return (
                f"after {throws} you may only build on a tower of at most "
                f"{_plural(limit, 'roof')}; {move.field} has {height}"
            )
        return None

    def _placements(self) -> list[Place]:
        limit = self.height_limit()
        towers = self.towers
        places = self.board.places
        return [places[i] for i in self.board.fields_fitting(self.fits) if len(towers[i]) <= limit]

    def legal_moves(self) -> list[Move]:
        if self.is_over or not self.throws:
            return []
        placements: list[Move] = list(self._placements())
        if not placements and len(self.throws) >= self.max_throws:
            return [SetAside()]
        return placements

    def _apply(self, move: Move) -> None:
        player = self.current_player
        if isinstance(move, Throw):
            dice = tuple(move.dice)
            self.throws.append(dice)
            self.fits = symbols_of(dice)
            return
        self.supply[player] -= 1
        if isinstance(move, SetAside):
            self.set_aside[player] += 1
        else:
            i = self.board.index[move.field]
            tower = self.towers[i]
            if tower:
                del self.tops[tower[-1]][i]
            tower.append(player)
            self.tops[player][i] = len(tower)
            if self._won_at(player, i):
                return
        if self.turn == self.rounds * len(self.players):
            self._finish_by_score(
                f"{self.rounds} rounds played: highest sum of the heights of top roofs"
            )
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        self.fits = frozenset()
        super()._end_turn()

    def _won_at(self, player: str, i: int) -> bool:
        """Finish the game if the roof just put on field ``i`` wins it at once."""
        tops = self.tops[player]
        for row in self.board.rows_through[i]:
            if all(j in tops for j in row):
                fields = " ".join(self.board.names[j] for j in row)
                self._finish([player], f"four top roofs in a row ({fields})")
                return True
        if i in self.board.yatzy_fields and all(
            player in self.towers[j] for j in self.board.yatzy_fields
        ):
            fields = ", ".join(self.board.names[j] for j in self.board.yatzy_fields)
            self._finish([player], f"a roof on each of the three Yatzy fields ({fields})")
            return True
        return False

    # -- what the board shows -------------------------------------------------

    def _score(self, player: str, tops: dict[int, int]) -> Score:
        by_height: dict[int, list[str]] = {}
        for i in sorted(tops):
            by_height.setdefault(tops[i], []).append(self.board.names[i])
        lines = tuple(
            ScoreLine(
                f"{_plural(len(fields), 'top roof')} at height {height} ({', '.join(fields)})",
                height * len(fields),
            )
            for height, fields in sorted(by_height.items(), reverse=True)
        )
        return Score(player, sum(line.points for line in lines), lines)

    def scores(self) -> dict[str, Score]:
        return {p: self._score(p, self.tops[p]) for p in self.players}

    def recount_scores(self) -> dict[str, Score]:
        tops: dict[str, dict[int, int]] = {p: {} for p in self.players}
        for i, tower in enumerate(self.towers):
            if tower:
                tops[tower[-1]][i] = len(tower)
        return {p: self._score(p, tops[p]) for p in self.players}

    def stacks(self) -> dict[str, tuple[str, ...]]:
        return {
            self.board.names[i]: tuple(tower) for i, tower in enumerate(self.towers) if tower
        }

    def stone_counts(self) -> dict[str, StoneCount]:
        on_board = Counter(owner for tower in self.towers for owner in tower)
        return {
            p: StoneCount(on_board[p], self.supply[p], self.set_aside[p]) for p in self.players
        }

    def status(self) -> dict[str, Any]:
        return {
            **super().status(),
            "fits": sorted(self.fits),
            "height_limit": self.height_limit() if self.throws else None,
        }
