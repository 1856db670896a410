"""The live referee: camera frames in, accepted moves, flags and the final score out.

Per frame: :func:`vision.reader.read_board` -> :func:`observation_of` (colours to players;
hidden fields or an occluded board are never stable) -> :class:`StabilityFilter` ->
:meth:`Session.observe`. Settled throws come from a dice seam (:class:`DiceSeam`:
:class:`CameraDice`, the dice reader on the same frame; or, to measure the board loop alone
on the simulated table, its scripted truth :class:`ScriptedDice`), panel buttons go to
confirm/undo/"I cannot play", and session events light the panel. Every few frames the
annotated picture is kept for the web page's camera view.
"""

from __future__ import annotations

import math
import time
from collections import Counter, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import cv2
import numpy as np

from companion.infer import FieldView, Observation
from companion.layout import Layout
from companion.session import Event, Session
from companion.stability import StabilityConfig, StabilityFilter
from hardware.camera import Frame, FrameSource
from vision.calibration import ColourCalibration
from vision.config import VisionConfig
from vision.dice import DiceConfig, DieReading, annotate_dice
from vision.errors import VisionError
from vision.pose import Camera
from vision.reader import BoardReading, BoardTracker, annotate, read_board
from vision.throws import ThrowConfig, ThrowTracker

#: Motion gate: frames are compared at this size (grey, blurred), and a frame in which more
#: than MOVING_SHARE of the pixels changed by more than MOVING_LEVEL grey levels since the
#: previous frame counts as moving (a hand the reader did not recognise, a bumped board).
MOTION_SIZE = (160, 120)
MOVING_LEVEL = 25
MOVING_SHARE = 0.003
#: Dice rolling in the dice area (and this far round it) are no movement of the board's.
DICE_AREA_MARGIN_MM = 10.0
#: With the motion gate in front, 0.3 s of steady readings after the first still frame.
REFEREE_STABILITY = StabilityConfig(min_frames=3, min_seconds=0.3)

#: Views of the board kept to judge a throw's order by (3 s at 10 frames/s; the dice reader
#: reports a rest ``settle_seconds`` after it began).
CLEAR_VIEWS_KEPT = 30

#: The dice "show" values when at least SHOWING_SHARE of the readings of the last
#: SHOWING_SECONDS that read all the game's dice (or all but one, which no reading found or
#: could read, or one more, a side face read as a die) read them so; what the referee looks
#: at again when the rules refuse a stone against the last throw it counted.
SHOWING_SECONDS = 1.0
SHOWING_SHARE = 0.8

#: Every this many frames the annotated frame is encoded for the web page (JPEG is not free).
ANNOTATE_EVERY = 5
JPEG_QUALITY = 75


class DiceSeam(Protocol):
    """Where settled throws come from: ``settled(frame, board) -> dice values or None``;
    ``rested_at`` is when the dice of the last settled throw came to rest; ``seen`` what the
    last frame showed of the dice, for the camera page; ``showing()`` the values the dice
    steadily show now (all, all but one die that cannot be read, or one too many), or None;
    ``new_turn()`` says a turn has begun; ``read_whole`` that the last settled values are
    no new throw but the last one, a die unread at its rest, read whole; ``likely``, for
    values with dice missing or one too many, the likeliest throw (or None); ``sure``
    whether every die was read, and read surely (an unsure throw is for the players to
    check)."""

    label: str
    seen: list[DieReading]
    rested_at: float
    read_whole: bool
    likely: tuple[int, ...] | None
    sure: bool

    def settled(self, frame: Frame, board: BoardReading) -> tuple[int, ...] | None: ...

    def showing(self) -> tuple[int, ...] | None: ...

    def new_turn(self) -> None: ...


class CameraDice:
    """The dice reader on the referee's frames: the layout's dice area, placed in the frame by
    the board's homography, read by :func:`vision.dice.read_dice` in a top view of the table
    (the area's corners in mm are known) and followed over time by a
    :class:`vision.throws.ThrowTracker`, which reports each throw once when the dice settle.
    Every view goes to the tracker, so a view with a die missed or a stray pattern does not
    break the dice's stillness, and a hand over the dice area is seen; a rest counts only
    with as many dice as the game throws."""

    label = "dice read from the camera"

    def __init__(self, layout: Layout, camera: Camera, count: int = 5,
                 dice_config: DiceConfig | None = None,
                 throw_config: ThrowConfig | None = None) -> None:
        if layout.dice_area_mm is None:
            raise ValueError(f"the layout {layout.name!r} has no dice area (dice_area_mm)")
        x0, y0, x1, y1 = layout.dice_area_mm
        self.area_mm = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)
        self.camera = camera
        self.count = count
        self.dice_config = dice_config or DiceConfig.preset("table")
        throws = replace(throw_config or ThrowConfig(), dice_count=count)
        self.tracker = ThrowTracker(throws, self.dice_config, region_mm=self.area_mm)
        self.seen: list[DieReading] = []
        self.rested_at = 0.0
        self.read_whole = False
        self.likely: tuple[int, ...] | None = None
        self.sure = True
        self._recent: deque[tuple[float, tuple[int, ...] | None]] = deque()

    def __repr__(self) -> str:
        return f"<CameraDice {self.tracker!r}>"

    def showing(self) -> tuple[int, ...] | None:
        """The dice's values (sorted) if nearly every reading of the last second agrees: all
        the game's dice, all but one that the reader keeps missing, or one more (a side face
        read as a die; the rules may tell which throw it was, see
        :meth:`Session.throw_missed`). All the dice read beside one thing found but not
        read (a side face) show them too: the tracker counts such a rest, and Spexxx seed 7
        lost its game when a 1 read as a 2 there could never be looked at again. Views that
        find fewer dice (a hand over some, dice being picked up) neither agree nor
        disagree: a hand setting a stone beside the dice hid some for three frames, the dice
        never "showed" before they were thrown again, and a throw the reader had not counted
        was lost (Spexxx seed 3)."""
        reads = [(t, values) for t, values in self._recent if values is not None]
        if not reads or reads[-1][0] - reads[0][0] < SHOWING_SECONDS / 2:
            return None
        values, n = Counter(v for _, v in reads).most_common(1)[0]
        return values if n >= SHOWING_SHARE * len(reads) else None

    def new_turn(self) -> None:
        """The next rest after the dice move is the turn's first throw, whatever it shows."""
        self.tracker.new_turn()

    def settled(self, frame: Frame, board: BoardReading) -> tuple[int, ...] | None:
        if board.homography is None:
            return None  # no board, no dice area: wait for the next frame
        region = self.camera.board_to_frame(board.homography, self.area_mm)
        self.tracker.region = region  # the board may have shifted: positions stay in table mm
        throw = self.tracker.update(frame.timestamp, frame.image)  # it reads the dice, and
        self.saw(frame.timestamp, self.tracker.seen)  # looks for a hand over them
        if throw is None:
            return None
        self.rested_at, self.read_whole, self.likely, self.sure = (
            throw.rested_at, throw.read_whole, throw.likely, throw.sure)
        return throw.values

    def saw(self, timestamp: float, dice: list[DieReading]) -> None:
        """Keep what a frame showed of the dice, for :meth:`showing`."""
        self.seen = dice
        values = sorted(d.value for d in dice if d.value is not None)
        read = (len(values) == len(dice) in (self.count, self.count + 1)
                or len(values) == self.count - 1 and len(dice) <= self.count
                or len(values) == self.count and len(dice) == self.count + 1)
        self._recent.append((timestamp, tuple(values) if read else None))
        while self._recent[0][0] < timestamp - SHOWING_SECONDS:
            self._recent.popleft()


class ScriptedDice:
    """SCRIPTED TRUTH, not vision: the simulated table's own record of each settled throw.

    Lets the benchmark measure the board loop of a dice game apart from the dice reader's
    errors (``--scripted-dice``). It never looks at the image.
    """

    label = "dice from the simulated table's script, not read from the frames"

    def __init__(self, table: Any) -> None:
        self.table = table
        self.seen: list[DieReading] = []  # nothing is read
        self.rested_at = 0.0
        self.read_whole = False  # every die is known
        self.likely = None
        self.sure = True

    def settled(self, frame: Frame, board: BoardReading) -> tuple[int, ...] | None:
        current = self.table.current
        if current is None or current.truth.throw is None:
            return None
        self.rested_at = frame.timestamp
        return current.truth.throw

    def showing(self) -> None:
        return None  # the script never misses a throw

    def new_turn(self) -> None:
        pass  # the script knows its throws


def observation_of(reading: BoardReading, colour_to_player: Mapping[str, str]) -> Observation:
    """The reader's fields in the session's terms: top colour -> the player of that colour."""
    fields = {
        name: FieldView(colour_to_player.get(f.top_colour, f.top_colour) if f.top_colour
                        else None, f.height, f.confidence)
        for name, f in reading.fields.items()
    }
    return Observation(fields, reading.occluded, frozenset(reading.hidden_fields),
                       reading.looks_changed)


def player_colours(players: list[str], piece_colours: Mapping[str, str]) -> dict[str, str]:
    """Which piece colour each player has: a player named after a colour has that colour,
    the others get the remaining colours in the layout's order."""
    free = [c for c in piece_colours if c not in players]
    colours = {}
    for player in players:
        if player in piece_colours:
            colours[player] = player
        elif free:
            colours[player] = free.pop(0)
        else:
            raise ValueError(f"there are not enough piece colours for {', '.join(players)}")
    return colours


@dataclass
class RefereeStats:
    """What the loop did: frames, unreadable frames, CPU seconds spent, when moves came."""

    frames: int = 0
    unreadable: int = 0
    cpu_seconds: float = 0.0
    accepted_at: dict[int, float] = field(default_factory=dict)
    flags: list[tuple[float, str]] = field(default_factory=list)


class Referee:
    """The loop for one session: call :meth:`step` per frame, or :meth:`run` on a source."""

    def __init__(self, session: Session, *, colours: Mapping[str, str] | None = None,
                 panel: Any = None, table: Any = None, dice: DiceSeam | None = None,
                 calibration: ColourCalibration | None = None,
                 config: VisionConfig | None = None,
                 stability: StabilityConfig | None = None,
                 annotate_every: int = ANNOTATE_EVERY,
                 on_event: Callable[[Event], None] | None = None,
                 before_step: Callable[[Frame], None] | None = None) -> None:
        game = session.game
        self.session = session
        self.layout = game.layout
        self.colours = dict(colours or player_colours(list(game.players),
                                                      self.layout.piece_colours))
        self.colour_to_player = {c: p for p, c in self.colours.items()}
        self.panel = panel
        self.table = table
        self.config = config or VisionConfig()
        self.dice = dice if dice is not None else self._dice_reader()
        calibration = calibration or ColourCalibration.default(
            self.layout, list(self.colours.values()))
        self.tracker = BoardTracker(self.layout, calibration, self.config)
        self.filter = StabilityFilter(stability or REFEREE_STABILITY)
        self._corners: np.ndarray | None = None
        self._previous: np.ndarray | None = None
        #: Settled throws not yet handed to the session: (values, read whole, likeliest,
        #: when the dice came to rest).
        self._throws: list[tuple[tuple[int, ...], bool, tuple[int, ...] | None, float]] = []
        self._last_sight: tuple | None = None  # (moves, dice showing, flag reason, fields)
        #: Recent views with no hand over the board, each with the number of the unbroken
        #: run of such views it belongs to: what a throw's order is judged by.
        self._clear_views: deque[tuple[float, int, Observation]] = deque(
            maxlen=CLEAR_VIEWS_KEPT)
        self._clear_run = 0
        #: When the run of clear views last broke (a hand, an unreadable frame).
        self._broken_at: deque[float] = deque(maxlen=CLEAR_VIEWS_KEPT)
        self.annotate_every = annotate_every
        self.stats = RefereeStats()
        self.problem: str | None = None
        self.on_event = on_event
        self.before_step = before_step
        self._now = 0.0
        session.listeners.append(self._on_event)
        self._show_turn()

    def __repr__(self) -> str:
        return f"<Referee {self.session!r}, {self.stats.frames} frames>"

    # -- the loop -------------------------------------------------------------------------------

    def run(self, source: FrameSource, stop: Callable[[], bool] | None = None,
            pace: float | None = None) -> RefereeStats:
        """Read frames until the source ends, the game is over (after a last look) or ``stop``.

        ``pace`` (frames per second) sleeps between frames so a simulated table runs in real
        time; a camera paces itself.
        """
        last = time.monotonic()
        while stop is None or not stop():
            frame = source.read()
            if frame is None:
                break
            self.step(frame)
            if pace:
                wait = 1.0 / pace - (time.monotonic() - last)
                if wait > 0:
                    time.sleep(wait)
                last = time.monotonic()
        return self.stats

    def step(self, frame: Frame) -> None:
        """One frame through the whole chain."""
        started = time.process_time()
        self._now = frame.timestamp
        self.stats.frames += 1
        self._follow_table()
        if self._corners is not None:
            corners, self._corners = self._corners, None
            self.tracker = BoardTracker(self.layout, self.tracker.calibration, self.config,
                                        corners)
        if self.before_step is not None:
            self.before_step(frame)
        self._buttons()
        try:
            reading = read_board(frame.image, self.layout, config=self.config,
                                 tracker=self.tracker)
        except VisionError as exc:
            reading = BoardReading(problem=str(exc))
        seen = None if reading.problem else observation_of(reading, self.colour_to_player)
        if seen is not None and not (seen.occluded or seen.hidden):
            self._clear_views.append((frame.timestamp, self._clear_run, seen))
        else:
            self._clear_run += 1
            self._broken_at.append(frame.timestamp)
            if seen is not None:
                self.session.hand_over_board()
        if self.dice is not None and not self.session.game.is_over:
            values = self.dice.settled(frame, reading)
            if values is not None:
                self._throws.append((values, self.dice.read_whole, self.dice.likely,
                                     self.dice.sure, self.dice.rested_at))
                if self._board_agreed_at(self.dice.rested_at):
                    self._throw_settled()
        moving = self._moving(frame.image, reading.homography)
        if reading.problem:
            self._unreadable(reading.problem)
        elif moving:
            self.filter.feed(Observation({}, occluded=True), frame.timestamp)
        else:
            if self.problem is not None:
                self._readable_again()
            stable = self.filter.feed(seen, frame.timestamp)
            if stable is not None and not self.session.game.is_over:
                self._observe(stable)
            if self.filter.steady:
                self.session.board_steady()
                self._throw_settled()
                self._look_at_the_dice_again()
        if self.table is not None and (self.stats.frames - 1) % self.annotate_every == 0:
            self.table.frame = self._jpeg(frame.image, reading)
        self.stats.cpu_seconds += time.process_time() - started

    def _follow_table(self) -> None:
        """A new game started from the web page: referee its session from now on."""
        if self.table is None or self.table.session is self.session:
            return
        session = self.table.session
        self.session = session
        session.listeners.append(self._on_event)
        self.filter = StabilityFilter(self.filter.config)
        self._throws = []
        if session.game.layout is not self.layout:
            self.layout = session.game.layout
            self.colours = player_colours(list(session.game.players), self.layout.piece_colours)
            self.colour_to_player = {c: p for p, c in self.colours.items()}
            calibration = ColourCalibration.default(self.layout, list(self.colours.values()))
            self.tracker = BoardTracker(self.layout, calibration, self.config)
            self.dice = self._dice_reader()
        self._show_turn()

    def set_corners(self, corners: list[list[float]]) -> None:
        """The board's four corners clicked on the camera page (TL, TR, BR, BL, frame px), for
        a board without markers; taken up by the loop's thread on its next frame."""
        self._corners = np.array(corners, dtype=np.float64).reshape(4, 2)

    def _dice_reader(self) -> DiceSeam | None:
        if not self.session.game.uses_dice:
            return None
        return CameraDice(self.layout, Camera.from_config(self.config),
                          self.session.game.dice_count)

    # -- inputs -----------------------------------------------------------------------------------

    def _buttons(self) -> None:
        if self.panel is None:
            return
        for event in self.panel.events():
            if event.kind == "confirm":
                self.session.confirm()
            elif event.kind == "undo":
                if self.session.undo() is not None:
                    self.filter.reset()  # the same board must count again once set back
            elif event.kind == "cannot_play":
                self.session.cannot_play()

    def _board_agreed_at(self, moment: float) -> bool:
        """Whether the board showed what the game expects at ``moment``: most views of the
        last unbroken run of views with no hand over the board up to then (pieces move only
        under a hand), or of the oldest run kept. Not one view alone: a field misread in the
        frame the dice came to rest in held a Cuatro throw back until the thrower's stone
        was judged, and the throw went to the next player (scripted seed 11). A run that
        broke before ``moment`` tells nothing of it: a hand came over the board since
        (Spexxx seed 53 with camera dice: white's stone at the far rim left the board read
        as changed for 4 s; black's first throw, judged by the views before white's hand,
        was refused as white's fifth and lost)."""
        if not self._clear_views:
            return False
        before = [(t, run, view) for t, run, view in self._clear_views if t <= moment]
        if before and any(before[-1][0] < t <= moment for t in self._broken_at):
            return False
        before = [(run, view) for _, run, view in before]
        if not before:
            oldest = self._clear_views[0][1]
            before = [(run, view) for _, run, view in self._clear_views if run == oldest]
        last = before[-1][0]
        views = [view for run, view in before if run == last]
        return 2 * sum(self.session.agrees(view) for view in views) >= len(views)

    def _observe(self, stable: Observation) -> None:
        """Hand a steady view to the session. With throws held back (the board as seen when
        their dice came to rest did not show what the game expects: a hand over it), a view
        the rules refuse is judged again after them before anyone is told, so a stone set
        just after its throw is not flagged for a moment against the throw before (Cuatro
        seed 3 with camera dice: the dice came to rest under the hand setting red's roof on
        A4, and the roof was flagged against the turn's previous throw, then, the throw in,
        judged again). A stone the held throws do not make legal stays flagged."""
        if not self._throws:
            self.session.observe(stable)
            return
        was = self.session.flag
        with self.session.verdict_held():
            self.session.observe(stable)
            if self.session.flag is not None and self.session.flag is not was:
                self._throw_settled(flagged_at=self._now)

    def _throw_settled(self, flagged_at: float | None = None) -> None:
        """Hand the settled throws to the session, at once when the board as seen when the
        dice came to rest shows what the game expects, or the flagged view the session waits
        on (:meth:`Session.agrees`; the reader reports a rest some frames later, when the
        thrower's hand may already have set a stone: it came after the throw), else once
        the board has held still and been judged: the rolling dice keep the board from
        counting, so a piece set down just before the throw would otherwise be judged after
        it, as a move of the next player's turn. A stone flagged after the dice came to
        rest is judged again once the throw is in (Cuatro seed 61 with camera dice: blue's
        throw, held back by a tower misread as the dice settled, came after blue's stone,
        which stayed flagged "throw the dice first"). One that came to rest after a stone
        was flagged may show that play went on past it (:meth:`Session.throw_settled`).
        ``flagged_at``: when the session's flag was raised, where it is not told yet
        (:meth:`_observe`)."""
        throws, self._throws = self._throws, []
        for values, read_whole, likely, sure, rested_at in throws:
            if self.session.game.is_over:
                continue
            flagged_since = (-math.inf if self.session.flag is None
                             else flagged_at if flagged_at is not None
                             else self.stats.flags[-1][0])
            if read_whole:
                self.session.throw_read_whole(values)
            else:
                self.session.throw_settled(values, likely, since_flag=rested_at > flagged_since,
                                           sure=sure)
            if rested_at < flagged_since:
                self.session.rejudge()

    def _look_at_the_dice_again(self) -> None:
        """While the rules refuse a stone, look at the dice lying there: a throw the reader
        did not count, or read wrong, shows as values other than the last throw counted
        (:meth:`Session.throw_missed` lets the rules decide). Each sight is tried once per
        flagged stone (an injected stone taken away, the next one may fit the same dice)."""
        if self.dice is None or self.session.flag is None:
            return
        showing = self.dice.showing()
        flag = self.session.flag
        sight = (len(self.session.game.moves), showing, flag.reason, flag.changed)
        if showing is None or sight == self._last_sight:
            return
        self._last_sight = sight
        self.session.throw_missed(showing)

    def _moving(self, image: np.ndarray, homography: np.ndarray | None) -> bool:
        """Whether much of the picture changed since the last frame (see MOVING_SHARE); dice
        rolling in the dice area do not count, or a board held still between a player's
        throws, each a second apart, would never hold long enough to be judged."""
        small = cv2.GaussianBlur(cv2.cvtColor(cv2.resize(image, MOTION_SIZE,
                                                         interpolation=cv2.INTER_AREA),
                                              cv2.COLOR_BGR2GRAY), (3, 3), 0)
        previous, self._previous = self._previous, small
        if previous is None:
            return False
        changed = cv2.absdiff(small, previous) > MOVING_LEVEL
        if homography is not None and self.layout.dice_area_mm is not None:
            changed &= ~self._dice_area_mask(homography, image.shape)
        return float(changed.mean()) > MOVING_SHARE

    def _dice_area_mask(self, homography: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        """The layout's dice area, widened by DICE_AREA_MARGIN_MM, in the motion gate's size."""
        x0, y0, x1, y1 = self.layout.dice_area_mm
        m = DICE_AREA_MARGIN_MM
        corners = np.array([[x0 - m, y0 - m], [x1 + m, y0 - m], [x1 + m, y1 + m],
                            [x0 - m, y1 + m]], dtype=np.float64)
        frame_px = Camera.from_config(self.config).board_to_frame(homography, corners)
        scale = np.array([MOTION_SIZE[0] / shape[1], MOTION_SIZE[1] / shape[0]])
        mask = np.zeros((MOTION_SIZE[1], MOTION_SIZE[0]), dtype=np.uint8)
        cv2.fillPoly(mask, [np.round(frame_px * scale).astype(np.int32)], 1)
        return mask.astype(bool)

    def _unreadable(self, problem: str) -> None:
        self.stats.unreadable += 1
        self.filter.feed(Observation({}, occluded=True), self._now)  # breaks any steady run
        if problem != self.problem:
            self.problem = problem
            if self.panel is not None:
                self.panel.show_status("waiting")
            if self.table is not None:
                self.table.message = f"the camera cannot read the board: {problem}"

    def _readable_again(self) -> None:
        self.problem = None
        if self.panel is not None:
            self.panel.show_status("illegal" if self.session.flag else "ok")
        if self.table is not None:
            self.table.message = None

    # -- outputs ----------------------------------------------------------------------------------

    def _on_event(self, event: Event) -> None:
        game = self.session.game
        if event.kind == "move":
            self.stats.accepted_at[len(game.moves)] = self._now
            if self.dice is not None and not game.is_over and game.throw_count == 0:
                self.dice.new_turn()
        elif event.kind == "illegal":
            self.stats.flags.append((self._now, event.data["rule"]))
        if self.panel is not None:
            if event.kind in ("move", "undo", "cleared"):
                self.panel.show_status("ok")
                self._show_turn()
            elif event.kind == "illegal":
                self.panel.flag_illegal(event.data["rule"])
            elif event.kind in ("waiting", "confirm"):
                self.panel.show_status("waiting")
            elif event.kind == "game_over":
                self.panel.celebrate([game.players.index(p) for p in event.data["winners"]])
        if self.on_event is not None:
            self.on_event(event)

    def _show_turn(self) -> None:
        game = self.session.game
        if self.panel is None or game.is_over:
            return
        self.panel.show_turn(game.players.index(game.current_player))
        if game.uses_dice:
            self.panel.show_throws(min(game.throw_count, len(self.panel.config.throw_pins)))

    def _jpeg(self, image: np.ndarray, reading: BoardReading) -> bytes | None:
        small = annotate(image, reading, self.layout)
        if self.dice is not None:
            annotate_dice(small, self.dice.seen)
        ok, data = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        return data.tobytes() if ok else None
