"""The simulated table: a scripted player plays a seeded random legal game in front of the camera.

Each move is played *physically*, frame by frame, on :mod:`vision.sim` scenes with one fixed
camera pose and scene seed: a hand reaches in and covers the target field, the piece appears,
the hand leaves, the board stays still; dice are thrown by a hand over the dice area, roll and
settle; a Mühle capture is taken a little after the mill closed; "I cannot play" is a long press
of the confirm button. Options inject illegal moves that are taken back and hands passing over
the board. The referee sees only the images; the truth rides along for tests and benchmarks.

The referee reads the dice from the frames like the board; the script's own record of each
settled throw (``SimTruth.throw``) serves the benchmark that measures the board loop alone.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from companion.core import Game, find_game
from companion.layout import Layout
from companion.moves import Move, Place, SetAside, Step, Throw
from hardware.camera import Frame, FunctionSource
from vision.sim import CameraPose, Die, Hand, Lighting, Scene, render
from vision.sim.camera import must_see_points
from vision.sim.scene import random_dice

#: Seconds the confirm button is held for "I cannot play" (the panel's long press is 1.5 s).
LONG_PRESS_HOLD = 1.8
#: Frames of a still board after each move (more than the stability filter needs).
STILL_FRAMES = 8
#: Frames an illegal piece lies still before the player notices the red light and removes it.
ILLEGAL_STILL_FRAMES = 12
#: A room lamp off to the side: its mirror reflection falls beside the board. (With the lamp
#: high above, the sheen on a black stone's top reads as white: see docs/referee.md.)
TABLE_LIGHT = Lighting(light_azimuth_deg=30.0, light_elevation_deg=40.0)
#: Skin tone of the scripted player's hand (BGR).
SKIN = (120, 160, 215)
#: Seconds players take to notice a stone flagged against dice they did not throw, read the
#: page and enter the dice lying there (``referee_simulated(players_answer=True)``).
ANSWER_SECONDS = 5.0


@dataclass(frozen=True)
class SimTruth:
    """What really happened up to this frame.

    ``moves`` are the game's moves completed physically so far; ``stacks`` what lies on the
    board (players, bottom to top); ``hand`` whether a hand is over the table; ``hand_left``
    the number of the move (1-based) whose last hand just left the board in this frame;
    ``throw`` a throw that settled in this frame (the truth, never shown to the referee);
    ``presses`` button edges in this frame; ``illegal`` the number (1, 2, ...) of the injected
    illegal piece lying on the board, 0 when there is none; ``dice`` the dice drawn in this
    frame (rolling or at rest), to score a dice reader frame by frame.
    """

    moves: tuple[Move, ...]
    stacks: dict[str, tuple[str, ...]]
    hand: bool = False
    hand_left: int | None = None
    throw: tuple[int, ...] | None = None
    presses: tuple[tuple[str, bool], ...] = ()
    illegal: int = 0
    note: str = ""
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class SimFrame:
    timestamp: float
    image: np.ndarray
    truth: SimTruth


def table_pose(layout: Layout, tilt_deg: float = 35.0, yaw_deg: float = 0.0) -> CameraPose:
    """A typical fixed mount: a little tilted, just high enough to see board, markers, dice."""
    pts = must_see_points(layout)
    lo_xy, hi_xy = pts[:, :2].min(axis=0), pts[:, :2].max(axis=0)
    target = (lo_xy + hi_xy) / 2.0
    base = CameraPose(height_mm=1500.0, tilt_deg=tilt_deg, yaw_deg=yaw_deg, fov_deg=66.0,
                      k1=-0.02, target_mm=(float(target[0]), float(target[1])))
    lo, hi = 200.0, 1500.0
    for _ in range(14):
        mid = (lo + hi) / 2.0
        if replace(base, height_mm=mid).sees(pts, 40.0):
            hi = mid
        else:
            lo = mid
    return replace(base, height_mm=hi)


@dataclass
class _Shot:
    """One frame to draw: board, dice and hand, plus the marks that go into the truth."""

    stacks: dict[str, tuple[str, ...]]
    dice: list[Die]
    hand: Hand | None = None
    hand_left: int | None = None
    throw: tuple[int, ...] | None = None
    presses: tuple[tuple[str, bool], ...] = ()
    illegal: int = 0
    note: str = ""
    moves: int = 0


@dataclass
class SimOptions:
    """What the scripted player does besides playing: ``illegal_moves`` numbers (1-based) of
    moves before which (or before the next placement, if that move is a throw) a stone of the
    wrong player is put down and, after the red light, taken away again; ``passing_hands``
    the chance per move of a hand passing over the board;
    ``max_moves`` ends the script early; ``start_after`` films only from the board after that
    many moves (the same seeded game, for continuing after a restart); ``script`` gives the
    moves to play instead of random ones."""

    illegal_moves: frozenset[int] = frozenset()
    passing_hands: float = 0.0
    still_frames: int = STILL_FRAMES
    max_moves: int | None = None
    start_after: int = 0
    script: tuple[Move, ...] | None = None


class SimTable:
    """A seeded game played in front of the simulated camera; iterate :meth:`frames`."""

    def __init__(self, game: str, players: list[str], seed: int = 0, *, fps: float = 10.0,
                 options: SimOptions | None = None, colours: dict[str, str] | None = None,
                 game_options: dict | None = None, pose: CameraPose | None = None,
                 lighting: Lighting | None = None) -> None:
        cls = find_game(game)
        self.game: Game = cls(players, {**cls.random_play_options, **(game_options or {})})
        self.layout = self.game.layout
        self.players = list(players)
        self.colours = colours or {p: p for p in players}
        self.seed = seed
        self.fps = fps
        self.options = options or SimOptions()
        self.pose = pose or table_pose(self.layout)
        self.lighting = lighting or TABLE_LIGHT
        self.scene_seed = seed % (2**31 - 1)
        self._rng = random.Random(seed)
        self._np_rng = np.random.default_rng(seed)
        self._dice: list[Die] = []
        self._done: list[Move] = []
        self._pending = False
        self.current: SimFrame | None = None
        self.injected = 0
        self.hand_left_at: dict[int, float] = {}
        #: Whether the referee shows the game's end: the players look for the score when
        #: they have played the last move, and press confirm if it is not there
        #: (:attr:`end_confirmed`). None: nobody watches, nobody presses.
        self.shows_end: Callable[[], bool] | None = None
        self.end_confirmed = False

    def __repr__(self) -> str:
        return f"<SimTable {self.game.name} seed {self.seed}, {len(self._done)} moves played>"

    # -- the frames ---------------------------------------------------------------------------

    def frames(self) -> Iterator[SimFrame]:
        """Every frame of the game, from the empty board to a while after the last move."""
        index = 0
        for shot in self._shots():
            if shot.moves < self.options.start_after:
                continue  # already played before a restart: not filmed again
            timestamp = index / self.fps
            scene = Scene(
                self.layout,
                stacks={f: [self.colours[p] for p in s] for f, s in shot.stacks.items()},
                dice=shot.dice, hand=shot.hand, lighting=self.lighting, noise_sigma=1.0,
                blur_sigma=0.4, jpeg_quality=None, seed=self.scene_seed)
            image = render(scene, self.pose, self._np_rng).frame
            if shot.hand_left is not None:
                self.hand_left_at[shot.hand_left] = timestamp
            truth = SimTruth(tuple(self._done[:shot.moves]), shot.stacks, shot.hand is not None,
                             shot.hand_left, shot.throw, shot.presses, shot.illegal, shot.note,
                             tuple(shot.dice))
            self.current = SimFrame(timestamp, image, truth)
            yield self.current
            index += 1

    def press_buttons(self, panel) -> None:
        """Push the panel's virtual buttons as the script does in the current frame."""
        if self.current is not None:
            for button, down in self.current.truth.presses:
                (panel.press if down else panel.release)(button)

    def source(self) -> FunctionSource:
        """The frames as a camera: a FrameSource on simulated time."""
        frames = self.frames()

        def produce(_: int) -> np.ndarray | None:
            frame = next(frames, None)
            return None if frame is None else frame.image

        return FunctionSource(produce, name=f"simulated {self.game.name} table",
                              clock=lambda: self.current.timestamp if self.current else 0.0)

    # -- the script ---------------------------------------------------------------------------

    def _shots(self) -> Iterator[_Shot]:
        game = self.game
        if game.uses_dice:
            self._dice = random_dice(self.layout, self._np_rng, 5, leaning_prob=0.0)
        yield from self._still(game.stacks(), self.options.still_frames)
        number = 0
        inject = False  # an illegal piece is due (before the next placement)
        while not game.is_over:
            if self.options.max_moves is not None and number >= self.options.max_moves:
                break
            script = self.options.script
            if script is not None and number >= len(script):
                break
            move = script[number] if script is not None else game.random_move(self._rng)
            number += 1
            before = game.stacks()
            if self._rng.random() < self.options.passing_hands:
                yield from self._passing_hand(before)
            inject = inject or number in self.options.illegal_moves
            if inject and isinstance(move, Place | Step):
                inject = False
                yield from self._illegal_piece(before)
            seat = game.players.index(game.current_player)
            game.apply(move)
            self._done.append(move)
            self._pending = True
            yield from self._play(move, before, game.stacks(), seat, number)
        yield from self._still(game.stacks(), self.options.still_frames * 2)
        if game.is_over and self.shows_end is not None and not self.shows_end():
            self.end_confirmed = True
            yield self._shot(game.stacks(), presses=(("confirm", True),),
                             note="no end shown: confirm pressed")
            yield self._shot(game.stacks(), presses=(("confirm", False),))
            yield from self._still(game.stacks(), self.options.still_frames)

    def _shot(self, stacks: dict[str, tuple[str, ...]], dice: list[Die] | None = None,
              **marks) -> _Shot:
        if marks.get("hand_left") is not None:
            self._pending = False  # the move is complete from this frame on
        done = len(self._done) - (1 if self._pending else 0)
        return _Shot(dict(stacks), list(self._dice if dice is None else dice), moves=done,
                     **marks)

    def _still(self, stacks, frames: int, **marks) -> Iterator[_Shot]:
        for k in range(frames):
            yield self._shot(stacks, **(marks if k == 0 else {}))

    def _hand(self, target: tuple[float, float], seat: int, holding: str | None = None,
              jitter: float = 0.0) -> Hand:
        """A hand from the seat's side of the table with the fingertips over ``target``."""
        angle = math.radians((90, 270, 180, 0)[seat % 4] + self._rng.uniform(-20, 20))
        tip = (target[0] + self._rng.uniform(-jitter, jitter),
               target[1] + self._rng.uniform(-jitter, jitter))
        entry = (tip[0] + 700 * math.cos(angle), tip[1] + 700 * math.sin(angle))
        return Hand(entry, tip, 70.0, SKIN, 0.3, None, False, 0.7 if holding else 0.4,
                    self.colours[holding] if holding else None)

    def _over_field(self, name: str, stacks, seat: int, frames: int,
                    holding: str | None = None) -> Iterator[_Shot]:
        centre = self.layout.fields[name].centre_mm
        for _ in range(frames):
            yield self._shot(stacks, hand=self._hand(centre, seat, holding, 3.0))

    def _play(self, move: Move, before, after, seat: int, number: int) -> Iterator[_Shot]:
        player = self.players[seat]
        still = self.options.still_frames
        match move:
            case Throw(dice=values):
                yield from self._throw(values, before)
            case SetAside():
                hold = max(2, round(LONG_PRESS_HOLD * self.fps))
                yield self._shot(before, presses=(("confirm", True),))
                yield from self._still(before, hold - 1)
                yield self._shot(before, presses=(("confirm", False),), hand_left=number)
                yield from self._still(before, still - 1)
            case Place(field=f, capture=c) | Step(dst=f, capture=c):
                placed = dict(before)
                src = move.src if isinstance(move, Step) else None
                if src is not None:
                    yield from self._over_field(src, before, seat, 2)
                    placed.pop(src)
                    yield from self._over_field(src, placed, seat, 1, holding=player)
                yield from self._over_field(f, placed, seat, 2, holding=player)
                placed[f] = before.get(f, ()) + (player,)
                yield from self._over_field(f, placed, seat, 1)
                if c is None:
                    yield self._shot(after, hand_left=number)
                    yield from self._still(after, still - 1)
                    return
                yield from self._still(placed, still)  # the mill is closed: "take a stone"
                yield from self._over_field(c, placed, seat, 2)
                yield from self._over_field(c, after, seat, 1, holding=before[c][-1])
                yield self._shot(after, hand_left=number)
                yield from self._still(after, still - 1)

    def _throw(self, values: tuple[int, ...], stacks) -> Iterator[_Shot]:
        """A hand over the dice area, the dice rolling, then lying still; the throw is reported
        on the third still frame (what a dice reader waiting for rest would do)."""
        x0, y0, x1, y1 = self.layout.dice_area_mm
        centre = ((x0 + x1) / 2, (y0 + y1) / 2)
        w, h = self.layout.board_size_mm
        away = math.atan2(centre[1] - h / 2, centre[0] - w / 2)
        for _ in range(2):
            tip = (centre[0] + self._rng.uniform(-20, 20), centre[1] + self._rng.uniform(-20, 20))
            entry = (tip[0] + 700 * math.cos(away), tip[1] + 700 * math.sin(away))
            yield self._shot(stacks, hand=Hand(entry, tip, 90.0, SKIN, 0.5))
        for _ in range(2):
            rolling = random_dice(self.layout, self._np_rng, len(values), leaning_prob=0.0)
            yield self._shot(stacks, dice=rolling)
        landed = random_dice(self.layout, self._np_rng, len(values), leaning_prob=0.0)
        self._dice = [replace(d, value=v) for d, v in zip(landed, values, strict=True)]
        yield self._shot(stacks)
        yield self._shot(stacks)
        yield self._shot(stacks, throw=tuple(values), hand_left=len(self._done))
        yield from self._still(stacks, 2)

    def _passing_hand(self, stacks) -> Iterator[_Shot]:
        w, h = self.layout.board_size_mm
        seat = self._rng.randrange(4)
        for _ in range(self._rng.randint(2, 4)):
            target = (self._rng.uniform(0.2, 0.8) * w, self._rng.uniform(0.2, 0.8) * h)
            yield self._shot(stacks, hand=self._hand(target, seat), note="passing hand")
        yield from self._still(stacks, 2)

    def _illegal_piece(self, stacks) -> Iterator[_Shot]:
        """A stone of a player whose turn it is not, on an empty field; taken back later."""
        wrong = self.game.next_player
        empty = [n for n, f in self.layout.fields.items()
                 if n not in stacks and f.attrs.get("playable", True)]
        where = self._rng.choice(empty)
        seat = self.players.index(wrong)
        bad = {**stacks, where: (wrong,)}
        self.injected += 1
        yield from self._over_field(where, stacks, seat, 2, holding=wrong)
        yield self._shot(bad, illegal=self.injected, note=f"illegal: a {wrong} stone on {where}")
        for _ in range(ILLEGAL_STILL_FRAMES):
            yield self._shot(bad, illegal=self.injected)
        yield from self._over_field(where, stacks, seat, 2, holding=wrong)
        yield from self._still(stacks, self.options.still_frames)


@dataclass
class SimRun:
    """A simulated game refereed through the full loop, and how it went against the truth."""

    table: SimTable
    session: Any
    referee: Any
    flagged: set[int]  # injected illegal pieces that were flagged while they lay there
    false_flags: list[str]  # flags raised while no illegal piece lay on the board
    answers: list[str] = field(default_factory=list)  # throws the players entered on the page

    @property
    def exact(self) -> bool:
        return same_game(self.session.game, self.table.game)

    @property
    def same_end(self) -> bool:
        return same_end(self.session.game, self.table.game)

    def first_difference(self) -> str:
        return first_difference(self.session.game, self.table.game)

    def latencies(self) -> list[float]:
        """Seconds from the hand leaving the board to the move being accepted, for each board
        move the record shares with the script: the n-th board move of each, so a throw
        missed or added on the way does not pair a stone with the next move's hand (Cuatro
        seed 2 with camera dice, one throw short, had every later stone 1.7 s "late")."""
        def board_moves(moves: list[Move]) -> list[int]:
            return [k for k, m in enumerate(moves, 1) if isinstance(m, Place | Step)]

        truth, ours = self.table.game.moves, self.session.game.moves
        accepted, left = self.referee.stats.accepted_at, self.table.hand_left_at
        return [accepted[j] - left[k]
                for k, j in zip(board_moves(truth), board_moves(ours), strict=False)
                if truth[k - 1] == ours[j - 1] and j in accepted and k in left]


def _unordered(moves: list[Move]) -> list[Move]:
    return [Throw(tuple(sorted(m.dice))) if isinstance(m, Throw) else m for m in moves]


def _totals(game: Game) -> dict[str, int]:
    return {player: score.total for player, score in game.scores().items()}


def same_game(ours: Game, truth: Game) -> bool:
    """Same moves, same end and same scores as the scripted game (a throw's dice in any
    order: a camera lists them as they lie, and no rule cares)."""
    return (_unordered(ours.moves) == _unordered(truth.moves)
            and ours.is_over == truth.is_over and _totals(ours) == _totals(truth))


def same_end(ours: Game, truth: Game) -> bool:
    """Same board, end and scores as the scripted game - what the players are told at the
    end - though some throw on the way may have been read otherwise (a die the reader
    never found in a throw the turn did not end on: no rule tells its value)."""
    return (ours.stacks() == truth.stacks() and ours.is_over == truth.is_over
            and _totals(ours) == _totals(truth))


def first_difference(ours: Game, truth: Game) -> str:
    """Where the refereed game first parts from the scripted one, in words."""
    mine, true = _unordered(ours.moves), _unordered(truth.moves)
    for k, (a, b) in enumerate(zip(mine, true, strict=False), 1):
        if a != b:
            return f"move {k} is {a}, truly {b}"
    if len(mine) != len(true):
        return f"{len(mine)} moves of {len(true)}"
    return "none" if same_game(ours, truth) else "same moves, other end or scores"


def answer_the_page(session: Any, done: tuple[Move, ...]) -> str | None:
    """What players do who see a stone flagged against dice they did not throw: they enter
    the throw on the page, as one the camera missed or as the last one read wrong; asked
    which move they made (:attr:`Session.pending_choice`), they choose it. ``done`` are the
    moves truly played; returns what was entered, or None when the referee's mistake is
    neither (players would correct a field or take the stone back then)."""
    ours = _unordered(session.game.moves)
    truth = _unordered(list(done))
    first = next((i for i, (a, b) in enumerate(zip(ours, truth, strict=False)) if a != b),
                 min(len(ours), len(truth)))
    if first >= len(truth):
        return None
    if first == len(ours) and truth[first] in session.pending_choice:
        session.choose(session.pending_choice.index(truth[first]))
        return f"chose: {truth[first]} (move {first + 1})"
    if not isinstance(truth[first], Throw):
        return None
    missed = first == len(ours)
    if not missed and not (first == len(ours) - 1 and isinstance(ours[first], Throw)):
        return None
    try:
        session.correct_throw(truth[first].dice, missed=missed)
    except ValueError:
        return None
    return f"{'missed' if missed else 'misread'}: {truth[first]} (move {first + 1})"


def referee_simulated(table: SimTable, session: Any = None, *, panel: Any = None,
                      frames: Iterator[SimFrame] | None = None, stop_after: int | None = None,
                      runs: SimRun | None = None, scripted_dice: bool = False,
                      players_answer: bool = False) -> SimRun:
    """Referee ``table``'s game through the whole loop (renderer -> reader -> session).

    ``session`` defaults to a fresh one; ``frames`` continues an existing frame stream (after
    a simulated crash); ``stop_after`` stops once the session holds that many moves;
    ``scripted_dice`` takes the throws from the script instead of the dice reader;
    ``players_answer``: players who see a stone flagged for ANSWER_SECONDS while it was
    legal enter the dice they threw on the page (:func:`answer_the_page`).
    """
    from companion.referee import Referee, ScriptedDice
    from companion.session import Session
    from vision.config import VisionConfig

    game = table.game
    if session is None:
        session = Session(find_game(game.name)(list(game.players), dict(game.options)))
    run = runs or SimRun(table, session, None, set(), [])
    run.session = session

    def watch(event) -> None:
        if event.kind == "illegal":
            injected = table.current.truth.illegal if table.current else 0
            if injected:
                run.flagged.add(injected)
            else:
                run.false_flags.append(event.data["rule"])

    referee = Referee(session, colours=table.colours, panel=panel,
                      dice=ScriptedDice(table) if scripted_dice and game.uses_dice else None,
                      config=VisionConfig(k1=table.pose.k1), on_event=watch,
                      before_step=(lambda f: table.press_buttons(panel)) if panel else None)
    if run.referee is not None:  # carry the timings over a restart
        referee.stats.accepted_at.update(run.referee.stats.accepted_at)
    run.referee = referee
    if panel is not None:
        table.shows_end = lambda: session.game.is_over
    frames = frames if frames is not None else table.frames()
    flagged_since = None
    for index, sim_frame in enumerate(frames):
        referee.step(Frame(sim_frame.image, sim_frame.timestamp, index))
        if not players_answer or session.flag is None or sim_frame.truth.illegal:
            flagged_since = None
        elif flagged_since is None:
            flagged_since = sim_frame.timestamp
        elif sim_frame.timestamp - flagged_since >= ANSWER_SECONDS:
            answer = answer_the_page(session, sim_frame.truth.moves)
            if answer is not None:
                run.answers.append(answer)
            flagged_since = None
        if stop_after is not None and len(session.game.moves) >= stop_after:
            break
    return run
