"""The one place that chooses gpiozero's pin factory.

Real pins on a Raspberry Pi, virtual (mock) pins only when simulation is asked for. A Pi whose GPIO
library is missing is an error, never a silent switch to virtual pins: a panel that looks alive on
screen but lights nothing at the table is worse than a clear message.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from gpiozero import Factory
from gpiozero.pins.mock import MockFactory, MockPWMPin

MODEL_PATH = Path("/proc/device-tree/model")

#: Real factories in order of preference: (module, class, what provides it).
REAL_FACTORIES = (
    ("gpiozero.pins.lgpio", "LGPIOFactory", "lgpio"),
    ("gpiozero.pins.rpigpio", "RPiGPIOFactory", "RPi.GPIO (or rpi-lgpio)"),
)


class NoGPIOError(RuntimeError):
    """Real pins were needed and cannot be had; the message says what to do."""


def pi_model(model_path: Path = MODEL_PATH) -> str | None:
    """The board's model string ("Raspberry Pi 5 Model B Rev 1.0") or None when not a Pi."""
    try:
        model = Path(model_path).read_bytes().rstrip(b"\0").decode("ascii", "replace").strip()
    except OSError:
        return None
    return model if model.startswith("Raspberry Pi") else None


def make_pin_factory(simulate: bool = False, *, model_path: Path = MODEL_PATH) -> Factory:
    """Virtual pins when ``simulate``; otherwise the Pi's real pins or a clear NoGPIOError."""
    if simulate:
        return MockFactory(pin_class=MockPWMPin)
    model = pi_model(model_path)
    if model is None:
        raise NoGPIOError("no GPIO here (not a Raspberry Pi); run with --simulate to use "
                          "virtual pins")
    reasons = []
    for module_name, class_name, provider in REAL_FACTORIES:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            reasons.append(f"{provider} is not installed")
            continue
        try:
            return getattr(module, class_name)()
        except Exception as exc:  # the library is there but the chip cannot be opened
            reasons.append(f"{provider} cannot open the GPIO chip ({exc})")
    raise NoGPIOError(
        f"{model}: no usable GPIO library ({'; '.join(reasons)}); install it with "
        "`sudo apt install python3-lgpio` and a venv made with --system-site-packages, "
        "or `pip install 'board-companion[pi]'`")


def is_simulated(factory: Factory) -> bool:
    return isinstance(factory, MockFactory)
