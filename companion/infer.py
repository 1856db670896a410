"""From what the camera sees to the move a player made, using the rules to resolve doubt.

The board reader says, per field, the top piece's colour and the stack height. The
referee compares that with the game's expected stacks: the fields that differ are what
changed. Legal moves that touch exactly those fields are played out on a copy of the
game and scored against the observation; the best one wins when it is clearly best,
two equally good ones ask the players to confirm, and a change no legal move explains is
either named as an illegal move (with its rule) or flagged as unexplained — never guessed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from companion.core import Game
from companion.moves import Move, Place, SetAside, Step, Throw


@dataclass(frozen=True, slots=True)
class FieldView:
    """What the camera reports for one field."""

    top: str | None
    height: int
    confidence: float = 1.0


@dataclass(frozen=True)
class Observation:
    """One stable view of the board: fields the camera could see (hidden ones left out)."""

    fields: Mapping[str, FieldView]
    occluded: bool = False
    hidden: frozenset[str] = frozenset()
    #: fields that look changed though they read the same (maybe a piece the reader missed)
    looks_changed: frozenset[str] = frozenset()
    #: the first view since a hand (or anything moving) was over the board
    after_hand: bool = False

    @classmethod
    def of_game(cls, game: Game) -> Observation:
        """What a perfect camera would see of ``game`` (for tests and the simulator)."""
        stacks = game.stacks()
        return cls(
            {
                name: FieldView(stacks[name][-1], len(stacks[name])) if name in stacks
                else FieldView(None, 0)
                for name in game.layout.fields
            }
        )


@dataclass(frozen=True)
class Inference:
    """What the referee makes of an observation.

    ``kind`` is one of: ``same`` (nothing changed, or only what reads better as a misreading
    than as any legal move: ``changed`` names it), ``move`` (one legal move explains it),
    ``moves`` (two turns the camera saw as one: ``candidates`` holds both, in order),
    ``ambiguous`` (several explain it equally well: ask to confirm), ``pending`` (a mill
    was closed and the capture has not happened yet), ``illegal`` (a move was made that
    the rules forbid; ``reason`` says which rule), ``unexplained`` (no single move
    explains it, e.g. two stones appeared or a tower shrank), ``doubt`` (the reader doubts
    empty fields where no legal move can put a piece now: see :func:`unexplained_doubt`).
    """

    kind: str
    move: Move | None = None
    candidates: tuple[Move, ...] = ()
    reason: str = ""
    changed: tuple[str, ...] = field(default=())


#: A tower height read with less confidence than this counts as only half a mismatch.
LOW_CONFIDENCE = 0.6
#: A tower read with less confidence than this and two or more stones off tells neither
#: its height nor its top: a neighbour's stone taken for its upper layers (Just 4 Fun seed
#: 21: a red-topped tower of 3 read as blue, 5 high, beside a new blue stone).
NO_CONFIDENCE = 0.1
#: A field whose reading stayed the same but whose confidence fell by this much (to below
#: LOW_CONFIDENCE) may hide a piece the reader missed (see unseen_placement).
CONFIDENCE_DROP = 0.4
#: ... or by this much in the first view after a hand, which may have set it (Cuatro seed 16
#: with camera dice: blue's second roof on A4, read at the old height 1, 0.78 -> 0.39).
CONFIDENCE_DROP_AFTER_HAND = 0.25
#: At most this many fields losing confidence at once may hide one unseen piece (a white
#: stone's side and shadow change the look of the field beside it, too).
MAX_DOUBTFUL = 2


def _view_of(stacks: Mapping[str, tuple[str, ...]], name: str) -> tuple[str | None, int]:
    owners = stacks.get(name)
    return (owners[-1], len(owners)) if owners else (None, 0)


def changed_fields(game: Game, obs: Observation) -> list[str]:
    stacks = game.stacks()
    return [
        name for name, view in obs.fields.items()
        if (view.top, view.height) != _view_of(stacks, name)
    ]


def _touched(move: Move) -> set[str]:
    match move:
        case Place(field=f, capture=c):
            return {f} | ({c} if c else set())
        case Step(src=s, dst=d, capture=c):
            return {s, d} | ({c} if c else set())
    return set()


def _mismatch(view: FieldView, expected: tuple[str | None, int],
              looks_changed: bool = False) -> float:
    if (view.top, view.height) == expected:
        return 0.0
    if view.confidence < NO_CONFIDENCE and view.height and expected[1] and \
            abs(view.height - expected[1]) >= 2:
        return 0.5
    if _lost(view, expected, looks_changed):
        return 0.5
    if view.top != expected[0]:
        return 1.0  # a piece appearing, or gone for sure, another colour on top: not excused
    weight = 0.5 if view.confidence < LOW_CONFIDENCE else 1.0
    if abs(view.height - expected[1]) == 1:
        weight *= 0.5  # a tower height off by one: the likeliest misreading
    return weight


def _lost(view: FieldView, expected: tuple[str | None, int], looks_changed: bool) -> bool:
    """A piece read as gone in doubt: unsure, or where the reader itself sees something it
    cannot read (Mühle seed 126: a white stone read as the beige board 0.6 s after it was
    accepted, and again when it came back to its point later)."""
    return view.top is None and expected[0] is not None and (
        looks_changed or view.confidence < LOW_CONFIDENCE)


def _read_low(view: FieldView, expected: tuple[str | None, int]) -> bool:
    """A tower read lower than the game has it, its top as the game has it, unsure: the
    reader's likeliest misreading (a tower height is a layer off when wrong, and then seldom
    read sure), not a tower taken down (Cuatro seed 4 with outline_contrast_ratio 0.8: E0's
    two blue roofs, read as one at confidence 0.00-0.02 where no legal move touched E0,
    were flagged as shrunk)."""
    return view.confidence < LOW_CONFIDENCE and view.top is not None and \
        view.top == expected[0] and view.height < expected[1]


def _cost(game: Game, move: Move, obs: Observation, fields: Iterable[str]) -> float:
    after = game.copy()
    after.apply(move)
    return _misfit(after, obs, fields)


def _misfit(game: Game, obs: Observation, fields: Iterable[str]) -> float:
    """How far the view of ``fields`` is from what ``game`` has there."""
    stacks = game.stacks()
    return sum(_mismatch(obs.fields[f], _view_of(stacks, f), f in obs.looks_changed)
               for f in fields if f in obs.fields)


def infer_move(game: Game, obs: Observation) -> Inference:
    """Explain ``obs`` as the current player's next move (see :class:`Inference`)."""
    changed = changed_fields(game, obs)
    if not changed:
        return Inference("same")
    changed_set = set(changed)
    candidates = [
        m for m in game.legal_moves()
        if not isinstance(m, SetAside | Throw) and _touched(m) & changed_set
    ]
    scored = []
    for move in candidates:
        fields = changed_set | _touched(move)
        if len(fields) > len(changed_set) + 1:
            continue  # the move changes fields that look unchanged
        scored.append((_cost(game, move, obs, fields), move))
    scored.sort(key=lambda pair: pair[0])
    if scored and scored[0][0] < 1.0:
        best = scored[0][0]
        if not _fits_better_than_none(game, obs, changed, best):
            return Inference("same", changed=tuple(changed))
        ties = tuple(m for c, m in scored if c == best)
        if len(ties) == 1:
            return Inference("move", ties[0], ties, changed=tuple(changed))
        return Inference("ambiguous", None, ties, "two readings fit; please confirm",
                         tuple(changed))
    stacks = game.stacks()
    low = {f for f in changed if _read_low(obs.fields[f], _view_of(stacks, f))}
    if all(f in low or _lost(obs.fields[f], _view_of(stacks, f), f in obs.looks_changed)
           for f in changed):
        return Inference("same", changed=tuple(changed))  # pieces lost, towers misread
    pending = _capture_pending(game, obs, changed_set, scored)
    if pending is not None:
        return pending
    caught_up = _two_moves(game, obs, changed_set)
    if caught_up is None and low:
        caught_up = _two_moves(game, obs, changed_set - low)  # beside towers misread
    if caught_up is not None:
        return caught_up
    # a tower misread beside an illegal stone would hide the stone's rule behind "a tower
    # shrank": the stone is what the players must hear about
    return _explain_illegal(game, obs, [f for f in changed if f not in low])


def _fits_better_than_none(game: Game, obs: Observation, changed: list[str],
                           cost: float) -> bool:
    """A move costing ``cost`` explains the view better than a misreading of it does (Just 4
    Fun seed 33: a tower of 3 read one low, unsure, beside a stone set out of the reader's
    sight, was taken for a stone on it, read two low), or as well in the first view after
    a hand, which may have set it."""
    unchanged = _misfit(game, obs, changed)
    return cost < unchanged or (obs.after_hand and cost == unchanged)


def unseen_placement(game: Game, obs: Observation, before: Observation,
                     read_right: frozenset[str] = frozenset()) -> Move | None:
    """A piece the reader did not see as a change: the board reads as expected, but on a
    field that is empty or the current player's own tower (where a stone of their colour
    leaves the top as it was) the reader lost its confidence since ``before`` (a white
    stone it took for the light cell under it, a tower one stone taller than it can tell;
    in the first view after a hand, by less), or, where it was unsure already, the field
    newly looks changed to it, or - the first view after a hand - an own tower it read one
    low now reads one higher, still unsure (a roof on a tower read low before and after, at
    the game's old height); not a tower that a view since it reached that height read
    right (``read_right``): that one reading so again is the reader recovering (Cuatro seed
    229: blue's two-roof E2 read 2, then 1, then 2 after a passing hand).
    A stone's look can spill onto a neighbour, so up to MAX_DOUBTFUL such fields may
    show; the placement is taken when the rules allow exactly one on them."""
    player = game.current_player
    doubtful = [
        name for name, view in obs.fields.items()
        if view.top in (None, player) and name in before.fields
        and view.confidence < LOW_CONFIDENCE
        and (_lost_confidence(name, view, obs, before)
             or obs.after_hand and name not in read_right
             and _read_one_higher(name, view, before))
    ]
    if not 1 <= len(doubtful) <= MAX_DOUBTFUL:
        return None
    moves = [m for m in game.legal_moves() if isinstance(m, Place) and m.field in doubtful
             and not m.capture]
    return moves[0] if len(moves) == 1 else None


def _lost_confidence(name: str, view: FieldView, obs: Observation,
                     before: Observation) -> bool:
    """The field reads as ``before`` but the reader grew unsure of it or its look changed."""
    was = before.fields[name]
    drop = CONFIDENCE_DROP_AFTER_HAND if obs.after_hand else CONFIDENCE_DROP
    return (was.top, was.height) == (view.top, view.height) and (
        was.confidence - view.confidence >= drop
        or name in obs.looks_changed - before.looks_changed)


def _read_one_higher(name: str, view: FieldView, before: Observation) -> bool:
    """An own tower read one stone higher than ``before``, with the same top."""
    was = before.fields[name]
    return view.top is not None and was.top == view.top and view.height == was.height + 1


def unexplained_doubt(game: Game, obs: Observation, before: Observation) -> Inference | None:
    """Empty fields that newly look changed to the reader, which still reads them empty and
    unsure, where no legal move can put a piece now: a stone it cannot see (a white stone on
    a silver cell) set by the player whose turn it is not, or against the dice. Flagged
    rather than waited on in silence; in a dice game only once this turn's player has
    thrown, since before that the throw may just not be counted yet."""
    stacks = game.stacks()
    fields = sorted(
        name for name in obs.looks_changed - before.looks_changed
        if name in obs.fields and name not in stacks and obs.fields[name].top is None
        and obs.fields[name].confidence < LOW_CONFIDENCE)
    if not 1 <= len(fields) <= MAX_DOUBTFUL or (game.uses_dice and not game.throw_count):
        return None
    if any(isinstance(m, Place) and m.field in fields for m in game.legal_moves()):
        return None
    where = " or ".join(fields)
    return Inference("doubt", reason=f"something seems to lie on {where}, where no legal "
                     "move puts a piece now: take it away", changed=tuple(fields))


def _two_moves(game: Game, obs: Observation, changed: set[str]) -> Inference | None:
    """Two turns the camera saw as one (the first piece went unseen until the second came):
    exactly one pair of legal moves, this player's then the next one's, explains the view.

    Only without dice: in a dice game the next player's throws come in between.
    """
    if game.uses_dice or not 2 <= len(changed) <= 4:
        return None
    fits = []
    for first in game.legal_moves():
        touched = _touched(first)
        if isinstance(first, SetAside | Throw) or not touched <= changed:
            continue
        after = game.copy()
        after.apply(first)
        if after.is_over:
            continue
        for second in after.legal_moves():
            both = touched | _touched(second)
            if isinstance(second, SetAside | Throw) or both != changed:
                continue
            if _cost(after, second, obs, changed) < 0.5:
                fits.append((first, second))
    if len(fits) != 1:
        return None
    return Inference("moves", None, fits[0], "two turns seen at once", tuple(sorted(changed)))


def _capture_pending(
    game: Game, obs: Observation, changed: set[str], scored: list[tuple[float, Move]]
) -> Inference | None:
    """A mill closed, the stone not yet taken: every near fit differs only in its capture."""
    waiting = [
        m for c, m in scored
        if c <= 1.0 and getattr(m, "capture", None) and m.capture not in changed
    ]
    if not waiting:
        return None
    first = waiting[0]
    base = (first.field,) if isinstance(first, Place) else (first.src, first.dst)
    if set(base) != changed:
        return None
    return Inference("pending", None, tuple(waiting), "a mill is closed: take a stone",
                     tuple(sorted(changed)))


def _explain_illegal(game: Game, obs: Observation, changed: list[str]) -> Inference:
    stacks = game.stacks()
    player = game.current_player
    grown = [f for f in changed if obs.fields[f].height == _view_of(stacks, f)[1] + 1]
    emptied = [f for f in changed if obs.fields[f].height == 0]
    if len(changed) == 1 and grown:
        where = grown[0]
        colour = obs.fields[where].top
        if colour != player:
            return Inference(
                "illegal", None, (), f"it is {player}'s turn, but a {colour} piece appeared "
                f"on {where}", tuple(changed)
            )
        move = Place(where)
        reason = game.check(move) or "this placement does not fit the game"
        return Inference("illegal", move, (), reason, tuple(changed))
    if len(changed) == 2 and len(grown) == 1 and len(emptied) == 1:
        move = Step(emptied[0], grown[0])
        reason = game.check(move)
        if reason:
            return Inference("illegal", move, (), reason, tuple(changed))
    shrunk = [f for f in changed if obs.fields[f].height < _view_of(stacks, f)[1]]
    if shrunk and game.stacking:
        text = f"a tower shrank on {', '.join(shrunk)}"
    elif len(grown) > 1:
        text = f"pieces appeared on {', '.join(grown)} at once"
    else:
        text = f"the board changed on {', '.join(changed)} in a way no single move explains"
    return Inference("unexplained", None, (), text, tuple(changed))
