"""The table panel: seat LEDs, a status RGB LED, the throw bar, a buzzer and three buttons.

The session drives it through a few game-level calls (:meth:`Panel.show_turn`,
:meth:`Panel.flag_illegal`, ...) and reads button actions from :meth:`Panel.get_event`; it never
touches gpiozero. gpiozero calls button callbacks on its own threads, so presses go through a
:class:`~hardware.buttons.ButtonTracker` onto a queue that the session loop consumes.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from gpiozero import LED, RGBLED, DigitalInputDevice, Factory, LEDBarGraph, TonalBuzzer

from hardware.buttons import ButtonEvent, ButtonTracker
from hardware.config import PanelConfig, load_config
from hardware.pins import is_simulated, make_pin_factory

BUTTONS = ("confirm", "undo", "menu")

#: Status name -> (red, green, blue) brightness. Amber needs PWM on the green leg.
STATUS_COLOURS = {
    "ok": (0.0, 1.0, 0.0),
    "illegal": (1.0, 0.0, 0.0),
    "waiting": (1.0, 0.35, 0.0),
    "off": (0.0, 0.0, 0.0),
}
COLOUR_NAMES = {"ok": "green", "illegal": "red", "waiting": "amber", "off": "off"}

#: Tunes are (note or None for a rest, seconds); notes stay within TonalBuzzer's A3-A5.
ILLEGAL_BEEP = (("A3", 0.12), (None, 0.06), ("A3", 0.12))
WINNER_TUNE = (("C4", 0.15), ("E4", 0.15), ("G4", 0.15), ("C5", 0.45))
DRAW_TUNE = (("G4", 0.25), ("C4", 0.5))

Tune = Iterable[tuple[str | None, float]]


class PanelError(RuntimeError):
    """The panel cannot do what was asked (pins busy, a virtual press on real pins, ...)."""


class Panel:
    """All panel devices, made on one pin factory; a context manager that closes them all.

    ``clock`` timestamps button edges (inject a fake one in tests); ``sleep`` paces tunes when
    ``background`` is False -- then tunes play synchronously, which tests use to follow the notes.
    """

    #: Seconds on and off for the game-over blinking.
    blink_seconds = 0.4
    #: How often a waiting :meth:`get_event` looks for long presses (seconds).
    poll_seconds = 0.02

    def __init__(self, config: PanelConfig | None = None, pin_factory: Factory | None = None, *,
                 simulate: bool | None = None, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Any] = time.sleep, background: bool = True) -> None:
        self.config = config = config if config is not None else load_config()
        self._owns_factory = pin_factory is None  # then close() releases the GPIO chip too
        if pin_factory is None:
            pin_factory = make_pin_factory(config.simulate if simulate is None else simulate)
        self.pin_factory = pin_factory
        self.simulated = is_simulated(pin_factory)
        self._clock = clock
        self._sleep = sleep
        self._background = background
        self._events: queue.Queue[ButtonEvent] = queue.Queue()
        self._lock = threading.Lock()
        self._trackers = {
            "confirm": ButtonTracker("confirm", config.debounce, config.long_press, "cannot_play"),
            "undo": ButtonTracker("undo", config.debounce),
            "menu": ButtonTracker("menu", config.debounce),
        }
        self._tune_thread: threading.Thread | None = None
        self._tune_stop = threading.Event()
        self._devices: list[Any] = []
        self._seat: int | None = None
        self._status = "off"
        self._throws = 0
        self._reason: str | None = None
        self._winners: tuple[int, ...] | None = None
        self._blinking: set[int] = set()
        self.closed = False
        try:
            self._seats = [self._add(LED(p, pin_factory=pin_factory)) for p in config.seat_pins]
            self._status_led = self._add(RGBLED(
                *config.status_pins, active_high=not config.common_anode, pwm=True,
                pin_factory=pin_factory))
            self._bar = self._add(LEDBarGraph(*config.throw_pins, pin_factory=pin_factory))
            self._buzzer = self._add(TonalBuzzer(config.buzzer_pin, pin_factory=pin_factory))
            self._buttons = {}
            for name in BUTTONS:
                # Not gpiozero's Button: its hold thread and bounce_time are what the trackers
                # replace, and the thread makes every close() wait.
                button = self._add(DigitalInputDevice(config.button_pins[name], pull_up=True,
                                                      pin_factory=pin_factory))
                button.when_activated = self._edge_handler(name, pressed=True)
                button.when_deactivated = self._edge_handler(name, pressed=False)
                self._buttons[name] = button
        except Exception as exc:
            self.close()
            raise PanelError(f"cannot set up the panel: {exc}") from exc

    def _add(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    # -- what the session calls -------------------------------------------------------------

    def show_turn(self, seat: int | None) -> None:
        """Light the LED of ``seat`` (0-based, in player order) alone; None lights none."""
        if seat is not None:
            self._check_seat(seat)
        self._winners = None
        self._blinking = set()
        for i, led in enumerate(self._seats):
            led.value = i == seat
        self._seat = seat

    def show_status(self, status: str) -> None:
        """``"ok"`` green, ``"illegal"`` red, ``"waiting"`` amber (board unreadable), ``"off"``."""
        if status not in STATUS_COLOURS:
            raise ValueError(f"status {status!r}: use one of {', '.join(STATUS_COLOURS)}")
        self._status_led.color = STATUS_COLOURS[status]
        self._status = status
        if status != "illegal":
            self._reason = None

    def flag_illegal(self, reason: str) -> None:
        """Red light and a short beep; the reason itself is for the web page and the log."""
        self.show_status("illegal")
        self._reason = reason
        self._play(ILLEGAL_BEEP)

    def show_throws(self, count: int) -> None:
        """Light ``count`` LEDs of the throw bar (0 clears it)."""
        leds = len(self._bar)
        if not 0 <= count <= leds:
            raise ValueError(f"throw count {count}: the throw bar shows 0 to {leds}")
        self._bar.value = count / leds
        self._throws = count

    def celebrate(self, winners: Iterable[int]) -> None:
        """Game over: the winners' seat LEDs and the status LED blink green, and a tune plays.

        No winners (a draw) blinks every seat and the status LED amber, with a shorter tune.
        """
        winners = tuple(winners)
        for seat in winners:
            self._check_seat(seat)
        self._seat = None
        self._winners = winners
        self._bar.off()
        self._throws = 0
        self._blinking = set(winners) if winners else set(range(len(self._seats)))
        on, off = self.blink_seconds, self.blink_seconds
        for i, led in enumerate(self._seats):
            if i in self._blinking:
                led.blink(on_time=on, off_time=off)
            else:
                led.off()
        colour = "ok" if winners else "waiting"
        self._status_led.blink(on_time=on, off_time=off, on_color=STATUS_COLOURS[colour])
        self._status = colour
        self._play(WINNER_TUNE if winners else DRAW_TUNE)

    def get_event(self, timeout: float | None = None) -> ButtonEvent | None:
        """The next button action, waiting up to ``timeout`` seconds (None: until one comes)."""
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            self._poll()
            wait = self.poll_seconds if end is None else min(self.poll_seconds,
                                                              end - time.monotonic())
            try:
                return self._events.get(timeout=max(wait, 0.0))
            except queue.Empty:
                if end is not None and time.monotonic() >= end:
                    return None

    def events(self) -> Iterator[ButtonEvent]:
        """The button actions waiting now, oldest first, without blocking."""
        self._poll()
        while True:
            try:
                yield self._events.get_nowait()
            except queue.Empty:
                return

    # -- simulate mode ----------------------------------------------------------------------

    def press(self, button: str) -> None:
        """Push a virtual button (simulate mode): drives its mock pin low like a real contact."""
        self._virtual_pin(button).drive_low()

    def release(self, button: str) -> None:
        self._virtual_pin(button).drive_high()

    def _virtual_pin(self, button: str) -> Any:
        if button not in BUTTONS:
            raise ValueError(f"no button {button!r}: use {', '.join(BUTTONS)}")
        if not self.simulated:
            raise PanelError("virtual buttons exist only in simulate mode (--simulate)")
        if self.closed:
            raise PanelError("the panel is closed")
        return self._buttons[button].pin

    def virtual_state(self) -> dict[str, Any]:
        """What every LED, the buzzer and the buttons are doing now, as JSON-ready data.

        ``leds`` is the flat view a page draws (name -> lit, or an [r, g, b] colour for the
        status LED); the other keys give the same with pins, names and blinking.
        """
        if self.closed:
            return {"simulated": self.simulated, "closed": True}
        tone = self._buzzer.tone
        rgb = list(self._status_led.value)
        leds: dict[str, Any] = {f"seat {i + 1}": bool(led.value)
                                for i, led in enumerate(self._seats)}
        leds["status"] = rgb if any(rgb) else 0  # a colour, or dark
        leds |= {f"throw {i + 1}": bool(led.value) for i, led in enumerate(self._bar)}
        leds["buzzer"] = tone is not None
        return {
            "leds": leds,
            "simulated": self.simulated,
            "closed": False,
            "turn": self._seat,
            "seats": [{"pin": pin, "lit": bool(led.value), "blinking": i in self._blinking}
                      for i, (pin, led) in enumerate(zip(self.config.seat_pins, self._seats,
                                                         strict=True))],
            "status": {"name": self._status, "colour": COLOUR_NAMES[self._status],
                       "rgb": rgb,
                       "blinking": self._winners is not None, "reason": self._reason},
            "throws": {"count": self._throws, "lit": [bool(led.value) for led in self._bar]},
            "buzzer": {"playing": tone is not None,
                       "note": tone.note if tone is not None else None,
                       "frequency": round(tone.frequency, 1) if tone is not None else None},
            "buttons": {name: tracker.is_pressed for name, tracker in self._trackers.items()},
            "winners": list(self._winners) if self._winners is not None else None,
        }

    # -- plumbing ---------------------------------------------------------------------------

    def _check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or not 0 <= seat < len(self._seats):
            raise ValueError(f"seat {seat!r} has no LED: this panel has seats 0 to "
                             f"{len(self._seats) - 1}")

    def _edge_handler(self, name: str, pressed: bool) -> Callable[[], None]:
        tracker = self._trackers[name]

        def handle() -> None:
            with self._lock:
                now = self._clock()
                events = tracker.press(now) if pressed else tracker.release(now)
            for event in events:
                self._events.put(event)

        return handle

    def _poll(self) -> None:
        with self._lock:
            now = self._clock()
            events = [e for tracker in self._trackers.values() for e in tracker.poll(now)]
        for event in events:
            self._events.put(event)

    def _play(self, tune: Tune) -> None:
        self._stop_tune()
        if not self._background:
            self._run_tune(tune, self._sleep)
            return
        self._tune_stop = threading.Event()
        self._tune_thread = threading.Thread(
            target=self._run_tune, args=(tune, self._tune_stop.wait), name="panel-tune",
            daemon=True)
        self._tune_thread.start()

    def _run_tune(self, tune: Tune, wait: Callable[[float], Any]) -> None:
        try:
            for note, seconds in tune:
                if note is None:
                    self._buzzer.stop()
                else:
                    self._buzzer.play(note)
                if wait(seconds):  # Event.wait is True once the tune is cut short
                    break
        finally:
            self._buzzer.stop()

    def _stop_tune(self) -> None:
        self._tune_stop.set()
        if self._tune_thread is not None:
            self._tune_thread.join(timeout=2)
            self._tune_thread = None

    def close(self) -> None:
        """Stop the tune and release every pin (all LEDs go dark). Safe to call twice."""
        if self.closed:
            return
        self._stop_tune()
        for device in reversed(self._devices):
            device.close()
        if self._owns_factory:
            self.pin_factory.close()
        self.closed = True

    def __enter__(self) -> Panel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        if self.closed:
            return "<Panel closed>"
        seat = "none" if self._seat is None else str(self._seat)
        parts = [f"seat={seat}", f"status={self._status} ({COLOUR_NAMES[self._status]})",
                 f"throws={self._throws}/{len(self._bar)}"]
        if self._winners is not None:
            parts.append(f"winners={list(self._winners)}")
        if self.simulated:
            parts.append("simulated")
        return f"<Panel {' '.join(parts)}>"
