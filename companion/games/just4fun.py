"""Just 4 Fun Colours: play cards of a field's colour to put a stone on it, build towers.

A stone on an empty field costs one card of the field's colour, a stone on a tower one
card more than the tower has stones, and the tower belongs to whoever's stone is on top.
Four own fields in a row (five in the variant) win at once; otherwise, once every
player has used up their 20 stones, the largest orthogonally connected own area wins,
ties broken by the stones (any colour) in those areas, then joint winners.

The referee cannot see the hidden hands, so a move is just the field; the cards a player
says they played (``Place(field, cards=n, colour=c)``) are checked when given. Setting a
stone aside ("no playable cards") is always allowed: the other players check the hand.
Every turn uses up one stone, placed or returned to the box, so all players run out
together at the end of round 20.
"""

from __future__ import annotations

from typing import Any

from companion.core import Game, Score, ScoreLine, StoneCount, register
from companion.layout import Layout, LayoutError
from companion.moves import Move, Place, SetAside

#: The four directions a row can run in: right, down and both diagonals.
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
#: Orthogonal steps: only these connect fields into an area.
ORTHOGONAL = ((0, 1), (1, 0), (0, -1), (-1, 0))
ROW_WORDS = {4: "four", 5: "five"}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


class _Board:
    """The board's geometry from the layout: fields, colours, neighbours, winning rows.
    Immutable, so game copies share it."""

    def __init__(self, layout: Layout, row_length: int) -> None:
        self.names: tuple[str, ...] = tuple(layout.fields)
        self.index = {name: i for i, name in enumerate(self.names)}
        self.colours: tuple[str, ...] = tuple(self._colour(layout, n) for n in self.names)
        self.places = tuple(Place(name) for name in self.names)
        cells = {}
        for name in self.names:
            field = layout.fields[name]
            if field.row is None or field.col is None:
                raise LayoutError(
                    f"{layout.source}: Just 4 Fun needs a grid; field {name} has no row/col"
                )
            cells[(field.row, field.col)] = self.index[name]
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(
            tuple(
                cells[(f.row + dr, f.col + dc)]
                for dr, dc in ORTHOGONAL
                if (f.row + dr, f.col + dc) in cells
            )
            for f in (layout.fields[n] for n in self.names)
        )
        through: list[list[tuple[int, ...]]] = [[] for _ in self.names]
        for row, col in cells:
            for dr, dc in DIRECTIONS:
                line = [cells.get((row + k * dr, col + k * dc)) for k in range(row_length)]
                if None not in line:
                    for i in line:
                        through[i].append(tuple(line))
        #: for each field, the winning rows that contain it
        self.rows_through = tuple(tuple(rows) for rows in through)

    @staticmethod
    def _colour(layout: Layout, name: str) -> str:
        colour = layout.fields[name].attrs.get("colour")
        known = layout.field_colours
        if not isinstance(colour, str) or (known and colour not in known):
            raise LayoutError(
                f"{layout.source}: field {name} has colour {colour!r}"
                + (f" (known: {', '.join(known)})" if known else "")
            )
        return colour

    def __deepcopy__(self, memo: dict[int, Any]) -> _Board:
        return self


@register
class JustFourFun(Game):
    name = "just4fun"
    title = "Just 4 Fun Colours"
    min_players = 2
    max_players = 4
    default_options = {"five_in_a_row": False}
    stacking = True

    def setup(self) -> None:
        extra = self.layout.extra
        self.row_length = 5 if self.options["five_in_a_row"] else 4
        self.board = _Board(self.layout, self.row_length)
        self.stones_per_player = int(extra.get("stones_per_player", 20))
        self.hand_size = int(extra.get("hand_size", 7))
        # Every turn uses up one stone (placed or boxed), so the 20 rounds of the rules
        # are exactly the turns it takes every player to use up their 20 stones.
        self.rounds = int(extra.get("rounds", self.stones_per_player))
        if self.rounds != self.stones_per_player:
            raise LayoutError(
                f"{self.layout.source}: Just 4 Fun uses one stone per turn, so 'rounds' "
                f"({self.rounds}) must equal 'stones_per_player' ({self.stones_per_player})"
            )
        self.towers: list[list[str]] = [[] for _ in self.board.names]
        self.supply = dict.fromkeys(self.players, self.stones_per_player)
        self.boxed = dict.fromkeys(self.players, 0)
        #: player -> field indices whose top stone is theirs, kept move by move
        self.owned: dict[str, set[int]] = {p: set() for p in self.players}

    @property
    def max_rounds(self) -> int:
        return self.rounds

    # -- rules ----------------------------------------------------------------

    def _check(self, move: Move) -> str | None:
        if isinstance(move, SetAside):
            return None  # the hand is hidden: the other players verify it at the table
        if isinstance(move, Place):
            return self._check_place(move)
        return (
            f"there is no {move} here: play cards and place a stone, or return a stone "
            "to the box when no card fits"
        )

    def _check_place(self, move: Place) -> str | None:
        if move.capture is not None:
            return "a stone is just placed on a field; nothing is captured"
        i = self.board.index.get(move.field)
        if i is None:
            first, last = self.board.names[0], self.board.names[-1]
            return f"there is no field {move.field!r} on the board (fields {first} to {last})"
        height = len(self.towers[i])
        needed = height + 1
        if needed > self.hand_size:
            return (
                f"{move.field} holds a tower of {height} stones: building on it takes "
                f"{needed} cards, but a hand holds only {self.hand_size}"
            )
        if move.cards is not None and move.cards != needed:
            if height == 0:
                return f"{move.field} is empty, so you play exactly 1 card, not {move.cards}"
            return (
                f"{move.field} holds a tower of {_plural(height, 'stone')}, so you must play "
                f"{needed} cards (one more than the stones), not {move.cards}"
            )
        colour = self.board.colours[i]
        if move.colour is not None and move.colour.lower() != colour.lower():
            return f"{move.field} is {colour}, so you must play {colour} cards, not {move.colour}"
        return None

    def legal_moves(self) -> list[Move]:
        """Every field whose tower a hand can still top, in board order, and setting a stone
        aside (the referee cannot see the cards, so it cannot rule either out)."""
        if self.outcome is not None:
            return []
        limit = self.hand_size
        places = self.board.places
        moves: list[Move] = [places[i] for i, t in enumerate(self.towers) if len(t) < limit]
        moves.append(SetAside())
        return moves

    def _apply(self, move: Move) -> None:
        player = self.current_player
        self.supply[player] -= 1
        if isinstance(move, SetAside):
            self.boxed[player] += 1
        else:
            i = self.board.index[move.field]
            tower = self.towers[i]
            if tower:
                self.owned[tower[-1]].discard(i)
            tower.append(player)
            self.owned[player].add(i)
            if self._won_at(player, i):
                return
        if self.turn == self.rounds * len(self.players):
            self._finish_by_area()
        else:
            self._end_turn()

    def _won_at(self, player: str, i: int) -> bool:
        """Finish the game if the stone just put on field ``i`` completes a row."""
        owned = self.owned[player]
        for row in self.board.rows_through[i]:
            if all(j in owned for j in row):
                fields = " ".join(self.board.names[j] for j in row)
                self._finish([player], f"{ROW_WORDS[self.row_length]} fields in a row ({fields})")
                return True
        return False

    def _finish_by_area(self) -> None:
        areas = {p: self._largest_area(self.owned[p]) for p in self.players}
        size = max(len(fields) for fields, _ in areas.values())
        tied = [p for p in self.players if len(areas[p][0]) == size]
        done = f"{self.rounds} rounds played"
        if len(tied) == 1:
            self._finish(tied, f"{done}: largest connected area ({_plural(size, 'field')})")
            return
        most = max(areas[p][1] for p in tied)
        winners = [p for p in tied if areas[p][1] == most]
        stones = ", ".join(f"{p} {areas[p][1]}" for p in tied)
        if len(winners) == 1:
            reason = (
                f"{done}: largest connected areas tie at {_plural(size, 'field')}; "
                f"most stones in the area wins ({stones})"
            )
        else:
            reason = (
                f"{done}: largest connected areas tie at {_plural(size, 'field')} "
                f"and {_plural(most, 'stone')}"
            )
        self._finish(winners, reason)

    # -- areas and scores -------------------------------------------------------

    def _largest_area(self, owned: set[int]) -> tuple[list[int], int]:
        """(fields in board order, stones on them) of the largest orthogonally connected
        group of ``owned``; of equal-sized ones, the one holding the most stones."""
        best: tuple[list[int], int] = ([], 0)
        seen: set[int] = set()
        neighbours = self.board.neighbours
        for start in sorted(owned):
            if start in seen:
                continue
            seen.add(start)
            group = [start]
            for i in group:
                for j in neighbours[i]:
                    if j in owned and j not in seen:
                        seen.add(j)
                        group.append(j)
            stones = sum(len(self.towers[i]) for i in group)
            if (len(group), stones) > (len(best[0]), best[1]):
                best = (sorted(group), stones)
        return best

    def _score(self, player: str, owned: set[int]) -> Score:
        fields, stones = self._largest_area(owned)
        names = ", ".join(self.board.names[i] for i in fields)
        area = f"largest connected area: {_plural(len(fields), 'field')}"
        lines = (
            ScoreLine(f"{area} ({names})" if fields else area, len(fields)),
            ScoreLine(f"tie-break, not added: {_plural(stones, 'stone')} in that area", 0),
            ScoreLine(f"not added: {_plural(len(owned), 'field')} owned in all", 0),
        )
        return Score(player, len(fields), lines)

    def scores(self) -> dict[str, Score]:
        return {p: self._score(p, self.owned[p]) for p in self.players}

    def recount_scores(self) -> dict[str, Score]:
        owned: dict[str, set[int]] = {p: set() for p in self.players}
        for i, tower in enumerate(self.towers):
            if tower:
                owned[tower[-1]].add(i)
        return {p: self._score(p, owned[p]) for p in self.players}

    # -- what the board shows -------------------------------------------------

    def stacks(self) -> dict[str, tuple[str, ...]]:
        return {
            self.board.names[i]: tuple(tower) for i, tower in enumerate(self.towers) if tower
        }

    def stone_counts(self) -> dict[str, StoneCount]:
        on_board = dict.fromkeys(self.players, 0)
        for tower in self.towers:
            for owner in tower:
                on_board[owner] += 1
        return {
            p: StoneCount(on_board[p], self.supply[p], self.boxed[p]) for p in self.players
        }

    def status(self) -> dict[str, Any]:
        """Adds how many fields in a row win (4, or 5 in the variant) for the display."""
        return {**super().status(), "row_length": self.row_length}
