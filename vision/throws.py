"""Count throws from a stream of dice readings: a throw is counted once, when the dice come to
rest showing different values from the last resting state.

Why values and not motion alone: a nudged die, a hand passing over the dice, or dice set aside
and put back all move things without a throw; a roll is what changes the faces. A reroll that
by chance shows the very same values again (or the same values as dice set aside) is therefore
not seen as a throw - the one case this rule misses.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field, fields
from pathlib import Path

import cv2
import numpy as np

from vision.dice import DiceConfig, DieReading, read_dice


class ThrowInputError(ValueError):
    """The throw tracker was fed something it cannot use."""


@dataclass(frozen=True)
class ThrowConfig:
    settle_seconds: float = 0.5  # dice lying still this long count as resting
    still_mm: float = 4.0  # a die moved less than this on the table (a nudge) has not moved
    still_fraction: float = 0.25  # the same in box sizes, when the table's mm are not known
    agree_share: float = 0.6  # share of the still frames that must read the same values
    dice_count: int = 0  # a rest shows this many dice (0: any number)

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
    hand may already have moved on to the board)."""

    values: tuple[int, ...]
    throw_number: int
    rested_at: float = field(default=0.0, compare=False)


class ThrowTracker:
    """Feed it ``update(timestamp, readings_or_frame)`` for every frame; it returns a
    `ThrowSettled` on the frame a throw comes to rest, else None.

    Motion is judged by where the dice are, not by pixels changing: a new place is one farther
    than ``still_mm`` from every place a die lay within ``settle_seconds``; the dice move when
    new places show two frames running, or a die stays at a new place for a second frame. A
    die hidden by a hand or missed for a frame, a stray unread pattern, or a misread die whose
    centre flips between two places is no motion. Once
    nothing has moved for ``settle_seconds``, the values read in at least ``agree_share`` of
    those still frames are the resting values, so a misread frame now and then does not hold
    the count back.
    ``region`` / ``region_mm`` (the dice area's corners in frame pixels and table mm) let it
    measure in mm and read frames fed to it; they may be changed between frames."""

    def __init__(self, config: ThrowConfig | None = None, dice_config: DiceConfig | None = None,
                 region=None, region_mm=None) -> None:
        self.config = config or ThrowConfig()
        self.dice_config = dice_config
        self.region = region
        self.region_mm = region_mm
        self.throw_count = 0
        self.resting: tuple[int, ...] | None = None  # values of the last resting state
        self._places: list[tuple[float, np.ndarray, float]] = []  # (last seen, place, reach)
        self._fresh: list[tuple[np.ndarray, float]] = []  # new places in the last frame
        self._previous_time = 0.0
        self._still: list[tuple[float, tuple[int | None, ...]]] = []  # (time, values) since
        self._still_since: float | None = None
        self._last_time: float | None = None
        self._changed = False

    def __repr__(self) -> str:
        state = "moving" if self.moving else "settled"
        return f"<ThrowTracker {state} throws={self.throw_count} resting={self.resting}>"

    @property
    def moving(self) -> bool:
        """True from a movement until the dice have come to rest again."""
        return self._changed

    def new_turn(self) -> None:
        """Start counting throws from zero; the dice lying there are not a throw."""
        self.throw_count = 0

    def update(self, timestamp: float, observed) -> ThrowSettled | None:
        if self._last_time is not None and timestamp < self._last_time:
            raise ThrowInputError(f"time went backwards: {timestamp} after {self._last_time}")
        self._last_time = timestamp
        readings = self._readings(observed)
        places = self._places_of([r for r in readings if r.value is not None])
        values = tuple(sorted((r.value for r in readings), key=lambda v: v or 0))
        read = tuple(v for v in values if v is not None)
        if self.config.dice_count and len(read) == self.config.dice_count:
            values = read  # all the game's dice read: an unread pattern besides is a stray
        new = [(p, r) for p, r in places if self._new([(p, r)])]
        stayed = any(np.hypot(*(p - q)) <= r for q, r in self._fresh for p, _ in places)
        started = self._still_since is not None
        if not started or (new and self._fresh):
            self._changed = self._changed or started
            self._still_since, self._still = timestamp, []
        elif stayed:  # a die landed (or was put) there on the last frame
            self._changed = True
            self._still_since = self._previous_time
            self._still = [(t, v) for t, v in self._still if t >= self._previous_time]
        self._fresh = new if started else []
        self._previous_time = timestamp
        self._remember(timestamp, places)
        self._still = [(t, v) for t, v in self._still
                       if t >= timestamp - self.config.settle_seconds] + [(timestamp, values)]
        if timestamp - self._still_since < self.config.settle_seconds:
            return None
        agreed = self._agreed()
        return None if agreed is None else self._rest(agreed)

    def _readings(self, observed) -> list[DieReading]:
        if isinstance(observed, np.ndarray):
            return read_dice(observed, self.region, self.dice_config, self.region_mm)
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

    def _agreed(self) -> tuple[int, ...] | None:
        """The values most still frames read, if enough agree, every die is read and there
        are as many dice as the game throws."""
        counts = Counter(v for _, v in self._still)
        values, n = counts.most_common(1)[0]
        if n < self.config.agree_share * len(self._still) or None in values:
            return None
        if self.config.dice_count and len(values) != self.config.dice_count:
            return None
        return values  # type: ignore[return-value]

    def _rest(self, values: tuple[int, ...]) -> ThrowSettled | None:
        if not values:
            return None  # no dice: wait, count nothing
        changed, self._changed = self._changed, False
        if not changed:
            if self.resting is None:
                self.resting = values  # dice already lying there when we started
            return None
        before = self.resting
        if before is not None and _contained(values, before):
            return None  # same faces (nudged, dice put back) or some dice set aside
        self.resting = values
        self.throw_count += 1
        return ThrowSettled(values, self.throw_count, self._still_since or 0.0)


def _contained(values: tuple[int, ...], resting: tuple[int, ...]) -> bool:
    """Every face now showing was already showing at rest: nothing was rolled."""
    return not Counter(values) - Counter(resting)
