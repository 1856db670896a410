"""The panel on virtual pins: every action read back from the pins, buttons pushed on the pins."""

import time

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.buttons import ButtonEvent
from hardware.config import load_config
from hardware.panel import Panel, PanelError

CONFIG = load_config()


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def factory():
    return MockFactory(pin_class=MockPWMPin)


@pytest.fixture
def clock():
    return FakeClock()


class TuneRecorder:
    """A ``sleep`` for synchronous tunes: notes (note playing, seconds) at every pause."""

    def __init__(self) -> None:
        self.panel: Panel | None = None
        self.notes: list[tuple[str | None, float]] = []

    def __call__(self, seconds: float) -> None:
        self.notes.append((buzzer_note(self.panel), seconds))


@pytest.fixture
def recorder():
    return TuneRecorder()


@pytest.fixture
def notes(recorder):
    return recorder.notes


@pytest.fixture
def panel(factory, clock, recorder):
    with Panel(CONFIG, factory, clock=clock, background=False, sleep=recorder) as made:
        recorder.panel = made
        yield made


def buzzer_note(panel: Panel) -> str | None:
    return panel.virtual_state()["buzzer"]["note"]


def pin_state(factory, pin: int) -> float:
    return factory.pin(pin).state


def seat_pins_lit(factory) -> list[bool]:
    return [bool(pin_state(factory, p)) for p in CONFIG.seat_pins]


def test_show_turn_lights_exactly_one_seat(panel, factory):
    assert seat_pins_lit(factory) == [False] * 4
    panel.show_turn(2)
    assert seat_pins_lit(factory) == [False, False, True, False]
    panel.show_turn(0)
    assert seat_pins_lit(factory) == [True, False, False, False]
    panel.show_turn(None)
    assert seat_pins_lit(factory) == [False] * 4
    with pytest.raises(ValueError, match="seat 4 has no LED: this panel has seats 0 to 3"):
        panel.show_turn(4)


@pytest.mark.parametrize(("status", "rgb"), [
    ("ok", (0, 1, 0)), ("illegal", (1, 0, 0)), ("waiting", (1, 0.35, 0)), ("off", (0, 0, 0)),
])
def test_status_colours_on_the_rgb_pins(panel, factory, status, rgb):
    panel.show_status(status)
    assert tuple(pin_state(factory, p) for p in CONFIG.status_pins) == pytest.approx(rgb)


def test_common_anode_inverts_the_status_pins(factory):
    config = load_config()
    object.__setattr__(config, "common_anode", True)
    with Panel(config, factory) as panel:
        panel.show_status("ok")
        assert [pin_state(factory, p) for p in CONFIG.status_pins] == [1, 0, 1]


def test_unknown_status_is_refused(panel):
    with pytest.raises(ValueError, match="status 'green': use one of ok, illegal, waiting, off"):
        panel.show_status("green")


def test_flag_illegal_goes_red_and_beeps(panel, factory, notes):
    panel.show_status("ok")
    panel.flag_illegal("Cuatro: that field is full")
    assert [pin_state(factory, p) for p in CONFIG.status_pins] == [1, 0, 0]
    assert [n for n, _ in notes] == ["A3", None, "A3"]
    assert sum(s for _, s in notes) < 0.5  # a short beep, not a tune
    assert pin_state(factory, CONFIG.buzzer_pin) == 0  # silent afterwards
    state = panel.virtual_state()
    assert state["status"]["reason"] == "Cuatro: that field is full"
    assert state["status"]["colour"] == "red"
    panel.show_status("ok")
    assert panel.virtual_state()["status"]["reason"] is None


def test_buzzer_pin_carries_the_note_frequency(panel, factory, notes):
    frequencies = []
    panel._sleep = lambda s: frequencies.append(factory.pin(CONFIG.buzzer_pin).frequency)
    panel.flag_illegal("x")
    assert frequencies[0] == pytest.approx(220.0)


@pytest.mark.parametrize("count", range(6))
def test_show_throws_lights_that_many_bar_leds(panel, factory, count):
    panel.show_throws(count)
    assert [bool(pin_state(factory, p)) for p in CONFIG.throw_pins] == \
        [i < count for i in range(5)]
    assert panel.virtual_state()["throws"]["count"] == count


def test_show_throws_out_of_range(panel):
    with pytest.raises(ValueError, match="throw count 6: the throw bar shows 0 to 5"):
        panel.show_throws(6)


def test_celebrate_blinks_the_winners_and_plays_the_tune(panel, factory, notes):
    panel.blink_seconds = 0.02
    panel.show_turn(1)
    panel.show_throws(3)
    panel.celebrate([0, 2])
    assert [n for n, _ in notes] == ["C4", "E4", "G4", "C5"]
    time.sleep(0.25)
    changes = {p: len({s.state for s in factory.pin(p).states[-6:]})
               for p in CONFIG.seat_pins}
    winners = [CONFIG.seat_pins[0], CONFIG.seat_pins[2]]
    losers = [CONFIG.seat_pins[1], CONFIG.seat_pins[3]]
    assert all(changes[p] == 2 for p in winners)  # on and off: blinking
    assert all(not pin_state(factory, p) for p in losers)
    assert [bool(pin_state(factory, p)) for p in CONFIG.throw_pins] == [False] * 5
    green_states = {s.state for s in factory.pin(CONFIG.status_pins[1]).states[-6:]}
    assert green_states == {0, 1}
    assert all(pin_state(factory, p) == 0 for p in CONFIG.status_pins[::2])
    state = panel.virtual_state()
    assert [s["blinking"] for s in state["seats"]] == [True, False, True, False]
    assert state["winners"] == [0, 2]
    assert "winners=[0, 2]" in repr(panel)
    panel.show_turn(0)  # a new game stops the blinking
    time.sleep(0.1)
    assert seat_pins_lit(factory) == [True, False, False, False]
    assert panel.virtual_state()["winners"] is None


def test_a_draw_blinks_every_seat_amber(panel, factory, notes):
    panel.blink_seconds = 0.02
    panel.celebrate([])
    assert [n for n, _ in notes] == ["G4", "C4"]
    time.sleep(0.2)
    for p in CONFIG.seat_pins:
        assert {s.state for s in factory.pin(p).states[-4:]} == {0, 1}
    assert panel.virtual_state()["status"]["colour"] == "amber"


def test_a_background_tune_is_cut_short_by_the_next_and_by_close(factory):
    panel = Panel(CONFIG, factory)
    panel.celebrate([1])
    time.sleep(0.05)
    assert panel.virtual_state()["buzzer"]["playing"]
    panel.flag_illegal("again")  # cuts the tune and beeps instead
    assert panel.virtual_state()["buzzer"]["note"] == "A3"
    started = time.monotonic()
    panel.close()
    assert time.monotonic() - started < 0.5
    assert panel.closed and repr(panel) == "<Panel closed>"
    assert panel.virtual_state() == {"simulated": True, "closed": True}


def press(factory, pin):
    factory.pin(pin).drive_low()  # buttons pull up: pressed = low


def release(factory, pin):
    factory.pin(pin).drive_high()


def test_button_presses_become_events(panel, factory, clock):
    undo, menu = CONFIG.button_pins["undo"], CONFIG.button_pins["menu"]
    press(factory, undo)
    clock.now += 0.2
    release(factory, undo)
    clock.now += 0.2
    press(factory, menu)
    clock.now += 0.01
    release(factory, menu)  # bounce: ignored
    press(factory, menu)
    clock.now += 0.2
    release(factory, menu)
    assert list(panel.events()) == [ButtonEvent("undo", 100.0), ButtonEvent("menu", 100.4)]
    assert panel.get_event(timeout=0) is None


def test_confirm_short_and_long(panel, factory, clock):
    confirm = CONFIG.button_pins["confirm"]
    press(factory, confirm)
    clock.now += 0.3
    assert panel.get_event(timeout=0) is None  # still held: could become a long press
    release(factory, confirm)
    assert panel.get_event(timeout=0) == ButtonEvent("confirm", 100.0)

    clock.now = 200.0
    press(factory, confirm)
    clock.now += CONFIG.long_press
    assert panel.get_event(timeout=0) == ButtonEvent("cannot_play", 200.0)  # while held
    assert panel.virtual_state()["buttons"]["confirm"] is True
    clock.now += 1
    release(factory, confirm)
    assert panel.get_event(timeout=0) is None


def test_get_event_waits_for_a_press_from_another_thread():
    import threading

    with Panel(CONFIG, simulate=True) as panel:
        timer = threading.Timer(0.1, lambda: (panel.press("undo"), panel.release("undo")))
        timer.start()
        started = time.monotonic()
        event = panel.get_event(timeout=2)
        assert event is not None and event.kind == "undo"
        assert time.monotonic() - started < 1.5
        started = time.monotonic()
        assert panel.get_event(timeout=0.1) is None
        assert 0.09 <= time.monotonic() - started < 0.5


def test_virtual_press_and_hold_in_real_time():
    with Panel(CONFIG, simulate=True) as panel:
        panel.press("confirm")
        time.sleep(0.1)
        panel.release("confirm")
        assert panel.get_event(timeout=0.5).kind == "confirm"
        assert panel.virtual_state()["buttons"]["confirm"] is False


def test_a_web_click_is_press_then_release_at_once():
    """The page presses and releases in one go: inside the bounce window, caught up by poll."""
    with Panel(CONFIG, simulate=True) as panel:
        for button in ("confirm", "undo", "menu"):
            panel.press(button)
            panel.release(button)
            assert panel.get_event(timeout=0.5).kind == button
            assert panel.get_event(timeout=0.1) is None


def test_virtual_buttons_only_in_simulate_mode(panel, factory):
    with pytest.raises(ValueError, match="no button 'start': use confirm, undo, menu"):
        panel.press("start")
    panel.simulated = False
    with pytest.raises(PanelError, match="only in simulate mode"):
        panel.press("confirm")


def test_repr_and_virtual_state_follow_the_panel(panel):
    panel.show_turn(3)
    panel.show_status("waiting")
    panel.show_throws(2)
    assert repr(panel) == "<Panel seat=3 status=waiting (amber) throws=2/5 simulated>"
    state = panel.virtual_state()
    assert [s["lit"] for s in state["seats"]] == [False, False, False, True]
    assert [s["pin"] for s in state["seats"]] == list(CONFIG.seat_pins)
    assert state["status"]["rgb"] == pytest.approx([1, 0.35, 0])
    assert state["throws"]["lit"] == [True, True, False, False, False]
    assert state["buzzer"] == {"playing": False, "note": None, "frequency": None}
    assert state["simulated"] is True
    assert state["leds"] == {
        "seat 1": False, "seat 2": False, "seat 3": False, "seat 4": True,
        "status": pytest.approx([1, 0.35, 0]),
        "throw 1": True, "throw 2": True, "throw 3": False, "throw 4": False, "throw 5": False,
        "buzzer": False,
    }
    panel.show_status("off")
    assert panel.virtual_state()["leds"]["status"] == 0


def test_a_panel_closes_the_factory_it_made_but_not_one_it_was_given(factory, monkeypatch):
    closed = []
    monkeypatch.setattr(MockFactory, "close", lambda self: closed.append(self))
    with Panel(CONFIG, simulate=True) as own:
        pass
    with Panel(CONFIG, factory):
        pass
    assert closed == [own.pin_factory]


def test_close_releases_every_pin(factory):
    with Panel(CONFIG, factory) as panel:
        panel.show_turn(0)
    assert panel.closed
    # all pins free again: a second panel can claim the same ones
    with Panel(CONFIG, factory) as again:
        again.show_turn(1)
        assert seat_pins_lit(factory) == [False, True, False, False]


def test_a_pin_already_taken_is_a_clear_error_and_frees_the_rest(factory):
    from gpiozero import LED

    blocker = LED(CONFIG.buzzer_pin, pin_factory=factory)
    with pytest.raises(PanelError, match="cannot set up the panel"):
        Panel(CONFIG, factory)
    blocker.close()
    Panel(CONFIG, factory).close()  # the seats and status pins were released
