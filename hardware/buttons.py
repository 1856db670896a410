"""Button debounce and long-press timing, in our own code.

gpiozero's ``bounce_time`` does nothing under mock pins and its hold timer runs on its own clock, so
neither can be tested. A :class:`ButtonTracker` is a small state machine fed the raw press/release
edges with timestamps (from any clock) and returning the :class:`ButtonEvent` objects they mean.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class ButtonEvent:
    """A button action the session acts on; ``time`` is when the button went down."""

    kind: str
    time: float


class ButtonTracker:
    """One button: edges closer than ``debounce`` seconds are contact bounce and ignored.

    Without ``long_press`` the event fires on the press (most responsive). With it the button
    means two things, so the event waits: released before ``long_press`` seconds gives ``kind``,
    held that long gives ``long_kind`` -- as soon as :meth:`poll` sees the hold, or at the latest
    on release.
    """

    def __init__(self, kind: str, debounce: float, long_press: float | None = None,
                 long_kind: str | None = None) -> None:
        if (long_press is None) != (long_kind is None):
            raise ValueError("long_press and long_kind go together")
        self.kind = kind
        self.debounce = debounce
        self.long_press = long_press
        self.long_kind = long_kind
        self.is_pressed = False  # the debounced state
        self._raw_pressed = False  # the last edge seen, bounce or not
        self._raw_time = -math.inf
        self._last_edge = -math.inf  # time of the last accepted edge
        self._pressed_at = -math.inf
        self._long_fired = False

    def __repr__(self) -> str:
        state = "pressed" if self.is_pressed else "released"
        return f"<ButtonTracker {self.kind} {state}>"

    def press(self, now: float) -> list[ButtonEvent]:
        self._raw_pressed, self._raw_time = True, now
        if self.is_pressed or now - self._last_edge < self.debounce:
            return []
        return self._accept_press(now)

    def release(self, now: float) -> list[ButtonEvent]:
        self._raw_pressed, self._raw_time = False, now
        if not self.is_pressed or now - self._last_edge < self.debounce:
            return []
        return self._accept_release(now)

    def poll(self, now: float) -> list[ButtonEvent]:
        """Catch up with time: a last edge that was inside the bounce window, a long hold."""
        events: list[ButtonEvent] = []
        if self._raw_pressed != self.is_pressed and now - self._last_edge >= self.debounce:
            # The contact settled in the other state; the edge happened when it was seen.
            at = max(self._raw_time, self._last_edge + self.debounce)
            events += self._accept_press(at) if self._raw_pressed else self._accept_release(at)
        if (self.is_pressed and self.long_press is not None and not self._long_fired
                and now - self._pressed_at >= self.long_press):
            self._long_fired = True
            events.append(ButtonEvent(self.long_kind, self._pressed_at))  # type: ignore[arg-type]
        return events

    def _accept_press(self, now: float) -> list[ButtonEvent]:
        self.is_pressed, self._last_edge = True, now
        self._pressed_at, self._long_fired = now, False
        return [ButtonEvent(self.kind, now)] if self.long_press is None else []

    def _accept_release(self, now: float) -> list[ButtonEvent]:
        self.is_pressed, self._last_edge = False, now
        if self.long_press is None or self._long_fired:
            return []
        held = now - self._pressed_at
        kind = self.long_kind if held >= self.long_press else self.kind
        return [ButtonEvent(kind, self._pressed_at)]  # type: ignore[arg-type]
