"""A game at the table: observations and button presses in, accepted moves and flags out.

The session owns the rules core's game and the game log. It is fed stable board
observations (see :mod:`companion.stability`), settled dice throws and buttons, and
emits events to its listeners (LED panel, web page, terminal) only after the log has
committed them, so what the players were told is never lost.
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from itertools import combinations_with_replacement
from typing import Any

from companion.core import Game, IllegalMove
from companion.gamelog import FINISHED, MOVE, UNDO, GameLog
from companion.infer import (
    LOW_CONFIDENCE,
    FieldView,
    Inference,
    Observation,
    changed_fields,
    infer_move,
    unexplained_doubt,
    unseen_placement,
)
from companion.moves import Move, Place, SetAside, Step, Throw, move_to_dict

#: Faces the dice reader is known to read in place of others, by what it reads: a 1 whose
#: pip and a side face's pip fit a 2, in throws with no 4-6 to compare pip sizes with
#: (docs/dice.md; Cuatro seed 5 with camera dice read 1 1 2 5 6 as 1 2 2 5 6, the stone on
#: the pair-of-1s field after it was flagged, and the game stopped at move 28 of 88).
READ_FOR: dict[int, tuple[int, ...]] = {2: (1,)}


def _dice_words(n: int) -> str:
    return "one die" if n == 1 else f"{n} dice"


@dataclass(frozen=True)
class Event:
    """Something the players should know; ``data`` is JSON-ready."""

    kind: str
    data: dict[str, Any]
    seq: int = 0
    time: float = field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "seq": self.seq, "time": self.time, **self.data}


Listener = Callable[[Event], None]


@dataclass(frozen=True)
class MissedPlacement:
    """A placement the camera missed, made before the turn's last ``rewound`` throws, after
    the throw before it, read in doubt, showed ``dice`` (None: as counted)."""

    placement: Place
    rewound: int
    dice: tuple[int, ...] | None = None


#: A missed stone's field is told from others the rules allow as well by its confidence
#: moving across the placement by this much more than theirs (see :func:`_only_fit`).
CONFIDENCE_MOVE_MARGIN = 0.1
#: Where more placements than this fit a stone the camera missed, the players are not asked
#: which: the camera has lost too much of the board to be helped by a choice.
MAX_CHOICES = 3


def _only_fit(fits: dict[Place, MissedPlacement], obs: Observation,
              before: Callable[[MissedPlacement], FieldView | None]) -> MissedPlacement | None:
    """The one placement in ``fits``, or of several the one on a field the reader is unsure
    of: a stone the reader missed lies likelier there; of several such, the one whose
    field changed most since ``before`` the throw the placement follows - read otherwise,
    or its confidence moved by CONFIDENCE_MOVE_MARGIN more than any other's (Cuatro seed
    121 with camera dice: blue's roof on D5 read at 0.57 before and 0.12 after it, C3 at
    0.0 all along; seed 200: blue's roof on D5 read one low at 0.16, then 0.02, F2 at 0.56
    both times; seed 257: red's roof on C3 read one low at 0.15, then 0.33 - a tower read
    one low may read nearer that height with a layer more - F2 at 0.0 both times)."""
    if len(fits) > 1:
        fits = {m: f for m, f in fits.items() if obs.fields[m.field].confidence < LOW_CONFIDENCE}
    if len(fits) > 1:
        moves = sorted(((_moved(before(f), obs.fields[m.field]), m) for m, f in fits.items()),
                       key=lambda pair: pair[0], reverse=True)
        if moves[0][0] >= CONFIDENCE_MOVE_MARGIN + moves[1][0]:
            fits = {moves[0][1]: fits[moves[0][1]]}
    return next(iter(fits.values())) if len(fits) == 1 else None


def _moved(then: FieldView | None, now: FieldView) -> float:
    """How much the reader's view of a field changed: how far its confidence moved, or
    without end for another reading; nothing without a view before."""
    if then is None:
        return 0.0
    if (then.top, then.height) != (now.top, now.height):
        return math.inf
    return abs(then.confidence - now.confidence)


def _other_throws(game: Game, doubt: tuple[int, tuple[tuple[int, ...], ...]] | None
                  ) -> list[tuple[tuple[int, ...], Game]]:
    """``game`` with its last throw, read in ``doubt`` (the move count it holds for and the
    throws it may have been), replaced by each of those the rules allow."""
    if doubt is None or doubt[0] != len(game.moves):
        return []
    trials = []
    for dice in doubt[1]:
        if dice == game.dice:
            continue
        trial = game.copy()
        trial.undo()
        try:
            trial.apply(Throw(dice))
        except IllegalMove:
            continue
        trials.append((dice, trial))
    return trials


class Session:
    """One game in progress, with its log and its listeners."""

    def __init__(self, game: Game, log: GameLog | None = None, game_id: int | None = None):
        self.game = game
        self.log = log
        self.game_id = game_id if game_id is not None or log is None else log.start(game)
        self.listeners: list[Listener] = []
        self.flag: Inference | None = None
        #: Moves one of which the players made, the camera cannot tell which: confirm takes
        #: the first, the page any (:meth:`choose`).
        self.pending_choice: tuple[Move, ...] = ()
        #: Whether that choice is of a placement the camera missed, before a stone it saw.
        self._choice_missed = False
        self.last_observation: Observation | None = None
        #: The last view the game agreed with (see :meth:`observe`).
        self._baseline: Observation | None = None
        #: The same, but never a view that was flagged (see :meth:`observe`).
        self._agreed: Observation | None = None
        #: The turn's last throw read in doubt - dice unread or one too many: (moves up to
        #: it, the throws it may have been).
        self._doubtful: tuple[int, tuple[tuple[int, ...], ...]] | None = None
        #: The same for a throw read whole with a face the reader is known to misread; tried
        #: only once the dice lying there are seen to show what was read
        #: (:meth:`throw_missed`): a throw the reader missed is likelier.
        self._misread: tuple[int, tuple[tuple[int, ...], ...]] | None = None
        #: How many moves the game had when a hand was seen over the board: a placement
        #: the camera missed needs a hand after its throw (:meth:`_missed_placement`).
        self._hands: set[int] = set()
        #: How many times a hand came over the board and left it while the game held so
        #: many moves (a visit ends when the board is steady again: :meth:`board_steady`).
        self._visits: Counter[int] = Counter()
        self._hand_now = False
        #: A move taken back (:meth:`undo`) whose piece the board may still show: a view
        #: showing it waits for the piece to be taken away, not to be played again.
        self._set_back: Move | None = None
        #: The last view seen while the game held so many moves (see :func:`_only_fit`);
        #: the referee hands a view over when the board changes, not at every move.
        self._views_at: dict[int, Observation] = {}
        #: Per field, its stack when a view last read it exactly (see :meth:`_read_right`).
        self._read_as: dict[str, tuple[str, ...]] = {}
        #: Flags raised or cleared while a verdict is held (:meth:`verdict_held`), untold yet.
        self._held: list[Event] | None = None
        self._seq = 0
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        flag = f", flagged: {self.flag.reason}" if self.flag else ""
        return f"<Session {self.game!r}{flag}>"

    # -- inputs -------------------------------------------------------------------

    def observe(self, obs: Observation) -> Inference:
        """A stable, unoccluded view of the board.

        Fields that read exactly as in the last view the game agreed with count as
        unchanged, so a field the camera keeps misreading the same way is not taken for a
        move again and again. While a flag is up, the board going back to the last legal
        state (or to what reads better as a misreading of it than as any move) clears it,
        and so does a view that one legal move explains (the flag was a passing
        misreading); a wrong change on fields the flag does not name is flagged too
        (:meth:`_flag_again`). A flag for pieces that only vanished (what a camera losing
        sight of a stone reports) is raised once; after it the same reading counts as
        unchanged, so the game can go on. A view that reads as expected but where the reader
        lost its confidence on one empty field or one of the current player's own towers is
        that player's piece there
        (:func:`~companion.infer.unseen_placement`).
        """
        with self._lock:
            result = self._observe(obs)
            self._note_read_right(obs)
            return result

    def _observe(self, obs: Observation) -> Inference:
        seen = self._trusted(obs)
        self.last_observation = obs
        self._views_at[len(self.game.moves)] = obs
        if self._set_back is not None:
            if infer_move(self.game, seen).move == self._set_back:
                return Inference("same", reason="waiting for the board to be set back")
            self._set_back = None
        if self.flag is not None:
            doubted = self.flag.kind == "doubt" and set(self.flag.changed) & obs.looks_changed
            result = self._judge(seen) if changed_fields(self.game, seen) else None
            if (result is None or result.kind == "same") and not doubted:
                self.flag = None
                self._drop_choice()
                self._baseline = self._agreed = obs
                self._emit("cleared", {"message": "the board is back to the last legal state"})
                return Inference("same")
            result = result or Inference("same")
            if result.kind not in ("move", "moves") and self._agreed is not self._baseline:
                # what vanished may just have been lifted for this move: judge the view
                # against the last view the game agreed with
                seen = self._trusted(obs, self._agreed)
                result = self._judge(seen)
            if result.kind not in ("move", "moves"):
                self._flag_again(result)
                return self.flag
            self.flag = None
            self._emit("cleared", {"message": "the board shows a legal move again"})
        else:
            result = self._judge(seen)
            unseen = (unseen_placement(self.game, obs, self._agreed, self._read_right())
                      if result.kind == "same" and self._agreed is not None else None)
            if unseen is not None:
                result = Inference("move", unseen, (unseen,), changed=(unseen.field,))
            elif result.kind == "same" and self._agreed is not None:
                result = unexplained_doubt(self.game, obs, self._agreed) or result
        if result.kind in ("same", "move", "moves"):
            self._baseline = self._agreed = obs
        if result.kind == "move":
            self.play(result.move)
        elif result.kind == "moves":
            for move in result.candidates:
                self.play(move)
        elif result.kind == "ambiguous":
            self.pending_choice = result.candidates
            self._emit("confirm", {
                "message": "the camera is unsure: press confirm to accept "
                f"{result.candidates[0]}, or correct it on the web page",
                "candidates": [move_to_dict(m) for m in result.candidates],
            })
        elif result.kind in ("illegal", "unexplained", "doubt"):
            if result.kind == "unexplained" and self._only_vanished(seen, result.changed):
                # Most often a stone the camera stopped seeing: flag it once, and let
                # the same reading count as unchanged from now on.
                self._baseline = obs
            self._raise_flag(result)
        elif result.kind == "pending":
            self._emit("waiting", {"message": result.reason})
        return result

    def _note_read_right(self, obs: Observation) -> None:
        """Remember, per field ``obs`` reads exactly as the game has it, that stack."""
        stacks = self.game.stacks()
        for name in obs.fields.keys() - set(changed_fields(self.game, obs)):
            self._read_as[name] = stacks.get(name, ())

    def _read_right(self) -> frozenset[str]:
        """Fields some view has read exactly as the game now has them: the reader can tell
        their height, so a misreading of one is likelier than a stone it cannot see."""
        stacks = self.game.stacks()
        return frozenset(name for name, stack in self._read_as.items()
                         if stack == stacks.get(name, ()))

    def _flag_again(self, result: Inference) -> None:
        """While a flag is up, a wrong change on fields it does not name is told too: the
        flag of a misreading would hide a wrong stone set meanwhile (Just 4 Fun seed 21).
        A piece refused by a rule keeps its flag while it lies there: that says what to
        do, and a throw may yet show it legal (:meth:`_missed_turn_end`)."""
        told, fields = set(self.flag.changed), set(result.changed)
        if result.kind not in ("illegal", "unexplained", "doubt") or fields <= told or \
                self.flag.kind == "illegal" and told <= fields:
            return
        self._raise_flag(result)

    def _raise_flag(self, result: Inference) -> None:
        self.flag = result
        self._emit("illegal", {"rule": result.reason, "fields": list(result.changed),
                               "player": self.game.current_player})

    @contextmanager
    def verdict_held(self) -> Iterator[None]:
        """Tell no flag raised or cleared inside the block, only how it ends: a flag up that
        was not before (the event that raised it), or none where one was. A view
        judged before a throw the referee holds back, which then makes the stone legal, so
        raises no flag the players hear for a moment (Cuatro seed 3 with camera dice: red's
        roof on A4 was flagged against the throw before the one it followed, which came to
        rest under the hand setting the roof)."""
        with self._lock:
            was, self._held = self.flag, []
            try:
                yield
            finally:
                held, self._held = self._held, None
                kind = ("illegal" if self.flag is not None and self.flag is not was
                        else "cleared" if self.flag is None and was is not None else None)
                told = [event for event in held if event.kind == kind]
                if kind == "illegal":  # the event that raised the flag now up
                    told = [e for e in told if e.data["rule"] == self.flag.reason] or told
                if told:
                    self._emit(kind, told[-1].data)

    def rejudge(self) -> Inference | None:
        """Judge the last view again: a throw counted after a stone the rules refused
        (which clears the flag, the stone still lying there), though its dice came to rest
        before the stone was set, may make it legal."""
        with self._lock:
            if self.last_observation is None:
                return None
            return self.observe(self.last_observation)

    def hand_over_board(self) -> None:
        """The camera sees a hand over the board (setting or taking a piece, or passing)."""
        with self._lock:
            self._hands.add(len(self.game.moves))
            if not self._hand_now:
                self._visits[len(self.game.moves)] += 1
                self._hand_now = True

    def board_steady(self) -> None:
        """The board has shown the same view for a while, with no hand over it."""
        with self._lock:
            self._hand_now = False

    def _judge(self, seen: Observation) -> Inference:
        """:func:`infer_move`, but a stone the rules refuse against a throw read in doubt
        (dice unread or one too many) is judged against every throw it may have been: the
        first that makes it legal is taken (when only one does, that is the throw). So is
        a change no move explains, which may be a roof on a tower read one low where no
        placement fits the throw as guessed (Cuatro seed 28 with camera dice). The next
        player's stone refused in the current player's turn may come after a placement the
        camera missed, the turn's last throws being the next player's
        (:meth:`_missed_placement`); without dice, if two hands came over the board since
        the last move (the placement's and the stone's: an illegal second stone of the
        player who just moved comes with one), on a tower read one high, unsure, too."""
        result = infer_move(self.game, seen)
        if result.kind in ("illegal", "unexplained"):
            fits = self._doubtful_throw_fits(lambda trial: infer_move(trial, seen).kind == "move")
            if fits:
                self._replace_last_throw(fits[0])
                result = infer_move(self.game, seen)
        passed = self._visits[len(self.game.moves)] >= 2  # the placement's hand and theirs
        if result.kind in ("illegal", "unexplained") and (self.game.uses_dice or passed) and \
                self._pieces_of(result.changed, self.game.next_player):
            fits: list[MissedPlacement] = []
            found = self._missed_placement(
                self._stone_follows, least_rewound=1 if self.game.uses_dice else 0,
                covered=frozenset(result.changed), unsure=not self.game.uses_dice,
                several=fits)
            if found is not None:
                self._put_in_missed(found)
                result = infer_move(self.game, self._trusted(self.last_observation))
            elif not self.game.uses_dice and 2 <= len(fits) <= MAX_CHOICES:
                self._offer_missed(tuple(fit.placement for fit in fits))
        return result

    def _drop_choice(self) -> None:
        """The question is answered, or moot: a move was played or taken back, the flagged
        stone taken away."""
        self.pending_choice, self._choice_missed = (), False

    def _offer_missed(self, placements: tuple[Place, ...]) -> None:
        """Ask which of ``placements`` the current player made unseen, before the next
        player's stone, where the camera cannot tell (Just 4 Fun seed 119: red's fourth stone
        on B2 or E3, both read 5 high at 0.0 before and after it)."""
        if self.pending_choice == placements and self._choice_missed:
            return
        self.pending_choice, self._choice_missed = placements, True
        player = self.game.current_player
        where = " or ".join(m.field for m in placements)
        self._emit("confirm", {
            "message": f"{player}'s stone went unseen: on {where}? Press confirm for "
                       f"{placements[0]}, or choose on the page",
            "candidates": [move_to_dict(m) for m in placements],
        })

    def _stone_follows(self, trial: Game) -> bool:
        """The last view shows one legal move of ``trial``'s current player."""
        return infer_move(trial, self._trusted(self.last_observation, game=trial)).kind == "move"

    def _missed_turn_end(self) -> bool:
        """A throw settles while the next player's stone is flagged: play has gone on, so
        the stone was no mistake but came after a placement the camera missed, on a tower
        it reads as before (or one low, however sure) (Cuatro seed 18 with camera dice:
        blue's third roof on D5, read 2 high after it with confidence 0.2; red's throw went
        to blue, red's stone was flagged and blue's next throws were taken for blue's in
        the same turn; seed 82: blue's second roof on C3 read one low at 0.80). Such a
        placement is put in where it is the only one the rules allow, and the flagged stone
        after it; pieces set since are judged as the next views come. A wrong stone set and
        taken back before the next throw stays flagged as it was; one left lying while the
        next player throws may so be taken for a turn the camera missed.
        Returns whether the turn was so ended."""
        if self.flag is None or self.flag.kind != "illegal" or \
                not self._pieces_of(self.flag.changed, self.game.next_player):
            return False
        flagged = self.flag.changed
        obs = self.last_observation

        def stone(trial: Game) -> Inference:
            fields = {**Observation.of_game(trial).fields,
                      **{name: obs.fields[name] for name in flagged}}
            return infer_move(trial, Observation(fields))

        found = self._missed_placement(lambda trial: stone(trial).kind == "move",
                                       least_rewound=1, loose=True, covered=frozenset(flagged))
        if found is None:
            return False
        self._put_in_missed(found)
        self.flag = None
        self._emit("cleared", {"message": "the board shows a legal move again"})
        self.play(stone(self.game).move)
        since = set(changed_fields(self.game, self._trusted(obs))) - set(flagged)
        expected = Observation.of_game(self.game).fields
        self._baseline = self._agreed = replace(obs, fields={
            name: expected[name] if name in since else view for name, view in obs.fields.items()})
        return True

    def _forget_views_from(self, moves: int) -> None:
        """Views seen with ``moves`` or more moves no longer belong to those moves."""
        self._views_at = {n: view for n, view in self._views_at.items() if n < moves}

    def _pieces_of(self, changed: tuple[str, ...], player: str) -> bool:
        """Every changed field shows a piece of ``player``."""
        obs = self.last_observation
        return bool(changed) and obs is not None and all(
            f in obs.fields and obs.fields[f].top == player for f in changed)

    def _stone_stood(self) -> bool:
        """A throw came to rest (or confirm was pressed) after the current player's stone
        was refused against the dice counted, the stone still lying there: play went on, so
        the players took it for legal, and the dice were misread in every frame (Cuatro seed
        126 with camera dice: the straight 1 2 3 4 5 read 1 3 3 4 5; seed 165: 1 1 2 3 3
        read 1 1 2 4 and a die unread). The first throw with one die more changed than read
        in doubt that makes the stone legal replaces the turn's last throw, and the stone is
        played; the page is told, so a person can enter the dice. Returns whether it was."""
        flag = self.flag
        if flag is None or flag.kind != "illegal" or not self.game.uses_dice or \
                self.game.dice is None or \
                not self._pieces_of(flag.changed, self.game.current_player):
            return False
        dice = self.game.dice
        doubt = self._doubtful if self._doubtful and self._doubtful[0] == len(self.game.moves) \
            else (len(self.game.moves), (dice,))
        read = [Counter(option) for option in doubt[1]]
        near = tuple(throw for throw in combinations_with_replacement(range(1, 7), len(dice))
                     if min(len(dice) - sum((Counter(throw) & r).values()) for r in read) == 1)
        seen = self._trusted(self.last_observation)
        fits = [throw for throw, trial in _other_throws(self.game, (doubt[0], near))
                if infer_move(trial, seen).kind == "move"]
        if not fits:
            return False
        if len(fits) > 1:
            self._emit("waiting", {"message": "the dice were read wrong; they may have been "
                                   + " or ".join(" ".join(map(str, t)) for t in fits)
                                   + ": enter the throw on the page if not the first"})
        self.correct_throw(fits[0])
        return self.flag is None

    def _replace_last_throw(self, dice: tuple[int, ...]) -> None:
        """Put ``dice`` in place of the turn's last throw (logged and told, as a correction)."""
        last = self.game.undo()
        self._log(UNDO, {"move": move_to_dict(last)})
        self._emit("correction", {"dice": list(dice), "replaced": list(last.dice)})
        self.play(Throw(dice))

    def _doubtful_throw_fits(self, legal: Callable[[Game], bool],
                             misread: bool = False) -> list[tuple[int, ...]]:
        """The throws the turn's last throw, read in doubt (``misread``: read whole, with a
        face the reader is known to misread), may have been that make ``legal`` true of the
        game (empty if nothing was in doubt)."""
        doubt = self._misread if misread else self._doubtful
        return [dice for dice, trial in _other_throws(self.game, doubt) if legal(trial)]

    def _only_vanished(self, obs: Observation, changed: tuple[str, ...]) -> bool:
        """Every changed field shows less than the game has there (a lower tower, no stone)."""
        stacks = self.game.stacks()
        return bool(changed) and all(
            obs.fields[f].height < len(stacks.get(f, ())) for f in changed)

    def _trusted(self, obs: Observation, base: Observation | None = None,
                 game: Game | None = None) -> Observation:
        """``obs`` with the fields that look as in the baseline set to what the game (or
        ``game``, a trial of it) expects, unless the reader newly sees them changed: a stone
        it had lost, read as the board under it, taken away (Mühle seed 126: white's stone
        on b6, read empty since it was set, moved to b4)."""
        base = base or self._baseline
        if base is None:
            return obs
        expected = Observation.of_game(game or self.game).fields
        news = obs.looks_changed - base.looks_changed
        fields = {}
        for name, view in obs.fields.items():
            before = base.fields.get(name)
            same = before is not None and (before.top, before.height) == (
                view.top, view.height) and name not in news
            fields[name] = replace(expected[name], confidence=view.confidence) \
                if same and name in expected else view
        return Observation(fields, obs.occluded, obs.hidden, obs.looks_changed, obs.after_hand)

    def correct(self, changes: dict[str, FieldView]) -> Inference:
        """A person sets fields by hand: the board as last seen, with these fields replaced."""
        with self._lock:
            unknown = sorted(set(changes) - set(self.game.layout.fields))
            if unknown:
                raise ValueError(f"no field {unknown[0]!r} on this board")
            base = self.last_observation or Observation.of_game(self.game)
            obs = Observation({**base.fields, **changes})
            self.flag = None
            self._baseline = self._agreed = None
            self._emit("correction", {"fields": sorted(changes)})
            return self.observe(obs)

    def agrees(self, obs: Observation) -> bool:
        """Whether one view shows the board the game expects, or the flagged view it still
        waits on (either way no piece waiting to be judged); fields that keep misreading the
        same way count as agreeing, as in :meth:`observe`."""
        if obs.occluded or obs.hidden:
            return False
        with self._lock:
            last = self.last_observation
            if self.flag is not None and last is not None and obs.fields.keys() == \
                    last.fields.keys() and all((view.top, view.height) == (
                        last.fields[name].top, last.fields[name].height)
                        for name, view in obs.fields.items()):
                return True
            return not changed_fields(self.game, self._trusted(obs))

    def throw_settled(self, dice: tuple[int, ...], likely: tuple[int, ...] | None = None,
                      since_flag: bool = False, sure: bool = True) -> bool:
        """A throw the dice reader saw settle; False if the rules refuse it.

        With dice fewer than the game throws (ones the reader could not find or read in
        the whole rest), or one more (a side face read as a die), the throw still counts -
        Cuatro's tower limit and every game's throw limit depend on the number of throws -
        taken for now as ``likely`` (the dice reader's likeliest throw, when it has one),
        else with the missing dice 1s (lone 1s are what the reader loses most: 7 of the 15
        dice missing from a rest on the simulated table's seeds 1-3), or without the lowest
        die (side faces read as dice show 1 or 2 pips, see docs/dice.md), until a stone or
        "I cannot play" tells otherwise (:meth:`_judge`); the page is told. A throw read
        whole may still have a face the reader is known to misread (:data:`READ_FOR`):
        :meth:`throw_missed` tries those throws once the dice lying there show it. A throw
        while the next player's stone is flagged may end a turn the camera missed
        (:meth:`_missed_turn_end`); pieces set since are then judged after the throw. One
        that came to rest after (``since_flag``) the current player's stone was flagged
        against the dice, the stone still lying there, makes it stand as legal with the
        nearest throw that allows it (:meth:`_stone_stood`). A whole throw the reader was
        not ``sure`` of counts as read, and the page asks the players to check the dice: most
        throws read wrong are read unsure (on the throw bench's tuning sessions 7 of 8, with
        about one right throw in ten).
        """
        with self._lock:
            resumed = self._missed_turn_end() or since_flag and self._stone_stood()
            taken = self._count_throw(dice, likely, sure)
            if resumed and taken and self.last_observation is not None:
                self.observe(self.last_observation)
            return taken

    def _count_throw(self, dice: tuple[int, ...], likely: tuple[int, ...] | None,
                     sure: bool = True) -> bool:
        """:meth:`throw_settled` once the turn is the throw's (under the session's lock)."""
        count = self.game.dice_count if self.game.uses_dice else len(dice)
        seen = ", ".join(map(str, dice))
        if 0 < count - len(dice) < count:
            options = [tuple(sorted((*dice, *more)))
                       for more in combinations_with_replacement(range(1, 7),
                                                                 count - len(dice))]
            trouble = f"{_dice_words(count - len(dice))} could not be read ({seen} seen)"
        elif len(dice) == count + 1:
            rest = sorted(dice)
            options = [tuple(rest[:i] + rest[i + 1:]) for i in range(len(rest))]
            trouble = f"one die too many was seen ({seen}: a side face?)"
        elif len(dice) == count and self.game.uses_dice:
            if not self._play_throw(tuple(dice)):
                return False
            misread = [tuple(sorted((*dice[:i], was, *dice[i + 1:])))
                       for i, value in enumerate(dice) for was in READ_FOR.get(value, ())]
            self._misread = (len(self.game.moves), tuple(dict.fromkeys(misread)))
            if not sure:
                read = " ".join(map(str, dice))
                self._emit("waiting", {"message": f"the camera is unsure of the dice (read {read}):"
                                       " check them, and enter the throw on the page if they "
                                       "show otherwise"})
            return True
        else:
            return self._play_throw(tuple(dice))
        if likely is not None and tuple(sorted(likely)) in options:
            options.insert(0, tuple(sorted(likely)))
        options = list(dict.fromkeys(options))
        if not self._play_throw(options[0]):
            return False
        self._doubtful = (len(self.game.moves), tuple(options))
        self._emit("waiting", {"message": f"{trouble}: the stone will tell which throw it "
                               "was, or enter the throw on the page"})
        return True

    def _play_throw(self, dice: tuple[int, ...]) -> bool:
        """Play a settled throw. One the rules refuse because the turn's throws are used up
        may be the next player's: a placement the camera missed came first (see
        :meth:`_missed_placement`, where the view shows it, else on a tower read as before
        or one low, however sure, after a hand: Cuatro seed 55 with camera dice, red's
        second roof on A4 read at one roof with confidence 0.93); it is put in, the throws
        after it given to the next player."""
        throw = Throw(dice)
        if self.game.check(throw) is not None:
            def allowed(trial: Game) -> bool:
                return trial.check(throw) is None

            found = (self._missed_placement(allowed)
                     or self._missed_placement(allowed, loose=True))
            if found is not None:
                self._put_in_missed(found)
        return self.play(throw)

    def _put_in_missed(self, missed: MissedPlacement) -> None:
        """Put in a placement the camera missed; the throws after it are then the next
        player's (logged as undone and replayed)."""
        later = [self.game.undo() for _ in range(missed.rewound)][::-1]
        self._forget_views_from(len(self.game.moves))
        for move in reversed(later):
            self._log(UNDO, {"move": move_to_dict(move)})
        if missed.dice is not None:
            self._replace_last_throw(missed.dice)
        self._doubtful = self._misread = None
        self._hands.clear()
        self._emit("correction", {"missed": move_to_dict(missed.placement),
                                  "rewound": missed.rewound})
        for move in (missed.placement, *later):
            self.play(move)

    def _missed_placement(self, then: Callable[[Game], bool], least_rewound: int = 0,
                          loose: bool = False, most_rewound: int | None = None,
                          covered: frozenset[str] = frozenset(),
                          unsure: bool = False,
                          several: list[MissedPlacement] | None = None
                          ) -> MissedPlacement | None:
        """The placement the current player made unseen, after which the turn's last throws
        (at least ``least_rewound``) are the next player's: the only one the rules allow
        after one of the turn's throws, after which the last view shows its field as it then
        is, the later throws are legal and ``then`` holds of the game (the next player's
        throw is allowed, or their stone). A stone on a tower the reader read one high
        already, unsure, adds nothing to what it sees (Cuatro seed 17 with camera dice:
        blue's second roof on D5, read 2 high before and after it; red's throws were taken
        for blue's until a sixth was refused). ``loose``: the field may also read one lower,
        however sure the reader is of that (a tower it reads one low since), if a hand came
        over the board after that throw (:meth:`hand_over_board`); every caller has other
        evidence of the placement (the player says so, a throw past the limit, the next
        player's stone still there when their throw comes);
        ``covered``: fields the next player's stone lies on, which may show one piece more
        (or, where ``loose`` allows, as many), for ``then`` to judge (Cuatro seed 73 with
        camera dice: blue's roof on D5 unseen, red's roof on it read right, five high; seed
        248: red's read one low). ``unsure``: where nothing fits so, the field may read one
        piece more than after the placement, unsure (Just 4 Fun seed 119: red's fourth
        stone on B2, read 5 high at 0.0 before and after it; not one less: seed 146, blue's
        C1 read 1 high at 0.0, as the game had it, fitted blue's missed stone as well as C2,
        read 5 where the game had 3). Where several fit,
        the only one on a field
        the reader is unsure of is taken (seed 87: red's roof on A4, read at 0.05, and one
        on D5, read sure, fitted). Where none or several fit the throws as counted, a throw
        counted with dice unread may have been another (seed 110: blue's second roof on D4,
        after a full house read with a die unread). Returns it with how many throws came
        after it, as many as may be (the earliest throw it fits), ``most_rewound`` at most.
        Where several fit the throws as counted and none is taken, they are added to
        ``several``."""
        obs = self.last_observation
        if obs is None or obs.occluded or obs.hidden:
            return None
        throws = 0
        while throws < len(self.game.moves) and isinstance(self.game.moves[-1 - throws], Throw):
            throws += 1
        latest = throws - 1 if self.game.uses_dice else 0
        if most_rewound is not None:
            latest = min(latest, most_rewound)
        as_read: dict[Place, MissedPlacement] = {}
        in_doubt: dict[Place, MissedPlacement] = {}
        for off_by_one in (False, True)[:1 + unsure]:
            for rewound in range(latest, least_rewound - 1, -1):
                trial = self.game.copy()
                later = [trial.undo() for _ in range(rewound)][::-1]
                low = loose and len(self.game.moves) - rewound in self._hands
                for dice, before in [(None, trial), *_other_throws(trial, self._doubtful)]:
                    found = as_read if dice is None else in_doubt
                    for move, after in self._placements_shown(before, obs, low, covered,
                                                              off_by_one):
                        if move in found:
                            continue
                        try:
                            for later_move in later:
                                after.apply(later_move)
                        except IllegalMove:
                            continue
                        if then(after):
                            found[move] = MissedPlacement(move, rewound, dice)
            if as_read or in_doubt:
                break
        def before(fit: MissedPlacement) -> FieldView | None:
            """The field in the last view seen before the throw the placement follows
            (views are seen when the board changes, so it may be one from moves before)."""
            counts = [n for n in self._views_at if n < len(self.game.moves) - fit.rewound]
            return self._views_at[max(counts)].fields.get(fit.placement.field) if counts \
                else None

        found = _only_fit(as_read, obs, before) or _only_fit({**in_doubt, **as_read}, obs,
                                                             before)
        if found is None and several is not None:
            several.extend(as_read.values())
        return found

    @staticmethod
    def _placements_shown(trial: Game, obs: Observation, low: bool,
                          covered: frozenset[str], off_by_one: bool = False
                          ) -> list[tuple[Place, Game]]:
        """The placements of ``trial``'s player whose field the view shows as after them
        (``low``: or one lower; on ``covered`` fields, with any piece on top: one higher, or
        with ``low`` as high; ``off_by_one``: or one higher, unsure, so the view fits the
        game after the placement better than before it), each with the game after it."""
        shown = []
        for move in trial.legal_moves():
            view = obs.fields.get(move.field) if isinstance(move, Place) else None
            if view is None or move.capture:
                continue
            after = trial.copy()
            after.apply(move)
            stack = after.stacks()[move.field]
            under = move.field in covered and (
                view.height == len(stack) + 1 or low and view.height == len(stack))
            unsure = off_by_one and view.confidence < LOW_CONFIDENCE and (
                view.height == len(stack) + 1)
            if under or view.top == stack[-1] and (
                    view.height == len(stack) or low and view.height == len(stack) - 1
                    or unsure):
                shown.append((move, after))
        return shown

    def throw_read_whole(self, dice: tuple[int, ...]) -> bool:
        """The turn's last throw, counted with dice unread, read whole while its dice lie
        as they were: these values replace it, unless a stone has come since or they cannot
        be that throw."""
        with self._lock:
            dice = tuple(sorted(dice))
            if self._doubtful is None or self._doubtful[0] != len(self.game.moves) or (
                    dice not in self._doubtful[1]):
                return False
            if self.game.dice != dice:
                self._replace_last_throw(dice)
            self._doubtful = None
            return True

    def correct_throw(self, dice: tuple[int, ...], missed: bool = False) -> None:
        """The dice as they lie, given by a person or seen again, where the turn's last throw
        was misread (it is replaced) or a throw missed (``missed``: it is added). A stone
        flagged against the wrong dice is judged again at once, so the game goes on without
        taking it back.
        Raises :class:`ValueError` with the rule when the rules refuse it; nothing changes then.
        """
        with self._lock:
            last = self.game.moves[-1] if self.game.moves else None
            if not missed and not isinstance(last, Throw):
                raise ValueError("there is no throw this turn to correct; "
                                 "add it as a throw the camera missed")
            throw = Throw(tuple(dice))
            trial = self.game.copy()
            if not missed:
                trial.undo()
            trial.apply(throw)  # IllegalMove (a ValueError) says which rule refuses it
            if not missed:
                self.game.undo()
                self._log(UNDO, {"move": move_to_dict(last)})
            flagged = self.flag
            self._doubtful = self._misread = None  # the dice as they lay: nothing to doubt
            self._emit("correction", {"dice": list(throw.dice),
                                      "replaced": None if missed else list(last.dice)})
            self.play(throw)
            if flagged is not None and isinstance(flagged.move, SetAside):
                self.play(SetAside())  # the long press stands: judged against the right dice
            elif flagged is not None and self.last_observation is not None:
                self.flag = flagged  # still on the board: judge it against the right dice
                self.observe(self.last_observation)

    def throw_missed(self, dice: tuple[int, ...]) -> bool:
        """The dice lie showing ``dice``, not the last throw counted, while a stone stands
        flagged (or "I cannot play" was refused): if the stone is legal with ``dice`` as a
        throw the reader missed (or else as the turn's last throw, read wrong), the game
        takes it so and the stone stands. The rules decide: a stone wrong for the dice lying
        there stays flagged. With one die short (one the reader cannot find or read), the
        stone must be legal with exactly one value of that die, and what is read must not
        all be the last throw's dice; with one die too many (a die's side face read as a
        die), with exactly one of the dice left out, and the last throw must not be among
        what is read. When several throws fit, the players are asked to enter the throw.
        """
        with self._lock:
            if self.flag is None or self.last_observation is None or not self.game.uses_dice:
                return False
            count = self.game.dice_count
            if len(dice) == count:
                options = [tuple(sorted(dice))]
            elif len(dice) == count - 1:
                options = [tuple(sorted((*dice, v))) for v in range(1, 7)]
            elif len(dice) == count + 1:
                options = [tuple(sorted(dice[:i] + dice[i + 1:])) for i in range(len(dice))]
            else:
                return False
            throws = [m for m in self.game.moves if isinstance(m, Throw)]
            if throws and Counter(dice) == Counter(throws[-1].dice):
                return self._misread_fits() or self._throw_missed_before_the_last()
            if throws:  # the dice were not thrown again
                last = Counter(throws[-1].dice)
                if not Counter(dice) - last or not last - Counter(dice):
                    return False  # the last throw may lie there, a die unread or one extra
                options = [o for o in options if Counter(o) != last]
            seen = self._trusted(self.last_observation)
            fits = []
            for values in dict.fromkeys(options):
                missed = self._explains(values, seen)
                if missed is not None:
                    fits.append((values, missed))
            if len(fits) > 1 and len(dice) != count:
                # the stone fits more than one throw: only a person can say which it was
                trouble = ("one die could not be read" if len(dice) < count
                           else "one die too many was seen")
                self._emit("waiting", {
                    "message": f"{trouble} ({', '.join(map(str, dice))} seen); the stone "
                    "fits more than one throw: enter the throw on the page"})
            if len(fits) != 1:
                return False
            self.correct_throw(*fits[0])
            return True

    def _misread_fits(self) -> bool:
        """The dice lie showing the turn's last throw as read, and the rules refuse the flagged
        stone (or "I cannot play") against it: the first throw with a face the reader is
        known to misread that makes it legal is taken (Cuatro seed 5 with camera dice: 1 1 2
        5 6 read 1 2 2 5 6 all through; tried only now, since a throw the reader missed is
        likelier: Spexxx seed 5, a stone needing a 1 and two 3s after 2 2 2 3 3 came after
        1 3 3 4 4, which the dice showed)."""
        seen = self._trusted(self.last_observation)
        if isinstance(self.flag.move, SetAside):
            fits = self._doubtful_throw_fits(lambda t: t.check(SetAside()) is None, True)
        else:
            fits = self._doubtful_throw_fits(lambda t: infer_move(t, seen).kind == "move", True)
        if not fits:
            return False
        self.correct_throw(fits[0])
        return True

    def _explains(self, dice: tuple[int, ...], seen: Observation) -> bool | None:
        """Whether ``dice`` as a missed throw (True), or else as the turn's last throw read
        wrong (False), makes the flagged move legal: the board's view one legal move, or a
        refused "I cannot play"; None if neither does."""
        aside = self.flag is not None and isinstance(self.flag.move, SetAside)
        for missed in (True, False):
            trial = self.game.copy()
            try:
                if not missed:
                    if self.game.dice is None:
                        continue
                    trial.undo()
                trial.apply(Throw(dice))
                if aside:
                    trial.apply(SetAside())
                    return missed
            except IllegalMove:
                continue
            if infer_move(trial, seen).kind == "move":
                return missed
        return None

    def confirm(self) -> bool:
        """The confirm button: accept the first of two equally good readings, or else end the
        turn with the placement the player says they made and the camera missed: the only
        one the rules allow, on a field that reads as it would after it, or one low (even
        sure of it) after a hand (a roof on one's own tower read as before; the last of a
        game has no next throw to tell it: Cuatro seed 42 with camera dice). While the next
        player's stone is flagged, it says play went on, as their next throw would
        (:meth:`_missed_turn_end`; seed 224: red's roof on D5 went unseen, and blue's on
        E0, the game's last move, stayed flagged). While their own stone is flagged against
        the dice, it says the stone stands, as the next player's throw would
        (:meth:`_stone_stood`; seed 252: blue's last roof on the pair-of-2s field, 1 1 2 2 3
        read 1 1 2 3 3)."""
        with self._lock:
            if self.pending_choice:
                return self.choose(0)
            if self._missed_turn_end() or self._stone_stood():
                return True
            found = None
            if not self.game.is_over and self.flag is None:
                found = self._missed_placement(lambda trial: True, loose=True,
                                               most_rewound=0)
            if found is None:
                self._emit("waiting", {"message": "nothing to confirm: the camera sees no "
                                       "move since the last one; correct the board on the page"})
                return False
            self._put_in_missed(found)
            return True

    def choose(self, index: int) -> bool:
        """The players say which of :attr:`pending_choice` they made (on the web page; the
        confirm button takes the first). A placement the camera missed goes in before the
        stone it saw, and the last view is judged again for that stone."""
        with self._lock:
            if not 0 <= index < len(self.pending_choice):
                raise ValueError(f"there is no choice {index + 1} to make"
                                 if self.pending_choice else "there is nothing to choose")
            move, missed = self.pending_choice[index], self._choice_missed
            self._drop_choice()
            if not missed:
                return self.play(move)
            self._put_in_missed(MissedPlacement(move, 0, None))
            if self.last_observation is not None:
                self._observe(self.last_observation)
            return True

    def cannot_play(self) -> bool:
        """Long press of confirm: the "I cannot play" turn (judged against every throw a
        doubtful reading of the turn's last throw may have been, as a stone is)."""
        with self._lock:
            if self.game.check(SetAside()) is not None:
                fits = self._doubtful_throw_fits(lambda trial: trial.check(SetAside()) is None)
                if fits:
                    self._replace_last_throw(fits[0])
            return self.play(SetAside())

    def _throw_missed_before_the_last(self) -> bool:
        """The dice lie showing the turn's last throw while "I cannot play" is refused as
        too early, and one more throw makes it legal: a throw before the last was missed
        (Cuatro seed 72 with camera dice: the third throw's rest, three dice unread, was
        lost). Its dice are unknown: it is counted as the last throw's, the page says so
        (a person may enter them), and the long press stands."""
        last = self.game.moves[-1] if self.game.moves else None
        if not isinstance(last, Throw) or not isinstance(self.flag.move, SetAside):
            return False
        trial = self.game.copy()
        try:
            trial.apply(last)
            trial.apply(SetAside())
        except IllegalMove:
            return False
        self.play(last)
        taken = self.play(SetAside())
        self._emit("correction", {"dice": list(last.dice), "replaced": None,
                                  "message": "a throw the camera missed was counted, its dice "
                                  "taken as the last throw's: enter them on the page"})
        return taken

    def play(self, move: Move) -> bool:
        """Apply ``move`` for the current player: log it, then tell the listeners."""
        with self._lock:
            player = self.game.current_player if not self.game.is_over else ""
            try:
                self.game.apply(move)
            except IllegalMove as exc:
                if not isinstance(move, Throw):  # a refused throw needs no board reset
                    self.flag = Inference("illegal", move, (), exc.rule)
                self._emit("illegal", {"rule": str(exc), "player": player,
                                       "move": move_to_dict(move)})
                return False
            self._drop_choice()
            self.flag = None
            self._log(MOVE, {**move_to_dict(move), "player": player})
            self._emit("move", {"player": player, "move": move_to_dict(move), "text": str(move),
                                "status": self.game.status()})
            if self.game.is_over:
                self._log(FINISHED, {"outcome": str(self.game.outcome)})
                self._emit("game_over", {"winners": list(self.game.outcome.winners),
                                         "outcome": str(self.game.outcome),
                                         "status": self.game.status()})
            return True

    def undo(self) -> Move | None:
        """Take back the last accepted move (the board must then be set back)."""
        with self._lock:
            if not self.game.moves:
                return None
            move = self.game.undo()
            self._forget_views_from(len(self.game.moves) + 1)
            self.flag = None
            self._drop_choice()
            self._set_back = move if isinstance(move, Place | Step) else None
            self._baseline = self._agreed = None  # the board shows the move until set back
            self._log(UNDO, {"move": move_to_dict(move)})
            self._emit("undo", {"move": move_to_dict(move), "text": str(move),
                                "status": self.game.status()})
            return move

    # -- outputs ------------------------------------------------------------------

    def _log(self, kind: str, payload: dict[str, Any]) -> None:
        if self.log is not None and self.game_id is not None:
            self.log.append(self.game_id, kind, payload)

    def _emit(self, kind: str, data: dict[str, Any]) -> None:
        refused_throw = kind == "illegal" and "throw" in data.get("move", {})
        if self._held is not None and kind in ("illegal", "cleared") and not refused_throw:
            self._held.append(Event(kind, data, 0))
            return
        self._seq += 1
        event = Event(kind, data, self._seq)
        for listener in list(self.listeners):
            listener(event)

    @classmethod
    def resume(cls, log: GameLog) -> Session:
        """Continue the latest unfinished game in ``log`` after a crash or power cut."""
        logged = log.latest(unfinished_only=True)
        return cls(log.restore(logged.id), log, logged.id)
