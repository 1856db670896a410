"""Throw counting: one count per roll, none for nudges, hands or dice set aside."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision.dice import DiceConfig, DieReading
from vision.sim import render
from vision.sim.scene import Hand
from vision.throws import HandWatch, ThrowConfig, ThrowInputError, ThrowSettled, ThrowTracker

FPS = 10.0


def die(value: int | None, x: float, y: float) -> DieReading:
    return DieReading(value, 0.9, (int(x) - 10, int(y) - 10, 20, 20), (x, y))


def lying(values, shift: float = 0.0) -> list[DieReading]:
    return [die(v, 100 + 40 * i + shift, 200) for i, v in enumerate(values)]


def tumbling(rng: np.random.Generator, n: int) -> list[DieReading]:
    return [die(int(rng.integers(1, 7)) if rng.random() < 0.6 else None,
                rng.uniform(0, 600), rng.uniform(0, 400)) for _ in range(n)]


class Clock:
    """Feeds frames at a fixed rate and collects what the tracker reports."""

    def __init__(self, tracker: ThrowTracker) -> None:
        self.tracker, self.t, self.events = tracker, 0.0, []

    def hold(self, readings, seconds: float) -> None:
        for _ in range(int(seconds * FPS)):
            self.feed(readings)

    def feed(self, readings) -> None:
        self.last = readings
        event = self.tracker.update(self.t, readings)
        if event is not None:
            self.events.append(event)
        self.t += 1 / FPS

    def tumble(self, rng, count: int, frames: int) -> None:
        """``count`` dice rolling for ``frames`` frames."""
        for _ in range(frames):
            self.feed(tumbling(rng, count))

    def roll(self, rng, values, frames: int = 8) -> None:
        self.tumble(rng, len(values), frames)
        self.hold(lying(values, shift=float(rng.uniform(-30, 30))), 1.0)


def test_a_roll_is_counted_once_when_the_dice_settle() -> None:
    clock = Clock(ThrowTracker())
    clock.hold(lying([1, 2, 3, 4, 5]), 1.0)  # dice already lying there: no throw
    clock.roll(np.random.default_rng(1), [6, 6, 2, 3, 1])
    clock.hold(lying([6, 6, 2, 3, 1]), 2.0)
    assert clock.events == [ThrowSettled((1, 2, 3, 6, 6), 1)]


@pytest.mark.parametrize("settle", [0.3, 0.5, 1.0])
def test_counted_once_the_dice_lie_still_for_settle_seconds(settle: float) -> None:
    tracker = ThrowTracker(ThrowConfig(settle_seconds=settle))
    rng = np.random.default_rng(2)
    t = 0.0
    for _ in range(6):
        assert tracker.update(t, tumbling(rng, 3)) is None
        t += 0.1
    still_from = t
    while (event := tracker.update(t, lying([4, 4, 4]))) is None:
        t += 0.1
        assert t < 5
    assert event == ThrowSettled((4, 4, 4), 1)
    assert t - still_from == pytest.approx(settle, abs=0.11)
    assert event.rested_at == pytest.approx(still_from, abs=0.11)  # when they came to rest


def test_nudged_die_and_passing_hand_are_not_throws() -> None:
    clock = Clock(ThrowTracker())
    rng = np.random.default_rng(3)
    clock.roll(rng, [2, 3, 5])
    nudged = lying([2, 3, 5])
    nudged[1] = die(3, nudged[1].centre[0] + 15, nudged[1].centre[1] + 6)
    clock.hold(nudged, 1.0)
    clock.hold([], 0.3)  # a hand covers the dice
    clock.hold(nudged[:1], 0.3)
    clock.hold(nudged, 1.0)
    assert [e.throw_number for e in clock.events] == [1]


def test_dice_set_aside_and_taken_back_are_not_a_throw_but_a_reroll_is() -> None:
    clock = Clock(ThrowTracker())
    rng = np.random.default_rng(4)
    clock.roll(rng, [1, 2, 3, 4, 5])
    clock.hold(lying([1, 2, 3]), 1.0)  # two dice set aside
    clock.hold(lying([1, 2, 3, 4, 5], shift=50), 1.0)  # and taken back
    clock.roll(rng, [1, 2, 6])  # the three kept dice rolled again
    assert [e.values for e in clock.events] == [(1, 2, 3, 4, 5), (1, 2, 6)]
    assert [e.throw_number for e in clock.events] == [1, 2]


def test_a_die_turning_unreadable_where_it_lay_is_no_new_throw() -> None:
    clock = Clock(ThrowTracker())
    rng = np.random.default_rng(5)
    clock.hold(lying([1, 1]), 1.0)
    clock.roll(rng, [3, 4])
    leaning = lying([3, 4])
    leaning[0] = die(None, *leaning[0].centre)
    clock.hold(leaning, 1.0)
    assert clock.events == [ThrowSettled((3, 4), 1)]


def test_a_die_unread_on_the_first_frame_and_read_after_is_no_throw() -> None:
    # bench seed 8042: a 2 unread on the first frame, read from the second where it lay, was
    # taken for a die landing, and the dice lying there from the start were counted a throw
    clock = Clock(ThrowTracker())
    first = lying([2, 2, 3, 6, 6])
    first[0] = die(None, *first[0].centre)
    clock.feed(first)
    clock.hold(lying([2, 2, 3, 6, 6]), 1.0)
    assert clock.events == []
    clock.roll(np.random.default_rng(15), [1, 3, 4, 4, 5])
    assert clock.events == [ThrowSettled((1, 3, 4, 4, 5), 1)]


def test_a_die_unread_all_through_its_rest_does_not_hold_the_throw_back() -> None:
    # bench seed 7020: a white 2 against a black 4 read as unread patterns all through the
    # last rest; that throw was never counted, and a later movement would have counted it
    clock = Clock(ThrowTracker())
    rng = np.random.default_rng(5)
    clock.hold(lying([1, 1]), 1.0)
    clock.tumble(rng, 2, 8)
    unread = lying([3, 4])
    unread[0] = die(None, *unread[0].centre)
    clock.hold(unread, 1.0)
    assert clock.events == [ThrowSettled((4,), 1)]
    clock.hold(lying([3, 4]), 1.0)  # read at last, where it lay: the same throw
    assert len(clock.events) == 1


def test_a_throw_with_a_weakly_read_or_unread_die_is_reported_unsure() -> None:
    """Bench seeds 8068, 8069, 7020: a 1 read as a 2 with a side face's pip (confidence
    0.6-0.75 in every frame of its rest) and a die unread all through a rest went out as
    throws like any other; the game cannot tell them from throws read surely."""
    rng = np.random.default_rng(25)
    for first, sure in ((0.9, True), (0.65, False), (None, False)):
        clock = Clock(ThrowTracker())
        clock.hold(lying([1, 1, 4, 5, 6]), 1.0)
        clock.tumble(rng, 5, 8)
        rest = lying([2, 2, 3, 3, 6])
        rest[0] = (die(None, *rest[0].centre) if first is None
                   else replace(rest[0], confidence=first))
        clock.hold(rest, 1.0)
        assert [e.sure for e in clock.events] == [sure]
    clock = Clock(ThrowTracker(ThrowConfig(dice_count=5)))  # the referee's: a die never found
    clock.hold(lying([1, 1, 4, 5, 6]), 1.0)
    clock.tumble(rng, 5, 8)
    clock.hold(lying([2, 2, 3, 6]), 1.0)
    assert [(e.values, e.sure) for e in clock.events] == [((2, 2, 3, 6), False)]


def test_a_throw_with_a_6_read_at_0_56_is_sure_a_2_so_read_or_a_leaning_6_is_not() -> None:
    """The referee's table, Cuatro seeds 1 and 9: right 6s read at 0.56-0.58 (a pip in
    shade measured small) made their throws unsure; a misread adds or drops a side face's pip
    on few pips, so a 2 as weak stays unsure, and a die capped as leaning (0.4) too."""
    rng = np.random.default_rng(26)
    for index, confidence, sure in ((4, 0.56, True), (0, 0.56, False), (4, 0.4, False)):
        clock = Clock(ThrowTracker(ThrowConfig(dice_count=5)))
        clock.hold(lying([1, 1, 4, 5, 6]), 1.0)
        clock.tumble(rng, 5, 8)
        rest = lying([2, 2, 3, 3, 6])
        rest[index] = replace(rest[index], confidence=confidence)
        clock.hold(rest, 1.0)
        assert [(e.values, e.sure) for e in clock.events] == [((2, 2, 3, 3, 6), sure)]


def test_new_turn_restarts_the_count() -> None:
    tracker = ThrowTracker()
    clock = Clock(tracker)
    rng = np.random.default_rng(6)
    clock.roll(rng, [1, 2])
    clock.roll(rng, [5, 6])
    tracker.new_turn()
    clock.hold(clock.last, 1.0)  # the last player's dice still lie there: no throw
    clock.roll(rng, [3, 3])
    assert [e.throw_number for e in clock.events] == [1, 2, 1]
    assert "throws=1" in repr(tracker)


def test_a_turn_s_first_throw_counts_though_it_shows_the_last_player_s_faces() -> None:
    tracker = ThrowTracker()
    clock = Clock(tracker)
    rng = np.random.default_rng(8)
    clock.roll(rng, [1, 3, 4, 4, 6])
    tracker.new_turn()
    clock.roll(rng, [6, 4, 1, 4, 3])  # the same faces, rolled by the next player
    clock.hold(clock.last[2:], 1.0)  # two dice set aside: the same faces again, no throw
    assert [(e.values, e.throw_number) for e in clock.events] == [
        ((1, 3, 4, 4, 6), 1), ((1, 3, 4, 4, 6), 1)]


@pytest.mark.parametrize("seed", range(20))
def test_random_sessions_count_every_changed_roll_once(seed: int) -> None:
    rng = np.random.default_rng(seed)
    clock = Clock(ThrowTracker())
    clock.hold(lying([1, 1, 1, 1, 1]), 1.0)
    for _ in range(5):
        values = tuple(sorted(int(v) for v in rng.integers(1, 7, 5)))
        clock.roll(rng, list(values), frames=int(rng.integers(3, 15)))
        clock.hold(lying(values, shift=float(rng.uniform(-5, 5))), float(rng.uniform(0, 2)))
    # every roll counts, one showing the same faces again too: the dice were seen tumbling
    assert len(clock.events) == 5


def test_dice_thrown_landing_elsewhere_on_the_same_faces_are_a_throw() -> None:
    clock = Clock(ThrowTracker())
    rng = np.random.default_rng(19)
    clock.roll(rng, [1, 2, 3, 4, 5])
    clock.tumble(rng, 5, 4)
    clock.hold(lying([5, 4, 3, 2, 1], shift=120), 1.0)
    assert [(e.values, e.throw_number) for e in clock.events] == [
        ((1, 2, 3, 4, 5), 1), ((1, 2, 3, 4, 5), 2)]


def test_bad_feed_is_refused_in_words() -> None:
    tracker = ThrowTracker()
    with pytest.raises(ThrowInputError, match="frame or a list"):
        tracker.update(0.0, 42)
    tracker.update(1.0, [])
    with pytest.raises(ThrowInputError, match="backwards"):
        tracker.update(0.5, [])


AREA_PX = [[0, 0], [600, 0], [600, 400], [0, 400]]
AREA_MM = [[0, 0], [300, 0], [300, 200], [0, 200]]  # 2 px per mm


def test_a_die_nudged_by_a_millimetre_is_no_movement() -> None:
    tracker = ThrowTracker(region=AREA_PX, region_mm=AREA_MM)
    clock = Clock(tracker)
    clock.hold(lying([2, 3, 5]), 1.0)
    nudged = lying([2, 3, 5])
    nudged[0] = die(2, nudged[0].centre[0] + 2.0, nudged[0].centre[1])  # 1 mm on the table
    clock.hold(nudged, 0.2)
    assert not tracker.moving
    far = list(nudged)
    for step in (20.0, 40.0):  # pushed 10 mm, then 10 mm more: it moves
        far[0] = die(2, nudged[0].centre[0], nudged[0].centre[1] + step)
        clock.feed(far)
    assert tracker.moving
    clock.hold(far, 1.0)
    assert clock.events == [] and not tracker.moving


def test_a_misread_die_flipping_between_two_places_is_no_movement() -> None:
    tracker = ThrowTracker(region=AREA_PX, region_mm=AREA_MM)
    clock = Clock(tracker)
    for k in range(20):  # a side face read now and then: the die's centre jumps 5 mm
        dice = lying([2, 3, 5])
        if k % 2:
            dice[0] = die(2, dice[0].centre[0] + 10.0, dice[0].centre[1])
        clock.feed(dice)
        assert not tracker.moving
    assert clock.events == [] and tracker.resting == (2, 3, 5)


def test_a_die_read_as_another_face_a_few_mm_off_while_lying_still_is_no_movement() -> None:
    """Bench seed 7003: once two dice beside it were set aside, a 1 was read as a 2 with its
    centre 6 mm off for the rest of the rest; that was taken for the die moved, the dice set
    aside for a throw of 2 2 5, and the dice put back for another."""
    tracker = ThrowTracker(region=AREA_PX, region_mm=AREA_MM)
    clock = Clock(tracker)
    clock.hold(lying([3, 3, 4, 4, 6]), 1.0)
    clock.roll(np.random.default_rng(21), [5, 1, 2, 1, 6])
    rest = clock.last
    clock.hold(rest, 1.0)
    misread = die(2, rest[3].centre[0] + 12.0, rest[3].centre[1])  # 6 mm off on the table
    clock.hold([rest[0], rest[2], misread], 1.2)  # two dice set aside
    assert not tracker.moving
    clock.hold(rest, 1.2)  # and put back
    assert [e.values for e in clock.events] == [(1, 1, 2, 5, 6)]


def test_dice_read_otherwise_on_the_second_frame_watched_are_no_throw() -> None:
    """Bench seed 7009: two 1s 20 mm apart were read as a 1 and a 2 between them on the first
    frame, as a 2 and a 1 a few mm from those from the second on; the dice lying there when
    watching began were taken for a throw come to rest."""
    tracker = ThrowTracker(region=AREA_PX, region_mm=AREA_MM)
    clock = Clock(tracker)
    start = lying([2, 1, 1, 2, 2])  # the 1s at x 140 and 180 px
    clock.feed([start[0], die(1, 138, 200), die(2, 168, 200), *start[3:]])
    clock.hold([start[0], die(2, 149, 200), die(1, 180, 200), *start[3:]], 1.0)
    clock.roll(np.random.default_rng(22), [1, 1, 2, 2, 4])
    assert [e.values for e in clock.events] == [(1, 1, 2, 2, 4)]


def test_a_die_read_a_little_off_on_the_first_frame_is_no_throw() -> None:
    """Bench seed 8109: the dice lying there when watching began, a 2 read 9 mm from where it
    was read on every later frame (beyond ``misread_reach``), were counted a throw: the 2's
    place on the second frame was a die landing."""
    tracker = ThrowTracker(region=AREA_PX, region_mm=AREA_MM)
    clock = Clock(tracker)
    start = lying([2, 3, 3, 6, 6])
    clock.feed([die(2, 118, 200), *start[1:]])  # 9 mm off
    clock.hold(start, 1.0)
    assert clock.events == []
    clock.roll(np.random.default_rng(23), [3, 3, 4, 5, 5])
    assert [e.values for e in clock.events] == [(3, 3, 4, 5, 5)]


def test_a_die_unread_a_little_off_on_the_first_frame_is_no_throw() -> None:
    """Bench seed 7045: a 2 unread on the first frame, its pattern's centre 13 mm from where
    it was read on every later frame, was a die landing; the dice lying there, a throw."""
    tracker = ThrowTracker(region=AREA_PX, region_mm=AREA_MM)
    clock = Clock(tracker)
    start = lying([2, 3, 4, 6, 6])
    clock.feed([die(None, 80, 190), *start[1:]])  # 11 mm across, 5 mm up
    clock.hold(start, 1.0)
    assert clock.events == []
    clock.roll(np.random.default_rng(26), [2, 2, 2, 5, 6])
    assert [e.values for e in clock.events] == [(2, 2, 2, 5, 6)]


def test_dice_read_right_once_nudged_and_put_back_are_no_throw() -> None:
    """Bench seed 7040: a throw's 1 was read as a 2 all through its rest (2 2 3 3 6), and
    right once nudged; the dice set aside and put back then read 1 2 3 3 6, not among the
    faces at the last rest, and were counted as a throw."""
    tracker = ThrowTracker(region=AREA_PX, region_mm=AREA_MM)
    clock = Clock(tracker)
    clock.hold(lying([3, 4, 5, 5, 6]), 1.0)
    clock.tumble(np.random.default_rng(23), 5, 8)
    rest = lying([1, 3, 2, 3, 6])
    x, y = rest[0].centre
    clock.hold([die(2, x + 4.0, y + 12.0), *rest[1:]], 1.0)  # the 1 read as 2, 6 mm off
    assert [e.values for e in clock.events] == [(2, 2, 3, 3, 6)]
    nudged = [die(1, x + 6.0, y + 16.0), *rest[1:]]  # nudged 3 mm: read right now
    clock.hold(nudged, 1.2)
    clock.hold([nudged[0], nudged[1], nudged[3]], 1.2)  # two dice set aside
    clock.hold(nudged, 1.2)  # and put back
    assert [e.values for e in clock.events] == [(2, 2, 3, 3, 6)]


def test_a_misread_frame_now_and_then_does_not_hold_the_count_back() -> None:
    clock = Clock(ThrowTracker(ThrowConfig(agree_share=0.6)))
    clock.hold(lying([1, 1, 1]), 1.0)
    clock.roll(np.random.default_rng(8), [4, 5, 6], frames=5)  # moves, then lies still
    for k in range(12):  # every third frame misreads the 6 as a 5, one die unreadable
        wrong = lying([4, 5, 5]) if k % 3 == 0 else lying([4, 5, 6])
        clock.feed(wrong if k % 6 else [wrong[0], wrong[1], die(None, *wrong[2].centre)])
    assert [e.values for e in clock.events] == [(4, 5, 6)]


def test_mostly_misread_values_are_not_a_rest() -> None:
    clock = Clock(ThrowTracker(ThrowConfig(agree_share=0.6)))
    for _ in range(15):  # dice lie still but no reading holds for more than a third of frames
        for values in ([2, 2], [2, 3], [2, 4]):
            clock.feed(lying(values))
    assert clock.events == [] and clock.tracker.resting is None


def test_with_the_game_s_dice_count_a_stray_unread_pattern_is_ignored() -> None:
    clock = Clock(ThrowTracker(ThrowConfig(dice_count=4)))
    clock.hold(lying([1, 1, 2, 2]), 1.0)
    clock.roll(np.random.default_rng(9), [3, 4, 6, 6], frames=4)
    stray = [*lying([3, 4, 6, 6]), die(None, 500, 300)]
    clock.hold(stray, 1.0)
    clock.roll(np.random.default_rng(10), [5], frames=4)  # one die alone: not this game's throw
    assert clock.events == [ThrowSettled((3, 4, 6, 6), 1)]


def test_a_stray_beside_a_side_face_read_as_a_die_keeps_no_rest_from_agreeing() -> None:
    # cuatro seed 13 with camera dice: 1 2 3 4 6 lay 0.6 s with a side face read as a 2
    # and, in three frames of five, an unread pattern besides; the rest never agreed
    clock = Clock(ThrowTracker(ThrowConfig(dice_count=5)))
    rng = np.random.default_rng(14)
    clock.tumble(rng, 5, 4)
    with_side = [*lying([1, 2, 3, 4, 6]), die(2, 300, 240)]
    for frame in range(6):
        clock.feed(with_side if frame < 2 else [*with_side, die(None, 500, 300)])
    clock.tumble(rng, 5, 4)  # the next throw: the last one must have been counted
    assert [e.values for e in clock.events] == [(1, 2, 2, 3, 4, 6)]


def test_a_rest_with_one_die_never_read_is_still_a_throw() -> None:
    # cuatro seed 2 on the simulated table with camera dice: 1 1 4 4 6 lay still, the 6 was
    # never found, and the throw was never counted (the stone after it stayed flagged)
    clock = Clock(ThrowTracker(ThrowConfig(dice_count=5)))
    rng = np.random.default_rng(12)
    clock.roll(rng, [2, 3, 3, 5, 6])
    clock.roll(rng, [1, 1, 4, 4])  # the 6 lies there too, but the reader never finds it
    unread = [*lying([2, 2, 5, 6]), die(None, 450, 300)]  # found, but not read
    clock.tumble(rng, 5, 4)
    clock.hold(unread, 1.0)
    clock.roll(rng, [1, 2, 3])  # two dice never found (cuatro seed 3: two 1s seen, not read)
    clock.roll(rng, [1, 2])  # three dice short: no throw of this game
    assert [(e.values, e.throw_number) for e in clock.events] == [
        ((2, 3, 3, 5, 6), 1), ((1, 1, 4, 4), 2), ((2, 2, 5, 6), 3), ((1, 2, 3), 4)]


def test_the_die_a_rest_was_short_of_read_later_completes_that_throw() -> None:
    clock = Clock(ThrowTracker(ThrowConfig(dice_count=5)))
    clock.roll(np.random.default_rng(13), [1, 1, 4, 4])
    clock.hold([*clock.last, die(6, 500, 300)], 1.0)  # the fifth die is read at last
    assert [(e.values, e.throw_number, e.read_whole) for e in clock.events] == [
        ((1, 1, 4, 4), 1, False), ((1, 1, 4, 4, 6), 1, True)]
    assert clock.tracker.resting == (1, 1, 4, 4, 6)


def test_a_throw_read_short_as_dice_set_aside_is_counted_when_read_whole() -> None:
    # bench seed 8058: a hand, not seen as one, over a fresh throw hid three dice; the two
    # left (2 6 of the last rest's 2 4 6) rested as dice set aside, and the whole throw read
    # after it, those two where they lay, was taken for a rest short of a die completed
    clock = Clock(ThrowTracker())
    rng = np.random.default_rng(14)
    clock.roll(rng, [2, 4, 6])
    clock.tumble(rng, 5, 4)
    landed = lying([2, 6, 2, 2, 5], shift=15)
    clock.hold(landed, 0.2)
    clock.hold(landed[:2], 0.6)  # three dice hidden, no hand seen
    clock.hold(landed, 1.2)
    assert [(e.values, e.throw_number, e.read_whole) for e in clock.events] == [
        ((2, 4, 6), 1, False), ((2, 2, 2, 5, 6), 2, False)]


def test_dice_rerolled_where_they_lay_are_a_throw_though_their_faces_showed_before() -> None:
    clock = Clock(ThrowTracker())
    rng = np.random.default_rng(11)
    clock.roll(rng, [1, 2, 3, 4, 5])
    clock.hold(lying([1, 2, 3, 4, 5]), 1.0)
    clock.hold(lying([1, 2, 3]), 1.0)  # two dice set aside
    clock.tumble(rng, 3, 4)
    clock.hold(lying([2, 3, 1]), 1.0)  # the three land where they lay, each on another face
    assert [e.values for e in clock.events] == [(1, 2, 3, 4, 5), (1, 2, 3)]


def test_dice_seen_in_flight_are_a_throw_though_they_land_on_faces_showing_before() -> None:
    # bench seeds 8083 and 8092: 3 6 4 rerolled where they lay landed 3 2 4, the 2 read 6.5 mm
    # from where the 6 had been (beyond still_mm): faces that showed before, no die showing
    # another face where one lay, so the reroll was taken for dice set aside
    clock = Clock(ThrowTracker())
    rng = np.random.default_rng(15)
    clock.roll(rng, [3, 6, 4, 2, 5])
    rest = clock.last
    clock.hold(rest[:3], 1.0)  # two dice set aside
    clock.hold(rest, 1.0)  # and put back
    clock.tumble(rng, 3, 4)
    landed = rest[:3]
    landed[1] = die(2, landed[1].centre[0] + 7, landed[1].centre[1])
    clock.hold(landed, 1.0)
    assert [(e.values, e.throw_number) for e in clock.events] == [
        ((2, 3, 4, 5, 6), 1), ((2, 3, 4), 2)]


def test_fingers_read_as_dice_far_off_over_dice_lying_still_are_no_throw() -> None:
    clock = Clock(ThrowTracker())
    rng = np.random.default_rng(16)
    clock.roll(rng, [1, 2, 3, 4, 5])
    rest = clock.last
    clock.feed([*rest, die(1, 520, 350), die(None, 540, 330)])  # a hand not seen as one
    clock.feed([*rest, die(2, 500, 340)])
    clock.feed(rest[2:])
    clock.hold(rest, 1.0)
    assert [e.throw_number for e in clock.events] == [1]


def test_dice_put_back_read_on_their_way_are_no_throw() -> None:
    clock = Clock(ThrowTracker())
    rng = np.random.default_rng(17)
    clock.roll(rng, [1, 2, 3, 4, 5])
    rest = clock.last
    clock.hold(rest[:3], 1.0)  # two dice set aside
    clock.feed([*rest[:3], die(4, 520, 350), die(5, 540, 330)])  # carried back, read in flight
    clock.feed([*rest[:3], die(4, 470, 300)])
    clock.hold(rest, 1.0)
    assert [e.throw_number for e in clock.events] == [1]


def test_a_die_read_otherwise_a_little_off_once_its_neighbour_is_nudged_is_no_throw() -> None:
    # bench seed 8030: a 2 beside a 5 read as a 6 15 mm off; once the 5 was nudged it read 2
    # where it lies, and the two readings took turns after (a hand unseen hiding the 5)
    clock = Clock(ThrowTracker())
    rng = np.random.default_rng(18)
    clock.roll(rng, [2, 4, 5, 5, 6])
    rest = clock.last
    nudged = list(rest)
    nudged[3] = die(5, rest[3].centre[0] + 2, rest[3].centre[1] + 1)
    nudged[4] = die(2, rest[4].centre[0] - 15, rest[4].centre[1] + 3)
    clock.hold(nudged, 1.0)
    clock.hold([*rest[:3], rest[4]], 0.6)
    clock.hold(nudged, 1.0)
    assert [(e.values, e.throw_number) for e in clock.events] == [((2, 4, 5, 5, 6), 1)]


def test_a_die_nudged_5_mm_beside_a_die_read_otherwise_is_no_throw() -> None:
    """Bench seed 8069: after 1 2 2 3 3 came to rest, a die read 9-10 mm off for a moment,
    a 2's read centre wandered 5 mm (past ``still_mm``) and a 1 read as a 2 6 mm off; with
    two dice off, the rest was no nudge and 2 2 2 3 3 was counted a throw, then 1 2 2 3 3
    again once the 1 read right."""
    tracker = ThrowTracker(region=AREA_PX, region_mm=AREA_MM)
    clock = Clock(tracker)
    clock.hold(lying([4, 5, 6, 6, 6]), 1.0)
    clock.roll(np.random.default_rng(24), [1, 2, 2, 3, 3])
    rest = clock.last
    (x0, y0), (x1, y1) = rest[0].centre, rest[1].centre
    misread = [die(2, x0 - 10, y0 - 8), die(2, x1 + 6, y1 - 8), *rest[2:]]  # 6.4 mm, 5 mm off
    x2, y2 = rest[2].centre
    clock.hold([*misread[:2], die(2, x2 + 20, y2), *rest[3:]], 0.2)  # read 10 mm off: moved
    clock.hold(misread, 1.0)
    clock.hold(rest, 1.0)
    assert [e.values for e in clock.events] == [(1, 2, 2, 3, 3)]


def test_a_die_a_rest_was_short_of_read_while_nothing_moved_completes_it() -> None:
    """Bench seed 7058: a 2 not found in its rest's first frames, 1 3 4 5 was counted, and
    the 2 read now and then, then all the time; a hand not seen as one hid two dice for
    0.6 s, they came back at places forgotten meanwhile, and 1 2 3 4 5 was a second throw."""
    tracker = ThrowTracker(region=AREA_PX, region_mm=AREA_MM)
    clock = Clock(tracker)
    clock.hold(lying([6, 6, 6, 6, 6]), 1.0)
    clock.tumble(np.random.default_rng(27), 5, 8)
    rest = lying([1, 2, 3, 4, 5])
    clock.hold([rest[0], *rest[2:]], 0.6)
    for _ in range(3):  # found now and then: no die landing
        clock.feed(rest)
        clock.feed([rest[0], *rest[2:]])
    clock.hold(rest, 1.0)
    clock.hold(rest[:3], 0.6)  # fingers over the 4 and the 5, not seen as a hand
    clock.hold(rest, 1.0)
    assert [e.values for e in clock.events] == [(1, 3, 4, 5)]


def _bench_session():
    """The rendered sessions of bench/throw_counting.py."""
    path = Path(__file__).resolve().parents[2] / "bench" / "throw_counting.py"
    spec = importlib.util.spec_from_file_location("throw_counting", path)
    module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _played(seed: int, frames: slice = slice(None)):
    """Bench seed ``seed``'s session (its ``frames``) played to a table-preset tracker, frame
    after frame: the bench module, the session, the tracker and (frame, name, event) for
    each frame."""
    bench = _bench_session()
    session = bench.sequence(seed)
    tracker = ThrowTracker(dice_config=DiceConfig.preset("table"), region=session.region,
                           region_mm=session.region_mm)
    played = [(i, name, tracker.update(i / bench.FPS,
                                       render(scene, session.pose, session.rng).frame))
              for i, (name, scene) in enumerate(session.frames[frames])]
    return bench, session, tracker, played


def test_faces_read_under_a_passing_hand_are_no_throw() -> None:
    """Bench seed 7001: while the hand passes over the dice a 4 is read as a 1 for three
    frames; before the hand was looked for, that was taken for a rest and counted twice."""
    _, _, tracker, played = _played(7001, slice(15, 30))
    assert "hand passing" in [name for _, name, _ in played]
    assert [e for _, _, e in played if e is not None] == []
    assert tracker.resting == (2, 3, 4, 4, 5)


def test_a_throw_with_a_die_never_read_is_counted_in_its_rest() -> None:
    """Bench seed 7020: at its last rest a white 2 lying against a black 4 is read as two
    unread patterns in every frame, so the rest never agreed and the throw was not counted;
    each of the session's three throws is counted once now, the last with the dice read."""
    bench, session, _, played = _played(7020)
    reported = [(i, name) for i, name, event in played if event is not None]
    assert bench.judge(session, reported) == []
    last = [event for _, _, event in played if event is not None][-1]
    assert last.values == (4, 4, 4, 5)  # the 2 lay there unread


def test_a_hand_creeping_in_at_the_edge_is_not_taken_for_the_table() -> None:
    """Spexxx seed 4 with camera dice: a hand reaching in at the dice area's edge changed the
    view by less than ``hand_area_mm2`` from frame to frame, so it became the clear view;
    when it left, the bare table differed from that view by more, and the throw resting
    right after was taken for hidden by a hand for ``adopt_seconds`` and never counted."""
    bench = _bench_session()
    session = bench.sequence(7000)
    tracker = ThrowTracker(dice_config=DiceConfig.preset("table"), region=session.region,
                           region_mm=session.region_mm)

    def image(scene):
        return render(scene, session.pose, session.rng).frame

    start = session.frames[0][1]
    edge = session.region_mm[:, 0].max()
    y = session.region_mm[:, 1].mean()
    creeping = [replace(start, hand=Hand(entry_mm=(edge - depth + 700, y + 100),
                                         tip_mm=(edge - depth, y), height_mm=60.0))
                for depth in (40.0, 60.0, 80.0, 100.0)]  # each step changes < 2000 mm^2
    quiet = [image(start)] * int(4 * bench.FPS)  # longer than adopt_seconds: no change since
    frames = quiet + [image(scene) for scene in creeping] + [
        image(scene) for name, scene in session.frames if name in ("roll", "rolled")]
    events = []
    for i, frame in enumerate(frames):
        event = tracker.update(i / bench.FPS, frame)
        if event is not None:
            events.append((i, event.values))
    rolled = next(scene for name, scene in session.frames if name == "rolled")
    assert [values for _, values in events] == [tuple(sorted(d.value for d in rolled.dice))]
    assert events[0][0] >= len(frames) - 6  # during the rest, not before


def test_a_card_laid_at_the_edge_becomes_the_table_once_it_has_lain_adopt_seconds() -> None:
    config = ThrowConfig()
    watch = HandWatch(config)
    lo = np.zeros(2)
    table = np.full((200, 300, 3), (60.0, 10.0, 20.0), np.float32)  # Lab, 1 px per mm
    card = table.copy()
    card[:60, :90] = (95.0, 0.0, 0.0)  # 5400 mm^2 from the edge: as large as a hand
    assert not watch.covered(0.0, table, lo, [])
    frames = int(4 * FPS)
    covered = [watch.covered((k + 1) / FPS, card, lo, []) for k in range(frames)]
    held = covered.index(False)
    assert all(covered[:held]) and not any(covered[held:])
    assert held / FPS == pytest.approx(config.adopt_seconds, abs=1.5 / FPS)
    brighter = card + np.float32(6.0)  # the light turned up over the whole area: no patch
    assert not watch.covered((frames + 1) / FPS, brighter, lo, [])


def test_a_side_face_read_as_a_die_now_and_then_leaves_the_game_s_dice() -> None:
    # cuatro seed 3 with camera dice: 1 2 2 3 6 lay still, a side face read as a 1 in three
    # frames of four; no reading held for 60 % of the frames and the throw was never counted
    clock = Clock(ThrowTracker(ThrowConfig(dice_count=5)))
    rng = np.random.default_rng(14)
    clock.roll(rng, [3, 3, 4, 5, 6])
    clock.tumble(rng, 5, 4)
    dice = lying([1, 2, 2, 3, 6])
    side = [*dice, die(1, dice[1].centre[0] + 12, 215)]
    for _ in range(3):
        clock.feed(side)
        clock.feed(side)
        clock.feed(side)
        clock.feed(dice)
    assert [(e.values, e.likely) for e in clock.events] == [
        ((3, 3, 4, 5, 6), None), ((1, 1, 2, 2, 3, 6), (1, 2, 2, 3, 6))]


def test_a_die_read_in_few_frames_of_a_rest_is_the_likeliest_throw_but_no_more() -> None:
    # cuatro seed 4 with camera dice: 1 2 2 5 6 read whole in one frame and without its 1 in
    # the others (seed 1: 1 2 6 6 6 read 1 2 6 6 in most frames and 1 1 2 6 6 in one, a 6
    # misread as 1: the whole reading is what the session takes first, the rules decide)
    clock = Clock(ThrowTracker(ThrowConfig(dice_count=5)))
    rng = np.random.default_rng(17)
    clock.roll(rng, [3, 3, 4, 5, 6])
    clock.tumble(rng, 5, 4)
    dice = lying([1, 2, 2, 5, 6])
    for view in (dice[1:], dice[1:], dice, dice[1:]):
        clock.feed(view)
    clock.hold(dice[1:], 1.0)
    assert [(e.values, e.likely) for e in clock.events] == [
        ((3, 3, 4, 5, 6), None), ((2, 2, 5, 6), (1, 2, 2, 5, 6))]


def test_a_rest_read_with_a_die_too_many_all_through_is_still_a_throw() -> None:
    clock = Clock(ThrowTracker(ThrowConfig(dice_count=5)))
    rng = np.random.default_rng(15)
    clock.roll(rng, [1, 2, 4, 5, 6])
    clock.roll(rng, [2, 3, 3, 5, 6, 6])  # 3 3 5 6 6 and a side face read as a 2
    clock.roll(rng, [1, 1, 2, 3, 4, 5, 6])  # two too many: no throw of this game
    assert [e.values for e in clock.events] == [(1, 2, 4, 5, 6), (2, 3, 3, 5, 6, 6)]


def test_one_die_too_many_all_through_is_likeliest_without_the_least_sure_die() -> None:
    # cuatro seed 13 with camera dice: 1 2 3 4 6 and a side face read as a 2 at 0.76 (the
    # dice at 0.83 or more) in every frame; the session dropped the lowest die, a 1
    clock = Clock(ThrowTracker(ThrowConfig(dice_count=5)))
    rng = np.random.default_rng(19)
    clock.roll(rng, [3, 3, 4, 5, 6])
    clock.tumble(rng, 5, 4)
    dice = lying([4, 2, 3, 6, 1])
    side = DieReading(2, 0.76, (140, 205, 20, 20), (150.0, 215.0))
    clock.hold([*dice, side], 1.0)
    assert [(e.values, e.likely) for e in clock.events] == [
        ((3, 3, 4, 5, 6), None), ((1, 2, 2, 3, 4, 6), (1, 2, 3, 4, 6))]


def test_a_rest_with_every_die_found_but_most_unread_is_still_a_throw() -> None:
    # cuatro seed 16 with camera dice: 1 2 3 3 5 read 1 5 with four unread patterns (three
    # tilted white dice and a side face) all through the rest; the 5th throw was lost
    clock = Clock(ThrowTracker(ThrowConfig(dice_count=5)))
    rng = np.random.default_rng(20)
    clock.roll(rng, [1, 3, 4, 6, 6])
    clock.roll(rng, [None, None, 5, 1, None, None])
    clock.roll(rng, [None, 2, None])  # two dice not found: not counted
    assert [e.values for e in clock.events] == [(1, 3, 4, 6, 6), (1, 5)]


def test_a_rest_with_all_but_one_die_found_and_two_unread_is_still_a_throw() -> None:
    # cuatro seed 51 with camera dice: 2 2 3 3 6 read 3 6 with two unread patterns and a 2
    # never found all through the rest; the throw was lost and the roof after it flagged
    clock = Clock(ThrowTracker(ThrowConfig(dice_count=5)))
    rng = np.random.default_rng(22)
    clock.roll(rng, [1, 3, 4, 6, 6])
    clock.roll(rng, [6, 3, None, None])
    clock.roll(rng, [None, 2, None, None])  # three unread: not counted
    assert [e.values for e in clock.events] == [(1, 3, 4, 6, 6), (3, 6)]


def test_a_rest_with_all_but_one_die_read_counts_whatever_unread_patterns_lie_beside() -> None:
    # cuatro seed 50 with camera dice: 1 2 3 4 5 read 2 3 4 5 with three unread patterns
    # (the 1 and two side faces) all through the rest; the throw was lost, the straight
    # after it flagged
    clock = Clock(ThrowTracker(ThrowConfig(dice_count=5)))
    rng = np.random.default_rng(21)
    clock.roll(rng, [1, 3, 4, 6, 6])
    clock.roll(rng, [None, 3, None, 2, 5, None, 4])
    clock.roll(rng, [None, 2, None, 5, None, None, 4])  # two dice unread: not with strays
    assert [e.values for e in clock.events] == [(1, 3, 4, 6, 6), (2, 3, 4, 5)]


def test_a_side_face_read_beside_all_the_dice_for_two_frames_is_no_die_landing() -> None:
    # cuatro seed 13 with camera dice: 3 4 4 5 6 lay seven frames; a side pip read as a 1 at
    # a new place in frames 4 and 5 was taken for a die landing late, the rest began again
    # and the next throw's hand came before it had lasted settle_seconds
    clock = Clock(ThrowTracker(ThrowConfig(dice_count=5)))
    rng = np.random.default_rng(21)
    clock.roll(rng, [1, 3, 4, 6, 6])
    clock.tumble(rng, 5, 3)
    dice = lying([3, 4, 4, 5, 6], shift=15.0)
    side = [*dice, die(1, dice[2].centre[0], 232)]
    for view in (dice, dice, dice, side, side, dice, dice):
        clock.feed(view)
    clock.tumble(rng, 5, 3)  # the next throw
    assert [e.values for e in clock.events] == [(1, 3, 4, 6, 6), (3, 4, 4, 5, 6)]
    # a die landing late where none lay, with a die of the game still rolling, still restarts
    clock = Clock(ThrowTracker(ThrowConfig(dice_count=5)))
    clock.roll(rng, [1, 3, 4, 6, 6])
    clock.tumble(rng, 5, 3)
    for view in (dice[:4], dice[:4], dice[:4], dice, dice, dice, dice):
        clock.feed(view)
    clock.tumble(rng, 5, 3)
    assert [e.values for e in clock.events] == [(1, 3, 4, 6, 6)]


def test_a_rest_short_of_a_die_is_a_throw_when_every_die_moved() -> None:
    # cuatro seed 1 with camera dice: 1 3 4 6 6 after 3 4 6 6 6, the 1 never found; the four
    # faces read were all showing before, and the throw was taken for dice set aside
    clock = Clock(ThrowTracker(ThrowConfig(dice_count=5)))
    rng = np.random.default_rng(16)
    clock.roll(rng, [3, 4, 6, 6, 6])
    clock.hold(clock.last[:3], 1.0)  # two dice picked up, three left lying: no throw
    clock.roll(rng, [3, 4, 6, 6])  # all thrown, one die never found
    assert [e.values for e in clock.events] == [(3, 4, 6, 6, 6), (3, 4, 6, 6)]


def test_the_game_s_dice_thrown_again_showing_the_same_faces_are_a_throw() -> None:
    clock = Clock(ThrowTracker(ThrowConfig(dice_count=5)))
    rng = np.random.default_rng(18)
    # cuatro seed 6 with camera dice: 1 2 3 5 6 twice running, the second taken for the
    # same dice put back; the game's throws roll every die, dice set aside leave some lying
    clock.roll(rng, [1, 2, 3, 5, 6])
    shift = clock.last[0].centre[0] - 100 + 20  # every die 20 px from where it lay
    for _ in range(8):
        clock.feed(tumbling(rng, 5))
    clock.hold(lying([1, 2, 3, 5, 6], shift=shift), 1.0)
    assert [e.values for e in clock.events] == [(1, 2, 3, 5, 6), (1, 2, 3, 5, 6)]


def test_a_card_laid_at_the_edge_becomes_the_table_though_hands_pass_over_it_each_second():
    # cuatro seed 44 with camera dice: a look the clear view lacked held between hands
    # coming every second; each hand started its adopt_seconds again, and a throw resting
    # beside it was taken for hidden by a hand
    config = ThrowConfig()
    watch = HandWatch(config)
    lo = np.zeros(2)
    table = np.full((200, 300, 3), (60.0, 10.0, 20.0), np.float32)  # Lab, 1 px per mm
    card = table.copy()
    card[:60, :90] = (95.0, 0.0, 0.0)
    assert not watch.covered(0.0, table, lo, [])
    covered = []
    for k in range(int(5 * FPS)):
        view = card.copy()
        if k % 10 in (5, 6):  # a hand from the other edge, a little further in each frame
            view[100:, 200 - 20 * (k % 10):] = (40.0, 20.0, 30.0)
        covered.append(watch.covered((k + 1) / FPS, view, lo, []))
    adopted = next(k for k in range(len(covered)) if k % 10 not in (5, 6) and not covered[k])
    assert adopted / FPS == pytest.approx(config.adopt_seconds, abs=1.5 / FPS)
    assert all(covered[k] for k in range(adopted, len(covered)) if k % 10 in (5, 6))


def test_a_die_come_where_none_is_seen_is_an_unseen_die_and_one_gone_is_not() -> None:
    watch = HandWatch(ThrowConfig())
    lo = np.zeros(2)
    table = np.full((200, 300, 3), (60.0, 10.0, 20.0), np.float32)  # Lab, 1 px per mm
    seen = [np.array([50.0, 50.0])]
    table[40:60, 40:60] = (95.0, 0.0, 0.0)  # a die read there, in both views
    landed = table.copy()
    landed[120:140, 200:220] = (95.0, 0.0, 0.0)  # a die no reading was made of
    assert watch.unseen((landed, seen), (table, seen), lo)
    assert not watch.unseen((table, seen), (landed, seen), lo)  # gone: nothing lies unseen
    read = seen + [np.array([210.0, 130.0])]
    assert not watch.unseen((landed, read), (table, seen), lo)


def test_a_shadow_past_a_seen_die_is_no_unseen_die_but_a_dark_die_is() -> None:
    """The referee's table (lamp 40 deg up): a die's shadow reaches 30-35 mm from its read
    centre, the table there darkened to ~0.7 of its lightness, its colour kept; for a throw
    read with all its dice that is no die unseen, a black die (much darker) or a coloured one
    lying there is. Without a count, the shadow still counts (an unseen die's own)."""
    config = ThrowConfig()
    watch = HandWatch(config)
    lo = np.zeros(2)
    table = np.full((200, 300, 3), (70.0, 8.0, 24.0), np.float32)  # Lab, 1 px per mm
    seen = [np.array([50.0, 50.0])]
    landed = table.copy()
    landed[40:60, 40:60] = (95.0, 0.0, 0.0)  # the die read, its shadow reaching past it
    landed[60:100, 55:80] = (50.0, 8.0 * 50 / 70, 24.0 * 50 / 70)
    assert landed[60:100, 55:80].size / 3 > config.unseen_area_mm2
    assert not watch.unseen((landed, seen), (table, seen), lo, whole=True)
    assert watch.unseen((landed, seen), (table, seen), lo)  # no count: it may be a die's own
    for die in ((14.0, 0.0, 0.0), (45.0, 60.0, 40.0)):  # black, red
        there = landed.copy()
        there[75:95, 57:77] = die
        assert watch.unseen((there, seen), (table, seen), lo, whole=True)


def test_fingers_at_the_view_edge_are_no_unseen_die_for_a_throw_read_whole() -> None:
    """The referee's table (Cuatro seeds 1 and 3): a passing hand's fingertips just inside
    the watched view's edge, too small to be a hand, far from every die, made right throws
    read with all their dice unsure. A patch reaching the edge is no die lying in the area
    for such a throw; one inside still is, and without a count the edge patch counts."""
    config = ThrowConfig()
    watch = HandWatch(config)
    lo = np.zeros(2)
    table = np.full((200, 300, 3), (70.0, 8.0, 24.0), np.float32)  # Lab, 1 px per mm
    seen = [np.array([150.0, 100.0])]
    fingers = table.copy()
    fingers[90:120, 0:15] = (55.0, 20.0, 25.0)
    assert fingers[90:120, 0:15].size / 3 > config.unseen_area_mm2
    assert not watch.unseen((fingers, seen), (table, seen), lo, whole=True)
    assert watch.unseen((fingers, seen), (table, seen), lo)
    die = fingers.copy()
    die[150:170, 40:60] = (45.0, 60.0, 40.0)  # a red die never found, inside the view
    assert watch.unseen((die, seen), (table, seen), lo, whole=True)


def test_a_throw_short_of_a_die_never_found_is_reported_unsure() -> None:
    """Bench seed 8065: at the last rest a 5 beside a 6 is never found in a clear frame, and
    1 1 4 6 went out as read surely; the area's view shows something die-sized come where no
    die is read. The session's other throws, read whole, stay sure."""
    events = [(e.values, e.sure) for _, _, e in _played(8065)[3] if e is not None]
    assert events == [((1, 2, 5, 6, 6), True), ((1, 5, 6), True), ((1, 1, 4, 6), False)]


def test_one_die_flickering_between_a_sure_and_a_weak_value_agrees_unsure() -> None:
    # the referee's Cuatro seed 3, move 18: a 1 behind a 6 read as a 2 at 0.37-0.39 in every
    # other frame; half the frames read each, and the throw was never counted (here a share
    # of 0.7 that neither reading reaches in any window, with a hand there over some frames)
    clock = Clock(ThrowTracker(ThrowConfig(dice_count=5, agree_share=0.7)))
    rng = np.random.default_rng(15)
    clock.tumble(rng, 5, 4)
    rest = lying([1, 4, 5, 5, 6])
    x, y = rest[0].centre
    weak = [DieReading(2, 0.38, rest[0].box, (x + 3.0, y)), *rest[1:]]
    for frame in range(6):  # 0.6 s, then the next throw
        clock.feed(weak if frame % 2 else rest)
    clock.tumble(rng, 5, 4)
    assert [(e.values, e.throw_number, e.sure) for e in clock.events] == [
        ((1, 4, 5, 5, 6), 1, False)]


def test_one_die_read_two_ways_both_surely_is_no_flicker() -> None:
    clock = Clock(ThrowTracker(ThrowConfig(dice_count=5, agree_share=0.7)))
    clock.tumble(np.random.default_rng(16), 5, 4)
    rest = lying([1, 4, 5, 5, 6])
    for frame in range(6):  # 0.6 s, then the next throw
        clock.feed(lying([2, 4, 5, 5, 6]) if frame % 2 else rest)
    clock.tumble(np.random.default_rng(17), 5, 4)
    assert clock.events == []
