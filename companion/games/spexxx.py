"""Spexxx: throw five dice up to four times, place a stone on a cell the dice allow,
score chains ("Spexxx") of three or more own stones in a line.

Each cell is named ``"<count>x<face>+<count>x<face>"`` (column, then row): ``3x5+2x1``
asks for three 5s and two 1s. Red, purple and silver cells need all five dice, the
other zones only need the named dice among them; gold cells take any four consecutive
faces, silver cells five; five of a kind may go on any free cell.

Chain points are a function of the board: every maximal line of three or more own
stones (row, column or diagonal; a missing cell breaks the line) is worth the points
of its cells, plus 5 for every full five stones in it. That is what the rule text's
increments add up to (a new chain scores all its stones, extending scores the new
stone, joining scores every stone that was not yet in a chain), so the game adds the
increments move by move and :meth:`Spexxx.recount_scores` checks them against the
board. The 3x3 block bonus is path dependent (a new block may not overlap one already
counted), so the counted blocks are part of the state.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from companion.core import DiceGame, Score, ScoreLine, StoneCount, register
from companion.layout import Layout, LayoutError
from companion.moves import Move, Place, SetAside, Step, Throw

CELL_NAME = re.compile(r"^([1-5])x([1-6])\+([1-5])x([1-6])$")
#: (row step, column step): along a row, down a column, the two diagonals.
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
CHAIN_LENGTH = 3
BONUS_EVERY = 5
BONUS_CHAIN = 5
BONUS_BLOCK = 25
NUMBER_WORDS = ("no", "one", "two", "three", "four", "five")


class BoardMismatch(ValueError):
    """The counted 3x3 blocks do not fit the stones on the board."""


@dataclass(frozen=True)
class Cell:
    """What one cell asks of the dice, and what it is worth."""

    name: str
    index: int
    row: int
    col: int
    zone: str
    points: int
    playable: bool
    need: tuple[tuple[int, int], ...]  # (face, count) pairs
    all_dice: bool

    def fits(self, dice: Sequence[int]) -> bool:
        """Whether ``dice`` allow this cell (five of a kind allows every playable cell)."""
        if not self.playable:
            return False
        if len(set(dice)) == 1:
            return True
        if self.zone == "gold":
            return any({start, start + 1, start + 2, start + 3} <= set(dice) for start in (1, 2, 3))
        if self.zone == "silver":
            return set(dice) in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6})
        have = Counter(dice)
        enough = all(have[face] >= count for face, count in self.need)
        return enough and (not self.all_dice or sum(c for _, c in self.need) == len(dice))

    def describe_need(self) -> str:
        """The combination in words, for messages."""
        if self.zone == "gold":
            return "four consecutive faces (1-4, 2-5 or 3-6)"
        if self.zone == "silver":
            return "five consecutive faces (1-5 or 2-6) using all five dice"
        parts = " and ".join(
            f"{NUMBER_WORDS[count]} {face}{'s' if count > 1 else ''}" for face, count in self.need
        )
        if self.all_dice:
            return f"exactly {parts}, using all five dice"
        return f"{parts} among the dice"


class Board:
    """The fixed tables of one layout: cells, neighbours, 3x3 windows and which cells
    each dice multiset allows (cached, so legal moves are a lookup)."""

    def __init__(self, layout: Layout) -> None:
        extra = layout.extra
        try:
            zone_points: dict[str, int] = extra["zone_points"]
            all_dice_zones = set(extra["all_dice_zones"])
        except KeyError as exc:
            raise LayoutError(f"{layout.source}: Spexxx layouts need {exc}") from None
        for field in layout.fields.values():
            if field.row is None or field.col is None:
                raise LayoutError(f"{layout.source}: Spexxx needs a grid; cell {field.name} has "
                                  "no row/col")
        grid_fields = sorted(layout.fields.values(), key=lambda f: (f.row, f.col))
        cells = []
        for index, field in enumerate(grid_fields):
            match = CELL_NAME.match(field.name)
            zone = field.attrs.get("zone")
            if match is None or zone not in zone_points:
                raise LayoutError(
                    f"{layout.source}: cell {field.name!r} needs a name like 3x5+2x1 "
                    f"and a zone with points (zone {zone!r})"
                )
            count_a, face_a, count_b, face_b = map(int, match.groups())
            need = Counter({face_a: count_a})
            need[face_b] += count_b
            cells.append(Cell(
                name=field.name, index=index, row=field.row, col=field.col, zone=zone,
                points=int(zone_points[zone]), playable=bool(field.attrs.get("playable", True)),
                need=tuple(need.items()), all_dice=zone in all_dice_zones,
            ))
        self.cells: tuple[Cell, ...] = tuple(cells)
        self.index = {cell.name: cell.index for cell in cells}
        self.points = tuple(cell.points for cell in cells)
        self.places = tuple(Place(cell.name) for cell in cells)
        at = {(cell.row, cell.col): cell.index for cell in cells}
        #: forward[d][i] / backward[d][i]: the neighbour of cell i along DIRECTIONS[d], or -1.
        self.forward = tuple(
            tuple(at.get((c.row + dr, c.col + dc), -1) for c in cells) for dr, dc in DIRECTIONS
        )
        self.backward = tuple(
            tuple(at.get((c.row - dr, c.col - dc), -1) for c in cells) for dr, dc in DIRECTIONS
        )
        #: Every 3x3 window of playable cells as (top-left cell index, its nine cells).
        windows = []
        for cell in cells:
            square = [at.get((cell.row + dr, cell.col + dc)) for dr in range(3) for dc in range(3)]
            if all(i is not None and self.cells[i].playable for i in square):
                windows.append((cell.index, tuple(square)))
        self.windows: dict[int, tuple[int, ...]] = dict(windows)
        self.windows_at: tuple[tuple[tuple[int, tuple[int, ...]], ...], ...] = tuple(
            tuple(w for w in windows if cell.index in w[1]) for cell in cells
        )
        self._allowed: dict[tuple[int, ...], tuple[int, ...]] = {}

    def allowed(self, dice: Sequence[int]) -> tuple[int, ...]:
        """Indices of the cells ``dice`` allow, free or not (at most 252 distinct throws)."""
        key = tuple(sorted(dice))
        found = self._allowed.get(key)
        if found is None:
            found = self._allowed[key] = tuple(c.index for c in self.cells if c.fits(key))
        return found

    def overlap(self, a: int, b: int) -> bool:
        """Whether the 3x3 windows with top-left cells ``a`` and ``b`` share a cell."""
        ca, cb = self.cells[a], self.cells[b]
        return abs(ca.row - cb.row) < 3 and abs(ca.col - cb.col) < 3

    def runs(self, owner: Sequence[int], player: int) -> Iterable[tuple[int, int, int]]:
        """Every maximal line of ``player``'s stones: (direction, first cell, length)."""
        for d, backward in enumerate(self.backward):
            forward = self.forward[d]
            for i, who in enumerate(owner):
                if who != player or (backward[i] >= 0 and owner[backward[i]] == player):
                    continue
                length, j = 1, forward[i]
                while j >= 0 and owner[j] == player:
                    length, j = length + 1, forward[j]
                yield d, i, length

    def walk(self, direction: int, start: int, length: int) -> list[int]:
        """The ``length`` cells from ``start`` along a direction (used for words and sums)."""
        cells, i = [], start
        for _ in range(length):
            cells.append(i)
            i = self.forward[direction][i]
        return cells

    def __deepcopy__(self, memo: dict) -> Board:
        return self  # fixed tables: copies of a game share them

    # -- words ------------------------------------------------------------------

    def chain_place(self, direction: int, start: int, length: int) -> str:
        """Where a chain lies, in the words printed on the board's edges."""
        first = self.cells[start]
        last = self.cells[self.walk(direction, start, length)[-1]]
        col_a, row_a = first.name.split("+")
        col_b, row_b = last.name.split("+")
        if direction == 0:
            return f"in row {row_a} ({col_a} to {col_b})"
        if direction == 1:
            return f"in column {col_a} ({row_a} to {row_b})"
        return f"on the diagonal {first.name} to {last.name}"

    def score_lines(
        self, chains: Iterable[tuple[int, int, int]], blocks: Iterable[int]
    ) -> tuple[ScoreLine, ...]:
        """Score lines of chains (direction, first cell, length) and counted blocks."""
        lines = []
        for direction, start, length in sorted(chains):
            where = self.chain_place(direction, start, length)
            points = sum(self.points[i] for i in self.walk(direction, start, length))
            lines.append(ScoreLine(f"chain of {length} {where}", points))
            if length >= BONUS_EVERY:
                bonus = BONUS_CHAIN * (length // BONUS_EVERY)
                lines.append(ScoreLine(f"bonus chain of {length} {where}", bonus))
        for top_left in sorted(blocks):
            bottom_right = self.walk(2, top_left, 3)[-1]
            lines.append(ScoreLine(
                f"3x3 block {self.cells[top_left].name} to {self.cells[bottom_right].name}",
                BONUS_BLOCK,
            ))
        return tuple(lines)


_BOARDS: dict[Any, Board] = {}
_last: list[tuple[Layout, Board]] = []


def board_for(layout: Layout) -> Board:
    """The tables for ``layout``, built once per distinct board: a session passes the same
    layout object each game, while a fresh load is matched by content."""
    if _last and _last[0][0] is layout:
        return _last[0][1]
    extra = layout.extra
    key = (
        tuple(
            (f.name, f.row, f.col, f.attrs.get("zone"), f.attrs.get("playable", True))
            for f in layout.fields.values()
        ),
        tuple(sorted(extra.get("zone_points", {}).items())),
        tuple(extra.get("all_dice_zones", ())),
    )
    board = _BOARDS.get(key)
    if board is None:
        board = _BOARDS[key] = Board(layout)
    _last[:] = [(layout, board)]
    return board


@register
class Spexxx(DiceGame):
    """Spexxx (Waterfall Games): stones placed by dice combinations, scored in chains."""

    name = "spexxx"
    title = "Spexxx"
    min_players = 2
    max_players = 4
    default_options = {"children": False}
    max_throws = 4

    def setup(self) -> None:
        super().setup()
        self.board = board_for(self.layout)
        version = "children" if self.options["children"] else "adults"
        try:
            self.stones_each = int(self.layout.extra["stones"][version][str(len(self.players))])
        except KeyError:
            raise LayoutError(
                f"{self.layout.source}: no stone count for {len(self.players)} players ({version})"
            ) from None
        n = len(self.players)
        self.owner: list[int] = [-1] * len(self.board.cells)
        self.supply = [self.stones_each] * n
        self.placed = [0] * n
        self.set_aside = [0] * n
        self.totals = [0] * n
        #: Each player's chains of three or more: (direction, first cell) -> length.
        self.chains: list[dict[tuple[int, int], int]] = [{} for _ in range(n)]
        #: Each player's counted 3x3 blocks, by top-left cell.
        self.blocks: list[list[int]] = [[] for _ in range(n)]

    @property
    def max_rounds(self) -> int:
        return self.stones_each

    # -- rules ------------------------------------------------------------------

    def _fitting_free(self) -> list[int]:
        owner = self.owner
        return [i for i in self.board.allowed(self.dice) if owner[i] < 0] if self.dice else []

    def _check(self, move: Move) -> str | None:
        if isinstance(move, Throw):
            return self._check_throw(move)
        if isinstance(move, Step):
            return "Spexxx stones are placed, never moved"
        if not self.throws:
            what = "placing a stone" if isinstance(move, Place) else "setting a stone aside"
            return f"throw the dice before {what}"
        if isinstance(move, SetAside):
            free = self._fitting_free()
            if free:
                return (
                    "a stone may be set aside only when no free cell fits the dice; "
                    f"the dice {self._dice_text()} fit {self.board.cells[free[0]].name}"
                )
            return None
        return self._check_place(move)

    def _check_place(self, move: Place) -> str | None:
        if move.cards is not None or move.colour is not None or move.capture is not None:
            return "in Spexxx you only place a stone: no cards, colours or captures"
        index = self.board.index.get(move.field)
        if index is None:
            return f"there is no cell {move.field!r} (cells are named like 3x5+2x1)"
        cell = self.board.cells[index]
        if not cell.playable:
            return f"cell {cell.name} on the {cell.zone} diagonal takes no stones"
        if self.owner[index] >= 0:
            return (
                f"cell {cell.name} is occupied by {self.players[self.owner[index]]}: "
                "an occupied cell is blocked"
            )
        if index not in self.board.allowed(self.dice):
            return (
                f"the {cell.zone} cell {cell.name} needs {cell.describe_need()}; "
                f"the dice show {self._dice_text()}"
            )
        return None

    def _dice_text(self) -> str:
        return " ".join(map(str, self.dice or ()))

    def legal_moves(self) -> list[Move]:
        if self.is_over or not self.throws:
            return []  # before the first throw the only move is a throw (chance)
        places = self.board.places
        free = self._fitting_free()
        return [places[i] for i in free] if free else [SetAside()]

    def _apply(self, move: Move) -> None:
        if isinstance(move, Throw):
            self.throws.append(move.dice)
            return
        player = self.current
        self.supply[player] -= 1
        if isinstance(move, SetAside):
            self.set_aside[player] += 1
        else:
            index = self.board.index[move.field]
            self.owner[index] = player
            self.placed[player] += 1
            self.totals[player] += self._chain_gain(index, player) + self._block_gain(index, player)
        if any(self.supply):
            self._end_turn()
        else:
            self.throws = []
            self._finish_by_score("all stones are placed or set aside")

    def _chain_gain(self, index: int, player: int) -> int:
        """Points the stone just placed at ``index`` earns along the four lines through it."""
        board, owner, points = self.board, self.owner, self.board.points
        chains = self.chains[player]
        gain = 0
        for d in range(len(DIRECTIONS)):
            before, after = [], []
            j = board.backward[d][index]
            while j >= 0 and owner[j] == player:
                before.append(j)
                j = board.backward[d][j]
            j = board.forward[d][index]
            while j >= 0 and owner[j] == player:
                after.append(j)
                j = board.forward[d][j]
            length = len(before) + 1 + len(after)
            if length < CHAIN_LENGTH:
                continue
            # The new stone always scores; neighbours score only if not yet in a chain.
            gain += points[index]
            for side in (before, after):
                if len(side) < CHAIN_LENGTH:
                    gain += sum(points[i] for i in side)
            gain += BONUS_CHAIN * (
                length // BONUS_EVERY
                - len(before) // BONUS_EVERY
                - len(after) // BONUS_EVERY
            )
            if after:
                chains.pop((d, after[0]), None)
            chains[(d, before[-1] if before else index)] = length
        return gain

    def _block_gain(self, index: int, player: int) -> int:
        """25 for a 3x3 block completed by this stone that overlaps no counted block
        (when several complete at once they overlap each other: the first in reading
        order counts)."""
        owner, counted = self.owner, self.blocks[player]
        for top_left, square in self.board.windows_at[index]:
            if all(owner[i] == player for i in square) and not any(
                self.board.overlap(top_left, other) for other in counted
            ):
                counted.append(top_left)
                return BONUS_BLOCK
        return 0

    # -- scores and pieces --------------------------------------------------------

    def scores(self) -> dict[str, Score]:
        return {
            name: Score(
                name,
                self.totals[p],
                self.board.score_lines(
                    ((d, start, length) for (d, start), length in self.chains[p].items()),
                    self.blocks[p],
                ),
            )
            for p, name in enumerate(self.players)
        }

    def recount_scores(self) -> dict[str, Score]:
        out = {}
        for p, name in enumerate(self.players):
            self._check_blocks(p)
            chains = [run for run in self.board.runs(self.owner, p) if run[2] >= CHAIN_LENGTH]
            lines = self.board.score_lines(chains, self.blocks[p])
            out[name] = Score(name, sum(line.points for line in lines), lines)
        return out

    def _check_blocks(self, player: int) -> None:
        """The counted blocks must be the player's stones, apart, and leave no block uncounted."""
        board, owner, counted = self.board, self.owner, self.blocks[player]
        name = self.players[player]
        for k, top_left in enumerate(counted):
            where = board.cells[top_left].name
            if not all(owner[i] == player for i in board.windows[top_left]):
                raise BoardMismatch(f"the counted 3x3 block at {where} is not all {name}'s stones")
            if any(board.overlap(top_left, other) for other in counted[:k]):
                raise BoardMismatch(f"the counted 3x3 block at {where} overlaps another one")
        for top_left, square in board.windows.items():
            if all(owner[i] == player for i in square) and not any(
                board.overlap(top_left, other) for other in counted
            ):
                where = board.cells[top_left].name
                raise BoardMismatch(f"{name}'s 3x3 block at {where} was never counted")

    def stacks(self) -> dict[str, tuple[str, ...]]:
        return {
            self.board.cells[i].name: (self.players[p],)
            for i, p in enumerate(self.owner)
            if p >= 0
        }

    def stone_counts(self) -> dict[str, StoneCount]:
        return {
            name: StoneCount(self.placed[p], self.supply[p], self.set_aside[p])
            for p, name in enumerate(self.players)
        }
