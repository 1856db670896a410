"""Cuatro: one test per rule statement of the rule text, plus random play to the end."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.core import IllegalMove, ScoreLine, new_game
from companion.games.cuatro import symbols_of
from companion.layout import LAYOUT_DIR, LayoutError, parse_layout
from companion.moves import Place, SetAside, Throw
from companion.playout import play_random
from companion.record import parse_record

# Dice that make exactly the combinations the tests need (sorted for readable messages).
FITS = {
    "P1": (1, 1, 2, 3, 5),
    "P2": (1, 2, 2, 3, 5),
    "P3": (1, 2, 3, 3, 5),
    "P4": (1, 2, 4, 4, 5),
    "P5": (1, 2, 3, 5, 5),
    "P6": (1, 2, 3, 6, 6),
    "3K": (1, 2, 3, 3, 3),
    "4K": (1, 4, 4, 4, 4),
    "ST": (1, 2, 3, 4, 5),
    "FH": (2, 2, 2, 5, 5),
    "Y": (6, 6, 6, 6, 6),
}
NOTHING = (1, 2, 3, 4, 6)  # no pair, no straight: fits no field


def game_for(*players: str):
    return new_game("cuatro", players or ("red", "blue"))


def symbol(game, field: str) -> str:
    return game.layout.fields[field].attrs["symbol"]


def throw(game, dice, times: int = 1) -> None:
    for _ in range(times):
        game.apply(Throw(tuple(dice)))


def turn(game, field: str, throws: int = 1) -> None:
    """The current player needs ``throws`` throws for the symbol of ``field`` and places there."""
    throw(game, NOTHING, throws - 1)
    throw(game, FITS[symbol(game, field)])
    game.apply(Place(field))


def lose_turn(game) -> None:
    """Five throws that fit nothing, so a roof is set aside."""
    throw(game, NOTHING, 5)
    game.apply(SetAside())


def build(game, field: str, owners: list[str]) -> None:
    """Build a tower on ``field``; whoever's turn it is not in ``owners`` loses the turn."""
    for owner in owners:
        while game.current_player != owner:
            lose_turn(game)
        turn(game, field)


def refused(game, move) -> str:
    with pytest.raises(IllegalMove) as err:
        game.apply(move)
    return str(err.value)


# -- combinations -------------------------------------------------------------


def test_symbols_of_each_combination():
    assert symbols_of((4, 1, 4, 2, 5)) == {"P4"}
    assert symbols_of((3, 1, 3, 2, 3)) == {"P3", "3K"}
    assert symbols_of((2, 3, 5, 4, 1)) == {"ST"}
    assert symbols_of((6, 3, 5, 4, 2)) == {"ST"}
    assert symbols_of((1, 2, 3, 4, 6)) == frozenset()
    assert symbols_of((5, 2, 5, 2, 5)) == {"P2", "P5", "3K", "FH"}


def test_rule_higher_combination_for_lower_field():
    # The rule text's example: a four of a kind may go on a three-of-a-kind field.
    assert symbols_of((3, 3, 1, 3, 3)) == {"P3", "3K", "4K"}
    game = game_for()
    throw(game, (3, 3, 1, 3, 3))
    assert game.check(Place("B0")) is None  # 3K
    assert game.check(Place("F2")) is None  # P3
    assert game.check(Place("C0")) is None  # 4K
    assert "is no full house" in game.check(Place("A0"))


def test_rule_full_house_is_three_and_two():
    assert "FH" in symbols_of((2, 5, 2, 5, 2))
    assert "FH" not in symbols_of((2, 2, 2, 2, 5))
    assert "FH" not in symbols_of((2, 2, 5, 5, 1))


def test_rule_yatzy_serves_every_lower_field_of_its_face_and_full_house_provisional():
    assert symbols_of((2, 2, 2, 2, 2)) == {"Y", "FH", "4K", "3K", "P2"}
    layout = game_for().layout
    assert any("full house" in note for note in layout.provisional)


def test_rule_straight_is_one_to_five_or_two_to_six():
    game = game_for()
    throw(game, (6, 5, 4, 3, 2))
    assert game.check(Place("D0")) is None
    game = game_for()
    throw(game, (1, 2, 3, 4, 6))
    assert refused(game, Place("D0")) == "Cuatro: D0 is a straight field; 1 2 3 4 6 is no straight"


def test_rule_pair_field_fixed():
    game = game_for()
    throw(game, (4, 1, 4, 2, 5))
    pair_fields = {
        m.field for m in game.legal_moves() if symbol(game, m.field).startswith("P")
    }
    assert pair_fields == {"D5"}  # the one pair-of-4s field
    assert refused(game, Place("A4")) == (
        "Cuatro: A4 is the pair-of-2s field; 1 2 4 4 5 has no pair of 2s"
    )


def test_rule_yatzy_field_needs_yatzy():
    game = game_for()
    throw(game, (2, 2, 3, 3, 4))
    assert refused(game, Place("E1")) == "Cuatro: E1 is a Yatzy field; 2 2 3 3 4 is no Yatzy"


# -- throws ---------------------------------------------------------------------


def test_rule_throw_the_dice_first():
    game = game_for()
    assert refused(game, Place("A5")) == "Cuatro: throw the dice first"
    assert refused(game, SetAside()) == "Cuatro: throw the dice first"
    assert game.legal_moves() == []


def test_rule_at_most_five_throws():
    game = game_for()
    throw(game, NOTHING, 5)
    message = refused(game, Throw(NOTHING))
    assert message == "Cuatro: you may throw at most 5 times; red has thrown 5 times"


def test_rule_need_not_announce_combination():
    # The player aims at nothing in particular: whatever the last throw makes may be placed.
    game = game_for()
    throw(game, FITS["ST"])
    assert {symbol(game, m.field) for m in game.legal_moves()} == {"ST"}
    throw(game, FITS["FH"])
    assert {symbol(game, m.field) for m in game.legal_moves()} == {"FH", "3K", "P2", "P5"}


def test_legal_moves_in_board_order_so_seeded_play_repeats():
    game = game_for()
    throw(game, FITS["FH"])
    fields = [m.field for m in game.legal_moves()]
    board = [f for f in game.layout.fields if symbol(game, f) in {"FH", "3K", "P2", "P5"}]
    assert fields == board


def test_rule_last_throw_counts():
    game = game_for()
    throw(game, FITS["Y"])
    throw(game, NOTHING)
    assert game.legal_moves() == []
    assert refused(game, Place("E1")) == (
        "Cuatro: E1 is a Yatzy field; 1 2 3 4 6 is no Yatzy (only the last throw counts)"
    )


def test_rule_no_placement_after_fifth_throw_costs_roof():
    game = game_for()
    throw(game, NOTHING, 5)
    assert game.legal_moves() == [SetAside()]
    game.apply(SetAside())
    red = game.stone_counts()["red"]
    assert (red.on_board, red.in_supply, red.removed) == (0, 14, 1)
    assert game.current_player == "blue" and game.throw_count == 0


def test_rule_fifth_throw_fitting_only_occupied_fields_costs_roof():
    game = game_for()
    build(game, "E0", ["red"])  # the only pair-of-1s field
    throw(game, NOTHING, 4)
    throw(game, FITS["P1"])
    assert game.legal_moves() == [SetAside()]
    game.apply(SetAside())
    assert game.stone_counts()["blue"].removed == 1


def test_rule_set_aside_only_after_fifth_throw_that_fits_nothing():
    game = game_for()
    throw(game, NOTHING, 3)
    assert game.legal_moves() == []  # throw again
    assert refused(game, SetAside()) == (
        "Cuatro: a roof is set aside only when the 5th throw allows no placement; "
        "red has thrown 3 times, throw again or place a roof"
    )
    throw(game, NOTHING)
    throw(game, FITS["P1"])
    assert refused(game, SetAside()) == (
        "Cuatro: you must place a roof when you can; 1 1 2 3 5 fits E0"
    )


# -- building ---------------------------------------------------------------------


def test_rule_fifth_throw_only_empty_fields():
    game = game_for()
    build(game, "D3", ["red"])
    throw(game, NOTHING, 4)
    throw(game, FITS["4K"])
    assert refused(game, Place("D3")) == (
        "Cuatro: after 5 throws you may only place on an empty field; D3 has 1 roof"
    )
    assert game.check(Place("C0")) is None  # an empty four-of-a-kind field


def test_rule_fourth_throw_tower_of_one():
    game = game_for()
    build(game, "D3", ["red"])
    build(game, "C0", ["blue", "red"])
    throw(game, NOTHING, 3)
    throw(game, FITS["4K"])
    assert game.check(Place("D3")) is None
    assert refused(game, Place("C0")) == (
        "Cuatro: after 4 throws you may only build on a tower of at most 1 roof; C0 has 2"
    )


@pytest.mark.parametrize("throws", [1, 2, 3, 4, 5])
def test_rule_fewer_throws_allow_higher_towers(throws):
    """t throws: a tower of at most 5 - t roofs (3 throws: two, 2: three, 1: four)."""
    limit = 5 - throws
    game = game_for()
    build(game, "B0", ["red", "blue", "red", "blue"][:limit])
    if limit < 4:
        build(game, "F0", ["red", "blue", "red", "blue"][: limit + 1])
    while game.current_player != "red":
        lose_turn(game)
    throw(game, NOTHING, throws - 1)
    throw(game, FITS["3K"])
    assert game.check(Place("B0")) is None
    if limit < 4:
        assert "you may only" in game.check(Place("F0"))


def test_rule_need_not_use_full_height():
    # The text's example: three of a kind with 2 throws may go on a tower of 0, 1, 2 or 3.
    game = game_for()
    build(game, "F0", ["red"])
    build(game, "C1", ["blue", "red"])
    build(game, "E2", ["blue", "red", "blue"])
    while game.current_player != "red":
        lose_turn(game)
    throw(game, NOTHING)
    throw(game, FITS["3K"])
    fields = {m.field for m in game.legal_moves()}
    assert {"B0", "F0", "C1", "E2"} <= fields
    game.apply(Place("C1"))
    assert game.stacks()["C1"] == ("blue", "red", "red")


def test_rule_may_build_on_own_roof():
    game = game_for()
    build(game, "D3", ["red", "red"])
    assert game.stacks()["D3"] == ("red", "red")
    assert game.scores()["red"].total == 2


def test_rule_tower_of_five_final():
    game = game_for()
    build(game, "D3", ["red", "blue", "red", "blue", "red"])
    while game.current_player != "blue":
        lose_turn(game)
    throw(game, FITS["4K"])  # one throw: the most a throw ever allows
    assert "D3" not in {m.field for m in game.legal_moves()}
    assert refused(game, Place("D3")) == (
        "Cuatro: D3 is a tower of 5 roofs, which is final: no roof goes on top"
    )


def test_stacks_bottom_to_top():
    game = game_for("red", "blue", "green")
    build(game, "A5", ["red", "green", "blue"])
    assert game.stacks() == {"A5": ("red", "green", "blue")}


# -- winning ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "row",
    [
        ["A5", "B5", "C5", "D5"],  # across
        ["F0", "F1", "F2", "F3"],  # down
        ["A0", "B1", "C2", "D3"],  # diagonal
        ["F0", "E1", "D2", "C3"],  # other diagonal
    ],
)
def test_rule_four_top_roofs_in_a_row_win(row):
    game = game_for()
    for field, elsewhere in zip(row, ["A3", "B3", "A4"], strict=False):
        turn(game, field)
        turn(game, elsewhere)
    assert not game.is_over
    turn(game, row[-1])
    assert game.outcome.winners == ("red",)
    assert game.outcome.reason == f"four top roofs in a row ({' '.join(row)})"
    assert game.legal_moves() == []
    assert refused(game, Throw(NOTHING)).startswith("Cuatro: the game is over (red wins")


def test_rule_four_in_a_row_counts_top_roofs_only():
    game = game_for()
    turn(game, "A5")
    turn(game, "A3")
    turn(game, "B5")
    turn(game, "B5")  # blue covers red's roof
    turn(game, "C5")
    turn(game, "A4")
    turn(game, "D5")
    assert not game.is_over
    assert game.stacks()["B5"] == ("red", "blue")


def test_rule_three_yatzy_fields_win_not_top():
    game = game_for()
    turn(game, "E1")
    turn(game, "E1")  # blue covers red
    turn(game, "C2")
    turn(game, "C2")
    assert not game.is_over
    turn(game, "B4")
    assert game.outcome.winners == ("red",)
    assert game.outcome.reason == "a roof on each of the three Yatzy fields (E1, C2, B4)"
    assert game.stacks()["E1"] == ("red", "blue")


def test_rule_game_ends_after_15_rounds():
    game = game_for("red", "blue", "green")
    turn(game, "A5")
    while game.turn < 15 * 3:
        lose_turn(game)
    assert game.round_text == "round 15 of 15" and game.current_player == "green"
    assert not game.is_over
    lose_turn(game)
    assert game.outcome.winners == ("red",)
    assert game.outcome.reason.startswith("15 rounds played")
    assert game.round_text == "round 15 of 15"
    for count in game.stone_counts().values():
        assert count.in_supply == 0 and count.total == 15


def test_rule_equal_sums_are_joint_winners():
    game = game_for()
    turn(game, "A5")
    turn(game, "F5")
    while not game.is_over:
        lose_turn(game)
    assert game.outcome.winners == ("red", "blue")


def test_rule_example_fifteen_points():
    """Own top roofs at heights 4, 3, 3, 2, 1, 1, 1 = 4 + 6 + 2 + 3 = 15 points."""
    game = game_for()
    for red, blue in [
        ("A5", "C1"), ("F0", "C1"), ("C1", "D4"), ("D4", "F3"),
        ("E3", "F3"), ("F3", "A0"), (None, "A0"), (None, "A0"), ("A0", None),
    ]:
        for field in (red, blue):
            if field is None:
                lose_turn(game)
            else:
                turn(game, field)
    score = game.scores()["red"]
    assert score.total == 15
    assert score.lines == (
        ScoreLine("1 top roof at height 4 (A0)", 4),
        ScoreLine("2 top roofs at height 3 (C1, F3)", 6),
        ScoreLine("1 top roof at height 2 (D4)", 2),
        ScoreLine("3 top roofs at height 1 (F0, E3, A5)", 3),
    )
    assert game.scores()["blue"].total == 0
    assert game.recount_scores() == game.scores()
    red = game.stone_counts()["red"]
    assert (red.on_board, red.in_supply, red.removed) == (7, 6, 2)


# -- bad input and bookkeeping ------------------------------------------------------


def test_unknown_field_and_foreign_move_parts_are_refused():
    game = game_for()
    throw(game, FITS["P1"])
    assert refused(game, Place("G9")) == (
        "Cuatro: there is no field 'G9' on the Cuatro board (fields A0 to F5)"
    )
    assert refused(game, Place("E0", cards=2)) == (
        "Cuatro: in Cuatro a roof is just placed on a field, with no cards or captures"
    )


def test_layout_with_unknown_symbol_is_refused():
    data = json.loads((LAYOUT_DIR / "cuatro.json").read_text(encoding="utf-8"))
    data["cells"][0][0] = "XX"
    with pytest.raises(LayoutError, match="field A0 has symbol 'XX'"):
        new_game("cuatro", ("red", "blue"), layout=parse_layout(data, "mine.json"))


def test_layout_without_grid_is_refused():
    data = json.loads((LAYOUT_DIR / "cuatro.json").read_text(encoding="utf-8"))
    layout = parse_layout(data, "mine.json")
    fields = [{"name": f.name, "centre_mm": [f.x_mm, f.y_mm], "symbol": f.attrs["symbol"]}
              for f in layout.fields.values()]
    del data["grid"], data["cells"]
    data["fields"] = fields
    with pytest.raises(LayoutError, match="Cuatro needs a grid; field A0 has no row/col"):
        new_game("cuatro", ("red", "blue"), layout=parse_layout(data, "mine.json"))


def test_undo_and_copy_keep_games_apart():
    game = game_for()
    turn(game, "A5")
    clone = game.copy()
    throw(clone, FITS["3K"])
    clone.apply(Place("A5"))
    assert game.stacks() == {"A5": ("red",)}
    assert clone.stacks() == {"A5": ("red", "blue")}
    assert clone.undo() == Place("A5")
    assert clone.stacks() == game.stacks() and clone.throw_count == 1


def test_record_replays_to_the_same_board():
    game = play_random(game_for("red", "blue", "green"), random.Random(7))
    *_, (_, _, _, replayed) = parse_record(game.to_record()).replay()
    assert replayed.stacks() == game.stacks()
    assert replayed.outcome == game.outcome


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4))
def test_random_play_to_the_end(seed, players):
    game = game_for(*["red", "blue", "green", "yellow"][:players])
    rng = random.Random(seed)
    fields = list(game.layout.fields)
    while not game.is_over:
        game.apply(game.random_move(rng))
        assert game.round <= 15
        assert all(c.total == 15 for c in game.stone_counts().values())
        assert all(len(tower) <= 5 for tower in game.stacks().values())
        assert game.scores() == game.recount_scores()
        if game.throw_count and not game.is_over:
            legal = set(game.legal_moves())
            for field in fields:
                assert (game.check(Place(field)) is None) == (Place(field) in legal)
            assert (game.check(SetAside()) is None) == (SetAside() in legal)
    assert game.outcome.winners
    if game.outcome.reason.startswith("15 rounds"):
        assert all(c.in_supply == 0 for c in game.stone_counts().values())
        best = max(s.total for s in game.scores().values())
        assert {p for p, s in game.scores().items() if s.total == best} == set(
            game.outcome.winners
        )
