"""The only package that touches the Raspberry Pi's GPIO pins or a camera.

Standalone on purpose: it imports nothing from companion, vision or web, so it can be tried and
tested on its own, with virtual pins and recorded frames when no Pi is at hand.
"""

from hardware.buttons import ButtonEvent
from hardware.camera import CameraError, Frame, FrameSource, FunctionSource, open_source
from hardware.config import PanelConfig, PanelConfigError, load_config
from hardware.panel import Panel, PanelError
from hardware.pins import NoGPIOError, make_pin_factory

__all__ = [
    "ButtonEvent", "CameraError", "Frame", "FrameSource", "FunctionSource", "NoGPIOError",
    "Panel", "PanelConfig", "PanelConfigError", "PanelError", "load_config", "make_pin_factory",
    "open_source",
]
