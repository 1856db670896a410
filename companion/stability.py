"""A board state counts only when it holds: unoccluded and unchanged for a while.

Hands move over the board, pieces wobble while being set down and the reader
sometimes misreads one frame; the referee acts only on a reading that has stayed
the same for ``min_frames`` frames and ``min_seconds`` seconds. Each field's reading is
the majority of its last ``window`` unoccluded frames, so one field flickering now and
then (noise, a reflection) does not keep the whole board from ever being steady.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass

from companion.infer import FieldView, Observation


@dataclass
class StabilityConfig:
    min_frames: int = 3
    min_seconds: float = 0.4
    #: Frames over which each field's reading is a majority vote (1: no vote).
    window: int = 5


class StabilityFilter:
    """Feed it every reading; it returns an observation once per stable state."""

    def __init__(self, config: StabilityConfig | None = None) -> None:
        self.config = config or StabilityConfig()
        self._recent: deque[Observation] = deque(maxlen=max(1, self.config.window))
        self._key: tuple | None = None
        self._since = 0.0
        self._count = 0
        self._reported: tuple | None = None

    def __repr__(self) -> str:
        return f"<StabilityFilter {self._count} equal frames>"

    def feed(self, obs: Observation, timestamp: float) -> Observation | None:
        if obs.occluded or obs.hidden:
            self._recent.clear()
            self._key = None
            self._count = 0
            return None
        self._recent.append(obs)
        voted = self._vote()
        if voted is None:
            self._key = None
            self._count = 0
            return None
        key = tuple(sorted((f, v.top, v.height) for f, v in voted.fields.items()))
        if key != self._key:
            self._key, self._since, self._count = key, timestamp, 1
            return None
        self._count += 1
        held = timestamp - self._since >= self.config.min_seconds
        if held and self._count >= self.config.min_frames and key != self._reported:
            self._reported = key
            same = all((v.top, v.height) == (obs.fields[f].top, obs.fields[f].height)
                       for f, v in voted.fields.items())
            return obs if same else voted
        return None

    def _vote(self) -> Observation | None:
        """Each field's majority reading over the recent frames; None if a field has none."""
        latest = self._recent[-1]
        if len(self._recent) == 1:
            return latest
        fields = {}
        for name in latest.fields:
            votes = Counter((o.fields[name].top, o.fields[name].height)
                            for o in self._recent if name in o.fields)
            (top, height), count = votes.most_common(1)[0]
            if 2 * count <= sum(votes.values()):
                return None
            confidence = max(o.fields[name].confidence for o in self._recent
                             if name in o.fields and (o.fields[name].top, o.fields[name].height)
                             == (top, height))
            fields[name] = FieldView(top, height, confidence)
        return Observation(fields)

    def reset(self) -> None:
        """Forget what was reported (after an undo or a correction the same view counts again)."""
        self._reported = None
