"""A board state counts only when it holds: unoccluded and unchanged for a while.

Hands move over the board, pieces wobble while being set down and the reader
sometimes misreads one frame; the referee acts only on a reading that has stayed
the same for ``min_frames`` frames and ``min_seconds`` seconds. Each field's reading is
a vote over its last ``window`` unoccluded frames, weighted by the reader's confidence,
so a field flickering now and then (noise, an unsure reading) does not keep the whole
board from ever being steady.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, replace

from companion.infer import CONFIDENCE_DROP_AFTER_HAND, LOW_CONFIDENCE, FieldView, Observation

#: A reading's vote is its confidence, but at least this (a sure reader says 1).
MIN_WEIGHT = 0.05
#: A field's new value must outweigh its current one this many times over.
HYSTERESIS = 1.5


@dataclass
class StabilityConfig:
    min_frames: int = 3
    min_seconds: float = 0.4
    #: Frames over which each field's reading is voted (1: no vote).
    window: int = 5


class StabilityFilter:
    """Feed it every reading; it returns an observation once per stable state."""

    def __init__(self, config: StabilityConfig | None = None) -> None:
        self.config = config or StabilityConfig()
        self._recent: deque[Observation] = deque(maxlen=max(1, self.config.window))
        self._voted: dict[str, tuple[str | None, int]] | None = None
        self._key: tuple | None = None
        self._since = 0.0
        self._count = 0
        self._held = False
        self._reported: tuple | None = None
        self._hand_seen = False

    def __repr__(self) -> str:
        return f"<StabilityFilter {self._count} equal frames{', steady' if self.steady else ''}>"

    @property
    def steady(self) -> bool:
        """Whether the board has shown the same reading long enough to count, reported or not
        (what a throw waits for, so a piece set down before it is judged first)."""
        return self._count >= self.config.min_frames and self._held

    def feed(self, obs: Observation, timestamp: float) -> Observation | None:
        """The observation once it has held (the vote of its fields), else ``None``. A view
        is reported once, and again only when one of its fields newly reads with low
        confidence, or, in the first view to hold after an occluded frame, with a
        confidence lower by CONFIDENCE_DROP_AFTER_HAND. That view says so (``after_hand``)."""
        if obs.occluded or obs.hidden:
            self._hand_seen = True
            self._recent.clear()
            self._voted = None
            self._key = None
            self._count = 0
            self._held = False
            return None
        self._recent.append(obs)
        voted = self._vote()
        key = tuple(sorted((f, v.top, v.height) for f, v in voted.fields.items()))
        if key != self._key:
            self._key, self._since, self._count, self._held = key, timestamp, 1, False
            return None
        self._count += 1
        self._held = timestamp - self._since >= self.config.min_seconds
        doubtful = frozenset(("unsure", f) for f, v in voted.fields.items()
                             if v.confidence < LOW_CONFIDENCE) | frozenset(
            ("changed", f) for f in obs.looks_changed)
        reported_key, reported_doubt, reported_confidence = self._reported or (
            None, frozenset(), {})
        after_hand = self._hand_seen
        if not self.steady:
            return None
        self._hand_seen = False
        news = key != reported_key or not doubtful <= reported_doubt
        if not (news or after_hand):
            return None  # the steady view reported already: most frames end here
        same = all((v.top, v.height) == (obs.fields[f].top, obs.fields[f].height)
                   for f, v in voted.fields.items())
        view = replace(obs if same else voted, after_hand=after_hand)
        if news or any(
                reported_confidence.get(f, 0.0) - v.confidence >= CONFIDENCE_DROP_AFTER_HAND
                for f, v in view.fields.items()):
            # also when a field that read the same turns doubtful: a stone set on a tower
            # of its own colour may show only as the reader losing confidence there, or
            # (where it was unsure already) as the field's look changing or, after a hand,
            # its confidence falling further (Just 4 Fun seed 121: red's second stone on
            # D6, read 1 high at 0.55 before it and at 0.29 after it)
            self._reported = (key, doubtful, {f: v.confidence for f, v in view.fields.items()})
            return view
        return None

    def _vote(self) -> Observation:
        """Each field's reading over the recent frames, weighted by the reader's confidence,
        with hysteresis: a field keeps its value until another clearly outweighs it."""
        latest = self._recent[-1]
        voted: dict[str, tuple[str | None, int]] = {}
        fields = {}
        for name, view in latest.fields.items():
            weights: dict[tuple[str | None, int], float] = defaultdict(float)
            best: dict[tuple[str | None, int], float] = {}
            for o in self._recent:
                if name in o.fields:
                    seen = o.fields[name]
                    key = (seen.top, seen.height)
                    weights[key] += max(seen.confidence, MIN_WEIGHT)
                    best[key] = max(best.get(key, 0.0), seen.confidence)
            value = max(weights, key=weights.__getitem__)
            before = (self._voted or {}).get(name)
            if before is not None and before != value and (
                    weights.get(before, 0.0) * HYSTERESIS >= weights[value]):
                value = before
            voted[name] = value
            fields[name] = FieldView(value[0], value[1], best.get(value, view.confidence))
        self._voted = voted
        return Observation(fields, looks_changed=latest.looks_changed)

    def reset(self) -> None:
        """Forget what was reported (after an undo or a correction the same view counts again)."""
        self._reported = None
