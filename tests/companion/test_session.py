"""The referee's loop without a camera: observations in, accepted moves and flags out."""

import random
from dataclasses import replace

import pytest

from companion import Place, SetAside, Step, Throw, new_game
from companion.gamelog import GameLog
from companion.infer import FieldView, Observation, infer_move
from companion.session import Session
from companion.stability import StabilityConfig, StabilityFilter
from tests.companion.scenes import blue_after_a_stone_missed_on_one_of_two_towers, seen_after


def recorder(session):
    events = []
    session.listeners.append(events.append)
    return events


def test_a_placement_seen_by_the_camera_is_accepted_and_logged(tmp_path):
    game = new_game("just4fun", ["red", "blue"])
    with GameLog(tmp_path / "log.sqlite") as log:
        session = Session(game, log)
        events = recorder(session)
        result = session.observe(seen_after(game, Place("C3")))
        assert result.kind == "move" and result.move == Place("C3")
        assert game.stacks() == {"C3": ("red",)}
        assert game.current_player == "blue"
        assert [e.kind for e in events] == ["move"]
        assert log.moves(session.game_id) == [Place("C3")]


def test_nothing_changed_is_no_move():
    game = new_game("cuatro", ["red", "blue"])
    assert infer_move(game, Observation.of_game(game)).kind == "same"


def test_tower_height_off_by_one_takes_the_legal_reading():
    game = new_game("just4fun", ["red", "blue"])
    view = seen_after(game, Place("A1"), changes={"A1": FieldView("red", 2, 0.5)})
    result = infer_move(game, view)
    assert result.kind == "move" and result.move == Place("A1")


def just4fun_after(*fields):
    """Just 4 Fun, red and blue, with stones placed on ``fields`` in turn."""
    game = new_game("just4fun", ["red", "blue"])
    for name in fields:
        game.apply(Place(name))
    return game


def test_a_tower_read_with_no_confidence_far_off_its_height_does_not_hide_a_move():
    # Just 4 Fun seed 21: blue's stone on E1 made the reader take red-topped E2 for blue, 5 high
    game = just4fun_after("E2", "E2", "E2")
    view = seen_after(game, Place("E1"), changes={"E1": FieldView("blue", 1, 0.0),
                                                  "E2": FieldView("blue", 5, 0.0)})
    result = infer_move(game, view)
    assert result.kind == "move" and result.move == Place("E1")
    sure = replace(view, fields={**view.fields, "E2": FieldView("blue", 5, 0.3)})
    assert infer_move(game, sure).kind == "unexplained"


def test_a_tower_read_with_no_confidence_is_the_stone_a_hand_just_set_there():
    # Just 4 Fun seed 25: red's stone on blue's tower of 3 on B1, read blue, 1 high
    game = just4fun_after("B1", "B1", "A6", "B1")
    view = seen_after(game, changes={"B1": FieldView("blue", 1, 0.0)})
    assert infer_move(game, replace(view, after_hand=True)).move == Place("B1")
    assert infer_move(game, view).kind == "same"  # no hand came: it is only read wrong


def test_a_move_fitting_worse_than_a_misreading_is_no_move():
    # Just 4 Fun seed 33: blue's tower of 3 on D5 read one low, unsure, after blue's hand
    game = just4fun_after("D5", "D5", "A6", "D5", "A5")
    view = seen_after(game, changes={"D5": FieldView("blue", 2, 0.0)})
    result = infer_move(game, replace(view, after_hand=True))
    assert result.kind == "same" and result.changed == ("D5",)


def test_placement_before_throwing_is_flagged_until_taken_back():
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    events = recorder(session)
    wrong = Observation({**Observation.of_game(game).fields, "A0": FieldView("red", 1)})
    result = session.observe(wrong)
    assert result.kind == "illegal"
    assert "throw" in result.reason
    assert events[-1].kind == "illegal"
    assert session.observe(wrong).kind == "illegal"  # still waiting for the reset
    session.observe(Observation.of_game(game))
    assert events[-1].kind == "cleared" and session.flag is None
    assert game.moves == []


def test_a_stone_flagged_before_a_late_counted_throw_is_judged_again():
    # Cuatro seed 61 with camera dice: the throw came in after the stone set after it
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    session.observe(Observation.of_game(game))
    roof = Observation({**Observation.of_game(game).fields, "A0": FieldView("red", 1)})
    assert session.observe(roof).kind == "illegal"
    assert session.throw_settled((1, 1, 1, 1, 1))
    assert session.rejudge().kind == "move" and session.flag is None
    assert game.moves == [Throw((1, 1, 1, 1, 1)), Place("A0")]
    assert session.rejudge().kind == "same"


def test_a_verdict_held_tells_only_how_the_flag_ends():
    # Cuatro seed 3 with camera dice: red's roof on A4 (pair of 2s) was judged against the
    # turn's previous throw 1 5 5 5 6 before the throw it followed was counted; the flag
    # rose and went at once. Held, the players hear nothing of it
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    events = recorder(session)
    session.throw_settled((1, 5, 5, 5, 6))
    roof = seen_after(game, changes={"A4": FieldView("red", 1)})
    with session.verdict_held():
        assert session.observe(roof).kind == "illegal" and session.flag is not None
        assert session.throw_settled((1, 2, 2, 2, 6))
        assert session.rejudge().kind == "move"
    assert [e.kind for e in events] == ["move", "move", "move"]
    assert game.moves[-1] == Place("A4") and session.flag is None
    # a stone the throw does not make legal is told once, against the throw it followed
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    events = recorder(session)
    session.throw_settled((1, 5, 5, 5, 6))
    with session.verdict_held():
        session.observe(roof)
        session.throw_settled((1, 1, 3, 6, 6))
        session.rejudge()
    told = [e for e in events if e.kind == "illegal"]
    assert len(told) == 1 and "1 1 3 6 6" in told[0].data["rule"]
    assert session.flag is not None and "A4" not in game.stacks()
    # a flag up before the block and cleared in it is told cleared
    with session.verdict_held():
        session.observe(seen_after(game))
    assert events[-1].kind == "cleared" and session.flag is None


def test_a_piece_of_the_wrong_player_is_flagged():
    game = new_game("just4fun", ["red", "blue"])
    view = Observation({**Observation.of_game(game).fields, "B2": FieldView("blue", 1)})
    result = Session(game).observe(view)
    assert result.kind == "illegal" and "red's turn" in result.reason


def test_two_stones_at_once_are_unexplained_not_guessed():
    game = new_game("just4fun", ["red", "blue"])
    fields = {**Observation.of_game(game).fields, "B2": FieldView("red", 1),
              "C5": FieldView("red", 1)}
    result = Session(game).observe(Observation(fields))
    assert result.kind == "unexplained" and "B2" in result.reason and "C5" in result.reason
    assert game.moves == []


def test_a_wrong_stone_set_while_a_flag_is_up_is_flagged_too():
    # Just 4 Fun seed 21: a flag for a misreading hid the third wrong stone of the game
    game = new_game("just4fun", ["red", "blue"])
    session = Session(game)
    events = recorder(session)
    two = {**Observation.of_game(game).fields, "B2": FieldView("red", 1),
           "C5": FieldView("red", 1)}
    assert session.observe(Observation(two)).kind == "unexplained"
    three = Observation({**two, "D4": FieldView("blue", 1)})
    session.observe(three)
    session.observe(three)
    session.observe(Observation(two))
    flags = [sorted(e.data["fields"]) for e in events if e.kind == "illegal"]
    assert flags == [["B2", "C5"], ["B2", "C5", "D4"]]
    assert "D4" in session.flag.reason


def test_a_flag_clears_when_what_is_left_reads_better_as_a_misreading():
    game = just4fun_after("D5", "D5", "A6", "D5", "A5")
    session = Session(game)
    events = recorder(session)
    wrong = seen_after(game, changes={"C1": FieldView("red", 1)})
    assert session.observe(wrong).kind == "illegal"
    misread = seen_after(game, changes={"D5": FieldView("blue", 2, 0.0)})
    assert session.observe(replace(misread, after_hand=True)).kind == "same"
    assert session.flag is None and events[-1].kind == "cleared"
    assert len(game.moves) == 5


def test_a_shrinking_tower_is_unexplained():
    game = new_game("just4fun", ["red", "blue"])
    game.apply(Place("A1"))
    view = seen_after(game, changes={"A1": FieldView(None, 0)})
    result = infer_move(game, view)
    assert result.kind == "unexplained" and "shrank" in result.reason


def cuatro_with_two_blue_roofs_on_e0():
    """Cuatro, red and blue, roofs on B0, E0, A0, E0 in turn: red to play, not yet thrown."""
    game = new_game("cuatro", ["red", "blue"])
    for name in ("B0", "E0", "A0", "E0"):
        game.apply(Throw((1, 1, 1, 1, 1)))
        game.apply(Place(name))
    return game


def test_a_tower_read_low_in_doubt_where_no_move_fits_is_a_misreading():
    # Cuatro seed 4 with outline_contrast_ratio 0.8: E0's two blue roofs read as one at
    # confidence 0.00-0.02, where no legal move touched E0, were flagged as a tower shrunk
    game = cuatro_with_two_blue_roofs_on_e0()
    session = Session(game)
    events = recorder(session)
    session.observe(seen_after(game))
    low = seen_after(game, changes={"E0": FieldView("blue", 1, 0.01)})
    for _ in range(2):
        result = session.observe(low)
        assert result.kind == "same" and session.flag is None
    assert not [e for e in events if e.kind == "illegal"]
    assert len(game.moves) == 8


def test_a_tower_read_low_and_sure_is_still_flagged_as_shrunk():
    game = cuatro_with_two_blue_roofs_on_e0()
    session = Session(game)
    session.observe(seen_after(game))
    result = session.observe(seen_after(game, changes={"E0": FieldView("blue", 1, 0.9)}))
    assert result.kind == "unexplained" and result.reason == "a tower shrank on E0"
    assert session.flag is result


def test_two_turns_seen_as_one_beside_a_tower_read_low_in_doubt_are_both_accepted():
    game = just4fun_after("D5", "D5", "A6", "D5")  # blue's tower of 3 on D5: red to play
    turns = seen_after(game, Place("A1"), Place("B2"))
    low = replace(turns, fields={**turns.fields, "D5": FieldView("blue", 2, 0.0)})
    result = Session(game).observe(low)
    assert result.kind == "moves" and game.moves[-2:] == [Place("A1"), Place("B2")]
    sure = replace(low, fields={**low.fields, "D5": FieldView("blue", 2, 0.9)})
    assert "shrank on D5" in infer_move(just4fun_after("D5", "D5", "A6", "D5"), sure).reason


def test_an_illegal_stone_beside_a_tower_read_low_in_doubt_is_flagged_by_its_own_rule():
    game = just4fun_after("D5", "D5", "A6", "D5")  # blue's tower of 3 on D5: red to play
    seen = seen_after(game, changes={"F6": FieldView("blue", 1, 0.9),
                                     "D5": FieldView("blue", 2, 0.0)})
    session = Session(game)
    result = session.observe(seen)
    assert result.kind == "illegal" and result.changed == ("F6",)
    assert result.reason == "it is red's turn, but a blue piece appeared on F6"
    session.observe(seen_after(game, changes={"D5": FieldView("blue", 2, 0.0)}))
    assert session.flag is None  # the stone taken back; the tower still read low


def test_muehle_capture_waits_for_the_stone_to_be_taken():
    game = new_game("muehle", ["white", "black"])
    for move in [Place("a1"), Place("b2"), Place("d1"), Place("b4")]:
        game.apply(move)
    session = Session(game)
    closed = seen_after(game, Place("g1", capture="b2"), changes={"b2": FieldView("black", 1)})
    assert session.observe(closed).kind == "pending"
    taken = seen_after(game, Place("g1", capture="b2"))
    result = session.observe(taken)
    assert result.kind == "move" and result.move == Place("g1", capture="b2")


def test_muehle_step_to_a_non_neighbour_is_flagged():
    game = new_game("muehle", ["white", "black"])
    rng = random.Random(2)
    while game.stone_counts()["black"].in_supply:
        game.apply(rng.choice(game.legal_moves()))
    if game.is_over:
        return
    stacks = game.stacks()
    player = game.current_player
    src = next(f for f, owners in stacks.items() if owners == (player,))
    dst = next(f for f in game.layout.fields if f not in stacks
               and Step(src, f) not in game.legal_moves()
               and all(getattr(m, "dst", None) != f or m.src != src for m in game.legal_moves()))
    fields = dict(Observation.of_game(game).fields)
    fields[src] = FieldView(None, 0)
    fields[dst] = FieldView(player, 1)
    result = infer_move(game, Observation(fields))
    assert result.kind == "illegal" and result.move == Step(src, dst)


def test_a_muehle_stone_read_gone_in_doubt_is_no_move_and_keeps_no_other_out():
    game = new_game("muehle", ["white", "black"])
    game.apply(Place("b6"))
    lost = {"b6": FieldView(None, 0, 0.1)}
    assert infer_move(game, seen_after(game, changes=lost)).kind == "same"
    looks = Observation(seen_after(game, changes={"b6": FieldView(None, 0, 0.7)}).fields,
                        looks_changed=frozenset({"b6"}))
    assert infer_move(game, looks).kind == "same"
    result = infer_move(game, seen_after(game, Place("f2"), changes=lost))
    assert result.kind == "move" and result.move == Place("f2")
    sure = seen_after(game, Place("f2"), changes={"b6": FieldView(None, 0)})
    assert infer_move(game, sure).kind != "move"  # a stone read gone for sure is no misreading


def test_a_muehle_stone_read_as_board_since_it_was_set_is_followed_when_it_moves():
    game = new_game("muehle", ["white", "black"])
    rng = random.Random(2)
    while game.stone_counts()["black"].in_supply:
        game.apply(rng.choice(game.legal_moves()))
    assert not game.is_over
    step = next(m for m in game.legal_moves() if isinstance(m, Step) and not m.capture)
    session = Session(game)
    lost = {step.src: FieldView(None, 0, 0.3)}
    assert session.observe(seen_after(game, changes=lost)).kind == "same"
    gone = seen_after(game, step, changes={step.src: FieldView(None, 0, 0.1)})
    result = session.observe(replace(gone, looks_changed=frozenset({step.src})))
    assert result.kind == "move" and result.move == step and session.flag is None


def test_throws_are_counted_and_a_sixth_is_refused():
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    events = recorder(session)
    for _ in range(5):
        assert session.throw_settled((1, 2, 4, 4, 6))
    assert not session.throw_settled((1, 2, 4, 4, 6))
    assert events[-1].kind == "illegal" and "at most 5" in events[-1].data["rule"]
    assert game.throw_count == 5


def test_undo_takes_back_and_is_logged(tmp_path):
    with GameLog(tmp_path / "log.sqlite") as log:
        session = Session(new_game("just4fun", ["red", "blue"]), log)
        session.play(Place("A1"))
        session.play(Place("B1"))
        assert session.undo() == Place("B1")
        assert log.moves(session.game_id) == [Place("A1")]


def test_after_undo_the_board_must_be_set_back_before_play_goes_on():
    """The piece of a move taken back still lies there until someone takes it away: that
    view is not the move again. Once the board is set back, play goes on as usual."""
    session = Session(new_game("muehle", ["white", "black"]))
    game = session.game
    assert session.observe(seen_after(game, Place("a1"))).kind == "move"
    played = seen_after(game, Place("d2"))
    assert session.observe(played).move == Place("d2")
    assert session.undo() == Place("d2")
    assert session.observe(played).kind == "same" and game.moves == [Place("a1")]
    assert session.observe(Observation.of_game(game)).kind == "same"
    result = session.observe(seen_after(game, Place("d3")))
    assert result.move == Place("d3") and game.moves == [Place("a1"), Place("d3")]
    assert session.undo() == Place("d3")
    assert session.observe(seen_after(game, Place("d5"))).move == Place("d5")  # moved over


def test_resume_after_a_crash_continues_the_game(tmp_path):
    path = tmp_path / "log.sqlite"
    log = GameLog(path)
    session = Session(new_game("cuatro", ["red", "blue", "green"]), log)
    rng = random.Random(9)
    for _ in range(25):
        session.play(session.game.random_move(rng))
    expected = session.game.status()
    del session, log  # no close: as if the power went off
    with GameLog(path) as reopened:
        resumed = Session.resume(reopened)
        assert resumed.game.status() == expected
        assert reopened.export(resumed.game_id)["moves"] == resumed.game.to_record()["moves"]


def test_stability_filter_waits_for_a_steady_unoccluded_view():
    game = new_game("cuatro", ["red", "blue"])
    view = Observation.of_game(game)
    stable = StabilityFilter(StabilityConfig(min_frames=3, min_seconds=0.3))
    assert stable.feed(view, 0.0) is None
    assert stable.feed(view, 0.1) is None
    assert stable.feed(Observation(view.fields, occluded=True), 0.2) is None
    assert stable.feed(view, 0.3) is None
    assert stable.feed(view, 0.4) is None
    assert stable.feed(view, 0.7) == replace(view, after_hand=True)  # first view after it
    assert stable.feed(view, 0.8) is None  # reported once


def test_only_the_first_view_to_hold_after_a_hand_says_so():
    game = new_game("cuatro", ["red", "blue"])
    view = Observation.of_game(game)
    after = seen_after(game, changes={"A0": FieldView("red", 1)})
    stable = StabilityFilter(StabilityConfig(min_frames=2, min_seconds=0.1))
    reported = [stable.feed(view, t / 10) for t in range(3)]
    assert [r.after_hand for r in reported if r is not None] == [False]
    stable.feed(Observation(view.fields, occluded=True), 0.3)
    reported = [stable.feed(view, t / 10) for t in range(4, 7)]  # the same board: not told
    assert reported == [None, None, None]
    reported = [stable.feed(after, t / 10) for t in range(7, 14)]  # no hand since it held
    assert [r.after_hand for r in reported if r is not None] == [False]


def test_two_turns_seen_as_one_are_both_accepted_without_dice():
    game = new_game("muehle", ["white", "black"])
    session = Session(game)
    played = session.observe(seen_after(game.copy(), Place("a1"), Place("g7")))
    assert played.kind == "moves"
    assert game.moves == [Place("a1"), Place("g7")]


def test_two_stones_of_one_player_are_still_unexplained():
    game = new_game("muehle", ["white", "black"])
    after = game.copy()
    view = seen_after(after, Place("a1"))
    fields = dict(view.fields)
    fields["g7"] = FieldView("white", 1)
    assert Session(game).observe(Observation(fields)).kind in ("unexplained", "illegal")
    assert game.moves == []


def red_to_play_beside_a_red_stone(confidence: float):
    """Just 4 Fun, red to play with a red stone on C6 and a blue one on F1; the session has
    seen the board, C6 read with ``confidence``."""
    game = new_game("just4fun", ["red", "blue"])
    game.apply(Place("C6"))
    game.apply(Place("F1"))
    session = Session(game)
    seen = seen_after(game, changes={"C6": FieldView("red", 1, confidence)})
    assert session.observe(seen).kind == "same"
    return game, session


def test_a_stone_on_ones_own_tower_shows_as_the_reader_losing_confidence_there():
    game, session = red_to_play_beside_a_red_stone(0.84)
    # red sets a stone on C6; the reader still says height 1, now with confidence 0.05
    unsure = seen_after(game, changes={"C6": FieldView("red", 1, 0.05)})
    result = session.observe(unsure)
    assert result.kind == "move" and result.move == Place("C6")
    assert game.stacks()["C6"] == ("red", "red") and game.current_player == "blue"
    # the same unsure reading from then on is the tower as it now is, not another stone
    assert session.observe(unsure).kind == "same"
    assert game.stacks()["C6"] == ("red", "red")


def test_after_a_hand_a_smaller_loss_of_confidence_on_ones_own_tower_is_a_stone():
    # Cuatro seed 16 with camera dice: blue's second roof on A4, read at the old height with
    # confidence 0.78 -> 0.39 in the first view after the hand; without a hand, no stone
    def watched(after_hand):
        game, session = red_to_play_beside_a_red_stone(0.78)
        unsure = seen_after(game, changes={"C6": FieldView("red", 1, 0.39)})
        return game, session.observe(replace(unsure, after_hand=after_hand))

    played, result = watched(after_hand=True)
    assert result.kind == "move" and result.move == Place("C6")
    assert played.stacks()["C6"] == ("red", "red") and played.current_player == "blue"
    played, result = watched(after_hand=False)
    assert result.kind == "same" and played.stacks()["C6"] == ("red",)


def test_a_stone_on_a_tower_read_one_low_shows_as_the_reading_growing_after_a_hand():
    # Cuatro seed 11 with scripted dice: red's two-roof D5 read one high, unsure, before
    # red's third roof and two high after it, at the game's old height, with no changed look
    def watched(after_hand):
        game, session = red_to_play_beside_a_red_stone(0.84)
        low = {"C6": FieldView("red", 1, 0.05)}  # red's second stone, read at the old height
        assert session.observe(seen_after(game, changes=low)).move == Place("C6")
        assert session.observe(seen_after(game, Place("F2"), changes=low)).move == Place("F2")
        grown = seen_after(game, changes={"C6": FieldView("red", 2, 0.22)})
        return game, session.observe(replace(grown, after_hand=after_hand))

    played, result = watched(after_hand=True)
    assert result.kind == "move" and result.move == Place("C6")
    assert played.stacks()["C6"] == ("red",) * 3 and played.current_player == "blue"
    played, result = watched(after_hand=False)  # a flicker with no hand near: no stone
    assert result.kind == "same" and played.stacks()["C6"] == ("red",) * 2


def test_a_tower_read_at_its_height_before_it_read_one_low_is_no_stone_when_it_reads_so_again():
    # Cuatro seed 229: blue's two-roof E2, read two high, then one, unsure, then two again
    # after a hand passed over the board, was taken for blue's third roof never set
    game, session = red_to_play_beside_a_red_stone(0.84)
    session.observe(seen_after(game, Place("C6"), Place("F2")))
    assert game.stacks()["C6"] == ("red", "red") and game.current_player == "red"
    low = seen_after(game, changes={"C6": FieldView("red", 1, 0.01)})
    assert session.observe(low).kind == "same"
    back = seen_after(game, changes={"C6": FieldView("red", 2, 0.07)})
    result = session.observe(replace(back, after_hand=True))
    assert result.kind == "same" and game.stacks()["C6"] == ("red", "red")
    assert game.current_player == "red"


def test_a_stone_on_a_tower_the_reader_was_unsure_of_shows_as_its_look_changing():
    # just4fun seed 6 on the simulated table: D1 at the far rim reads red, 1 high, with
    # confidence 0 before red's second stone and after it; only its changed look tells
    game = new_game("just4fun", ["red", "blue"])
    game.apply(Place("D1"))
    game.apply(Place("F1"))
    session = Session(game)
    unsure = seen_after(game, changes={"D1": FieldView("red", 1, 0.0)})
    assert session.observe(unsure).kind == "same"
    changed = Observation(unsure.fields, looks_changed=frozenset({"D1"}))
    result = session.observe(changed)
    assert result.kind == "move" and result.move == Place("D1")
    assert game.stacks()["D1"] == ("red", "red")
    assert session.observe(changed).kind == "same"  # still looks changed: no second stone
    assert len(game.moves) == 3


def test_doubt_on_another_players_tower_or_on_two_towers_is_no_move():
    game = new_game("just4fun", ["red", "blue"])
    for move in (Place("C6"), Place("F1"), Place("A1"), Place("F2")):
        game.apply(move)
    sure = {"C6": FieldView("red", 1, 0.9), "A1": FieldView("red", 1, 0.9),
            "F1": FieldView("blue", 1, 0.9)}
    blue_unsure = {**sure, "F1": FieldView("blue", 1, 0.1)}
    two_unsure = {**sure, "C6": FieldView("red", 1, 0.1), "A1": FieldView("red", 1, 0.1)}
    for doubt in (blue_unsure, two_unsure):
        session = Session(game)
        session.observe(seen_after(game, changes=sure))
        assert session.observe(seen_after(game, changes=doubt)).kind == "same"
        assert len(game.moves) == 4


def test_stability_filter_reports_a_view_again_when_a_field_turns_doubtful():
    game = new_game("just4fun", ["red", "blue"])
    game.apply(Place("C6"))
    sure = Observation({**Observation.of_game(game).fields, "C6": FieldView("red", 1, 0.84)})
    unsure = Observation({**sure.fields, "C6": FieldView("red", 1, 0.05)})
    stable = StabilityFilter(StabilityConfig(min_frames=3, min_seconds=0.2, window=3))
    reported = [stable.feed(sure, t / 10) for t in range(5)]
    assert sum(r is not None for r in reported) == 1
    stable.feed(Observation({}, occluded=True), 0.5)  # the hand
    reported = [stable.feed(unsure, 0.6 + t / 10) for t in range(6)]
    views = [r for r in reported if r is not None]
    assert len(views) == 1 and views[0].fields["C6"].confidence < 0.1
    # the doubt going and coming back is not reported again
    again = [stable.feed(v, 1.3 + t / 10) for t, v in enumerate([sure] * 5 + [unsure] * 5)]
    assert all(r is None for r in again)
    # a field unsure already whose look now changes is new doubt
    looks = Observation(unsure.fields, looks_changed=frozenset({"C6"}))
    reported = [stable.feed(looks, 2.4 + t / 10) for t in range(4)]
    assert [r.looks_changed for r in reported if r is not None] == [frozenset({"C6"})]


def test_a_stone_on_an_unsure_tower_shows_as_its_confidence_falling_after_a_hand():
    """Just 4 Fun seed 121 on the simulated table: red's second stone on D6, read 1 high
    at 0.55 before it and at 0.29 after it. Unsure already, the field turned no more
    doubtful, the view was never reported, and blue's next stone was flagged. The first
    view after a hand is reported when a field's confidence fell by
    CONFIDENCE_DROP_AFTER_HAND, and the session takes it for the stone."""
    game = new_game("just4fun", ["red", "blue"])
    game.apply(Place("D6"))
    game.apply(Place("F1"))
    before = seen_after(game, changes={"D6": FieldView("red", 1, 0.55)})
    after = seen_after(game, changes={"D6": FieldView("red", 1, 0.29)})
    slightly = seen_after(game, changes={"D6": FieldView("red", 1, 0.40)})

    def reports(views, hand):
        stable = StabilityFilter(StabilityConfig(min_frames=3, min_seconds=0.2, window=3))
        first = [stable.feed(before, t / 10) for t in range(5)]
        assert sum(r is not None for r in first) == 1
        if hand:
            stable.feed(Observation({}, occluded=True), 0.5)
        return [r for r in (stable.feed(views, 0.6 + t / 10) for t in range(6)) if r]

    assert reports(slightly, hand=True) == [] and reports(after, hand=False) == []
    [view] = reports(after, hand=True)
    assert view.after_hand and view.fields["D6"].confidence == 0.29
    session = Session(game)
    assert session.observe(replace(before, after_hand=False)).kind == "same"
    result = session.observe(view)
    assert result.kind == "move" and result.move == Place("D6")
    assert game.stacks()["D6"] == ("red", "red")


def test_without_dice_a_stone_missed_on_an_unreadable_tower_is_put_in_for_the_next():
    """Just 4 Fun seed 119 on the simulated table: red's fourth stone on B2, a tower read 5
    high at confidence 0.0 before and after it, went unseen, and blue's stone on D3 was
    flagged as blue playing in red's turn. After two hands over the board (red's and
    blue's), red's stone is put in on the only tower read one off, unsure, and blue's
    stands, also beside a red tower read at its height, unsure (seed 146: not a tower
    the stone would make read one low). With one hand only (red setting a second stone:
    an illegal move) the flag stays, and so it does where two towers could have taken
    the stone."""
    def play(hands: int, unreadable: tuple[str, ...], unsure: tuple[str, ...] = ()):
        game = new_game("just4fun", ["red", "blue"])
        for name in ("B2", "A1", "B2", "F1", "E3", "A6", "E3", "F6"):
            game.apply(Place(name))
        session = Session(game)
        blind = {name: FieldView("red", 2, 0.0) for name in unsure}
        for name, blue in zip(unreadable, ("C6", "D1"), strict=False):
            blind[name] = FieldView("red", 5, 0.0)  # red's third stone there, read so
            view = replace(seen_after(game, Place(name), changes=blind), after_hand=True)
            assert session.observe(view).move == Place(name)
            assert session.observe(seen_after(game, Place(blue), changes=blind)).kind == "move"
        for _ in range(hands):
            session.hand_over_board()
            session.board_steady()
        blue = seen_after(game, changes={**blind, "D3": FieldView("blue", 1, 0.9)})
        return session, session.observe(blue)

    for unsure in ((), ("E3",)):
        session, result = play(2, ("B2",), unsure)
        assert result.kind == "move" and result.move == Place("D3")
        assert session.game.moves[-2:] == [Place("B2"), Place("D3")]
        assert session.game.stacks()["B2"] == ("red",) * 4
    for hands, unreadable in ((1, ("B2",)), (2, ("B2", "E3"))):
        session, result = play(hands, unreadable)
        assert result.kind == "illegal" and session.game.stacks()["B2"] == ("red",) * 3


def test_where_two_towers_may_hold_a_missed_stone_the_players_are_asked_which():
    """Just 4 Fun seed 119: red's stone went unseen on B2 or E3 (both read 5 high at 0.0)
    and blue's on D3 is flagged. The players are asked once; the confirm button takes the
    first, the page either; blue's stone then stands. Taking blue's stone away drops the
    question."""
    def flagged():
        session = Session(new_game("just4fun", ["red", "blue"]))
        events = recorder(session)
        blind = blue_after_a_stone_missed_on_one_of_two_towers(session)
        return session, events, blind

    session, events, _ = flagged()
    asked = [e for e in events if e.kind == "confirm"]
    assert len(asked) == 1 and "B2 or E3" in asked[0].data["message"]
    assert session.pending_choice == (Place("B2"), Place("E3"))
    assert session.choose(1) and session.flag is None
    assert session.game.moves[-2:] == [Place("E3"), Place("D3")]
    assert session.game.stacks()["E3"] == ("red",) * 4

    session, _, _ = flagged()
    assert session.confirm() and session.game.moves[-2:] == [Place("B2"), Place("D3")]
    with pytest.raises(ValueError, match="nothing to choose"):
        session.choose(0)

    session, _, blind = flagged()
    assert session.observe(seen_after(session.game, changes=blind)).kind == "same"
    assert session.flag is None and session.pending_choice == ()


def test_a_misread_throw_corrected_by_hand_lets_the_flagged_stone_stand(tmp_path):
    with GameLog(tmp_path / "log.sqlite") as log:
        game = new_game("cuatro", ["red", "blue"])
        session = Session(game, log)
        events = recorder(session)
        session.throw_settled((1, 2, 4, 5, 6))  # the camera read a 2 as a 4
        stone = seen_after(game, changes={"A4": FieldView("red", 1)})
        assert session.observe(stone).kind == "illegal"  # A4 wants a pair of 2s
        session.correct_throw((1, 2, 2, 5, 6))
        assert session.flag is None
        assert [e.kind for e in events[-4:]] == ["correction", "move", "cleared", "move"]
        assert events[-4].data == {"dice": [1, 2, 2, 5, 6], "replaced": [1, 2, 4, 5, 6]}
        assert game.stacks() == {"A4": ("red",)} and game.current_player == "blue"
        assert log.moves(session.game_id) == [Throw((1, 2, 2, 5, 6)), Place("A4")]


def test_a_missed_throw_is_added_and_counts():
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    session.throw_settled((3, 3, 4, 5, 6))
    session.correct_throw((1, 2, 2, 5, 6), missed=True)
    assert game.moves == [Throw((3, 3, 4, 5, 6)), Throw((1, 2, 2, 5, 6))]
    assert game.throw_count == 2


def test_a_throw_correction_the_rules_refuse_changes_nothing():
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    with pytest.raises(ValueError, match="no throw this turn"):
        session.correct_throw((1, 2, 2, 5, 6))
    for _ in range(5):
        session.throw_settled((1, 2, 4, 5, 6))
    with pytest.raises(ValueError, match="at most 5"):
        session.correct_throw((1, 2, 2, 5, 6), missed=True)
    with pytest.raises(ValueError):
        session.correct_throw((1, 2, 2, 5, 9))
    assert game.moves == [Throw((1, 2, 4, 5, 6))] * 5


def test_dice_showing_a_throw_that_makes_the_flagged_stone_legal_were_a_missed_throw():
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    session.throw_settled((3, 3, 4, 5, 6))
    stone = seen_after(game, changes={"A4": FieldView("red", 1)})
    assert session.observe(stone).kind == "illegal"
    assert not session.throw_missed((3, 3, 4, 5, 6))  # the same dice: not thrown again
    assert not session.throw_missed((1, 1, 3, 5, 6))  # thrown, but still no pair of 2s
    assert game.moves == [Throw((3, 3, 4, 5, 6))] and session.flag is not None
    assert session.throw_missed((1, 2, 2, 5, 6))
    assert game.moves == [Throw((3, 3, 4, 5, 6)), Throw((1, 2, 2, 5, 6)), Place("A4")]


def test_a_throw_read_unsure_counts_as_read_and_asks_the_players_to_check_it():
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    events = recorder(session)
    assert session.throw_settled((3, 3, 4, 5, 6))
    assert [e.kind for e in events] == ["move"]  # read surely: nothing to check
    assert session.observe(seen_after(game, changes={"F2": FieldView("red", 1)})).kind == "move"
    assert session.throw_settled((1, 2, 2, 5, 6), sure=False)
    assert game.moves == [Throw((3, 3, 4, 5, 6)), Place("F2"), Throw((1, 2, 2, 5, 6))]
    assert events[-1].kind == "waiting"
    assert "unsure of the dice (read 1 2 2 5 6)" in events[-1].data["message"]


def test_dice_with_one_die_unread_are_a_missed_throw_when_one_value_fits_the_stone():
    # cuatro seeds 2 and 3 on the simulated table: one die the reader never finds
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    events = recorder(session)
    session.throw_settled((3, 3, 4, 5, 6))
    assert session.observe(seen_after(game, changes={"A4": FieldView("red", 1)})).kind == (
        "illegal")
    assert not session.throw_missed((2, 2, 5, 6))  # any fifth die gives the pair of 2s
    assert events[-1].kind == "waiting" and "enter the throw" in events[-1].data["message"]
    assert not session.throw_missed((1, 5, 6))  # two dice short
    assert not session.throw_missed((3, 4, 5, 6))  # maybe the last throw, a 3 unread
    assert game.moves == [Throw((3, 3, 4, 5, 6))] and session.flag is not None
    assert session.throw_missed((1, 2, 5, 6))  # only a 2 makes the pair
    assert game.moves == [Throw((3, 3, 4, 5, 6)), Throw((1, 2, 2, 5, 6)), Place("A4")]
    assert session.flag is None


def cannot_play_after_four_throws(fourth: tuple[int, ...]):
    """Cuatro, red having thrown four times (the camera counted so), the last ``fourth``,
    and pressed "I cannot play", which is refused as too early."""
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    events = recorder(session)
    session.observe(Observation.of_game(game))
    for dice in [(1, 2, 4, 5, 6), (1, 3, 4, 5, 6), (2, 3, 4, 5, 6), fourth]:
        session.throw_settled(dice)
    assert not session.cannot_play()
    return game, session, events


def test_cannot_play_refused_for_a_missed_fifth_throw_stands_once_the_dice_are_seen():
    # cuatro seed 3 with camera dice: the fifth throw (1 1 2 6 6) was not counted, so the
    # long press was refused, and every later throw of the game went to the wrong turn
    game, session, _ = cannot_play_after_four_throws((1, 2, 3, 5, 6))
    assert "5th throw" in session.flag.reason
    assert not session.throw_missed((1, 1, 2, 2, 6))  # a fifth throw, but it fits a field
    assert not session.throw_missed((1, 2, 2, 3, 5, 6))  # the last throw and a side face
    assert session.throw_missed((1, 1, 2, 3, 4, 6))  # a side face's 1: only 1 2 3 4 6 fits
    assert game.moves[-2:] == [Throw((1, 2, 3, 4, 6)), SetAside()]
    assert session.flag is None and game.current_player == "blue"


def test_cannot_play_refused_while_the_dice_show_the_last_throw_counts_a_throw_missed_before():
    # cuatro seed 72 with camera dice: blue's third throw was lost (three dice unread), the
    # fifth was counted as the fourth, and the long press after it was refused
    game, session, events = cannot_play_after_four_throws((1, 2, 3, 5, 6))
    assert session.throw_missed((1, 2, 3, 5, 6))  # the dice lie as the last throw counted
    assert game.moves[-3:] == [Throw((1, 2, 3, 5, 6)), Throw((1, 2, 3, 5, 6)), SetAside()]
    assert session.flag is None and game.current_player == "blue"
    assert "camera missed" in next(e for e in events if e.kind == "correction").data["message"]
    # a throw that fits a field is no reason to set aside, however many were missed
    game, session, _ = cannot_play_after_four_throws((1, 1, 2, 2, 6))
    assert not session.throw_missed((1, 1, 2, 2, 6)) and session.flag is not None


def cuatro_after_five_yatzy_turns():
    """Cuatro, red and blue, a Yatzy and a roof on B0, A0, C0, E0, F0 in turn: blue to play."""
    game = new_game("cuatro", ["red", "blue"])
    for name in ("B0", "A0", "C0", "E0", "F0"):
        game.apply(Throw((1, 1, 1, 1, 1)))
        game.apply(Place(name))
    return game, Session(game)


def reds_throws_after_blues_missed_roof(session):
    """Red's throws, counted as blue's 2nd to 5th, then the sixth, which is red's."""
    for dice in [(2, 3, 4, 5, 6), (1, 2, 3, 4, 6), (2, 2, 3, 5, 6), (1, 3, 4, 4, 5)]:
        assert session.throw_settled(dice)
    return session.throw_settled((3, 3, 4, 5, 6))


def blue_after_a_throw(a0: FieldView):
    """Cuatro, blue having thrown once in the second turn (Yatzy every time), blue's first
    roof on A0 read as ``a0`` since it was set; the session has agreed with every view."""
    game = new_game("cuatro", ["red", "blue"])
    yatzy = Throw((1, 1, 1, 1, 1))
    for move in (yatzy, Place("B0"), yatzy):
        game.apply(move)
    session = Session(game)
    session.observe(seen_after(game))
    assert session.observe(seen_after(game, Place("A0"), changes={"A0": a0})).kind == "move"
    session.throw_settled(yatzy.dice)
    assert session.observe(seen_after(game, Place("C0"), changes={"A0": a0})).kind == "move"
    session.throw_settled(yatzy.dice)
    return game, session


def blue_roof_read_at_the_old_height(hand: bool, confidence: float):
    """:func:`blue_after_a_throw`, then blue's second roof on A0, which the camera reads at
    the tower's old height with ``confidence`` (a hand seen over the board, if ``hand``)."""
    low = FieldView("blue", 1, confidence)
    game, session = blue_after_a_throw(low)
    if hand:
        session.hand_over_board()
    assert session.observe(seen_after(game, changes={"A0": low})).kind == "same"
    return game, session


def test_a_throw_over_the_limit_after_a_placement_the_camera_missed_is_the_next_players():
    # Cuatro seed 17 with camera dice: blue's second roof on D5 went unseen (the tower read
    # 2 high before it, unsure); red's throws went to blue until the sixth was refused
    def played(view_shows_the_roof: bool):
        # blue's first roof on A0, read one high
        game, session = blue_after_a_throw(FieldView("blue", 2, 0.2))
        if view_shows_the_roof:  # blue's roof on A0, read as the tower was read before
            assert session.observe(seen_after(game, changes={
                "A0": FieldView("blue", 2, 0.4)})).kind == "same"
        else:
            session.observe(seen_after(game))
        reds = [(2, 3, 4, 5, 6), (1, 2, 3, 4, 6), (2, 2, 3, 5, 6), (1, 3, 4, 4, 5)]
        for dice in reds:
            assert session.throw_settled(dice)  # counted as blue's 2nd to 5th throws
        events = recorder(session)
        return game, session.throw_settled((3, 3, 4, 5, 6)), events

    game, taken, events = played(view_shows_the_roof=True)
    assert taken and game.current_player == "red" and game.throw_count == 5
    assert game.moves[7:9] == [Place("A0"), Throw((2, 3, 4, 5, 6))]
    assert game.stacks()["A0"] == ("blue", "blue")
    assert events[0].kind == "correction" and events[0].data["rewound"] == 4
    game, taken, events = played(view_shows_the_roof=False)
    assert not taken and "at most 5 times" in events[-1].data["rule"]
    assert game.current_player == "blue" and len(game.moves) == 11


def test_a_throw_over_the_limit_after_a_roof_read_at_the_old_height_is_the_next_players():
    # Cuatro seed 21 with camera dice: blue's roof on D5 read at the old height, unsure
    # (seed 55: red's on A4, sure); the next player's throws went to the one before until
    # the fifth was refused. With a hand seen over the board after the thrower's throw, the
    # roof is put in; without, nothing was set and the throw is refused
    def played(hand: bool, confidence: float = 0.2):
        game, session = blue_roof_read_at_the_old_height(hand, confidence)
        return game, reds_throws_after_blues_missed_roof(session)

    for confidence in (0.2, 0.93):
        game, taken = played(hand=True, confidence=confidence)
        assert taken and game.moves[7:9] == [Place("A0"), Throw((2, 3, 4, 5, 6))]
        assert game.current_player == "red" and game.throw_count == 5
    game, taken = played(hand=False)
    assert not taken and game.current_player == "blue"


def test_a_roof_the_camera_missed_is_the_one_on_the_tower_it_is_unsure_of():
    # Cuatro seed 87 with camera dice: red's roof on A4 (read at 0.05 before and after)
    # went unseen; a roof on D5 (read sure) fitted the throws as well
    game, session = cuatro_after_five_yatzy_turns()
    unsure = {"A0": FieldView("blue", 1, 0.05)}
    session.observe(seen_after(game, changes=unsure))
    session.throw_settled((1, 1, 1, 1, 1))
    session.hand_over_board()  # blue's roof on A0
    assert session.observe(seen_after(game, changes=unsure)).kind == "same"
    assert reds_throws_after_blues_missed_roof(session)
    assert game.moves[10:12] == [Throw((1, 1, 1, 1, 1)), Place("A0")]
    assert game.current_player == "red" and game.throw_count == 5


def test_of_two_unsure_towers_the_missed_roof_is_on_the_one_whose_reading_moved_across_it():
    # Cuatro seed 121 with camera dice: blue's roof on D5 (read at 0.57 before it, 0.12
    # after, by steps too small to be a move) went unseen; C3, read at 0.0 all along,
    # fitted the throws as well. Seed 200: D5 read one low at 0.16, then 0.02; F2 at 0.56.
    # Seed 257: red's roof on C3 read one low at 0.15, then 0.33; F2 at 0.0 both times
    def played(a0: float, e0_before: float, e0_after: tuple[float, ...]):
        game, session = cuatro_after_five_yatzy_turns()
        session.observe(seen_after(game, changes={"A0": FieldView("blue", 1, a0),
                                                  "E0": FieldView("blue", 1, e0_before)}))
        session.throw_settled((1, 1, 1, 1, 1))
        session.hand_over_board()  # blue's roof on E0
        for e0 in e0_after:
            unsure = {"A0": FieldView("blue", 1, a0), "E0": FieldView("blue", 1, e0)}
            assert session.observe(seen_after(game, changes=unsure)).kind == "same"
        return game, reds_throws_after_blues_missed_roof(session)

    for a0, e0_before, e0_after in [(0.05, 0.57, (0.45, 0.25, 0.1)), (0.56, 0.16, (0.02,)),
                                    (0.0, 0.15, (0.33,))]:
        game, taken = played(a0, e0_before, e0_after)
        assert taken and game.moves[10:12] == [Throw((1, 1, 1, 1, 1)), Place("E0")]
        assert game.current_player == "red" and game.throw_count == 5
    # both read as unsure before as after: nothing tells which, the throw is refused
    for a0, e0_before, e0_after in [(0.05, 0.1, (0.1,)), (0.3, 0.16, (0.1,))]:
        game, taken = played(a0, e0_before, e0_after)
        assert not taken and game.current_player == "blue"


def test_a_roof_the_camera_missed_after_a_throw_with_a_die_unread_fits_the_die():
    # Cuatro seed 110 with camera dice: blue's roof on D4, a full-house field, after a full
    # house read with one die unread; the die taken as a 1 allowed no roof there
    game = new_game("cuatro", ["red", "blue"])
    yatzy = Throw((1, 1, 1, 1, 1))
    for move in (yatzy, Place("B0"), yatzy, Place("A0"), yatzy, Place("C0")):
        game.apply(move)
    session = Session(game)
    unsure = {"A0": FieldView("blue", 1, 0.48)}
    session.observe(seen_after(game, changes=unsure))
    session.throw_settled((2, 2, 2, 6))
    assert game.dice == (1, 2, 2, 2, 6)
    session.hand_over_board()  # blue's roof on A0
    assert session.observe(seen_after(game, changes=unsure)).kind == "same"
    assert reds_throws_after_blues_missed_roof(session)
    assert game.moves[6:8] == [Throw((2, 2, 2, 6, 6)), Place("A0")]
    assert game.current_player == "red" and game.throw_count == 5


def test_confirm_ends_the_turn_with_the_roof_the_camera_missed_if_a_hand_set_one():
    # Cuatro seed 42 with camera dice: blue's roof on E0, the game's last move, read at the
    # tower's old height with confidence 0.95; no next throw came to tell it, and the game
    # never ended
    def confirmed(hand: bool, confidence: float = 0.2):
        game, session = blue_roof_read_at_the_old_height(hand, confidence)
        events = recorder(session)
        return game, session.confirm(), events

    for confidence in (0.2, 0.95):
        game, taken, events = confirmed(hand=True, confidence=confidence)
        assert taken and game.moves[-1] == Place("A0") and game.current_player == "red"
        assert game.stacks()["A0"] == ("blue", "blue")
        assert [e.kind for e in events] == ["correction", "move"]
    game, taken, events = confirmed(hand=False)
    assert not taken and game.current_player == "blue" and game.throw_count == 1
    assert "nothing to confirm" in events[-1].data["message"]


def test_the_next_players_roof_on_a_roof_the_camera_missed_puts_both_in():
    # Cuatro seed 73 with camera dice: blue's roof on D5 unseen, red's throw counted as
    # blue's, then red's roof on the same tower, read right: two higher than the game had it
    game, session = blue_after_a_throw(FieldView("blue", 1, 0.9))
    assert session.observe(seen_after(game)).kind == "same"  # blue's second roof on A0
    assert session.throw_settled((1, 1, 1, 1, 1))  # red's, counted as blue's 2nd
    events = recorder(session)
    result = session.observe(seen_after(game, changes={"A0": FieldView("red", 3, 0.3)}))
    assert result.kind == "move" and result.move == Place("A0")
    assert game.stacks()["A0"] == ("blue", "blue", "red") and game.current_player == "blue"
    assert events[0].kind == "correction" and events[0].data["rewound"] == 1
    # red's roof set out of turn on blue's tower, blue having set nothing, stays flagged
    game, session = blue_after_a_throw(FieldView("blue", 1, 0.9))
    result = session.observe(seen_after(game, changes={"A0": FieldView("red", 2, 0.8)}))
    assert result.kind == "illegal" and game.stacks()["A0"] == ("blue",)


def test_the_next_players_stone_after_a_placement_the_camera_missed_is_theirs():
    # blue's second roof on a tower read 2 high before it, unsure, changes nothing the
    # camera sees; red's throw goes to blue, and red's stone comes in what is blue's turn
    # to the session. Where the view shows the roof, the stone is red's at once; an injected
    # wrong stone, with no field showing a missed roof, stays flagged.
    def played(view_shows_the_roof: bool):
        # blue's first roof on A0, read one high
        game, session = blue_after_a_throw(FieldView("blue", 2, 0.2))
        roof = {"A0": FieldView("blue", 2, 0.4)} if view_shows_the_roof else {}
        assert session.observe(seen_after(game, changes={**roof})).kind == "same"
        assert session.throw_settled((2, 3, 4, 5, 6))  # red's, counted as blue's 2nd
        events = recorder(session)
        red = FieldView("red", 1, 0.9)
        return game, session.observe(seen_after(game, changes={**roof, "D2": red})), events

    game, result, events = played(view_shows_the_roof=True)
    assert result.kind == "move" and result.move == Place("D2"), result.reason
    assert game.moves[7:10] == [Place("A0"), Throw((2, 3, 4, 5, 6)), Place("D2")]
    assert game.stacks()["A0"] == ("blue", "blue") and game.current_player == "blue"
    assert events[0].kind == "correction" and events[0].data["rewound"] == 1
    game, result, events = played(view_shows_the_roof=False)
    assert result.kind == "illegal" and "blue's turn" in result.reason
    assert game.current_player == "blue" and game.stacks()["A0"] == ("blue",)


def test_a_throw_while_the_next_players_stone_covers_the_roof_the_camera_missed_ends_the_turn():
    # Cuatro seed 248 with camera dice: blue's roof on D5 unseen, red's throw counted as
    # blue's, then red's roof on the same tower read one low (red, 2 high: where the game
    # had one roof) and flagged; blue's next throw came with it lying there
    def played(hand: bool):
        game, session = blue_after_a_throw(FieldView("blue", 1, 0.9))
        if hand:
            session.hand_over_board()  # blue's hand setting the roof the camera missed
        assert session.observe(seen_after(game)).kind == "same"
        assert session.throw_settled((1, 1, 1, 1, 1))  # red's, counted as blue's 2nd
        low = seen_after(game, changes={"A0": FieldView("red", 2, 0.69)})
        assert session.observe(low).kind == "illegal"
        session.throw_settled((1, 2, 3, 4, 5))
        return game, session

    game, session = played(hand=True)
    assert game.stacks()["A0"] == ("blue", "blue", "red") and session.flag is None
    assert game.moves[-1] == Throw((1, 2, 3, 4, 5)) and game.current_player == "blue"
    # no hand over the board after blue's throw: nothing was set there, the stone is not
    # taken for red's
    game, session = played(hand=False)
    assert game.stacks()["A0"] == ("blue",) and game.throw_count == 3


def reds_stone_after_blues_unseen_roof(hand: bool, confidence: float = 0.2):
    """:func:`blue_after_a_throw`, blue's roof on A0 read as before (a hand seen over the
    board, if ``hand``), red's throw counted as blue's 2nd and red's stone on D2 flagged."""
    unsure = {"A0": FieldView("blue", 1, confidence)}
    game, session = blue_after_a_throw(unsure["A0"])
    if hand:
        session.hand_over_board()  # blue's hand setting the roof the camera missed
    assert session.observe(seen_after(game, changes=unsure)).kind == "same"
    session.throw_settled((2, 3, 4, 5, 6))
    stone = seen_after(game, changes={**unsure, "D2": FieldView("red", 1, 0.9)})
    assert session.observe(stone).kind == "illegal"
    return game, session, unsure


def test_a_throw_while_the_next_players_stone_is_flagged_ends_the_turn_the_camera_missed():
    # Cuatro seed 18 with camera dice: blue's third roof on D5 went unseen (read one low
    # after it, unsure as before); red's throw went to blue, red's stone was flagged, and
    # blue's next throw came while it was, and blue's stone before the throw was seen
    # (seed 82: the same with blue's second roof on C3 read one low, sure at 0.80)
    def played(hand: bool, stone_stays: bool, set_since: bool = False,
               confidence: float = 0.2):
        game, session, unsure = reds_stone_after_blues_unseen_roof(hand, confidence)
        if not stone_stays:
            session.observe(seen_after(game, changes=unsure))
        if set_since:
            session.observe(seen_after(game, changes={**unsure, "D2": FieldView("red", 1, 0.9),
                                                      "B3": FieldView("blue", 1, 0.9)}))
        session.throw_settled((1, 2, 3, 4, 5))
        return game, session

    for confidence in (0.2, 0.8):
        game, session = played(hand=True, stone_stays=True, confidence=confidence)
        assert game.moves[7:] == [Place("A0"), Throw((2, 3, 4, 5, 6)), Place("D2"),
                                  Throw((1, 2, 3, 4, 5))]
        assert game.current_player == "blue" and session.flag is None
        assert game.stacks()["A0"] == ("blue", "blue")
    game, session = played(hand=True, stone_stays=True, set_since=True)
    assert game.moves[10:] == [Throw((1, 2, 3, 4, 5)), Place("B3")]
    assert game.current_player == "red" and session.flag is None
    # no hand over the board after blue's throw: nothing was set there, the stone is not
    # taken for red's
    game, session = played(hand=False, stone_stays=True)
    assert "D2" not in game.stacks() and game.throw_count == 3
    # a wrong stone taken back before the throw is no sign of a turn the camera missed
    game, session = played(hand=True, stone_stays=False)
    assert game.stacks()["A0"] == ("blue",) and game.throw_count == 3


def test_confirm_while_the_next_players_stone_is_flagged_ends_the_turn_the_camera_missed():
    # Cuatro seed 224 with camera dice: red's last roof on D5 went unseen (read as before),
    # blue's roof on E0 after it, the game's last move, stayed flagged; no throw came to
    # tell that play went on, and the confirm button said nothing to confirm
    def pressed(hand: bool):
        game, session, _ = reds_stone_after_blues_unseen_roof(hand)
        return game, session, session.confirm()

    game, session, confirmed = pressed(hand=True)
    assert confirmed and session.flag is None
    assert game.moves[7:] == [Place("A0"), Throw((2, 3, 4, 5, 6)), Place("D2")]
    # no hand over the board after blue's throw: nothing was set, the stone stays flagged
    game, session, confirmed = pressed(hand=False)
    assert not confirmed and session.flag is not None and "D2" not in game.stacks()


def test_a_throw_after_a_stone_flagged_against_misread_dice_makes_it_stand():
    # Cuatro seed 126 with camera dice: blue's straight 1 2 3 4 5, read 1 3 3 4 5 in every
    # frame, the stone on the straight field D2 flagged; red's next throw came to rest with
    # the stone still there: play went on, the dice were misread
    def flagged(read, field, since_flag=True):
        game = new_game("cuatro", ["red", "blue"])
        session = Session(game)
        events = recorder(session)
        session.throw_settled(read)
        assert session.observe(seen_after(game, changes={field: FieldView("red", 1)})).kind \
            == "illegal"
        session.throw_settled((2, 2, 4, 5, 6), since_flag=since_flag)
        return game, session, events

    game, session, events = flagged((1, 3, 3, 4, 5), "D2")
    assert game.moves == [Throw((1, 2, 3, 4, 5)), Place("D2"), Throw((2, 2, 4, 5, 6))]
    assert session.flag is None and game.current_player == "blue"
    assert {"dice": [1, 2, 3, 4, 5], "replaced": [1, 3, 3, 4, 5]} in [e.data for e in events]
    # seed 165: 1 1 2 3 3 read 1 1 2 4 and a die unread, the stone on the pair-of-3s field:
    # three throws are as near; the first is taken and the page names the others
    game, session, events = flagged((1, 1, 2, 4), "F2")
    assert game.moves[:2] == [Throw((1, 1, 2, 3, 3)), Place("F2")]
    assert any("1 1 2 3 3 or 1 1 3 3 4 or 1 2 3 3 4" in e.data.get("message", "")
               for e in events)
    # two dice off is no misreading: the stone is not taken, the throw is red's
    game, session, _ = flagged((1, 1, 1, 4, 6), "D2")
    assert game.moves == [Throw((1, 1, 1, 4, 6)), Throw((2, 2, 4, 5, 6))]
    # dice that came to rest before the stone was flagged were thrown before it
    game, session, _ = flagged((1, 3, 3, 4, 5), "D2", since_flag=False)
    assert game.moves == [Throw((1, 3, 3, 4, 5)), Throw((2, 2, 4, 5, 6))]


def test_confirm_while_ones_own_stone_is_flagged_against_misread_dice_makes_it_stand():
    # Cuatro seed 252 with camera dice: blue's last roof, the game's last move, on the
    # pair-of-2s field A4 after 1 1 2 2 3 read 1 1 2 3 3; no throw came after it, and the
    # confirm button said nothing to confirm
    def pressed(read, field):
        game = new_game("cuatro", ["red", "blue"])
        session = Session(game)
        session.throw_settled(read)
        assert session.observe(seen_after(game, changes={field: FieldView("red", 1)})).kind \
            == "illegal"
        return game, session, session.confirm()

    game, session, confirmed = pressed((1, 1, 2, 3, 3), "A4")
    assert confirmed and session.flag is None and game.current_player == "blue"
    assert game.moves[-1] == Place("A4") and game.moves[0].dice.count(2) >= 2
    # two dice off is no misreading: the stone stays flagged
    game, session, confirmed = pressed((1, 1, 3, 4, 5), "A4")
    assert not confirmed and session.flag is not None and "A4" not in game.stacks()


def test_a_view_as_the_flagged_one_has_nothing_waiting_to_be_judged():
    # the referee hands a throw over at once when the board agreed as the dice came to
    # rest; with a stone flagged that view is the flagged one (Cuatro seed 22: the throw
    # after a flagged stone was held back until the next stone had been judged before it)
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    session.throw_settled((1, 1, 1, 1, 1))
    flagged = seen_after(game, changes={"D2": FieldView("blue", 1, 0.9)})
    assert session.observe(flagged).kind == "illegal"
    assert session.agrees(flagged)
    assert not session.agrees(replace(flagged, fields={**flagged.fields,
                                                       "A0": FieldView("red", 1, 0.9)}))
    assert session.agrees(seen_after(game))  # the stone taken back
    assert not session.agrees(replace(flagged, occluded=True))


def test_a_stone_set_without_throwing_is_not_excused_by_the_last_players_dice():
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    session.throw_settled((1, 2, 2, 5, 6))
    session.observe(seen_after(game, changes={"A4": FieldView("red", 1)}))
    assert game.current_player == "blue"
    stone = seen_after(game, changes={"A4": FieldView("blue", 2)})
    assert "throw" in session.observe(stone).reason
    assert not session.throw_missed((1, 2, 2, 5, 6))  # red's dice, still lying there
    assert game.current_player == "blue" and session.flag is not None


def test_a_white_stone_seen_as_doubt_on_its_cell_and_the_cell_beside_it():
    # the white stone on the silver cell 4x4+1x4 changes the look of the red cell beside it
    # too (spexxx seed 5 on the simulated table); only the silver cell fits the dice
    game = new_game("spexxx", ["black", "white"])
    session = Session(game)
    session.throw_settled((5, 2, 6, 4, 3))
    sure = {"4x4+1x4": FieldView(None, 0, 0.93), "4x4+1x3": FieldView(None, 0, 0.9)}
    assert session.observe(seen_after(game, changes=sure)).kind == "same"
    doubt = {"4x4+1x4": FieldView(None, 0, 0.1), "4x4+1x3": FieldView(None, 0, 0.1)}
    result = session.observe(seen_after(game, changes=doubt))
    assert result.kind == "move" and result.move == Place("4x4+1x4")
    assert game.stacks() == {"4x4+1x4": ("black",)}


def test_a_stone_the_reader_only_doubts_where_no_legal_move_puts_one_is_flagged():
    # spexxx seed 7 on the simulated table: white's stone, set on the silver cell 4x4+1x4
    # while black has thrown 2 2 4 6 2, reads as the empty cell; only its look changed
    game = new_game("spexxx", ["black", "white"])
    session = Session(game)
    events = recorder(session)
    cell = "4x4+1x4"
    clear = seen_after(game, changes={cell: FieldView(None, 0, 0.93)})
    doubt = Observation(seen_after(game, changes={cell: FieldView(None, 0, 0.1)}).fields,
                        looks_changed=frozenset({cell}))
    assert session.observe(clear).kind == "same"
    assert session.observe(doubt).kind == "same"  # black has not thrown: nothing is legal yet
    assert session.observe(clear).kind == "same"
    session.throw_settled((2, 2, 4, 6, 2))
    result = session.observe(doubt)
    assert result.kind == "doubt" and result.changed == (cell,)
    assert [e.kind for e in events][-1] == "illegal" and cell in events[-1].data["rule"]
    assert session.observe(doubt) is session.flag  # it still lies there
    assert session.observe(clear).kind == "same" and session.flag is None
    assert events[-1].kind == "cleared" and game.stacks() == {}


def test_a_doubt_where_the_player_may_place_is_their_stone_not_a_flag():
    game = new_game("spexxx", ["black", "white"])
    session = Session(game)
    session.throw_settled((4, 4, 4, 4, 1))
    cell = "4x4+1x1"
    assert session.observe(seen_after(game, changes={cell: FieldView(None, 0, 0.93)})
                           ).kind == "same"
    doubt = Observation(seen_after(game, changes={cell: FieldView(None, 0, 0.1)}).fields,
                        looks_changed=frozenset({cell}))
    result = session.observe(doubt)
    assert result.kind == "move" and result.move == Place(cell) and session.flag is None


def test_a_throw_with_one_die_unread_counts_and_the_stone_tells_what_it_showed():
    # cuatro seed 2 with camera dice: 1 1 4 4 6 lay still, the 6 never found; the throw was
    # never counted, the stone after it stayed flagged "throw the dice first", and every
    # later throw went to the wrong turn (the game stopped at move 26 of 87)
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    events = recorder(session)
    session.observe(Observation.of_game(game))
    assert session.throw_settled((1, 2, 5, 6))
    assert game.throw_count == 1 and events[-1].kind == "waiting"
    assert session.observe(seen_after(game, changes={"A4": FieldView("red", 1)})).kind == "move"
    assert game.moves == [Throw((1, 2, 2, 5, 6)), Place("A4")]  # only a 2 makes the pair
    assert not any(e.kind == "illegal" for e in events)


def test_a_stone_no_value_of_the_unread_die_allows_stays_flagged():
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    session.observe(Observation.of_game(game))
    session.throw_settled((3, 3, 5, 6))
    result = session.observe(seen_after(game, changes={"A4": FieldView("red", 1)}))
    assert result.kind == "illegal" and session.flag is not None
    assert game.moves == [Throw((1, 3, 3, 5, 6))]


def test_a_roof_read_one_low_after_a_throw_with_a_die_unread_is_judged_against_every_value():
    # cuatro seed 28 with camera dice: 3 4 4 5 6 read as 3 4 5 6, taken for 1 3 4 5 6; red's
    # roof on the pair field D5 (a tower of 2), read one low, was a change no move explains
    game = new_game("cuatro", ["red", "blue"])
    game.apply(Throw((2, 2, 3, 4, 6)))
    game.apply(Place("A4"))  # the pair-of-2s field
    session = Session(game)
    session.observe(Observation.of_game(game))
    session.throw_settled((2, 3, 5, 6))
    assert game.moves[-1] == Throw((1, 2, 3, 5, 6))  # allows no placement at all
    result = session.observe(seen_after(game, changes={"A4": FieldView("blue", 1, 0.35)}))
    assert result.kind == "move" and session.flag is None
    assert game.moves[-2:] == [Throw((2, 2, 3, 5, 6)), Place("A4")]
    assert game.stacks()["A4"] == ("red", "blue")


def test_cannot_play_is_judged_against_every_value_of_the_unread_die():
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    for dice in [(1, 2, 4, 5, 6), (1, 3, 4, 5, 6), (2, 3, 4, 5, 6), (1, 2, 3, 5, 6)]:
        session.throw_settled(dice)
    session.throw_settled((1, 2, 4, 6))  # a 1 would make the pair of 1s: no set aside
    assert session.cannot_play()
    assert game.moves[-2:] == [Throw((1, 2, 3, 4, 6)), SetAside()]


def test_the_unread_die_read_later_completes_the_throw_until_a_stone_comes():
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    session.throw_settled((1, 1, 4, 4))
    assert not session.throw_read_whole((1, 1, 4, 5, 5))  # not that throw
    assert session.throw_read_whole((1, 1, 4, 4, 6))
    assert game.moves == [Throw((1, 1, 4, 4, 6))]
    assert not session.throw_read_whole((1, 1, 1, 4, 4))  # already read whole


def test_a_throw_read_with_a_die_too_many_counts_and_the_stone_tells_which_was_no_die():
    # cuatro seed 1 with camera dice: 3 3 5 6 6 read as 2 3 3 5 6 6 all through its rest
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    events = recorder(session)
    session.observe(Observation.of_game(game))
    assert session.throw_settled((6, 2, 3, 5, 3, 6))
    assert game.moves == [Throw((3, 3, 5, 6, 6))]  # a side face shows 1 or 2 pips
    assert events[-1].kind == "waiting" and "too many" in events[-1].data["message"]
    session.throw_settled((2, 2, 3, 4, 5, 6))  # taken for 2 3 4 5 6: no pair of 2s
    assert session.observe(seen_after(game, changes={"A4": FieldView("red", 1)})).kind == "move"
    assert game.moves[1:] == [Throw((2, 2, 4, 5, 6)), Place("A4")]  # the first that fits
    assert not any(e.kind == "illegal" for e in events)


def test_a_throw_with_two_dice_unread_counts_too():
    # cuatro seed 3 with camera dice: 1 1 1 2 3 with two of the 1s seen but never read
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    assert session.throw_settled((1, 2, 3))
    assert game.moves == [Throw((1, 1, 1, 2, 3))] and game.throw_count == 1


def test_an_unread_die_is_taken_as_the_dice_reader_s_likeliest_throw_until_a_stone_tells():
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    session.observe(Observation.of_game(game))
    session.throw_settled((1, 2, 6, 6), likely=(1, 1, 2, 6, 6))  # one frame read a 1
    assert game.moves == [Throw((1, 1, 2, 6, 6))]
    session.throw_settled((1, 2, 6, 6), likely=(1, 2, 6, 6, 6))
    assert game.moves[-1] == Throw((1, 2, 6, 6, 6))


def test_a_stone_refused_against_a_1_the_reader_is_known_to_read_as_2_is_judged_again():
    # cuatro seed 5 with camera dice: 1 1 2 5 6 read 1 2 2 5 6 (a 1's pip and a side face's
    # pip fit a 2); the stone on the pair-of-1s field was flagged and the game stopped at 28/88
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    session.observe(Observation.of_game(game))
    session.throw_settled((1, 2, 2, 5, 6))
    pair_of_ones = next(n for n, f in game.layout.fields.items() if f.attrs.get("symbol") == "P1")
    stone = seen_after(game, changes={pair_of_ones: FieldView("red", 1)})
    assert session.observe(stone).kind == "illegal"  # a missed throw would be likelier
    assert session.throw_missed((1, 2, 2, 5, 6))  # the dice lie showing what was read
    assert game.moves == [Throw((1, 1, 2, 5, 6)), Place(pair_of_ones)]
    session.throw_settled((3, 3, 4, 5, 6))  # no 2 to have been a 1
    stone = seen_after(game, changes={"A4": FieldView("blue", 1)})
    assert session.observe(stone).kind == "illegal"
    assert not session.throw_missed((3, 3, 4, 5, 6))


def test_a_throw_the_dice_show_comes_before_a_face_the_reader_may_have_misread():
    # spexxx seed 5 with camera dice: 1 3 3 4 4 was not counted after 2 2 2 3 3; the stone
    # needing a 1 and two 3s was taken as 2 2 2 3 3 with a 2 misread, not as the missed throw
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    session.observe(Observation.of_game(game))
    session.throw_settled((2, 2, 3, 4, 5))  # with a 2 read for a 1, a straight
    stone = seen_after(game, changes={"D0": FieldView("red", 1)})  # a straight field
    assert session.observe(stone).kind == "illegal"
    assert session.throw_missed((2, 3, 4, 5, 6))  # what the dice show: a throw missed
    assert game.moves == [Throw((2, 2, 3, 4, 5)), Throw((2, 3, 4, 5, 6)), Place("D0")]


def test_a_throw_a_person_corrected_is_not_doubted_again():
    game = new_game("cuatro", ["red", "blue"])
    session = Session(game)
    session.observe(Observation.of_game(game))
    session.throw_settled((1, 2, 5, 6))  # one die unread
    session.correct_throw((3, 3, 4, 5, 6))  # the players enter the dice on the page
    stone = seen_after(game, changes={"A4": FieldView("red", 1)})
    assert session.observe(stone).kind == "illegal"  # no pair of 2s in what they entered
    assert game.moves == [Throw((3, 3, 4, 5, 6))]
