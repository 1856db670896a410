"""Mühle (Nine Men's Morris): place nine stones, then step or fly, take a stone per mill.

The position is two bitmasks over the 24 points (bit i is the layout's i-th point), so
a mill test or a move list is a handful of integer operations and random play stays
far above 200 games a second. Points, mills and the number of stones come from the
layout; neighbours are the consecutive points of each mill line, because on a Mühle
board the lines are exactly the mills.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from companion.core import Game, GameSetupError, Score, ScoreLine, StoneCount, register
from companion.layout import Layout, LayoutError
from companion.moves import Move, Place, Step

#: (source point or None for a placement, destination point, captured point or None)
Choice = tuple[int | None, int, int | None]


def _bits(mask: int) -> Iterator[int]:
    """The indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _stones(n: int) -> str:
    return f"{n} stone{'' if n == 1 else 's'}"


@dataclass(frozen=True)
class MillBoard:
    """The layout's points and lines as bitmasks: built once per game, never changed."""

    names: tuple[str, ...]
    index: dict[str, int]
    mills: tuple[int, ...]
    #: per point, the masks of the mills running through it
    mills_at: tuple[tuple[int, ...], ...]
    #: per point, the mask of the points one step away along a line
    neighbours: tuple[int, ...]
    stones_per_player: int

    @classmethod
    def from_layout(cls, layout: Layout) -> MillBoard:
        names = tuple(layout.fields)
        index = {name: i for i, name in enumerate(names)}
        lines = layout.extra.get("mills")
        if not isinstance(lines, list) or not lines:
            raise LayoutError(f"{layout.source}: a Mühle layout needs 'mills', lists of points")
        mills = []
        mills_at: list[list[int]] = [[] for _ in names]
        neighbours = [0] * len(names)
        for line in lines:
            if not isinstance(line, list) or len(line) != 3 or not set(line) <= set(index):
                raise LayoutError(f"{layout.source}: mill {line!r} is not three known points")
            points = [index[name] for name in line]
            mask = sum(1 << i for i in points)
            mills.append(mask)
            for i in points:
                mills_at[i].append(mask)
            for a, b in zip(points, points[1:], strict=False):
                neighbours[a] |= 1 << b
                neighbours[b] |= 1 << a
        return cls(
            names,
            index,
            tuple(mills),
            tuple(tuple(at) for at in mills_at),
            tuple(neighbours),
            int(layout.extra.get("stones_per_player", 9)),
        )

    @property
    def all_points(self) -> int:
        return (1 << len(self.names)) - 1

    def in_mills(self, stones: int) -> int:
        """The stones of ``stones`` that stand in a closed mill."""
        covered = 0
        for mill in self.mills:
            if stones & mill == mill:
                covered |= mill
        return covered

    def capturable(self, stones: int) -> int:
        """The stones an opponent may take: those outside mills, or any if all are in mills."""
        return stones & ~self.in_mills(stones) or stones

    def closes_mill(self, stones: int, point: int) -> bool:
        """Whether ``stones`` (already including ``point``) form a mill through ``point``."""
        return any(stones & mill == mill for mill in self.mills_at[point])

    def __deepcopy__(self, memo: dict) -> MillBoard:
        return self  # immutable tables: a game copy shares them


@register
class Muehle(Game):
    """Mühle for two players; the first player named moves first (white, by custom)."""

    name = "muehle"
    title = "Mühle"
    min_players = 2
    max_players = 2
    removed_label = "taken"
    default_options: ClassVar[dict[str, Any]] = {
        #: the same position with the same player to move for the third time is a draw
        "threefold_repetition": False,
        #: this many moves in a row without a stone taken is a draw (0: no limit)
        "no_capture_limit": 0,
    }
    #: random games can wander for ever; `companion simulate` adds these unless told otherwise
    random_play_options = {"no_capture_limit": 50}

    def setup(self) -> None:
        self.board = MillBoard.from_layout(self.layout)
        limit = self.options["no_capture_limit"]
        if isinstance(limit, bool) or limit < 0:
            raise GameSetupError(
                "Mühle option 'no_capture_limit' is a number of moves, 0 (off) or more, "
                f"not {limit!r}"
            )
        n = self.board.stones_per_player
        self._stones = [0, 0]
        self._in_hand = [n, n]
        self._taken = [0, 0]
        self._quiet_moves = 0
        #: positions (both masks, player to move) seen since the last placement or capture
        self._seen: dict[tuple[int, int, int], int] = {}

    # -- rules ----------------------------------------------------------------

    def _point(self, name: str) -> int | str:
        """The index of point ``name``, or the broken rule as text."""
        i = self.board.index.get(name)
        if i is None:
            names = self.board.names
            return (f"{name!r} is not a point of the board "
                    f"(points are named {min(names)} to {max(names)})")
        return i

    def _check(self, move: Move) -> str | None:
        p = self.current
        player, opponent = self.players[p], self.players[1 - p]
        own, theirs = self._stones[p], self._stones[1 - p]
        if isinstance(move, Place):
            if not self._in_hand[p]:
                return (f"{player} has placed all {self.board.stones_per_player} stones; "
                        "now move one along a line")
            if move.cards is not None or move.colour is not None:
                return "Mühle is played without cards"
            dst = self._point(move.field)
            if isinstance(dst, str):
                return dst
            if (own | theirs) >> dst & 1:
                return f"{move.field} is taken; place your stone on a free point"
            after = own | 1 << dst
        elif isinstance(move, Step):
            if self._in_hand[p]:
                return (f"{player} still has {_stones(self._in_hand[p])} to place; "
                        "stones are moved only after all are placed")
            src, dst = self._point(move.src), self._point(move.dst)
            if isinstance(src, str):
                return src
            if isinstance(dst, str):
                return dst
            if not own >> src & 1:
                return f"{move.src} holds no stone of {player}; move one of your own stones"
            if (own | theirs) >> dst & 1:
                return f"{move.dst} is taken; a stone moves only to a free point"
            if own.bit_count() != 3 and not self.board.neighbours[src] >> dst & 1:
                return (f"{move.src} and {move.dst} are not neighbours; "
                        "you may jump only with 3 stones")
            after = own ^ (1 << src | 1 << dst)
        else:
            return "in Mühle you place a stone or move one; there are no dice and no passing"
        closes = self.board.closes_mill(after, dst)
        if move.capture is None:
            if closes and theirs:
                return "you closed a mill: name the stone you take"
            return None
        if not closes:
            return f"you closed no mill, so you may not take {move.capture}"
        taken = self._point(move.capture)
        if isinstance(taken, str):
            return taken
        if not theirs >> taken & 1:
            return f"{move.capture} holds no stone of {opponent}; you take one of theirs"
        if not self.board.capturable(theirs) >> taken & 1:
            return (f"{move.capture} stands in a mill; you may take it only when all of "
                    f"{opponent}'s stones are in mills")
        return None

    def _apply(self, move: Move) -> None:
        p = self.current
        index = self.board.index
        dst = index[move.dst if isinstance(move, Step) else move.field]
        if isinstance(move, Step):
            self._stones[p] ^= 1 << index[move.src] | 1 << dst
        else:
            self._stones[p] |= 1 << dst
            self._in_hand[p] -= 1
        if move.capture is not None:
            self._stones[1 - p] &= ~(1 << index[move.capture])
            self._taken[p] += 1
            self._quiet_moves = 0
        else:
            self._quiet_moves += 1
        self._end_turn()
        self._judge(irreversible=isinstance(move, Place) or move.capture is not None)

    def _judge(self, irreversible: bool) -> None:
        """End the game if the move just made decided it."""
        mover, to_move = 1 - self.current, self.current
        for loser in (to_move, mover):
            left = self._stones[loser].bit_count()
            if not self._in_hand[loser] and left < 3:
                winner = self.players[1 - loser]
                self._finish([winner], f"{self.players[loser]} has only {_stones(left)} left")
                return
        if not self._can_move(to_move):
            self._finish([self.players[mover]], f"{self.players[to_move]} cannot move any stone")
            return
        if self.options["threefold_repetition"]:
            if irreversible:
                self._seen.clear()
            key = (self._stones[0], self._stones[1], to_move)
            seen = self._seen[key] = self._seen.get(key, 0) + 1
            if seen >= 3:
                self._finish([], "draw: the same position for the third time")
                return
        limit = self.options["no_capture_limit"]
        if limit and self._quiet_moves >= limit:
            self._finish([], f"draw: {limit} moves in a row without a stone taken")

    def _can_move(self, p: int) -> bool:
        own = self._stones[p]
        free = self.board.all_points & ~(own | self._stones[1 - p])
        if self._in_hand[p] or own.bit_count() == 3:
            return bool(free)
        neighbours = self.board.neighbours
        return any(neighbours[s] & free for s in _bits(own))

    def _choices(self) -> list[Choice]:
        """Every legal move as point indices (cheaper than Move objects for random play)."""
        if self.outcome is not None:
            return []
        board = self.board
        p = self.current
        own, theirs = self._stones[p], self._stones[1 - p]
        free = board.all_points & ~(own | theirs)
        targets = list(_bits(board.capturable(theirs)))
        closes_mill = board.closes_mill
        choices: list[Choice] = []
        if self._in_hand[p]:
            for dst in _bits(free):
                if targets and closes_mill(own | 1 << dst, dst):
                    choices.extend((None, dst, c) for c in targets)
                else:
                    choices.append((None, dst, None))
            return choices
        flying = own.bit_count() == 3
        for src in _bits(own):
            for dst in _bits(free if flying else board.neighbours[src] & free):
                if targets and closes_mill(own ^ (1 << src | 1 << dst), dst):
                    choices.extend((src, dst, c) for c in targets)
                else:
                    choices.append((src, dst, None))
        return choices

    def _move(self, choice: Choice) -> Move:
        names = self.board.names
        src, dst, taken = choice
        capture = None if taken is None else names[taken]
        if src is None:
            return Place(names[dst], capture=capture)
        return Step(names[src], names[dst], capture)

    def legal_moves(self) -> list[Move]:
        return [self._move(choice) for choice in self._choices()]

    def random_move(self, rng: random.Random) -> Move:
        return self._move(rng.choice(self._choices()))

    # -- what a display shows -------------------------------------------------

    def scores(self) -> dict[str, Score]:
        """Mühle has no points: the total (own stones on the board plus stones taken)
        rises with each capture and falls with each loss, so it shows who is ahead."""
        n = self.board.stones_per_player
        return {
            player: self._score(
                p, n - self._in_hand[p] - self._taken[1 - p], self._taken[p]
            )
            for p, player in enumerate(self.players)
        }

    def recount_scores(self) -> dict[str, Score]:
        n = self.board.stones_per_player
        return {
            player: self._score(
                p,
                self._stones[p].bit_count(),
                n - self._stones[1 - p].bit_count() - self._in_hand[1 - p],
            )
            for p, player in enumerate(self.players)
        }

    def _score(self, p: int, on_board: int, taken: int) -> Score:
        return Score(
            self.players[p],
            on_board + taken,
            (
                ScoreLine("stones on the board", on_board),
                ScoreLine(f"stones taken from {self.players[1 - p]}", taken),
            ),
        )

    def stacks(self) -> dict[str, tuple[str, ...]]:
        names = self.board.names
        return {
            names[i]: (player,)
            for p, player in enumerate(self.players)
            for i in _bits(self._stones[p])
        }

    def stone_counts(self) -> dict[str, StoneCount]:
        return {
            player: StoneCount(self._stones[p].bit_count(), self._in_hand[p], self._taken[1 - p])
            for p, player in enumerate(self.players)
        }

