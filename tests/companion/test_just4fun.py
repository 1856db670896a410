"""Just 4 Fun Colours: one test per rule statement of the rule text, plus random play."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.core import IllegalMove, ScoreLine, new_game
from companion.layout import LAYOUT_DIR, LayoutError, parse_layout
from companion.moves import Place, SetAside, Step, Throw
from companion.playout import play_random
from companion.record import parse_record

COLOURS = ("red", "blue", "green", "yellow")


def game_for(*players: str, **options):
    return new_game("just4fun", players or ("red", "blue"), options)


def colour(game, field: str) -> str:
    return game.layout.fields[field].attrs["colour"]


def other_colour(game, field: str) -> str:
    return next(c for c in game.layout.field_colours if c != colour(game, field))


def build(game, field: str, owners: list[str]) -> None:
    """Stones of ``owners`` onto ``field`` in turn; whoever else is to play has no cards."""
    for owner in owners:
        while game.current_player != owner:
            game.apply(SetAside())
        game.apply(Place(field))


def occupy(game, fields: dict[str, list[str]]) -> None:
    """Each player takes the listed fields, one per turn, in turn order."""
    queues = {p: list(fields.get(p, [])) for p in game.players}
    while any(queues.values()):
        queue = queues[game.current_player]
        game.apply(Place(queue.pop(0)) if queue else SetAside())


def finish(game) -> None:
    """Nobody can play any more: set stones aside until the 20 rounds are over."""
    while not game.is_over:
        game.apply(SetAside())


def refused(game, move) -> str:
    with pytest.raises(IllegalMove) as err:
        game.apply(move)
    return str(err.value)


# -- playing cards ---------------------------------------------------------------


def test_rule_empty_field_needs_one_card():
    game = game_for()
    assert game.check(Place("D3", cards=1, colour=colour(game, "D3"))) is None
    assert refused(game, Place("D3", cards=2)) == (
        "Just 4 Fun Colours: D3 is empty, so you play exactly 1 card, not 2"
    )
    assert game.moves == [] and game.stacks() == {}


def test_rule_tower_needs_one_more_card_than_stones():
    # The text's example: on a tower of 2, a player plays 3 cards of the field's colour.
    game = game_for()
    build(game, "D3", ["red", "blue"])
    green = colour(game, "D3")
    for wrong in (1, 2, 4):
        assert refused(game, Place("D3", cards=wrong, colour=green)) == (
            "Just 4 Fun Colours: D3 holds a tower of 2 stones, so you must play 3 cards "
            f"(one more than the stones), not {wrong}"
        )
    game.apply(Place("D3", cards=3, colour=green))
    assert game.stacks()["D3"] == ("red", "blue", "red")


def test_rule_card_colour_matches_field():
    game = game_for()
    field_colour = colour(game, "D3")
    wrong = other_colour(game, "D3")
    assert refused(game, Place("D3", cards=1, colour=wrong)) == (
        f"Just 4 Fun Colours: D3 is {field_colour}, so you must play {field_colour} cards, "
        f"not {wrong}"
    )
    assert game.check(Place("D3", cards=1, colour=field_colour.upper())) is None


def test_rule_hidden_cards_may_go_unsaid():
    # The camera sees the stone, not the cards: the cards are then the ones the rule needs.
    game = game_for()
    game.apply(Place("A1"))
    assert game.check(Place("A1")) is None
    assert game.check(Place("A1", cards=2)) is None
    assert game.check(Place("A1", colour=colour(game, "A1"))) is None


def test_rule_a_hand_of_seven_cannot_top_a_tower_of_seven():
    game = game_for()
    build(game, "B2", ["red", "blue"] * 3 + ["red"])
    assert len(game.stacks()["B2"]) == 7
    assert Place("B2") not in game.legal_moves()
    assert refused(game, Place("B2")) == (
        "Just 4 Fun Colours: B2 holds a tower of 7 stones: building on it takes 8 cards, "
        "but a hand holds only 7"
    )


def test_rule_anyone_may_place_on_any_field():
    game = game_for("red", "blue", "green")
    build(game, "C3", ["red", "red", "green", "blue"])  # on one's own stone and on others'
    assert game.stacks()["C3"] == ("red", "red", "green", "blue")


def test_rule_tower_belongs_to_top_stone():
    game = game_for()
    game.apply(Place("A1"))
    assert game.scores()["red"].total == 1
    game.apply(Place("A1"))
    assert game.stacks() == {"A1": ("red", "blue")}
    assert game.scores()["red"].total == 0
    assert game.scores()["blue"].total == 1
    game.apply(Place("A1"))
    assert game.stacks() == {"A1": ("red", "blue", "red")}
    assert (game.scores()["red"].total, game.scores()["blue"].total) == (1, 0)


def test_rule_play_passes_clockwise():
    game = game_for("red", "blue", "green")
    seen = []
    for field in ("A1", "B1", "C1", "D1"):
        seen.append(game.current_player)
        game.apply(Place(field))
    assert seen == ["red", "blue", "green", "red"]


# -- winning rows ------------------------------------------------------------------


@pytest.mark.parametrize(
    "row", [["A1", "B1", "C1", "D1"], ["F3", "F4", "F5", "F6"], ["C2", "D2", "E2", "F2"]]
)
def test_rule_four_in_a_row_wins_orthogonal(row):
    game = game_for()
    occupy(game, {"red": row, "blue": ["A6", "B6", "C6"]})
    assert game.outcome.winners == ("red",)
    assert game.outcome.reason == f"four fields in a row ({' '.join(row)})"
    assert game.turn == 7 and game.legal_moves() == []
    assert refused(game, SetAside()).startswith("Just 4 Fun Colours: the game is over (red wins")


@pytest.mark.parametrize("row", [["A1", "B2", "C3", "D4"], ["F2", "E3", "D4", "C5"]])
def test_rule_four_in_a_row_wins_diagonal(row):
    game = game_for()
    occupy(game, {"red": ["A6", "B6", "C6"], "blue": row})
    assert game.outcome.winners == ("blue",)
    assert set(game.outcome.reason.removeprefix("four fields in a row (")[:-1].split()) == set(
        row
    )


@pytest.mark.parametrize(
    "shape",
    [
        ["B2", "C2", "B3", "C3"],  # a square
        ["A1", "A2", "A3", "B3"],  # an L
        ["A1", "B1", "C1", "E1"],  # a row with a gap
        ["A1", "B2", "C3", "D3"],  # a bent diagonal
    ],
)
def test_rule_not_in_a_row_does_not_win(shape):
    game = game_for()
    occupy(game, {"red": shape})
    assert not game.is_over
    assert game.scores()["red"].lines[-1] == ScoreLine("not added: 4 fields owned in all", 0)


def test_rule_row_counts_top_stones_only():
    game = game_for()
    occupy(game, {"red": ["A1", "B1", "C1", "D1"], "blue": ["A6", "B1"]})  # blue covers B1
    assert not game.is_over
    game.apply(SetAside())
    game.apply(Place("B1"))  # red takes B1 back: now the row is red's on top
    assert game.outcome.winners == ("red",)
    assert game.stacks()["B1"] == ("red", "blue", "red")


def test_rule_variant_five_in_a_row():
    game = game_for(five_in_a_row=True)
    assert game.status()["row_length"] == 5 and game_for().status()["row_length"] == 4
    occupy(game, {"red": ["A2", "B2", "C2", "D2"], "blue": ["A6", "B6", "C6", "D6"]})
    assert not game.is_over
    game.apply(Place("E2"))
    assert game.outcome.winners == ("red",)
    assert game.outcome.reason == "five fields in a row (A2 B2 C2 D2 E2)"


def test_rule_variant_five_in_a_row_diagonal():
    game = game_for(five_in_a_row=True)
    occupy(game, {"red": ["B1", "C2", "D3", "E4"], "blue": ["A6", "B6", "C6", "D6"]})
    assert not game.is_over
    game.apply(Place("F5"))
    assert game.outcome.winners == ("red",)


# -- no playable cards ---------------------------------------------------------------


def test_rule_no_playable_cards_returns_stone_to_box():
    game = game_for()
    assert SetAside() in game.legal_moves()
    game.apply(SetAside())
    red = game.stone_counts()["red"]
    assert (red.on_board, red.in_supply, red.removed) == (0, 19, 1)
    assert game.current_player == "blue"  # that ends the turn
    assert game.stacks() == {}


# -- the end after 20 rounds ----------------------------------------------------------


def test_rule_game_ends_after_20_rounds():
    game = game_for("red", "blue", "green")
    occupy(game, {"red": ["A1"], "blue": ["F6"], "green": ["C3", "C4"]})
    while game.turn < 20 * 3:
        game.apply(SetAside())
    assert game.round_text == "round 20 of 20" and game.current_player == "green"
    assert not game.is_over
    game.apply(SetAside())
    assert game.outcome.winners == ("green",)
    assert game.outcome.reason == "20 rounds played: largest connected area (2 fields)"
    for count in game.stone_counts().values():
        assert count.in_supply == 0 and count.total == 20


def test_rule_largest_area_wins():
    game = game_for()
    occupy(game, {"red": ["A1", "A2", "B2"], "blue": ["D4", "E4", "F6", "A6"]})
    finish(game)
    assert game.outcome.winners == ("red",)
    assert (game.scores()["red"].total, game.scores()["blue"].total) == (3, 2)


def test_rule_area_counts_orthogonal_neighbours_only():
    game = game_for()
    occupy(game, {"red": ["B2", "C3", "D4"], "blue": ["A6", "B6"]})
    finish(game)
    assert game.scores()["red"].total == 1
    assert game.outcome.winners == ("blue",)


def test_rule_only_the_largest_area_counts():
    game = game_for()
    occupy(game, {"red": ["A1", "B1", "E1", "F1"], "blue": ["A4", "B4", "C4"]})
    finish(game)
    assert game.scores()["red"].total == 2
    assert game.outcome.winners == ("blue",)


def test_rule_area_tie_broken_by_stones():
    # Stones of every colour in the area count: red's tower on A1 holds a blue stone.
    game = game_for()
    build(game, "A1", ["blue", "red"])
    occupy(game, {"red": ["A2", "A3"], "blue": ["D4", "D5", "E5"]})
    finish(game)
    assert game.scores()["red"].total == game.scores()["blue"].total == 3
    assert game.outcome.winners == ("red",)
    assert game.outcome.reason == (
        "20 rounds played: largest connected areas tie at 3 fields; "
        "most stones in the area wins (red 4, blue 3)"
    )


def test_of_two_equal_largest_areas_the_one_with_more_stones_counts():
    # Our reading (provisional in the layout): the text does not say which area then counts.
    game = game_for()
    build(game, "E6", ["blue", "red"])
    occupy(game, {"red": ["A1", "A2", "F6"]})
    assert game.scores()["red"].lines[:2] == (
        ScoreLine("largest connected area: 2 fields (E6, F6)", 2),
        ScoreLine("tie-break, not added: 3 stones in that area", 0),
    )
    assert any("two largest areas" in note for note in game.layout.provisional)


def test_rule_still_tied_joint_winners():
    game = game_for("red", "blue", "green")
    occupy(game, {"red": ["A1", "A2", "A3"], "blue": ["D4", "D5", "E5"], "green": ["F1"]})
    finish(game)
    assert game.outcome.winners == ("red", "blue")
    assert game.outcome.reason == (
        "20 rounds played: largest connected areas tie at 3 fields and 3 stones"
    )


def test_rule_example_red_five_green_four_blue_three_yellow_two():
    """The rule text's picture: red 5 fields, green 4, blue 3, yellow two areas of 2; red wins."""
    game = game_for("red", "green", "blue", "yellow")
    build(game, "D3", ["blue", "red"])  # red's area includes a tower
    occupy(
        game,
        {
            "red": ["C2", "B3", "C3", "C4"],
            "green": ["E5", "F5", "E6", "F6"],
            "blue": ["A5", "A6", "B6"],
            "yellow": ["F1", "F2", "A1", "B1"],
        },
    )
    finish(game)
    totals = {p: s.total for p, s in game.scores().items()}
    assert totals == {"red": 5, "green": 4, "blue": 3, "yellow": 2}
    assert game.outcome.winners == ("red",)
    assert game.outcome.reason == "20 rounds played: largest connected area (5 fields)"
    assert game.scores()["red"].lines == (
        ScoreLine("largest connected area: 5 fields (C2, B3, C3, D3, C4)", 5),
        ScoreLine("tie-break, not added: 6 stones in that area", 0),
        ScoreLine("not added: 5 fields owned in all", 0),
    )
    assert game.scores()["yellow"].lines[0] == ScoreLine(
        "largest connected area: 2 fields (A1, B1)", 2
    )
    assert game.recount_scores() == game.scores()


# -- bad input and bookkeeping ----------------------------------------------------------


def test_unknown_field_and_foreign_moves_are_refused():
    game = game_for()
    assert refused(game, Place("G9")) == (
        "Just 4 Fun Colours: there is no field 'G9' on the board (fields A1 to F6)"
    )
    assert refused(game, Place("A1", capture="B1")) == (
        "Just 4 Fun Colours: a stone is just placed on a field; nothing is captured"
    )
    for move in (Step("A1", "A2"), Throw((1, 2, 3, 4, 5))):
        assert refused(game, move) == (
            f"Just 4 Fun Colours: there is no {move} here: play cards and place a stone, "
            "or return a stone to the box when no card fits"
        )
    assert game.moves == []


def test_legal_moves_are_the_open_fields_in_board_order_and_setting_aside():
    game = game_for()
    build(game, "A1", ["red", "blue"] * 3 + ["red"])
    moves = game.legal_moves()
    assert moves[-1] == SetAside()
    assert [m.field for m in moves[:-1]] == [f for f in game.layout.fields if f != "A1"]


def test_stacks_and_stone_counts():
    game = game_for("red", "blue", "green")
    build(game, "E2", ["red", "green", "blue"])
    assert game.stacks() == {"E2": ("red", "green", "blue")}
    # blue and then red had no playable cards while the tower grew
    counts = {p: (c.on_board, c.in_supply, c.removed) for p, c in game.stone_counts().items()}
    assert counts == {"red": (1, 18, 1), "blue": (1, 18, 1), "green": (1, 19, 0)}


def test_layout_field_without_known_colour_is_refused():
    data = json.loads((LAYOUT_DIR / "just4fun.json").read_text(encoding="utf-8"))
    data["cells"][0][0] = "gold"
    with pytest.raises(LayoutError, match="field A1 has colour 'gold'"):
        new_game("just4fun", ("red", "blue"), layout=parse_layout(data, "mine.json"))


def test_layout_rounds_must_match_stones():
    data = json.loads((LAYOUT_DIR / "just4fun.json").read_text(encoding="utf-8"))
    data["rounds"] = 18
    with pytest.raises(LayoutError, match=r"'rounds' \(18\) must equal 'stones_per_player'"):
        new_game("just4fun", ("red", "blue"), layout=parse_layout(data, "mine.json"))


def test_copy_and_undo_keep_games_apart():
    game = game_for()
    game.apply(Place("A1"))
    clone = game.copy()
    clone.apply(Place("A1", cards=2))
    assert game.stacks() == {"A1": ("red",)}
    assert clone.stacks() == {"A1": ("red", "blue")}
    assert clone.undo() == Place("A1", cards=2)
    assert clone.stacks() == game.stacks() and clone.scores() == game.scores()


def test_record_replays_to_the_same_board():
    game = play_random(game_for("red", "blue", "green"), random.Random(7))
    *_, (_, _, _, replayed) = parse_record(game.to_record()).replay()
    assert replayed.stacks() == game.stacks()
    assert replayed.outcome == game.outcome


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4), five=st.booleans()
)
def test_random_play_to_the_end(seed, players, five):
    game = game_for(*COLOURS[:players], five_in_a_row=five)
    rng = random.Random(seed)
    fields = list(game.layout.fields)
    while not game.is_over:
        assert game.round <= 20
        legal = set(game.legal_moves())
        for field in fields:
            assert (game.check(Place(field)) is None) == (Place(field) in legal)
        game.apply(game.random_move(rng))
        assert all(c.total == 20 for c in game.stone_counts().values())
        assert all(len(tower) <= 7 for tower in game.stacks().values())
        on_board = sum(len(tower) for tower in game.stacks().values())
        assert on_board == sum(c.on_board for c in game.stone_counts().values())
    assert game.turn <= 20 * players
    assert game.scores() == game.recount_scores()
    assert game.outcome.winners
    if game.outcome.reason.startswith("20 rounds"):
        assert all(c.in_supply == 0 for c in game.stone_counts().values())
        best = max(s.total for s in game.scores().values())
        assert set(game.outcome.winners) <= {p for p, s in game.scores().items() if s.total == best}
