"""``companion selftest``: try every LED, button, the buzzer and the camera; print a checklist.

Meant for the first evening with a freshly wired panel. On real pins a lit LED cannot be read back,
so LED lines say "look" and ask the person to watch; with --simulate every output is read back from
the virtual pins and the virtual buttons are pressed by the test itself.
"""

from __future__ import annotations

import argparse
import threading
import time
from dataclasses import dataclass

import cv2

from companion.cli import CommandError
from companion.simtable import SimTable
from hardware.camera import CameraError, FrameSource, PiCameraSource, open_source
from hardware.config import PanelConfigError, load_config
from hardware.panel import STATUS_COLOURS, Panel, PanelError
from hardware.pins import NoGPIOError, pi_model

#: Seconds each LED stays lit: long enough to see on real pins, short in simulation.
SHOW_SECONDS = {True: 0.05, False: 0.6}


@dataclass
class Check:
    result: str  # "ok" | "FAIL" | "look" | "skip"
    what: str
    detail: str = ""

    def __str__(self) -> str:
        detail = f": {self.detail}" if self.detail else ""
        return f"  [{self.result:4}] {self.what}{detail}"


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "selftest",
        help="try every LED, button, the buzzer and the camera, and print a checklist",
        description="Lights each LED in turn, asks for each button, beeps, grabs a camera frame "
        "and prints what works. With --simulate the pins are virtual and the buttons are "
        "pressed automatically. Exit code 1 if anything failed.",
    )
    parser.add_argument("--simulate", action="store_true",
                        help="use virtual pins (no Raspberry Pi needed)")
    parser.add_argument("--camera", metavar="SPEC",
                        help="picamera, usb:N, a stream URL, replay:PATH or sim (default: "
                        "picamera on a Pi, none elsewhere)")
    parser.add_argument("--panel-config", metavar="PATH",
                        help="panel pin config (TOML; default: the packaged panel.toml)")
    parser.add_argument("--timeout", type=float, default=15.0, metavar="SECONDS",
                        help="how long to wait for each button (default 15)")
    parser.add_argument("--save-frame", metavar="PATH",
                        help="write the grabbed camera frame here (.jpg or .png)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.panel_config)
    except PanelConfigError as exc:
        raise CommandError(str(exc)) from None
    simulate = args.simulate or config.simulate
    print(f"Board Companion self-test ({'virtual pins' if simulate else 'real pins'})",
          flush=True)
    checks: list[Check] = []
    try:
        panel = Panel(config, simulate=simulate)
    except (NoGPIOError, PanelError) as exc:
        checks.append(_report(Check("FAIL", "GPIO pins", str(exc))))
    else:
        with panel:
            checks.append(_report(Check("ok", "GPIO pins", type(panel.pin_factory).__name__)))
            checks += _check_outputs(panel, SHOW_SECONDS[panel.simulated])
            checks += _check_buttons(panel, args.timeout)
    checks.append(_report(_check_camera(args.camera, args.save_frame)))
    failed = sum(c.result == "FAIL" for c in checks)
    passed = sum(c.result == "ok" for c in checks)
    print(f"{passed} ok, {failed} failed, {sum(c.result == 'look' for c in checks)} to check by "
          f"eye or ear, {sum(c.result == 'skip' for c in checks)} skipped")
    return 1 if failed else 0


def _report(check: Check) -> Check:
    print(check, flush=True)
    return check


def _lit(simulated: bool, ok: bool, what: str, detail: str) -> Check:
    if not simulated:
        return _report(Check("look", what, f"{detail} - did it light?"))
    return _report(Check("ok" if ok else "FAIL", what, detail if ok else f"{detail} stayed dark"))


def _check_outputs(panel: Panel, show: float) -> list[Check]:
    config, sim = panel.config, panel.simulated
    checks = []
    for seat, pin in enumerate(config.seat_pins):
        panel.show_turn(seat)
        seats = [s["lit"] for s in panel.virtual_state()["seats"]]
        checks.append(_lit(sim, seats == [i == seat for i in range(len(seats))],
                           f"seat LED {seat + 1}", f"GPIO{pin}"))
        time.sleep(show)
    panel.show_turn(None)
    for status, colour in (("ok", "green"), ("illegal", "red"), ("waiting", "amber")):
        panel.show_status(status)
        rgb = panel.virtual_state()["status"]["rgb"]
        checks.append(_lit(sim, rgb == list(STATUS_COLOURS[status]), f"status LED {colour}",
                           "GPIO" + "/".join(map(str, config.status_pins))))
        time.sleep(show)
    panel.show_status("off")
    for count, pin in enumerate(config.throw_pins, start=1):
        panel.show_throws(count)
        lit = panel.virtual_state()["throws"]["lit"]
        checks.append(_lit(sim, lit == [i < count for i in range(len(lit))],
                           f"throw LED {count}", f"GPIO{pin}"))
        time.sleep(show)
    panel.show_throws(0)
    panel.flag_illegal("self-test beep")
    heard = _wait_for(lambda: panel.virtual_state()["buzzer"]["playing"], 0.5)
    buzzer = f"GPIO{config.buzzer_pin}"
    if sim:
        checks.append(_report(Check("ok" if heard else "FAIL", "buzzer", buzzer)))
    else:
        checks.append(_report(Check("look", "buzzer", f"{buzzer} - did it beep?")))
    time.sleep(0.4)
    panel.show_status("off")
    return checks


def _check_buttons(panel: Panel, timeout: float) -> list[Check]:
    config = panel.config
    steps = [("confirm", "press CONFIRM", "confirm", 0.1), ("undo", "press UNDO", "undo", 0.1),
             ("menu", "press MENU", "menu", 0.1),
             ("confirm", f"hold CONFIRM for {config.long_press:g} s (\"I cannot play\")",
              "cannot_play", config.long_press + 0.2)]
    checks = []
    list(panel.events())  # forget presses made before the test asked
    for button, prompt, expected, hold in steps:
        what = f"{button} button" if expected != "cannot_play" else "long press of confirm"
        print(f"  ...  {prompt} (within {timeout:g} s)", flush=True)
        if panel.simulated:
            threading.Thread(target=_press_virtually, args=(panel, button, hold),
                             daemon=True).start()
        event = panel.get_event(timeout=timeout)
        if event is None:
            checks.append(_report(Check("FAIL", what, f"GPIO{config.button_pins[button]}: "
                                        f"nothing within {timeout:g} s")))
        elif event.kind != expected:
            checks.append(_report(Check("FAIL", what, f"got {event.kind} instead")))
        else:
            checks.append(_report(Check("ok", what, f"GPIO{config.button_pins[button]}")))
        _wait_for(lambda b=button: not panel.virtual_state()["buttons"][b], timeout)
    return checks


def _press_virtually(panel: Panel, button: str, hold: float) -> None:
    time.sleep(0.05)
    panel.press(button)
    time.sleep(hold)
    panel.release(button)


def _wait_for(condition, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() >= end:
            return False
        time.sleep(0.01)
    return True


def _simulated_table() -> FrameSource:
    return SimTable("muehle", ["white", "black"], seed=1).source()


def _check_camera(spec: str | None, save_to: str | None) -> Check:
    if spec is None:
        if pi_model() is None:
            return Check("skip", "camera", "none given (--camera usb:0, replay:PATH, ...)")
        spec = "picamera"
    try:
        source = open_source(spec, sim_factory=_simulated_table)
        with source:
            frame = source.read()
    except CameraError as exc:
        return Check("FAIL", f"camera {spec}", str(exc))
    if frame is None:
        return Check("FAIL", f"camera {spec}", "opened but gave no frame")
    height, width = frame.image.shape[:2]
    detail = f"{width}x{height} frame, mean brightness {frame.image.mean():.0f} of 255"
    if isinstance(source, PiCameraSource):
        locked = source.locked_controls
        detail += (f", exposure locked at {locked['ExposureTime']} us, "
                   f"gain {locked['AnalogueGain']:.2f}")
    if save_to:
        try:
            written = cv2.imwrite(save_to, frame.image)
        except cv2.error:
            written = False
        if not written:
            return Check("FAIL", f"camera {spec}", f"{detail}; cannot write {save_to}")
        detail += f", saved to {save_to}"
    return Check("ok", f"camera {spec}", detail)
