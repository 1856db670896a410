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
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from vision.dice import DiceConfig, DieReading, read_dice


class ThrowInputError(ValueError):
    """The throw tracker was fed something it cannot use."""


@dataclass(frozen=True)
class ThrowConfig:
    settle_seconds: float = 0.5  # dice unchanged this long count as resting
    still_fraction: float = 0.25  # a die moving less than this share of its box size is still

    @classmethod
    def from_json(cls, path: str | Path) -> ThrowConfig:
        data = json.loads(Path(path).read_text())
        unknown = sorted(set(data) - {f.name for f in fields(cls)})
        if unknown:
            raise ThrowInputError(f"unknown throw config keys: {', '.join(unknown)}")
        return cls(**data)


@dataclass(frozen=True)
class ThrowSettled:
    """The dice came to rest after a throw: the values (sorted) and which throw of the turn."""

    values: tuple[int, ...]
    throw_number: int


class ThrowTracker:
    """Feed it ``update(timestamp, readings_or_frame)`` for every frame; it returns a
    `ThrowSettled` on the frame a throw comes to rest, else None."""

    def __init__(self, config: ThrowConfig | None = None, dice_config: DiceConfig | None = None,
                 region=None) -> None:
        self.config = config or ThrowConfig()
        self.dice_config = dice_config
        self.region = region
        self.throw_count = 0
        self.resting: tuple[int, ...] | None = None  # values of the last resting state
        self._previous: list[DieReading] | None = None
        self._still_since: float | None = None
        self._last_time: float | None = None
        self._changed = False

    def __repr__(self) -> str:
        state = "moving" if self.moving else "settled"
        return f"<ThrowTracker {state} throws={self.throw_count} resting={self.resting}>"

    @property
    def moving(self) -> bool:
        """True while the dice changed within the last settle_seconds."""
        return self._changed

    def new_turn(self) -> None:
        """Start counting throws from zero; the dice lying there are not a throw."""
        self.throw_count = 0

    def update(self, timestamp: float, observed) -> ThrowSettled | None:
        if self._last_time is not None and timestamp < self._last_time:
            raise ThrowInputError(f"time went backwards: {timestamp} after {self._last_time}")
        self._last_time = timestamp
        readings = self._readings(observed)
        if self._previous is None:
            self._previous, self._still_since = readings, timestamp
            return None
        if not self._same(self._previous, readings):
            self._previous, self._still_since = readings, timestamp
            self._changed = True
            return None
        self._previous = readings
        if timestamp - self._still_since < self.config.settle_seconds:
            return None
        return self._rest(readings)

    def _readings(self, observed) -> list[DieReading]:
        if isinstance(observed, np.ndarray):
            return read_dice(observed, self.region, self.dice_config)
        try:
            readings = list(observed)
        except TypeError:
            raise ThrowInputError("feed the tracker a frame or a list of dice readings") from None
        if not all(isinstance(r, DieReading) for r in readings):
            raise ThrowInputError("feed the tracker a frame or a list of dice readings")
        return readings

    def _same(self, before: list[DieReading], now: list[DieReading]) -> bool:
        """Same dice, same faces, each within a small distance of where it was."""
        if len(before) != len(now):
            return False
        left = list(before)
        for r in now:
            reach = self.config.still_fraction * max(r.box[2], r.box[3], 1)
            match = next((b for b in left if b.value == r.value
                          and np.hypot(b.centre[0] - r.centre[0], b.centre[1] - r.centre[1])
                          <= reach), None)
            if match is None:
                return False
            left.remove(match)
        return True

    def _rest(self, readings: list[DieReading]) -> ThrowSettled | None:
        if not readings or any(r.value is None for r in readings):
            return None  # no dice, or a face we cannot read: wait, count nothing
        changed, self._changed = self._changed, False
        values = tuple(sorted(r.value for r in readings))
        if not changed:
            if self.resting is None:
                self.resting = values  # dice already lying there when we started
            return None
        before = self.resting
        if before is not None and _contained(values, before):
            return None  # same faces (nudged, dice put back) or some dice set aside
        self.resting = values
        self.throw_count += 1
        return ThrowSettled(values, self.throw_count)


def _contained(values: tuple[int, ...], resting: tuple[int, ...]) -> bool:
    """Every face now showing was already showing at rest: nothing was rolled."""
    return not Counter(values) - Counter(resting)
