"""Spexxx: one test per rule statement of the rule text, plus random play to the end.

Grid coordinates (row, col): rows 0-5 are "1x1".."1x6", rows 6-11 "2x1".."2x6";
columns 0-5 "1x1".."1x6", 6-11 "2x..", 12-17 "3x..", 18-23 "4x..". Row 0 columns 13-17
are blue cells, (0, 12) is gold; the 4x column / 2x row block is the score track.
"""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.core import IllegalMove, new_game
from companion.games.spexxx import BoardMismatch
from companion.layout import LAYOUT_DIR, LayoutError, parse_layout
from companion.moves import Place, SetAside, Step, Throw
from companion.playout import play_random
from companion.record import parse_record

ANY_CELL = (6, 6, 6, 6, 6)  # five of a kind: any free cell
#: Cells far from the test areas and two apart, where the other player parks stones
#: without ever forming a chain.
PARK = [(r, c) for r in (0, 2, 4) for c in (19, 21, 23)] + [
    (r, c) for r in (7, 9, 11) for c in (0, 2, 4)
]


def game_for(players=("red", "blue"), **options):
    return new_game("spexxx", players, options)


def at(game, row: int, col: int) -> str:
    return game.layout.field_at(row, col).name


def pts(game, row: int, col: int) -> int:
    zone = game.layout.field_at(row, col).attrs["zone"]
    return game.layout.extra["zone_points"][zone]


def turn(game, cell: str, dice=ANY_CELL) -> None:
    game.apply(Throw(tuple(dice)))
    game.apply(Place(cell))


def red_builds(game, cells) -> list[int]:
    """Red places ``cells`` in order (blue parks in between); red's total after each."""
    totals = []
    for k, (row, col) in enumerate(cells):
        assert game.current_player == "red"
        turn(game, at(game, row, col))
        totals.append(game.scores()["red"].total)
        if k < len(cells) - 1:
            turn(game, at(game, *PARK[k]))
    assert game.scores() == game.recount_scores()
    return totals


def labels(game, player="red") -> list[str]:
    return [line.label for line in game.scores()[player].lines]


def refused(game, move) -> str:
    with pytest.raises(IllegalMove) as err:
        game.apply(move)
    return str(err.value)


def legal_cells(game) -> set[str]:
    return {m.field for m in game.legal_moves() if isinstance(m, Place)}


def zone_cells(game, *zones) -> set[str]:
    return {
        f.name for f in game.layout.fields.values()
        if f.attrs["zone"] in zones and f.attrs.get("playable", True)
    }


# -- throwing -----------------------------------------------------------------------


def test_rule_at_most_four_throws():
    game = game_for()
    for _ in range(4):
        game.apply(Throw((1, 2, 3, 5, 5)))
    assert game.throw_count == 4
    assert refused(game, Throw((1, 1, 1, 1, 1))) == (
        "Spexxx: you may throw at most 4 times; red has thrown 4 times"
    )


def test_rule_place_needs_a_throw():
    game = game_for()
    assert game.legal_moves() == []
    assert refused(game, Place("2x3+1x5")) == "Spexxx: throw the dice before placing a stone"
    assert refused(game, SetAside()) == "Spexxx: throw the dice before setting a stone aside"


def test_rule_last_throw_counts():
    game = game_for()
    game.apply(Throw((3, 3, 5, 1, 2)))
    game.apply(Throw((6, 6, 6, 6, 1)))
    assert "the dice show 6 6 6 6 1" in refused(game, Place("2x3+1x5"))
    game.apply(Place("4x6+1x1"))
    assert game.stacks() == {"4x6+1x1": ("red",)}


def test_rule_cell_matches_dice_player_chooses_which_dice():
    game = game_for()
    game.apply(Throw((3, 3, 5, 1, 2)))
    faces = (1, 2, 3, 5)
    orange = {f"1x{a}+1x{b}" for a in faces for b in faces if a != b}
    green = {f"2x3+1x{b}" for b in (1, 2, 5)} | {f"1x{b}+2x3" for b in (1, 2, 5)}
    assert legal_cells(game) == orange | green
    assert refused(game, Place("2x5+1x3")) == (
        "Spexxx: the green cell 2x5+1x3 needs two 5s and one 3 among the dice; "
        "the dice show 3 3 5 1 2"
    )
    game.apply(Place("1x5+2x3"))  # one 5 and two 3s, leaving 1 and 2 unused
    assert game.stacks() == {"1x5+2x3": ("red",)}


def test_rule_red_purple_silver_need_all_dice():
    game = game_for()
    game.apply(Throw((5, 1, 5, 1, 5)))
    legal = legal_cells(game)
    assert legal & zone_cells(game, "red", "purple", "silver") == {"3x5+2x1"}
    # The other zones take part of the dice: three 5s and one 1, two 5s and two 1s.
    assert {"3x5+1x1", "2x5+2x1", "2x1+2x5", "2x5+1x1", "1x5+1x1"} <= legal
    assert refused(game, Place("4x5+1x1")) == (
        "Spexxx: the red cell 4x5+1x1 needs exactly four 5s and one 1, using all five dice; "
        "the dice show 5 1 5 1 5"
    )


def test_rule_gold_four_consecutive():
    game = game_for()
    game.apply(Throw((5, 2, 4, 3, 5)))
    gold = zone_cells(game, "gold")
    assert len(gold) == 18
    assert gold <= legal_cells(game)
    game.apply(Throw((1, 2, 3, 5, 6)))  # no four in a row
    assert not gold & legal_cells(game)
    game.apply(Throw((3, 3, 3, 1, 1)))  # three 3s do not make the gold cell 2x3+1x3
    assert refused(game, Place("2x3+1x3")) == (
        "Spexxx: the gold cell 2x3+1x3 needs four consecutive faces (1-4, 2-5 or 3-6); "
        "the dice show 3 3 3 1 1"
    )


@pytest.mark.parametrize("dice", [(1, 2, 3, 4, 5), (6, 5, 4, 3, 2)])
def test_rule_silver_five_consecutive(dice):
    game = game_for()
    game.apply(Throw(dice))
    silver = zone_cells(game, "silver")
    assert len(silver) == 12
    assert silver <= legal_cells(game)
    game.apply(Throw((1, 2, 3, 4, 6)))  # four in a row: gold, not silver
    assert not silver & legal_cells(game)
    assert zone_cells(game, "gold") <= legal_cells(game)
    assert "five consecutive faces (1-5 or 2-6)" in refused(game, Place("4x4+1x4"))


def test_rule_five_of_a_kind_any_free_cell():
    game = game_for()
    game.apply(Throw((4, 4, 4, 4, 4)))
    playable = {f.name for f in game.layout.fields.values() if f.attrs.get("playable", True)}
    assert len(playable) == 240
    assert legal_cells(game) == playable
    game.apply(Place("4x2+1x1"))  # a red cell, far from fours
    game.apply(Throw((4, 4, 4, 4, 4)))
    assert legal_cells(game) == playable - {"4x2+1x1"}


def test_rule_unplayable_diagonal_cells_take_no_stones():
    game = game_for()
    game.apply(Throw(ANY_CELL))
    assert refused(game, Place("1x3+1x3")) == (
        "Spexxx: cell 1x3+1x3 on the orange diagonal takes no stones"
    )
    assert "2x4+2x4" not in legal_cells(game)


def test_rule_occupied_cell_blocked():
    game = game_for()
    turn(game, "2x3+1x5", (3, 3, 5, 1, 2))
    game.apply(Throw((3, 3, 5, 1, 2)))
    assert "2x3+1x5" not in legal_cells(game)
    assert refused(game, Place("2x3+1x5")) == (
        "Spexxx: cell 2x3+1x5 is occupied by red: an occupied cell is blocked"
    )


def test_rule_set_aside_when_no_cell_fits():
    game = game_for()
    dice = (1, 1, 2, 1, 1)
    game.apply(Throw(dice))
    fitting = {"1x1+1x2", "1x2+1x1", "2x1+1x2", "1x2+2x1", "3x1+1x2", "4x1+1x2"}
    assert legal_cells(game) == fitting
    assert refused(game, SetAside()) == (
        "Spexxx: a stone may be set aside only when no free cell fits the dice; "
        "the dice 1 1 2 1 1 fit 1x2+1x1"
    )
    game.apply(Place("1x1+1x2"))
    for cell in sorted(fitting - {"1x1+1x2"}):
        turn(game, cell)
    assert game.current_player == "red"
    game.apply(Throw(dice))
    assert game.legal_moves() == [SetAside()]
    assert refused(game, Place("3x1+1x2")).endswith("an occupied cell is blocked")
    game.apply(SetAside())
    counts = game.stone_counts()
    assert (counts["red"].on_board, counts["red"].removed, counts["red"].in_supply) == (3, 1, 19)
    assert game.current_player == "blue" and game.throw_count == 0


def test_rule_turn_ends_after_placing():
    game = game_for()
    game.apply(Throw((3, 3, 5, 1, 2)))
    game.apply(Throw((3, 3, 5, 1, 4)))
    game.apply(Place("2x3+1x4"))
    assert (game.current_player, game.throw_count, game.turn) == ("blue", 0, 2)


# -- scoring ------------------------------------------------------------------------


def test_rule_chain_of_three_scores_cell_points():
    game = game_for()
    totals = red_builds(game, [(0, 13), (0, 14), (0, 15)])
    expected = sum(pts(game, 0, c) for c in (13, 14, 15))
    assert totals == [0, 0, expected]
    assert expected == 15  # blue cells are worth 5 (rule text)
    assert labels(game) == ["chain of 3 in row 1x1 (3x2 to 3x4)"]


def test_rule_stone_outside_chain_scores_nothing():
    game = game_for()
    totals = red_builds(game, [(0, 13), (0, 14), (0, 16), (1, 16), (3, 13)])
    assert totals == [0] * 5
    assert game.scores()["red"].lines == ()


def test_rule_chain_crosses_zone_borders():
    game = game_for()
    cells = [(0, 11), (0, 12), (0, 13)]  # green, gold, blue
    totals = red_builds(game, cells)
    assert totals[-1] == sum(pts(game, r, c) for r, c in cells)
    assert {game.layout.field_at(r, c).attrs["zone"] for r, c in cells} == {
        "green", "gold", "blue"
    }


def test_rule_diagonal_chain_scores():
    game = game_for()
    cells = [(1, 7), (2, 6), (3, 5)]  # down-left diagonal from green into orange
    totals = red_builds(game, cells)
    assert totals[-1] == sum(pts(game, r, c) for r, c in cells)
    assert labels(game) == ["chain of 3 on the diagonal 2x2+1x2 to 1x6+1x4"]


def test_rule_missing_cell_breaks_line():
    data = json.loads((LAYOUT_DIR / "spexxx.json").read_text(encoding="utf-8"))
    data["cells"][0][15] = None  # a hole in row 1x1 between 3x3 and 3x5
    game = new_game("spexxx", ("red", "blue"), layout=parse_layout(data, "holed.json"))
    totals = red_builds(game, [(0, 13), (0, 14), (0, 16), (0, 17)])
    assert totals == [0, 0, 0, 0]


def test_rule_extending_scores_new_stone_only():
    game = game_for()
    totals = red_builds(game, [(0, 13), (0, 14), (0, 15), (0, 16)])
    assert totals[3] - totals[2] == pts(game, 0, 16)
    assert labels(game) == ["chain of 4 in row 1x1 (3x2 to 3x5)"]


def test_rule_joining_scores_newly_chained():
    game = game_for()
    # A chain of three, a lone stone, then the stone between: new and lone stone score.
    totals = red_builds(game, [(0, 13), (0, 14), (0, 15), (0, 17), (0, 16)])
    assert totals[3] == totals[2]
    assert totals[4] - totals[3] == pts(game, 0, 16) + pts(game, 0, 17) + 5  # 5: chain of 5


def test_rule_joining_two_pairs_scores_all_stones():
    game = game_for()
    cells = [(0, 13), (0, 14), (0, 16), (0, 17), (0, 15)]
    totals = red_builds(game, cells)
    assert totals[-1] == sum(pts(game, r, c) for r, c in cells) + 5


def test_rule_joining_two_chains_scores_new_stone_only():
    game = game_for()
    # Two chains of five (with their bonuses), then the stone between them.
    cells = [(0, c) for c in range(6, 11)] + [(0, c) for c in range(12, 17)] + [(0, 11)]
    totals = red_builds(game, cells)
    assert totals[-2] == sum(pts(game, r, c) for r, c in cells[:-1]) + 5 + 5
    assert totals[-1] - totals[-2] == pts(game, 0, 11)  # bonus: one per five stones
    lines = {line.label: line.points for line in game.scores()["red"].lines}
    assert lines == {
        "chain of 11 in row 1x1 (2x1 to 3x5)": sum(pts(game, r, c) for r, c in cells),
        "bonus chain of 11 in row 1x1 (2x1 to 3x5)": 10,
    }


def test_rule_one_stone_several_chains():
    game = game_for()
    totals = red_builds(game, [(0, 13), (0, 14), (1, 15), (2, 15), (0, 15)])
    corner = pts(game, 0, 15)
    others = sum(pts(game, r, c) for r, c in [(0, 13), (0, 14), (1, 15), (2, 15)])
    assert totals[-1] - totals[-2] == 2 * corner + others  # the corner counts twice
    assert labels(game) == [
        "chain of 3 in row 1x1 (3x2 to 3x4)",
        "chain of 3 in column 3x4 (1x1 to 1x3)",
    ]


def test_rule_bonus_chain_of_five():
    game = game_for()
    totals = red_builds(game, [(0, 13), (0, 14), (0, 15), (0, 16), (0, 17)])
    assert totals[4] - totals[3] == pts(game, 0, 17) + 5
    lines = {line.label: line.points for line in game.scores()["red"].lines}
    assert lines["bonus chain of 5 in row 1x1 (3x2 to 3x6)"] == 5


def test_rule_bonus_chain_again_at_ten():
    game = game_for()
    cells = [(0, c) for c in range(7, 17)]
    totals = red_builds(game, cells)
    bonus = [t - sum(pts(game, r, c) for r, c in cells[: k + 1]) if k >= 2 else t
             for k, t in enumerate(totals)]
    assert bonus == [0, 0, 0, 0, 5, 5, 5, 5, 5, 10]
    assert labels(game) == [
        "chain of 10 in row 1x1 (2x2 to 3x5)",
        "bonus chain of 10 in row 1x1 (2x2 to 3x5)",
    ]


def block_cells(top: int, left: int, width: int = 3) -> list[tuple[int, int]]:
    """A block of three rows, filled column by column."""
    return [(top + dr, left + dc) for dc in range(width) for dr in range(3)]


def test_rule_block_bonus():
    game = game_for()
    cells = block_cells(0, 13)
    totals = red_builds(game, cells)
    every = sum(pts(game, r, c) for r, c in cells)
    diagonals = sum(pts(game, k, 13 + k) + pts(game, k, 15 - k) for k in range(3))
    # three rows, three columns, two diagonals and the block
    assert totals[-1] == 2 * every + diagonals + 25
    assert labels(game)[-1] == "3x3 block 3x2+1x1 to 3x4+1x3"
    game.undo()  # without the ninth stone there is no block
    assert all("block" not in label for label in labels(game))


def test_rule_block_bonus_non_overlapping():
    game = game_for()
    cells = block_cells(0, 12, width=6)
    red_builds(game, cells)
    blocks = [label for label in labels(game) if "block" in label]
    # 12-14 counts; 13-15 and 14-16 overlap it; 15-17 is new.
    assert blocks == ["3x3 block 3x1+1x1 to 3x3+1x3", "3x3 block 3x4+1x1 to 3x6+1x3"]


def test_rule_block_bonus_path_dependent():
    game = game_for()
    # The block 3x3..3x5 is counted first, so neither 3x1..3x3 nor 3x4..3x6 can follow.
    cells = block_cells(0, 14) + block_cells(0, 12, width=2) + block_cells(0, 17, width=1)
    red_builds(game, cells)
    blocks = [label for label in labels(game) if "block" in label]
    assert blocks == ["3x3 block 3x3+1x1 to 3x5+1x3"]


def test_recount_checks_counted_blocks_against_the_board():
    game = game_for()
    red_builds(game, block_cells(0, 13))
    game.owner[game.board.index["3x3+1x2"]] = -1  # a stone knocked off the board
    with pytest.raises(BoardMismatch, match="block at 3x2\\+1x1 is not all red's stones"):
        game.recount_scores()


# -- stones and the end --------------------------------------------------------------


@pytest.mark.parametrize(("players", "stones"), [(2, 23), (3, 18), (4, 16)])
def test_rule_stones_per_player_adults(players, stones):
    game = game_for(("red", "blue", "green", "yellow")[:players])
    assert game.max_rounds == stones
    assert {c.in_supply for c in game.stone_counts().values()} == {stones}


@pytest.mark.parametrize(("players", "stones"), [(2, 12), (3, 12), (4, 10)])
def test_rule_stones_per_player_children(players, stones):
    game = game_for(("red", "blue", "green", "yellow")[:players], children=True)
    assert game.max_rounds == stones
    assert {c.in_supply for c in game.stone_counts().values()} == {stones}


def test_rule_game_ends_when_all_placed_highest_score_wins():
    game = game_for(children=True)
    red = [(0, c) for c in range(7, 19)]  # a chain of twelve
    blue = [(r, c) for r in (7, 9, 11) for c in (0, 2, 4, 6)]  # two apart: no chains
    for k in range(12):
        turn(game, at(game, *red[k]))
        assert not game.is_over
        turn(game, at(game, *blue[k]))
    assert game.is_over
    assert game.outcome.winners == ("red",)
    assert game.outcome.reason == "all stones are placed or set aside"
    assert game.round == 12 and game.throw_count == 0
    assert game.scores()["blue"].total == 0 < game.scores()["red"].total
    assert refused(game, Throw((1, 2, 3, 4, 5))).startswith("Spexxx: the game is over")


def test_rule_set_aside_stones_count_to_the_end_and_ties_win_jointly():
    game = game_for(children=True)
    for _ in range(24):
        game.apply(Throw((1, 1, 2, 1, 1)))
        moves = game.legal_moves()
        game.apply(moves[0])
    assert game.is_over
    counts = game.stone_counts()
    assert sum(c.on_board for c in counts.values()) == 6
    assert sum(c.removed for c in counts.values()) == 18
    assert game.outcome.winners == ("red", "blue")  # no chains: 0 to 0


# -- bad input and bookkeeping ---------------------------------------------------------


def test_unknown_cell_and_foreign_moves_are_refused():
    game = game_for()
    assert refused(game, Step("1x2+1x1", "1x3+1x1")) == (
        "Spexxx: Spexxx stones are placed, never moved"
    )
    game.apply(Throw(ANY_CELL))
    assert refused(game, Place("Z9")) == (
        "Spexxx: there is no cell 'Z9' (cells are named like 3x5+2x1)"
    )
    assert refused(game, Place("1x2+1x1", cards=2)) == (
        "Spexxx: in Spexxx you only place a stone: no cards, colours or captures"
    )


def test_layout_with_bad_cell_name_is_refused():
    data = json.loads((LAYOUT_DIR / "spexxx.json").read_text(encoding="utf-8"))
    data["grid"]["name"] = "{col}{row}"
    with pytest.raises(LayoutError, match="cell '1x11x1' needs a name like 3x5\\+2x1"):
        new_game("spexxx", ("red", "blue"), layout=parse_layout(data, "mine.json"))


def test_layout_without_grid_is_refused():
    data = json.loads((LAYOUT_DIR / "spexxx.json").read_text(encoding="utf-8"))
    layout = parse_layout(data, "mine.json")
    data["fields"] = [{"name": f.name, "centre_mm": [f.x_mm, f.y_mm], **f.attrs}
                      for f in layout.fields.values()]
    del data["grid"], data["cells"]
    with pytest.raises(LayoutError, match="Spexxx needs a grid; cell 1x1\\+1x1 has no row/col"):
        new_game("spexxx", ("red", "blue"), layout=parse_layout(data, "mine.json"))


def test_points_grow_with_rarity_as_the_odds_script_suggests():
    path = Path(__file__).resolve().parents[2] / "bench" / "spexxx_odds.py"
    spec = importlib.util.spec_from_file_location("spexxx_odds", path)
    odds = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(odds)
    probs = {zone: odds.Odds(odds.fits_counts(*odds.TARGETS[zone])).exact
             for zone in odds.TARGETS}
    probs["gold"] = odds.Odds(odds.straight(4)).exact
    probs["silver"] = odds.Odds(odds.straight(5)).exact
    points = game_for().layout.extra["zone_points"]
    assert points == odds.suggested_points(probs)
    by_rarity = sorted(probs, key=probs.__getitem__, reverse=True)
    assert [points[z] for z in by_rarity] == sorted(points.values())


def test_undo_and_copy_keep_games_apart():
    game = game_for()
    red_builds(game, [(0, 13), (0, 14)])
    clone = game.copy()
    turn(clone, at(clone, *PARK[1]))
    turn(clone, at(clone, 0, 15))
    assert clone.scores()["red"].total == 15 and game.scores()["red"].total == 0
    assert clone.undo() == Place("3x4+1x1")
    assert clone.scores() == game.scores() == clone.recount_scores()


def test_record_replays_to_the_same_scores():
    game = play_random(game_for(("red", "blue", "green")), random.Random(7))
    *_, (_, _, _, replayed) = parse_record(game.to_record()).replay()
    assert replayed.stacks() == game.stacks()
    assert replayed.scores() == game.scores()
    assert replayed.outcome == game.outcome


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4))
def test_random_play_to_the_end(seed, players):
    game = game_for(("red", "blue", "green", "yellow")[:players])
    stones = game.max_rounds
    rng = random.Random(seed)
    cells = list(game.layout.fields)
    while not game.is_over:
        game.apply(game.random_move(rng))
        assert game.round <= stones
        assert all(c.total == stones for c in game.stone_counts().values())
        assert sum(c.on_board for c in game.stone_counts().values()) == len(game.stacks())
        assert game.scores() == game.recount_scores()
        if game.throw_count and not game.is_over and rng.random() < 0.2:
            legal = set(game.legal_moves())
            for cell in cells:
                assert (game.check(Place(cell)) is None) == (Place(cell) in legal)
            assert (game.check(SetAside()) is None) == (SetAside() in legal)
    assert all(c.in_supply == 0 for c in game.stone_counts().values())
    best = max(s.total for s in game.scores().values())
    assert set(game.outcome.winners) == {p for p, s in game.scores().items() if s.total == best}
