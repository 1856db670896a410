"""Panel pin numbers and timings, read from TOML (defaults: the packaged ``panel.toml``).

A user file only lists what it changes; it is laid over the defaults. Everything is checked up
front so a wiring mistake is one clear line at start-up, not a half-lit panel later.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

#: BCM numbers a part may use: 0 and 1 are the HAT ID EEPROM bus, above 27 is not on the header.
PIN_RANGE = range(2, 28)
MAX_SEATS = 4
MAX_THROW_LEDS = 5

#: Section -> key -> expected type. Keys not listed here are typing mistakes.
_SCHEMA: dict[str, dict[str, type | tuple[type, ...]]] = {
    "seats": {"pins": list},
    "status": {"red": int, "green": int, "blue": int, "common_anode": bool},
    "throws": {"pins": list},
    "buzzer": {"pin": int},
    "buttons": {"confirm": int, "undo": int, "menu": int,
                "debounce": (int, float), "long_press": (int, float)},
}
_TOP_LEVEL = {"simulate": bool}


class PanelConfigError(ValueError):
    """The panel config cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class PanelConfig:
    seat_pins: tuple[int, ...]
    status_pins: tuple[int, int, int]  # red, green, blue
    common_anode: bool
    throw_pins: tuple[int, ...]
    buzzer_pin: int
    button_pins: dict[str, int]  # "confirm" | "undo" | "menu" -> pin
    debounce: float
    long_press: float
    simulate: bool = False


def default_config_text() -> str:
    return resources.files("hardware").joinpath("panel.toml").read_text(encoding="utf-8")


def load_config(path: str | Path | None = None) -> PanelConfig:
    """The packaged defaults, with the file at ``path`` (if any) laid over them."""
    data = _parse(default_config_text(), "default panel.toml")
    if path is not None:
        source = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise PanelConfigError(f"panel config {source}: cannot read it ({exc.strerror})") \
                from None
        for key, value in _parse(text, source).items():
            if isinstance(value, dict):
                data.setdefault(key, {}).update(value)
            else:
                data[key] = value
    else:
        source = "default panel.toml"
    return _build(data, source)


def parse_config(text: str, source: str = "panel config") -> PanelConfig:
    """A complete config from TOML text (no defaults laid under it)."""
    return _build(_parse(text, source), source)


def _parse(text: str, source: str) -> dict[str, Any]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PanelConfigError(f"panel config {source}: not valid TOML ({exc})") from None
    for key, value in data.items():
        if key in _TOP_LEVEL:
            _check_type(source, key, value, _TOP_LEVEL[key])
            continue
        if key not in _SCHEMA:
            known = ", ".join([*_TOP_LEVEL, *(f"[{s}]" for s in _SCHEMA)])
            raise PanelConfigError(f"panel config {source}: unknown key {key!r} (known: {known})")
        if not isinstance(value, dict):
            raise PanelConfigError(f"panel config {source}: {key!r} must be a [{key}] table")
        for name, item in value.items():
            if name not in _SCHEMA[key]:
                known = ", ".join(_SCHEMA[key])
                raise PanelConfigError(
                    f"panel config {source}: unknown key {name!r} in [{key}] (known: {known})")
            _check_type(source, f"{key}.{name}", item, _SCHEMA[key][name])
    return data


def _check_type(source: str, where: str, value: Any, expected: type | tuple[type, ...]) -> None:
    # bool is an int in Python; a pin of `true` is still a mistake.
    wrong_bool = isinstance(value, bool) and expected is not bool
    if wrong_bool or not isinstance(value, expected):
        names = {bool: "true or false", int: "a whole number", list: "a list of pin numbers",
                 (int, float): "a number of seconds"}
        raise PanelConfigError(
            f"panel config {source}: {where} must be {names[expected]}, not {value!r}")


def _build(data: dict[str, Any], source: str) -> PanelConfig:
    def need(section: str, key: str) -> Any:
        try:
            return data[section][key]
        except KeyError:
            raise PanelConfigError(f"panel config {source}: {section}.{key} is missing") from None

    used: dict[int, str] = {}

    def pin(where: str, value: Any) -> int:
        _check_type(source, where, value, int)
        if value not in PIN_RANGE:
            raise PanelConfigError(
                f"panel config {source}: {where} = {value} is not a usable GPIO pin "
                f"(use GPIO {PIN_RANGE.start}-{PIN_RANGE.stop - 1}, BCM numbering)")
        if value in used:
            raise PanelConfigError(
                f"panel config {source}: pin {value} is used twice ({used[value]} and {where})")
        used[value] = where
        return value

    def pin_list(section: str, most: int) -> tuple[int, ...]:
        pins = need(section, "pins")
        if not 1 <= len(pins) <= most:
            raise PanelConfigError(
                f"panel config {source}: {section}.pins needs 1 to {most} pins, got {len(pins)}")
        return tuple(pin(f"{section}.pins[{i}]", p) for i, p in enumerate(pins))

    seats = pin_list("seats", MAX_SEATS)
    status = tuple(pin(f"status.{c}", need("status", c)) for c in ("red", "green", "blue"))
    throws = pin_list("throws", MAX_THROW_LEDS)
    buzzer = pin("buzzer.pin", need("buzzer", "pin"))
    buttons = {name: pin(f"buttons.{name}", need("buttons", name))
               for name in ("confirm", "undo", "menu")}
    debounce = float(need("buttons", "debounce"))
    long_press = float(need("buttons", "long_press"))
    if not 0 <= debounce < 1:
        raise PanelConfigError(
            f"panel config {source}: buttons.debounce = {debounce} s; use 0 to 1 second")
    if long_press <= debounce:
        raise PanelConfigError(
            f"panel config {source}: buttons.long_press = {long_press} s must be longer "
            f"than buttons.debounce = {debounce} s")
    return PanelConfig(
        seat_pins=seats,
        status_pins=status,  # type: ignore[arg-type]
        common_anode=bool(data["status"].get("common_anode", False)),
        throw_pins=throws,
        buzzer_pin=buzzer,
        button_pins=buttons,
        debounce=debounce,
        long_press=long_press,
        simulate=bool(data.get("simulate", False)),
    )
