"""Pin factory choice: real pins on a Pi, virtual pins only when asked for, never silently."""

import sys
import types

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware import pins
from hardware.pins import NoGPIOError, make_pin_factory, pi_model


@pytest.fixture
def pi_5(tmp_path):
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\x00")
    return model


@pytest.fixture
def no_gpio_libraries(monkeypatch):
    """Make importing lgpio and RPi.GPIO fail, as on a Pi where neither is installed."""
    for name in ("lgpio", "RPi", "RPi.GPIO"):
        monkeypatch.setitem(sys.modules, name, None)
    for name, _, _ in pins.REAL_FACTORIES:
        monkeypatch.delitem(sys.modules, name, raising=False)


def test_pi_model_reads_the_device_tree(pi_5, tmp_path):
    assert pi_model(pi_5) == "Raspberry Pi 5 Model B Rev 1.0"
    other = tmp_path / "other"
    other.write_text("Some Other Board\x00")
    assert pi_model(other) is None
    assert pi_model(tmp_path / "missing") is None


def test_simulate_gives_virtual_pwm_pins(pi_5):
    factory = make_pin_factory(simulate=True, model_path=pi_5)
    assert isinstance(factory, MockFactory)
    assert factory.pin_class is MockPWMPin


def test_not_a_pi_without_simulate_is_a_clear_error(tmp_path):
    with pytest.raises(NoGPIOError) as info:
        make_pin_factory(model_path=tmp_path / "missing")
    assert str(info.value) == ("no GPIO here (not a Raspberry Pi); run with --simulate to use "
                               "virtual pins")


def test_a_pi_without_its_gpio_library_is_an_error_not_virtual_pins(pi_5, no_gpio_libraries):
    with pytest.raises(NoGPIOError) as info:
        make_pin_factory(model_path=pi_5)
    message = str(info.value)
    assert message.startswith("Raspberry Pi 5 Model B Rev 1.0: no usable GPIO library")
    assert "lgpio is not installed" in message
    assert "python3-lgpio" in message


def test_a_pi_uses_lgpio_first_then_rpigpio(pi_5, no_gpio_libraries, monkeypatch):
    made = []

    def fake_module(name, class_name):
        module = types.ModuleType(name)
        setattr(module, class_name, type(class_name, (), {"__init__": lambda s: made.append(s)}))
        return module

    monkeypatch.setitem(sys.modules, "gpiozero.pins.rpigpio",
                        fake_module("gpiozero.pins.rpigpio", "RPiGPIOFactory"))
    assert type(make_pin_factory(model_path=pi_5)).__name__ == "RPiGPIOFactory"
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio",
                        fake_module("gpiozero.pins.lgpio", "LGPIOFactory"))
    assert type(make_pin_factory(model_path=pi_5)).__name__ == "LGPIOFactory"
    assert len(made) == 2


def test_a_gpio_chip_that_cannot_open_is_reported(pi_5, no_gpio_libraries, monkeypatch):
    module = types.ModuleType("gpiozero.pins.lgpio")

    class LGPIOFactory:
        def __init__(self):
            raise OSError("permission denied")

    module.LGPIOFactory = LGPIOFactory
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", module)
    with pytest.raises(NoGPIOError, match=r"lgpio cannot open the GPIO chip \(permission denied"):
        make_pin_factory(model_path=pi_5)
