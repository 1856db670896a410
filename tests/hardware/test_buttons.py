"""Debounce and long-press timing of one button, driven with explicit timestamps."""

import pytest

from hardware.buttons import ButtonEvent, ButtonTracker


def confirm_tracker() -> ButtonTracker:
    return ButtonTracker("confirm", debounce=0.05, long_press=1.5, long_kind="cannot_play")


def test_plain_button_fires_once_on_press_and_ignores_bounce():
    undo = ButtonTracker("undo", debounce=0.05)
    events = undo.press(10.0)
    # contact bounce: release/press within 50 ms of the accepted press
    events += undo.release(10.01) + undo.press(10.02) + undo.release(10.03) + undo.press(10.04)
    events += undo.poll(10.2)  # settled pressed: nothing new
    assert events == [ButtonEvent("undo", 10.0)]
    assert undo.is_pressed
    assert undo.release(10.5) == []
    assert not undo.is_pressed
    assert undo.press(10.52) == []  # bounce after the release
    assert undo.press(10.6) == [ButtonEvent("undo", 10.6)]


def test_short_press_of_confirm_fires_on_release():
    confirm = confirm_tracker()
    assert confirm.press(1.0) == []
    assert confirm.poll(1.3) == []
    assert confirm.release(1.4) == [ButtonEvent("confirm", 1.0)]


def test_long_press_fires_cannot_play_while_held_and_nothing_on_release():
    confirm = confirm_tracker()
    confirm.press(1.0)
    assert confirm.poll(2.49) == []
    assert confirm.poll(2.5) == [ButtonEvent("cannot_play", 1.0)]
    assert confirm.poll(3.0) == []  # fires once per hold
    assert confirm.release(3.2) == []


def test_long_press_without_polling_is_decided_on_release():
    confirm = confirm_tracker()
    confirm.press(1.0)
    assert confirm.release(2.6) == [ButtonEvent("cannot_play", 1.0)]
    confirm.press(5.0)
    assert confirm.release(5.3) == [ButtonEvent("confirm", 5.0)]


def test_bounce_on_release_does_not_restart_the_hold():
    confirm = confirm_tracker()
    confirm.press(0.0)
    confirm.release(1.0)  # real release, accepted: a short press
    events = confirm.press(1.01)  # bounce
    events += confirm.release(1.02)
    events += confirm.poll(3.0)
    assert events == []
    assert not confirm.is_pressed


def test_a_tap_shorter_than_the_bounce_window_is_caught_up_by_poll():
    menu = ButtonTracker("menu", debounce=0.05)
    assert menu.press(1.0) == [ButtonEvent("menu", 1.0)]
    assert menu.release(1.02) == []  # inside the bounce window
    assert menu.is_pressed
    menu.poll(1.2)
    assert not menu.is_pressed  # the contact had settled open
    assert menu.press(1.3) == [ButtonEvent("menu", 1.3)]

    confirm = confirm_tracker()
    confirm.press(1.0)
    confirm.release(1.03)
    assert confirm.poll(1.2) == [ButtonEvent("confirm", 1.0)]


def test_long_press_needs_its_kind():
    with pytest.raises(ValueError):
        ButtonTracker("confirm", 0.05, long_press=1.0)
