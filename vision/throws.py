"""Count throws from a stream of dice readings: a throw is counted once, when the dice come to
rest showing different values from the last resting state, or a die showing another face
where one lay, or after dice were seen in flight (far from every place a die lay at either
rest) with some die of the last rest no longer lying as it lay.

Why values and not motion alone: a nudged die, a hand passing over the dice, or dice set aside
and put back all move things without a throw; a roll is what changes the faces, and what
carries dice through places where none lies before or after. A reroll that by chance shows the
very same values again, its tumbling never seen (dice too blurred to be found), is therefore
not seen as a throw - the case these rules miss.

What is read while a hand is over the dice (`HandWatch`) counts for nothing: fingers hide dice
and pass for pips, so a hand held still over the dice used to read as a rest of its own.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field, fields
from pathlib import Path

import cv2
import numpy as np

from vision.dice import DiceConfig, DieReading, StillReads, read_dice


class ThrowInputError(ValueError):
    """The throw tracker was fed something it cannot use."""


@dataclass(frozen=True)
class ThrowConfig:
    settle_seconds: float = 0.5  # dice lying still this long count as resting
    still_mm: float = 4.0  # a die moved less than this on the table (a nudge) has not moved
    still_fraction: float = 0.25  # the same in box sizes, when the table's mm are not known
    # while the dice lie still, a die read within this many times still_mm (still_fraction) of
    # where one lay may be that die misread (a 1 read as 2 with a side's pip, 6-7 mm off)
    misread_reach: float = 2.0
    # a die seen between two rests farther than this many times still_mm (still_fraction) from
    # every place one lay at either was in flight: the dice were thrown, whatever faces they
    # show now (a reroll showing only faces that showed before); dice nudged, set aside or put
    # back are seen only where they lie (20 mm: more than a die; a die's read centre moves by
    # up to ~20 mm between its top face, a side face and an unread pattern)
    flight_reach: float = 5.0
    flight_seconds: float = 5.0  # how far back before a rest dice seen are looked at
    agree_share: float = 0.6  # share of the still frames that must read the same values
    # ... counting frames that read one die at the same place otherwise, under this (median)
    # where the others read it at sure_confidence or more: one die flickering between a sure
    # and a weak value (the referee's Cuatro seed 3: a 1 behind a 6 read as a 2 at 0.37-0.39
    # in every other frame, 3 of 6 frames agreed and the throw was lost). Such a rest is
    # reported unsure, with the sure value
    flicker_confidence: float = 0.5
    # a throw whose least sure die reads under this (median over its rest's frames) is
    # reported unsure (ThrowSettled.sure): on the bench's tuning sessions 7 of the 8 reports
    # with a wrong value lay under 0.7, 17 of the 166 right ones (a 1 read as a 2 with a side
    # face's pip reads 0.6-0.75; dice read right mostly 0.85 or more)
    sure_confidence: float = 0.7
    # ... but a die read as sure_many_pips or more from sure_confidence_many: a misread
    # gains or loses a side face's pip on few pips (a 1 read as 2, a 2 as 3, a leaning die's
    # side as a 1), while 4-6 fill a lattice and lose confidence mostly for one pip measured
    # small (the referee's table, Cuatro seeds 1 and 9: right 6s at 0.56-0.58 with a pip in
    # shade). Rendered tuning scenes 1000-1099 and 1100-1199 (tame and hard, table preset):
    # reads of 4-6 at 0.5-0.7 68 right, none wrong, under 0.5 38 right, none wrong; of 1-3 at
    # 0.5-0.7 23 right, 1 wrong. Dice capped as leaning (lean_outline_confidence 0.4) stay
    # unsure
    sure_many_pips: int = 4
    sure_confidence_many: float = 0.5
    dice_count: int = 0  # a rest shows this many dice (0: any number)
    # ... or this many fewer, dice the reader cannot find or read in the whole rest, or this
    # many more, dice's side faces read as dice: such a rest is reported with the values
    # read, and the rules may tell which dice lay there
    unread_dice: int = 2
    side_faces: int = 1
    # Watching the dice area for a hand (frames fed with the area's corners in mm only):
    view_px_per_mm: float = 1.0  # the coarse top view the hand is looked for in
    view_margin_mm: float = 19.0  # it reaches this far past the dice area (dice at the edge)
    hand_smoothing_mm: float = 5.0  # sensor noise, pips and skin texture average out over this
    hand_change: float = 9.0  # Lab distance from the clear view that counts as changed
    hand_area_mm2: float = 3000.0  # a changed patch larger than this is a hand, arm or its shade
    dice_clearance_mm: float = 20.0  # round a die read now or in the clear view: its own change
    adopt_seconds: float = 3.0  # a changed view that holds steady this long is the table now
    renew_area_mm2: float = 1000.0  # only a view changed less from the clear view renews it
    # A throw is reported unsure when its rest's view, against the last rest's, shows
    # something come (off the table's colour now, not then) in a patch over unseen_area_mm2
    # (a die's top face is 256) farther than unseen_clearance_mm from every die seen at
    # either (a die read centre lies up to ~10 mm off its footprint's, and its sides and
    # shadow reach beyond): a die the reader never found, its throw read short of it.
    # Tuning sessions 7000-7029, 8060-8119: the one sure report short of a die 529 mm^2,
    # right sure reports over 300 mm^2 2 of 119 (clearance 20 mm: 12, 16 mm: 26)
    unseen_area_mm2: float = 300.0
    unseen_clearance_mm: float = 25.0
    # ... not counting shade, where the throw is read with all the game's dice (a throw read
    # short is unsure anyway; with no count known, an unseen die's own shadow is part of its
    # patch, bench seed 9004: two 5s unseen fell under 300 mm^2 without it): darker now, to no
    # less than unseen_shade_ratio of its lightness then, its colour the same darkened within
    # unseen_shade_chroma (Lab). A die's shadow under
    # a low lamp reaches past the clearance (the referee's table, lamp 40 deg up: patches of
    # 250-970 mm^2 30-35 mm from the read centres, lightness 0.57-0.67 of the table's, colour
    # within 1-5); a die is lighter, coloured, or darker than that (black: ~0.2); nor, there,
    # patches reaching the view's edge (fingers come in from beside the area: HandWatch.unseen)
    unseen_shade_ratio: float = 0.5
    unseen_shade_chroma: float = 6.0

    @classmethod
    def from_json(cls, path: str | Path) -> ThrowConfig:
        data = json.loads(Path(path).read_text())
        unknown = sorted(set(data) - {f.name for f in fields(cls)})
        if unknown:
            raise ThrowInputError(f"unknown throw config keys: {', '.join(unknown)}")
        return cls(**data)


@dataclass(frozen=True)
class ThrowSettled:
    """The dice came to rest after a throw: the values (sorted) and which throw of the turn;
    ``rested_at`` when they came to rest (the event comes ``settle_seconds`` later, when a
    hand may already have moved on to the board). A die seen but not read in the frames the
    rest is agreed on is not among the values. With ``ThrowConfig.dice_count``, fewer
    values than that mean dice the reader could not find or read in the whole rest, one
    more a side face read as a die; when a missing die is read later, the dice still lying
    as they were, the throw is reported again with ``read_whole``."""

    values: tuple[int, ...]
    throw_number: int
    rested_at: float = field(default=0.0, compare=False)
    #: Not a new throw: the last one, short of a die at its rest, read whole now.
    read_whole: bool = False
    #: Values read with dice missing or one too many: the likeliest throw, all the game's
    #: dice as some frames of the rest read them (or None).
    likely: tuple[int, ...] | None = None
    #: Every die read, and read surely (``ThrowConfig.sure_confidence``), in the rest, and
    #: nothing die-sized come where no die is seen (``ThrowConfig.unseen_area_mm2``): a
    #: throw reported unsure may hold a misread die or lack one (a die unread, or missed),
    #: and is better checked than trusted.
    sure: bool = field(default=True, compare=False)


class HandWatch:
    """Tells whether something larger than the dice - a hand, an arm, its shade - lies over
    the dice area, so the tracker neither takes what it reads then for a rest nor for a
    movement.

    The area is compared, in a coarse blurred top view (Lab), with the last view seen clear;
    change round the dice read now or then is theirs (a roll, dice set aside, their shadows),
    change beyond them in one patch over ``hand_area_mm2`` reaching the edge of the watched
    area is an arm come in from outside. Skin is close to a wooden table in colour, so the
    test is against the table as it looked, not against a colour. A changed view that holds
    steady for ``adopt_seconds`` (a card laid down, the light turned up, or the table once a
    hand in view when watching began has gone) becomes the clear view."""

    def __init__(self, config: ThrowConfig) -> None:
        self.config = config
        self._clear: tuple[np.ndarray, list[np.ndarray]] | None = None  # view, dice in mm
        self._last: tuple[np.ndarray, list[np.ndarray]] | None = None
        # a changed view held steady, and since when it has been seen (hands between)
        self._held: tuple[tuple[np.ndarray, list[np.ndarray]], float] | None = None

    def view(self, frame: np.ndarray, region, region_mm) -> tuple[np.ndarray, np.ndarray]:
        """The dice area as a blurred Lab top view, and the mm of its top-left pixel."""
        c = self.config
        s = c.view_px_per_mm
        mm = np.asarray(region_mm, dtype=np.float64)
        lo = mm.min(axis=0) - c.view_margin_mm
        size = np.ceil((mm.max(axis=0) + c.view_margin_mm - lo) * s).astype(int)
        mm_to_frame = cv2.getPerspectiveTransform(mm[:4].astype(np.float32),
                                                  np.asarray(region, np.float32)[:4])
        to_view = mm_to_frame @ np.array([[1 / s, 0, lo[0]], [0, 1 / s, lo[1]], [0, 0, 1]])
        bgr = frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        top = cv2.warpPerspective(bgr, to_view, (int(size[0]), int(size[1])),
                                  flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                  borderMode=cv2.BORDER_REPLICATE)
        k = max(1, int(round(c.hand_smoothing_mm * s)))
        top = cv2.blur(top, (k, k))
        return cv2.cvtColor(top.astype(np.float32) / 255, cv2.COLOR_BGR2Lab), lo

    def covered(self, timestamp: float, view: np.ndarray, lo: np.ndarray,
                dice_mm: list[np.ndarray]) -> bool:
        """Whether a hand lies over the area in this view; ``dice_mm`` where dice are read.

        Only a view close to the clear view renews it: one merely close to the frame before
        may be a hand reaching in a little at a time (Spexxx seed 4 with camera dice, a hand
        at the edge changing 1927 then 862 mm^2 became the table, and the bare table after
        it read as a hand for 3 s). A change is adopted once it has held steady for
        ``adopt_seconds`` counted from when it appeared, not from a quiet spell before; hands
        passing in between do not start it again, the view coming back as it was after them
        (Cuatro seed 44 with camera dice: fingertips crept into the clear view; with a hand
        over the dice every second, the bare table after them never held 3 s, and a throw
        resting beside that patch was taken for hidden by a hand and never counted)."""
        c = self.config
        now = (view, dice_mm)
        last, self._last = self._last, now
        if self._clear is None or self._clear[0].shape != view.shape:
            self._clear, self._held = now, None
            return False
        moved = self._patch(now, last, lo) if last is not None else math.inf
        steady = moved <= c.hand_area_mm2
        apart = self._patch(now, self._clear, lo)
        if apart <= c.renew_area_mm2:
            self._held = None
            if steady:  # a frame amid tumbling dice is no view to measure later ones from
                self._clear = now
            return False
        if self._held is None or self._patch(now, self._held[0], lo) > c.renew_area_mm2:
            # a new look once it holds still, else a hand over the one held
            if self._held is None or moved <= c.renew_area_mm2:
                self._held = (now, timestamp)
            return apart > c.hand_area_mm2
        if timestamp - self._held[1] >= c.adopt_seconds:
            self._clear, self._held = now, None
            return False
        return apart > c.hand_area_mm2

    def _patch(self, now: tuple[np.ndarray, list[np.ndarray]],
               before: tuple[np.ndarray, list[np.ndarray]], lo: np.ndarray,
               clearance_mm: float | None = None, reaching: bool | None = True,
               appeared: bool = False, shade: bool = True) -> float:
        """The largest patch (mm^2) changed between two views, away from the dice in both
        (``clearance_mm``, by default ``dice_clearance_mm``), reaching the edge of the view
        (``reaching`` True), not reaching it (False) or either (None); with ``appeared`` only
        where ``now`` lies farther from the view's usual colour (the table's) than ``before``
        did: something come, not gone; unless ``shade``, not where ``now`` is ``before`` in
        shadow (:func:`_shade`).
        A change of the light over the whole area is no patch.
        That change is the median over pixels ``hand_smoothing_mm`` apart: the views are
        blurred over as much, so the median of every pixel says no more and took 40 % of the
        watch's time."""
        c = self.config
        clearance = c.dice_clearance_mm if clearance_mm is None else clearance_mm
        s = c.view_px_per_mm
        k = max(1, int(round(c.hand_smoothing_mm * s)))
        diff = now[0] - before[0]
        diff -= np.median(diff[::k, ::k].reshape(-1, 3), axis=0)
        changed = np.einsum("ijk,ijk->ij", diff, diff) > c.hand_change ** 2
        if appeared:
            changed &= _off_table(now[0], k) > _off_table(before[0], k)
            if not shade:
                changed &= ~_shade(now[0], before[0], c)
        changed = changed.astype(np.uint8)
        for p in now[1] + before[1]:
            x, y = np.round((p - lo) * s).astype(int)
            cv2.circle(changed, (int(x), int(y)), int(round(clearance * s)), 0, -1)
        changed = cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
        _, _, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
        x, y, w, h, area = stats[1:].T
        height, width = changed.shape
        edge = (x == 0) | (y == 0) | (x + w == width) | (y + h == height)
        if reaching is not None:
            area = area[edge == reaching]
        return float(area.max(initial=0)) / s ** 2

    def unseen(self, now: tuple[np.ndarray, list[np.ndarray]],
               before: tuple[np.ndarray, list[np.ndarray]], lo: np.ndarray,
               whole: bool = False) -> bool:
        """Two clear views (each with where dice were seen in it) changed somewhere no die
        was seen in either, in a patch the size of a die. ``whole``, a throw read with all the
        game's dice: shadows fallen there do not count (``ThrowConfig.unseen_shade_ratio``),
        nor a patch reaching the view's edge - fingers or a stone come in from beside the dice
        area; a die lying in it lies ``view_margin_mm`` inside, and its shadow, which may reach
        out, is left out (the referee's table, Cuatro seeds 1 and 3: a passing hand's
        fingertips at the edge, 370-410 mm^2, 50-110 mm from every die, made right throws
        unsure). Without a count a die's shadow is part of its patch, so such patches count."""
        c = self.config
        return self._patch(now, before, lo, c.unseen_clearance_mm,
                           reaching=False if whole else None, appeared=True,
                           shade=not whole) > c.unseen_area_mm2


def _shade(now: np.ndarray, before: np.ndarray, config: ThrowConfig) -> np.ndarray:
    """Where a view is the one before darkened, its colour kept (a shadow fallen there), no
    darker than ``unseen_shade_ratio``."""
    ratio = now[..., 0] / np.maximum(before[..., 0], 1.0)
    off = now[..., 1:] - before[..., 1:] * ratio[..., None]
    return ((ratio < 1.0) & (ratio >= config.unseen_shade_ratio)
            & (np.einsum("ijk,ijk->ij", off, off) <= config.unseen_shade_chroma ** 2))


def _off_table(view: np.ndarray, k: int) -> np.ndarray:
    """How far each pixel's colour lies from the view's median (the table's: dice and
    their shadows cover a small part of the dice area)."""
    off = view - np.median(view[::k, ::k].reshape(-1, 3), axis=0)
    return np.einsum("ijk,ijk->ij", off, off)


class ThrowTracker:
    """Feed it ``update(timestamp, readings_or_frame)`` for every frame; it returns a
    `ThrowSettled` on the frame a throw comes to rest, else None.

    Motion is judged by where the dice are, not by pixels changing: a new place is one farther
    than ``still_mm`` from every place a die lay within ``settle_seconds`` (or lay unread on
    the last frame: the same die, read now); the dice move when new places show two frames
    running, or a die stays at a new place for a second frame. A die missed for a frame, a
    stray unread pattern, or a misread die whose centre flips between two places is no
    motion; nor, while the dice lie still, is a die read within
    ``misread_reach`` times ``still_mm`` of where one lay (a misread shifts the centre of the
    die it reads, a movement carries dice farther). Once nothing has moved for
    ``settle_seconds``, the values read in at least ``agree_share`` of those frames are the
    resting values, so a misread frame now and then does not hold the count back.
    Frames fed with ``region`` and ``region_mm`` (the dice area's corners in frame pixels and
    table mm; they may be changed between frames) are read here and watched for a hand: a
    frame with a hand over the dice area breaks no rest but never agrees with one, and the
    places the dice lay are kept through it; dice at new places once the hand is gone were
    moved. ``seen`` holds the dice read in the last frame.
    Dice that lie as at the last rest, unmoved, but read otherwise (a misread die read right
    once nudged, or the other way) are the same dice: a later rest showing only faces of
    either reading is no throw - unless dice were seen, between the two rests, farther than
    ``flight_reach`` times ``still_mm`` from every place a die lay at either (in flight) and
    some die of the last rest no longer lies as it lay: a reroll showing only faces that
    showed before."""

    def __init__(self, config: ThrowConfig | None = None, dice_config: DiceConfig | None = None,
                 region=None, region_mm=None) -> None:
        self.config = config or ThrowConfig()
        self.dice_config = dice_config
        self.region = region
        self.region_mm = region_mm
        self.throw_count = 0
        self.resting: tuple[int, ...] | None = None  # values of the last resting state
        self._also_read: list[tuple[int, ...]] = []  # those dice read otherwise since, unmoved
        self._places: list[tuple[float, np.ndarray, float]] = []  # (last seen, place, reach)
        self._fresh: list[tuple[np.ndarray, float]] = []  # new places in the last frame
        self._unread: list[tuple[np.ndarray, float]] = []  # dice seen unread in the last frame
        self._previous_time = 0.0
        # (time, values or None under a hand, dice read as (place, reach, value), the dice
        # read) since still
        self._still: list[tuple[float, tuple[int | None, ...] | None, list,
                                list[DieReading]]] = []
        self._still_since: float | None = None
        self._last_time: float | None = None
        self._changed = False
        self._hands = HandWatch(self.config)
        self._hidden = 0.0  # seconds a hand was over the dice: places are not forgotten then
        self._after_hand = False
        self._rest_dice: list[tuple[np.ndarray, float, int | None]] = []  # (place, reach, value)
        self.seen: list[DieReading] = []  # what the last frame showed
        self._still_reads = StillReads()  # the dice lying still are not read anew each frame
        self._turn_begun = False  # new_turn() was called and no throw has come to rest since
        # where dice were seen (read or not) in each clear frame since the last rest agreed,
        # and in the frames of that rest: dice seen elsewhere between rests were in flight
        self._seen: list[tuple[float, tuple, list]] = []  # (time, values, [(place, reach)])
        self._rest_seen: list[np.ndarray] = []
        # this frame's hand-watch view (view, its top-left mm, dice seen in it) if clear, and
        # the last one at a rest: a throw is unsure if they differ where no die is seen
        self._view: tuple[np.ndarray, np.ndarray, list[np.ndarray]] | None = None
        self._rest_view: tuple[np.ndarray, np.ndarray, list[np.ndarray]] | None = None

    def __repr__(self) -> str:
        state = "moving" if self.moving else "settled"
        return f"<ThrowTracker {state} throws={self.throw_count} resting={self.resting}>"

    @property
    def moving(self) -> bool:
        """True from a movement until the dice have come to rest again."""
        return self._changed

    def new_turn(self) -> None:
        """Start counting throws from zero; the dice lying there are not a throw, but the
        next rest after they move is, whatever faces it shows: a turn's first throw rolls
        every die, so it cannot be dice put back (the last player's faces may come again)."""
        self.throw_count = 0
        self._turn_begun = True

    def update(self, timestamp: float, observed) -> ThrowSettled | None:
        """One frame (or the dice read in it): the throw that came to rest, if one did."""
        if self._last_time is not None and timestamp < self._last_time:
            raise ThrowInputError(f"time went backwards: {timestamp} after {self._last_time}")
        readings = self.seen = self._readings(observed)
        self._view = None
        if self._covered(timestamp, observed, readings):
            self._view = None
            # what is read under a hand is no movement and no reading of the rest (it never
            # agrees); the dice's places are kept until they are seen again
            self._hidden += timestamp - (self._last_time or timestamp)
            self._fresh, self._unread, self._after_hand = [], [], True
            values, dice, read = None, [], []
        else:
            if self._rest_view is None:  # no rest yet: the dice as watching began
                self._rest_view = self._view
            values, dice = self._watch_motion(timestamp, readings)
            read = [r for r in readings if r.value is not None]
        self._last_time = timestamp
        if self._still_since is None:
            return None
        self._still = [s for s in self._still if s[0] >= timestamp - self.config.settle_seconds]
        self._still.append((timestamp, values, dice, read))
        if timestamp - self._still_since < self.config.settle_seconds:
            return None
        agreed = self._agreed()
        if agreed is None:
            return None
        values, likely, steady = agreed
        return self._rest(tuple(v for v in values if v is not None),
                          next(d for _, v, d, _ in reversed(self._still) if v == values), likely,
                          reading=values, sure=steady and self._sure(values))

    def _watch_motion(self, timestamp: float, readings: list[DieReading]):
        """Judge from a clear view whether the dice moved; the values and dice it shows."""
        read = [r for r in readings if r.value is not None]
        places = self._places_of(read)
        values = tuple(sorted((r.value for r in readings), key=lambda v: v or 0))
        count = self.config.dice_count
        if count and count <= len(read) <= count + self.config.side_faces:
            # an unread pattern besides is a stray: with a side face read as a die too, it
            # kept a Cuatro rest from agreeing (seed 13, 1 2 3 4 6 lay 0.6 s and was lost)
            values = tuple(sorted(r.value for r in read))
        reach = 1.0 if self._changed else self.config.misread_reach
        # a die read where one lay unread on the last frame lay there (bench seed 8042: a 2
        # unread on the first frame, read from the second, was taken for a die landing, and
        # the dice lying there when watching began for a throw)
        new = [(p, r) for p, r in places if self._new([(p, r * reach)])
               and all(np.hypot(*(p - q)) > r for q, _ in self._unread)]
        if count and len(places) - len(new) >= count:
            # every die the game throws lies where one lay: one read at a new place besides is
            # a side face read now, no die landing (Cuatro seed 13: a side pip read as a 1 in
            # two frames restarted a rest of 3 4 4 5 6, and the next throw came before it ended)
            new = []
        stayed = any(np.hypot(*(p - q)) <= r for q, r in self._fresh for p, _ in places)
        started = self._still_since is not None
        # dice at new places once a hand is gone were moved under it
        if not started or (new and (self._fresh or self._after_hand)):
            self._changed = self._changed or started
            self._still_since, self._still = timestamp, []
        elif stayed:  # a die landed (or was put) there on the last frame
            self._changed = True
            self._still_since = self._previous_time
            self._still = [s for s in self._still if s[0] >= self._previous_time]
        self._after_hand = False
        self._fresh = new if started else []
        self._unread = self._places_of([r for r in readings if r.value is None])
        if not started:  # the dice lying when watching began stand for the last rest's, those
            # unread too (seed 7045: a 2 unread on the first frame, read 13 mm off after)
            self._rest_dice = [(p, r, v.value) for (p, r), v in zip(places, read, strict=True)]
            self._rest_dice += [(p, r, None) for p, r in self._unread]
        self._previous_time = timestamp
        self._remember(timestamp - self._hidden, places)
        self._seen = [f for f in self._seen if f[0] >= timestamp - self.config.flight_seconds]
        self._seen.append((timestamp, values, places + self._unread))
        return values, [(p, r, v.value) for (p, r), v in zip(places, read, strict=True)]

    def _covered(self, timestamp: float, observed, readings: list[DieReading]) -> bool:
        """A hand over the dice area (judged on frames only, with the area's corners in mm)."""
        if not isinstance(observed, np.ndarray) or self.region is None or self.region_mm is None:
            return False
        view, lo = self._hands.view(observed, self.region, self.region_mm)
        seen = [p for p, _ in self._places_of(readings)]
        self._view = (view, lo, seen)
        return self._hands.covered(timestamp, view, lo, seen)

    def _readings(self, observed) -> list[DieReading]:
        if isinstance(observed, np.ndarray):
            return read_dice(observed, self.region, self.dice_config, self.region_mm,
                             self._still_reads)
        try:
            readings = list(observed)
        except TypeError:
            raise ThrowInputError("feed the tracker a frame or a list of dice readings") from None
        if not all(isinstance(r, DieReading) for r in readings):
            raise ThrowInputError("feed the tracker a frame or a list of dice readings")
        return readings

    def _places_of(self, readings: list[DieReading]) -> list[tuple[np.ndarray, float]]:
        """Each die's centre and how far it may move and still be still, in table mm when
        the dice area's corners are known, else in pixels."""
        if not readings:
            return []
        centres = np.array([r.centre for r in readings], dtype=np.float64)
        if self.region is not None and self.region_mm is not None:
            to_mm = cv2.getPerspectiveTransform(np.asarray(self.region, np.float32)[:4],
                                                np.asarray(self.region_mm, np.float32)[:4])
            mm = cv2.perspectiveTransform(centres.reshape(-1, 1, 2), to_mm).reshape(-1, 2)
            return [(p, self.config.still_mm) for p in mm]
        return [(c, self.config.still_fraction * max(r.box[2], r.box[3], 1))
                for c, r in zip(centres, readings, strict=True)]

    def _new(self, places: list[tuple[np.ndarray, float]]) -> bool:
        """Some die lies where none lay within settle_seconds."""
        return any(all(np.hypot(*(p - q)) > reach for _, q, _ in self._places)
                   for p, reach in places)

    def _remember(self, timestamp: float, places: list[tuple[np.ndarray, float]]) -> None:
        """Note where the dice lie now; forget places not seen for settle_seconds."""
        kept = [(t, q, r) for t, q, r in self._places
                if t >= timestamp - self.config.settle_seconds
                and all(np.hypot(*(p - q)) > reach for p, reach in places)]
        self._places = kept + [(timestamp, p, reach) for p, reach in places]

    def _agreed(self) -> tuple[tuple[int | None, ...], tuple[int, ...] | None, bool] | None:
        """The values most still frames read (None for a die seen but not read), if enough
        agree, and whether they agree without a die flickering (``flicker_confidence``);
        without ``dice_count`` a die unread in those frames does not hold the throw back: it
        lay still as long as the others, so the throw came to rest, and it counts
        with the dice read (seed 7020 of the throw-counting bench: a white 2 against a black
        4 read as two unread patterns all through the last rest, which was never counted;
        seed 7058: a 3 unread, a 6 pressed against it never found, the reroll reported late,
        at the next movement); with ``dice_count``, if as many dice as the game throws
        are read, or up to ``unread_dice`` fewer and no more dice seen (ones the reader never
        finds or cannot read all through the rest: the throw still counts), or up to
        ``side_faces`` more, or fewer while every die is found but some stay unread (Cuatro
        seed 16: white dice tilted to the lens, 1 2 3 3 5 read 1 5 and four patterns unread
        all through its rest; the 5th throw was lost and the roof set aside refused), or
        all but one read whatever unread patterns lie beside (Cuatro seed 50: 1 2 3 4 5
        with the 1 and two side faces unread all through its rest, the throw lost and the
        straight after it flagged), or all but one found with at most ``unread_dice`` of
        them unread (seed 51: 2 2 3 3 6 read 3 6 and two patterns, a 2 never found; the
        throw lost, red's roof on the pair-of-3s field flagged and the turn's later throws
        taken for red's); and then the likeliest throw. With ``dice_count``,
        frames reading the same dice with some missed, unread or a side face more agree
        too: dice lying still do not come and go, a side face read now and then or a die
        missed in some frames does (Cuatro seed 3 with camera dice, 1 2 2 3 6 read with a
        side face's 1 in three frames of four, and seed 4, 1 2 2 5 6 read whole in one
        frame and without its 1 in three, were never counted). When the most frames read
        some dice missing or one too many, a reading of all the game's dice among the
        others is the likeliest throw, but no more: it may be a die misread (Cuatro seed 1,
        1 2 6 6 6 read 1 2 6 6 in most frames and 1 1 2 6 6 in one); with none, one too
        many without the least sure die."""
        counts = Counter(v for _, v, _, _ in self._still if v is not None)  # None: under a hand
        if not counts:
            return None
        values, n = counts.most_common(1)[0]
        steady = True
        count = self.config.dice_count
        likely = None
        if count:
            alike = {w: m for w, m in counts.items() if w != values and self._same_dice(w, values)}
            n += sum(alike.values())
            whole = [(m, w) for w, m in alike.items() if len(w) == count and None not in w]
            if len(values) != count or None in values:
                likely = max(whole)[1] if whole else self._without_weakest(values)
        if n < self.config.agree_share * len(self._still):
            flicker = self._flicker(values, counts)
            if flicker is None or n + counts[flicker[0]] < (
                    self.config.agree_share * len(self._still)):
                return None
            values, n, steady = flicker[1], n + counts[flicker[0]], False
        if not count:
            return values, None, steady
        read = sum(v is not None for v in values)
        found = count <= len(values) <= count + self.config.side_faces
        if read == count or (count - self.config.unread_dice <= read < count
                             and len(values) <= count) or (
                count < read <= count + self.config.side_faces and read == len(values)) or (
                0 < read < count and (found or read == count - 1 or (
                    len(values) == count - 1 and read >= count - 1 - self.config.unread_dice))):
            return values, likely, steady
        return None

    def _flicker(self, values: tuple, counts: Counter) -> tuple[tuple, tuple] | None:
        """The reading most still frames read otherwise than ``values`` in one die alone, at
        the same place, that die read weakly (``flicker_confidence``) in one and surely in the
        other; with the reading the sure one gives (see ``ThrowConfig.flicker_confidence``)."""
        c = self.config
        for other, _ in counts.most_common():
            if other == values or None in other or None in values or len(other) != len(values):
                continue
            mine, theirs = Counter(values) - Counter(other), Counter(other) - Counter(values)
            if mine.total() != 1 or theirs.total() != 1:
                continue
            (a,), (b,) = mine, theirs
            here = [d for _, v, d, _ in self._still if v == values]
            there = [d for _, v, d, _ in self._still if v == other]
            if not any(np.hypot(*(p - q)) <= r * c.misread_reach
                       for dice in here for p, r, v in dice if v == a
                       for others in there for q, _, w in others if w == b):
                return None
            sure_a, sure_b = self._confidence(values, a), self._confidence(other, b)
            if sure_a >= c.sure_confidence and sure_b < c.flicker_confidence:
                return other, values
            if sure_b >= c.sure_confidence and sure_a < c.flicker_confidence:
                return other, other
            return None
        return None

    def _confidence(self, values: tuple, value: int) -> float:
        """The median confidence of the least sure die reading ``value`` in the still frames
        reading ``values``."""
        return float(np.median([min(r.confidence for r in read if r.value == value)
                                for _, v, _, read in self._still if v == values]))

    def _flown(self, since: float, lying: list[np.ndarray]) -> float:
        """How far a die was seen, between the last rest and this one (``since``), from every
        place a die lay at either (``lying``: this rest's), in its still reaches."""
        lying = lying + self._rest_seen + [p for p, _, _ in self._rest_dice]
        return max((min((float(np.hypot(*(p - q))) for q in lying), default=math.inf) / reach
                    for t, _, seen in self._seen if t < since for p, reach in seen), default=0.0)

    def _hid(self, since: float, reading: tuple | None) -> bool:
        """This rest began with more dice read than it is agreed on: dice hidden since they
        landed (a hand unseen over them), not set aside - a throw seen in flight is waited
        for whole rather than counted short (bench seed 8058: 2 2 2 5 6 landed, then read as
        2 6 for 0.6 s under a hand not seen as one)."""
        agreed = Counter(v for v in reading or () if v is not None)
        for t, v, _ in self._seen:
            if t < since:
                continue
            if v == reading:
                return False
            read = Counter(w for w in v if w is not None)
            if read != agreed and not agreed - read:
                return True
        return False

    def _unseen(self, whole: bool) -> bool:
        """This clear view and the last rest's differ, die-sized, where no die was seen in
        either: a die never found lies there now (or lay there then), and the throw read may
        be short of it (bench seed 8065: a 5 beside a 6 never read in a clear frame, 1 1 4 6
        was reported, and reported sure). ``whole``: the throw is read with all the game's
        dice, and shadows past them, or things at the view's edge, are no die."""
        if self._view is None or self._rest_view is None or (
                self._view[0].shape != self._rest_view[0].shape):
            return False
        view, lo, seen = self._view
        before, _, seen_before = self._rest_view
        return self._hands.unseen((view, seen), (before, seen_before), lo, whole=whole)

    def _sure(self, values: tuple[int | None, ...]) -> bool:
        """Every die of the agreed reading read, as many as the game throws if it says, and
        the least sure of them, in the frames reading so (median), at ``sure_confidence`` or
        more (``sure_confidence_many`` for a die of ``sure_many_pips`` or more)."""
        c = self.config
        count = c.dice_count
        if None in values or (count and len(values) != count):
            return False
        # per frame reading so, the least sure die's confidence over what it needs
        margins = [min(r.confidence - (c.sure_confidence_many if r.value >= c.sure_many_pips
                                       else c.sure_confidence) for r in read)
                   for _, v, _, read in self._still if v == values and read]
        return bool(margins) and float(np.median(margins)) >= 0.0

    def _without_weakest(self, values: tuple[int | None, ...]) -> tuple[int, ...] | None:
        """All the dice read one too many: without the value most frames read with the least
        confidence, a side face's (Cuatro seed 13: 1 2 2 3 4 6 with a side face's 2 at 0.76,
        the dice at 0.83 or more, was 1 2 3 4 6 - not the lowest die dropped)."""
        if None in values or len(values) != self.config.dice_count + 1:
            return None
        weakest = Counter(min(read, key=lambda r: r.confidence).value
                          for _, v, _, read in self._still if v == values and read)
        rest = list(values)
        rest.remove(weakest.most_common(1)[0][0])
        return tuple(rest)

    def _same_dice(self, reading: tuple, values: tuple) -> bool:
        """Two readings may be of the same dice lying still: one's read dice are among the
        other's, and they differ by no more dice than may be unread or side faces."""
        a = Counter(v for v in reading if v is not None)
        b = Counter(v for v in values if v is not None)
        apart = max(self.config.unread_dice, self.config.side_faces)
        return (not a - b and (b - a).total() <= apart) or (
            not b - a and (a - b).total() <= apart)

    def _rest(self, values: tuple[int, ...], dice: list, likely: tuple[int, ...] | None = None,
              reading: tuple | None = None, sure: bool = True) -> ThrowSettled | None:
        if not values:
            return None  # no dice: wait, count nothing
        whole = bool(self.config.dice_count) and len(values) == self.config.dice_count
        sure = sure and not (self._changed and self._unseen(whole))
        if self._view is not None:
            self._rest_view = self._view
        # the frames of this rest: read as it is agreed on (not a die flying past early on)
        since = self._still_since or 0.0
        resting = [p for t, v, seen in self._seen if t >= since and v == reading for p, _ in seen]
        flown = self._flown(since, resting + [p for p, _, _ in dice]) if self._changed else 0.0
        if flown > self.config.flight_reach and self._hid(since, reading):
            flown = 0.0  # the throw is read short: wait for it whole (see _hid)
        self._seen = [f for f in self._seen
                      if f[0] >= max(since, (self._last_time or 0.0) - self.config.settle_seconds)]
        self._rest_seen = resting
        before_dice, self._rest_dice = self._rest_dice, dice
        changed, self._changed = self._changed, False
        if not changed:
            if self.resting is None:
                self.resting = values  # dice already lying there when we started
            elif _completes(values, dice, self.resting, before_dice):
                # the die the throw's rest was short of read now, nothing moved (bench seed
                # 7058: a 2 not found in the rest's first frames, 1 3 4 5 counted; when a hand
                # not seen as one hid two dice, they were new places, and 1 2 3 4 5 a throw)
                self.resting = values
                if len(values) == self.config.dice_count:
                    return ThrowSettled(values, self.throw_count, self._still_since or 0.0,
                                        read_whole=True, sure=sure)
            elif (len(values) == len(self.resting) and values != self.resting
                  and values not in self._also_read and _lie_as(dice, before_dice,
                                                                self.config.misread_reach)):
                self._also_read.append(values)
            return None
        before = self.resting
        if flown <= self.config.flight_reach and _nudged(dice, before_dice,
                                                         self.config.flight_reach,
                                                         self.config.misread_reach):
            # nothing seen in flight, every die but one lying as it lay, that one a little off
            # showing another face: a die nudged and read otherwise, no throw (bench seed 8030:
            # a 2 beside a 5 read as a 6 15 mm off until the 5 was nudged, then as a 2); before
            # the first rest, as the dice lay on the first frame (seed 8109: a 2 read 9 mm off
            # on the first frame was taken for a die landing, the dice lying there for a throw)
            if before is None:
                self.resting = values
            elif values not in self._also_read:
                self._also_read.append(values)
            return None
        if (before is not None and not self._turn_begun
                and any(_contained(values, r) for r in (before, *self._also_read))
                and not _turned(dice, before_dice)
                and (not self.config.dice_count or _kept(dice, before_dice))
                and (flown <= self.config.flight_reach or _stayed(before_dice, dice))):
            # same faces (nudged, dice put back) or some dice set aside; but dice seen in flight
            # were thrown, unless every die of the last rest still lies as it lay (a hand
            # unseen over them, fingers read as dice)
            return None
        if before is not None and _completes(values, dice, before, before_dice):
            # a die the last rest was short of is read now (or a side); not when the last
            # rest was of dice set aside (fewer than the values kept): bench seed 8058, a hand
            # unseen over a fresh throw left 2 6 of (2, 4, 6) read, and the whole throw read
            # after it, those two dice where they lay, was taken for that rest completed
            self.resting = values
            if len(values) != self.config.dice_count:
                return None
            return ThrowSettled(values, self.throw_count, self._still_since or 0.0,
                                read_whole=True, sure=sure)
        self._turn_begun = False
        self.resting, self._also_read = values, []
        self.throw_count += 1
        return ThrowSettled(values, self.throw_count, self._still_since or 0.0, likely=likely,
                            sure=sure)


def _turned(now: list, before: list) -> bool:
    """A die lies where one lay at the last rest but shows another face: it was rolled
    (a reroll may show only faces that were showing before, elsewhere)."""
    for p, _, value in now:
        there = [v for q, reach, v in before if np.hypot(*(p - q)) <= reach]
        if there and value not in there:
            return True
    return False


def _kept(now: list, before: list) -> bool:
    """Some die lies where one lay at the last rest, showing the same face: dice set aside
    leave the others lying, a throw of the game's dice moves them all (four faces of a new
    throw are often among the five before, and the same five faces come again too: Cuatro
    seed 6 with camera dice, 1 2 3 5 6 twice running)."""
    return any(any(v == value and np.hypot(*(p - q)) <= reach for q, reach, v in before)
               for p, _, value in now)


def _stayed(before: list, now: list) -> bool:
    """Every die of the last rest still lies where it lay, showing the same face."""
    return bool(before) and all(
        any(v == value and np.hypot(*(p - q)) <= reach for p, _, v in now)
        for q, reach, value in before)


def _completes(values: tuple[int, ...], dice: list, before: tuple[int, ...],
               before_dice: list) -> bool:
    """More dice read than at the last rest, which read as many dice as its values (not dice
    set aside), and every die of it still lying where it lay showing the same face."""
    return len(before_dice) == len(before) < len(values) and _stayed(before_dice, dice)


def _nudged(now: list, before: list, reach: float, lay: float = 1.0) -> bool:
    """As many dice as at the last rest, all but one lying where one lay showing the same
    face (within ``lay`` times its still reach: a die's read centre wanders by up to
    ``misread_reach`` while it lies still, bench seed 8069: 5 mm), and that one within
    ``reach`` times its still reach of where one lay."""
    if not now or len(now) != len(before):
        return False
    off = [(p, r) for p, r, value in now
           if not any(v == value and np.hypot(*(p - q)) <= reach_q * lay
                      for q, reach_q, v in before)]
    return len(off) <= 1 and all(any(np.hypot(*(p - q)) <= r * reach for q, _, _ in before)
                                 for p, r in off)


def _lie_as(now: list, before: list, reach: float) -> bool:
    """As many dice as at the last rest, each within ``reach`` times its still reach of where
    one lay: the same dice, though some may read otherwise."""
    return len(now) == len(before) and all(
        any(np.hypot(*(p - q)) <= r * reach for q, _, _ in before) for p, r, _ in now)


def _contained(values: tuple[int, ...], resting: tuple[int, ...]) -> bool:
    """Every face now showing was already showing at rest: nothing was rolled."""
    return not Counter(values) - Counter(resting)
