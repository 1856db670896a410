"""Panel config: packaged defaults, overrides, and one clear line for every broken file."""

import pytest

from hardware.config import PanelConfigError, default_config_text, load_config, parse_config


def test_defaults_are_complete_and_distinct():
    config = load_config()
    assert config == parse_config(default_config_text())
    assert len(config.seat_pins) == 4
    assert len(config.throw_pins) == 5
    assert set(config.button_pins) == {"confirm", "undo", "menu"}
    pins = [*config.seat_pins, *config.status_pins, *config.throw_pins, config.buzzer_pin,
            *config.button_pins.values()]
    assert len(pins) == len(set(pins)) == 16
    assert all(2 <= p <= 27 for p in pins)
    assert config.long_press > config.debounce > 0
    assert config.simulate is False


def test_a_user_file_overrides_only_what_it_lists(tmp_path):
    path = tmp_path / "panel.toml"
    path.write_text("simulate = true\n[seats]\npins = [2, 3]\n[buttons]\nlong_press = 0.8\n")
    config = load_config(path)
    assert config.seat_pins == (2, 3)
    assert config.long_press == 0.8
    assert config.simulate is True
    assert config.button_pins == load_config().button_pins


@pytest.mark.parametrize(("text", "words"), [
    ("[buttons]\nconfrim = 5\n", "unknown key 'confrim' in [buttons]"),
    ("[leds]\npins = [5]\n", "unknown key 'leds'"),
    ("[buzzer]\npin = 23\n", "pin 23 is used twice (buzzer.pin and buttons.confirm)"),
    ("[seats]\npins = [4, 4]\n", "pin 4 is used twice (seats.pins[0] and seats.pins[1])"),
    ("[buzzer]\npin = 40\n", "buzzer.pin = 40 is not a usable GPIO pin (use GPIO 2-27"),
    ("[buzzer]\npin = 1\n", "buzzer.pin = 1 is not a usable GPIO pin"),
    ("[buzzer]\npin = \"GPIO18\"\n", "buzzer.pin must be a whole number"),
    ("[status]\nred = true\n", "status.red must be a whole number"),
    ("[seats]\npins = [5, 6, 7, 8, 9]\n", "seats.pins needs 1 to 4 pins, got 5"),
    ("[throws]\npins = []\n", "throws.pins needs 1 to 5 pins, got 0"),
    ("[buttons]\nlong_press = 0.01\n", "long_press = 0.01 s must be longer than"),
    ("[buttons\n", "not valid TOML"),
    ("simulate = \"yes\"\n", "simulate must be true or false"),
])
def test_broken_configs_say_what_is_wrong_in_one_line(tmp_path, text, words):
    path = tmp_path / "panel.toml"
    path.write_text(text)
    with pytest.raises(PanelConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert words in message
    assert str(path) in message
    assert "\n" not in message


def test_missing_file_and_missing_key(tmp_path):
    with pytest.raises(PanelConfigError, match="cannot read it"):
        load_config(tmp_path / "nope.toml")
    text = default_config_text().replace("pin = 18", "")
    with pytest.raises(PanelConfigError, match="buzzer.pin is missing"):
        parse_config(text)
