"""The Game interface shared by every game: registry, setup, undo, copy, moves, layouts."""

import json
import random
from pathlib import Path

import pytest

from companion import GameSetupError, IllegalMove, UnknownGame, find_game, new_game
from companion.core import GAMES
from companion.layout import LayoutError, available_layouts, load_layout, parse_layout
from companion.moves import BadMove, Place, SetAside, Step, Throw, move_from_dict, move_to_dict
from companion.playout import play_random

ALL = ["cuatro", "just4fun", "muehle", "spexxx"]


def test_registry_finds_every_game_by_name():
    for name in ALL:
        assert find_game(name).name == name
    assert sorted(GAMES) == ALL


def test_unknown_game_lists_the_known_ones():
    with pytest.raises(UnknownGame, match="cuatro") as info:
        find_game("chess")
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("name", ALL)
def test_player_count_is_checked(name):
    cls = find_game(name)
    with pytest.raises(GameSetupError, match="played by"):
        cls(["solo"])
    with pytest.raises(GameSetupError):
        cls(["a", "b", "c", "d", "e"])


def test_the_next_player_is_whose_turn_comes_after_this_one():
    game = new_game("just4fun", ["red", "blue", "green"])
    seen = []
    for field in ("A1", "B2", "C3"):
        seen.append((game.current_player, game.next_player))
        game.apply(Place(field))
    assert seen == [("red", "blue"), ("blue", "green"), ("green", "red")]


def test_players_must_be_distinct():
    with pytest.raises(GameSetupError, match="distinct"):
        new_game("cuatro", ["red", "red"])


def test_unknown_and_mistyped_options_are_refused():
    with pytest.raises(GameSetupError, match="no option 'colour_blind'"):
        new_game("cuatro", ["red", "blue"], {"colour_blind": True})
    with pytest.raises(GameSetupError, match="takes a bool"):
        new_game("just4fun", ["red", "blue"], {"five_in_a_row": "yes"})


@pytest.mark.parametrize("name", ALL)
def test_illegal_move_is_a_value_error_naming_the_game(name):
    game = new_game(name, ["red", "blue"])
    with pytest.raises(ValueError, match=f"^{game.title}: ") as info:
        game.apply(Place("nowhere"))
    assert isinstance(info.value, IllegalMove)
    assert game.moves == []


@pytest.mark.parametrize("name", ALL)
def test_undo_restores_the_position_before_the_last_move(name):
    game = new_game(name, ["red", "blue", "green"] if name != "muehle" else ["white", "black"])
    rng = random.Random(3)
    for _ in range(12):
        game.apply(game.random_move(rng))
    before = game.copy()
    last = game.random_move(rng)
    game.apply(last)
    assert game.undo() == last
    assert game.status() == before.status()
    assert game.moves == before.moves


def test_undo_with_no_moves_is_refused():
    with pytest.raises(IllegalMove, match="no move to take back"):
        new_game("muehle", ["white", "black"]).undo()


@pytest.mark.parametrize("name", ALL)
def test_copy_is_independent(name):
    game = new_game(name, ["red", "blue"] if name != "muehle" else ["white", "black"])
    clone = game.copy()
    play_random(clone, random.Random(5), max_turns=10)
    assert game.moves == [] and game.turn == 1
    assert clone.moves


@pytest.mark.parametrize("name", ALL)
def test_finished_game_refuses_more_moves(name):
    options = {"no_capture_limit": 40} if name == "muehle" else {}
    players = ["white", "black"] if name == "muehle" else ["red", "blue"]
    game = play_random(new_game(name, players, options), random.Random(11))
    assert game.is_over
    assert "the game is over" in game.check(SetAside())
    assert game.status()["is_over"] is True


@pytest.mark.parametrize(
    "move",
    [Throw((1, 2, 3, 4, 5)), Place("D3"), Place("B2", cards=3, colour="lime"),
     Place("a1", capture="d7"), Step("a1", "a4"), Step("a1", "a4", capture="g7"), SetAside()],
)
def test_moves_round_trip_through_json(move):
    assert move_from_dict(json.loads(json.dumps(move_to_dict(move)))) == move


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"throw": [1, 2, 7, 4, 5]}, r"moves\[0\]\.throw: expected five dice"),
        ({"throw": [1, 2, 3]}, r"moves\[0\]\.throw"),
        ({"place": 3}, r"moves\[0\]\.place: expected a field name"),
        ({"from": "a1"}, r"moves\[0\]\.to: a step needs both"),
        ({"jump": "a1"}, r"moves\[0\]\.jump: unknown key"),
        ("D3", r"moves\[0\]: expected an object"),
        ({"place": "D3", "cards": 0}, r"moves\[0\]\.cards"),
    ],
)
def test_malformed_moves_name_the_bad_field(data, message):
    with pytest.raises(BadMove, match=message):
        move_from_dict(data, "moves[0]")


def test_every_game_has_a_shipped_layout_with_fields_in_millimetres():
    assert set(ALL) <= set(available_layouts())
    for name in ALL:
        layout = load_layout(name)
        width, height = layout.board_size_mm
        for field in layout.fields.values():
            assert 0 < field.x_mm < width and 0 < field.y_mm < height, field
        assert len(layout.markers.centres_mm) == 4


def test_field_counts_match_the_rule_texts():
    assert len(load_layout("just4fun").fields) == 36
    assert len(load_layout("cuatro").fields) == 36
    assert len(load_layout("muehle").fields) == 24
    assert len(load_layout("spexxx").fields) == 24 * 12 - 6 * 6


def test_provisional_facts_are_marked():
    assert any("colour map" in note for note in load_layout("just4fun").provisional)
    assert any("Point values" in note for note in load_layout("spexxx").provisional)


def test_a_users_layout_file_is_loaded_by_path(tmp_path):
    data = json.loads(Path(load_layout("cuatro").source).read_text())
    data["cells"][0][0], data["cells"][1][4] = "Y", "FH"  # swap a Yatzy field
    path = tmp_path / "my_cuatro.json"
    path.write_text(json.dumps(data))
    game = new_game("cuatro", ["red", "blue"], layout=str(path))
    assert game.layout.fields["A0"].attrs["symbol"] == "Y"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "missing 'markers'|no fields"),
        ({"game": "x", "fields": [{"name": "a", "centre_mm": [1]}]}, r"fields\[0\]\.centre_mm"),
    ],
)
def test_broken_layouts_get_clear_errors(data, message):
    with pytest.raises(LayoutError, match=message):
        parse_layout(data)


def test_a_muehle_layout_without_its_printed_lines_is_refused():
    data = json.loads(Path(load_layout("muehle").source).read_text())
    del data["printed_lines"]
    with pytest.raises(LayoutError, match="printed_lines"):
        parse_layout(data)
    data["printed_lines"] = {"width_mm": "thin", "point_radius_mm": 3}
    with pytest.raises(LayoutError, match="printed_lines"):
        parse_layout(data)


def test_missing_layout_names_the_shipped_ones():
    with pytest.raises(LayoutError, match="shipped: .*cuatro"):
        load_layout("backgammon")
