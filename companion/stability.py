"""A board state counts only when it holds: unoccluded and unchanged for a while.

Hands move over the board, pieces wobble while being set down and the reader
sometimes misreads one frame; the referee acts only on a reading that has stayed
the same for ``min_frames`` frames and ``min_seconds`` seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.infer import Observation


@dataclass
class StabilityConfig:
    min_frames: int = 3
    min_seconds: float = 0.4


class StabilityFilter:
    """Feed it every reading; it returns an observation once per stable state."""

    def __init__(self, config: StabilityConfig | None = None) -> None:
        self.config = config or StabilityConfig()
        self._key: tuple | None = None
        self._since = 0.0
        self._count = 0
        self._reported: tuple | None = None

    def __repr__(self) -> str:
        return f"<StabilityFilter {self._count} equal frames>"

    def feed(self, obs: Observation, timestamp: float) -> Observation | None:
        if obs.occluded or obs.hidden:
            self._key = None
            self._count = 0
            return None
        key = tuple(sorted((f, v.top, v.height) for f, v in obs.fields.items()))
        if key != self._key:
            self._key, self._since, self._count = key, timestamp, 1
            return None
        self._count += 1
        held = timestamp - self._since >= self.config.min_seconds
        if held and self._count >= self.config.min_frames and key != self._reported:
            self._reported = key
            return obs
        return None

    def reset(self) -> None:
        """Forget what was reported (after an undo or a correction the same view counts again)."""
        self._reported = None
