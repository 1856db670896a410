"""Mühle rules, one test per rule of the rule text (shared/rules/muehle.de.txt)."""

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import GameSetupError, IllegalMove, Outcome, Place, SetAside, Step, Throw, new_game
from companion.cli import main as cli_main
from companion.core import StoneCount
from companion.games.muehle import Muehle
from companion.layout import LayoutError, load_layout
from companion.playout import play_random
from companion.record import load_record

#: 18 placements, alternately white and black, that close no mill; afterwards
#: white to move with a1-d1, a1-a4, g1-d1, d3-e3, e5-e4, d6-f6 and a7-a4.
NO_MILL_PLACING = [
    "d3", "b4", "b2", "c5", "d6", "f2", "g1", "d2", "a1",
    "f4", "b6", "c4", "c3", "g4", "a7", "d7", "e5", "d5",
]


def game(**options) -> Muehle:
    return new_game("muehle", ["white", "black"], options)


def play(g: Muehle, *moves) -> Muehle:
    """Apply moves written as "a1", "a1xb2" (place and take), "a1-d1", "a1-d1xb2"."""
    for text in moves:
        move, _, capture = text.partition("x")
        src, dash, dst = move.partition("-")
        g.apply(Step(src, dst, capture or None) if dash else Place(src, capture=capture or None))
    return g


def placed(**options) -> Muehle:
    return play(game(**options), *NO_MILL_PLACING)


def position(white: str, black: str, to_move: str = "white", in_hand=(0, 0), **options) -> Muehle:
    """A game standing at a position; stones missing from the board count as taken."""
    g = game(**options)
    masks = [sum(1 << g.board.index[p] for p in side.split()) for side in (white, black)]
    g._stones = masks
    g._in_hand = list(in_hand)
    g._taken = [9 - masks[1].bit_count() - in_hand[1], 9 - masks[0].bit_count() - in_hand[0]]
    g.current = g.players.index(to_move)
    assert g.scores() == g.recount_scores()
    return g


def refused(g: Muehle, move) -> str:
    with pytest.raises(IllegalMove) as info:
        g.apply(move)
    assert str(info.value).startswith("Mühle: ")
    return info.value.rule


# -- the board ----------------------------------------------------------------


def test_neighbours_are_the_consecutive_points_of_the_mill_lines():
    board = game().board
    neighbours = {
        name: {board.names[i] for i in range(24) if board.neighbours[board.index[name]] >> i & 1}
        for name in board.names
    }
    assert neighbours["a1"] == {"d1", "a4"}
    assert neighbours["d2"] == {"d1", "d3", "b2", "f2"}
    assert neighbours["b4"] == {"a4", "c4", "b2", "b6"}
    assert sum(len(n) for n in neighbours.values()) == 2 * 32  # 32 line segments
    assert all(a in neighbours[b] for a in neighbours for b in neighbours[a])


def test_a_layout_without_mills_is_refused():
    broken = dataclasses.replace(load_layout("muehle"), extra={})
    with pytest.raises(LayoutError, match="needs 'mills'"):
        Muehle(["white", "black"], layout=broken)


def test_exactly_two_players_and_checked_options():
    with pytest.raises(GameSetupError, match="played by 2 players"):
        new_game("muehle", ["white", "black", "red"])
    with pytest.raises(GameSetupError, match="0 \\(off\\) or more"):
        game(no_capture_limit=-3)
    with pytest.raises(GameSetupError, match="takes a bool"):
        game(threefold_repetition="yes")


# -- placing --------------------------------------------------------------------


def test_rule_nine_stones_each_placed_alternately():
    g = game()
    assert refused(g, Step("a1", "d1")) == (
        "white still has 9 stones to place; stones are moved only after all are placed")
    for i, point in enumerate(NO_MILL_PLACING):
        assert g.current_player == ("white", "black")[i % 2]
        play(g, point)
        assert g.stacks()[point] == (("white", "black")[i % 2],)
    counts = g.stone_counts()
    assert counts["white"].on_board == counts["black"].on_board == 9
    assert counts["white"].in_supply == counts["black"].in_supply == 0
    assert refused(g, Place("e3")) == "white has placed all 9 stones; now move one along a line"
    assert all(isinstance(m, Step) for m in g.legal_moves())


def test_rule_place_only_on_a_free_point():
    g = play(game(), "a1")
    assert refused(g, Place("a1")) == "a1 is taken; place your stone on a free point"
    assert refused(g, Place("h9")) == "'h9' is not a point of the board (points are named a1 to g7)"


def test_rule_mill_during_placing_captures():
    g = play(game(), "a1", "b2", "d1", "b4")
    assert refused(g, Place("g1")) == "you closed a mill: name the stone you take"
    assert refused(g, Place("g1", capture="a1")) == (
        "a1 holds no stone of black; you take one of theirs")
    play(g, "g1xb2")
    assert "b2" not in g.stacks()
    assert g.stone_counts()["black"].removed == 1
    assert g.current_player == "black"
    lines = {line.label: line.points for line in g.scores()["white"].lines}
    assert lines == {"stones on the board": 3, "stones taken from black": 1}
    assert g.scores() == g.recount_scores()


def test_rule_capture_only_after_closing_a_mill():
    g = play(game(), "a1", "b2")
    assert refused(g, Place("d1", capture="b2")) == "you closed no mill, so you may not take b2"
    g = placed()
    assert refused(g, Step("a1", "d1", capture="d2")) == (
        "you closed no mill, so you may not take d2")


def test_rule_no_capture_from_mill():
    # black's mill b2-b4-b6 stands; d7 is black's only stone outside it
    g = play(game(), "a1", "b2", "d1", "b4", "a7", "b6xa7", "a7", "d7")
    assert refused(g, Place("g1", capture="b4")) == (
        "b4 stands in a mill; you may take it only when all of black's stones are in mills")
    assert {m.capture for m in g.legal_moves() if m.field == "g1"} == {"d7"}
    play(g, "g1xd7")
    assert "d7" not in g.stacks()


def test_rule_capture_from_mill_when_all_in_mills():
    g = play(game(), "a1", "b2", "d1", "b4", "c3", "b6xc3")
    # all of black's stones (b2, b4, b6) stand in a mill
    play(g, "g1xb4")
    assert "b4" not in g.stacks() and g.stone_counts()["black"].on_board == 2


def test_rule_two_mills_at_once_one_capture():
    g = play(game(), "d1", "b2", "g1", "d2", "a4", "f4", "a7", "c5")
    assert {m.capture for m in g.legal_moves() if m.field == "a1"} == {"b2", "d2", "f4", "c5"}
    play(g, "a1xb2")  # closes a1-d1-g1 and a1-a4-a7; the move names one stone
    assert g.stone_counts()["black"] == StoneCount(on_board=3, in_supply=5, removed=1)
    assert g.current_player == "black"
    mills = [m for m in g.board.mills_at[g.board.index["a1"]] if g._stones[0] & m == m]
    assert len(mills) == 2


def test_a_mill_with_no_stone_of_the_opponent_on_the_board_takes_nothing():
    g = position("a1 d1", "", in_hand=(2, 3))
    assert [m for m in g.legal_moves() if m.field == "g1"] == [Place("g1")]
    play(g, "g1")
    assert not g.is_over and g.current_player == "black"


def test_fewer_than_three_stones_while_placing_is_no_loss():
    g = play(game(), "a1", "b2", "d1", "b4", "g1xb2")
    assert g.stone_counts()["black"].on_board == 1 and not g.is_over


# -- moving ---------------------------------------------------------------------


def test_rule_move_one_step_along_line():
    g = placed()
    assert refused(g, Step("a1", "g7")) == (
        "a1 and g7 are not neighbours; you may jump only with 3 stones")
    assert refused(g, Step("a1", "d2")) == "d2 is taken; a stone moves only to a free point"
    assert refused(g, Step("d7", "g7")) == "d7 holds no stone of white; move one of your own stones"
    assert refused(g, Place("e4")) == "white has placed all 9 stones; now move one along a line"
    assert {str(m) for m in g.legal_moves()} == {
        "a1-d1", "a1-a4", "g1-d1", "d3-e3", "e5-e4", "d6-f6", "a7-a4"}
    play(g, "a1-d1")
    assert g.stacks()["d1"] == ("white",) and "a1" not in g.stacks()


def test_rule_fly_with_three_stones():
    g = position("a1 b2 c3", "d7 g7 f6 e5 d5")
    play(g, "a1-g1")  # any free point
    assert g.stacks()["g1"] == ("white",)
    assert refused(g, Step("d7", "a1")) == (
        "d7 and a1 are not neighbours; you may jump only with 3 stones")
    board = g.board
    assert all(board.neighbours[board.index[m.src]] >> board.index[m.dst] & 1
               for m in g.legal_moves())  # black, with 5 stones, only steps
    g = position("a1 b2 c3", "d7 g7 f6 e5 d5")
    assert len(g.legal_moves()) == 3 * 16  # each stone to each free point


def test_rule_flying_into_a_mill_captures():
    g = position("a1 d1 c3", "d7 g7 f6 e5 d5")
    assert refused(g, Step("c3", "g1")) == "you closed a mill: name the stone you take"
    play(g, "c3-g1xd5")
    assert g.stone_counts()["black"].on_board == 4


def test_rule_two_stones_lose():
    g = position("a1 g7 e3", "b2 d2 f4 c5 d6", to_move="black")
    assert refused(g, Step("f4", "f2")) == "you closed a mill: name the stone you take"
    play(g, "f4-f2xa1")
    assert g.outcome == Outcome(("black",), "white has only 2 stones left")
    assert "the game is over" in g.check(Step("g7", "a1"))
    assert g.legal_moves() == []


def test_placing_the_last_stone_with_two_on_the_board_loses():
    g = position("a1", "b2 d2 f4 c5 d6", in_hand=(1, 0))
    play(g, "g7")
    assert g.outcome == Outcome(("black",), "white has only 2 stones left")


def test_rule_no_legal_move_loses():
    # black's a1, g1, a7, g7 are hemmed in once white closes d7
    g = position("d1 a4 d2 g4 d6", "a1 g1 a7 g7")
    play(g, "d6-d7")
    assert g.outcome == Outcome(("white",), "black cannot move any stone")


def test_a_blocked_player_with_three_stones_still_flies():
    g = position("d1 a4 d2 g4 d6", "a1 g1 a7")
    play(g, "d6-d7")
    assert not g.is_over and len(g.legal_moves()) == 3 * (24 - 8)


# -- draws (options, off by default) -------------------------------------------


SHUFFLE = ["d6-f6", "d7-g7", "f6-d6", "g7-d7"]


def test_rule_draw_threefold_repetition_option():
    g = play(placed(threefold_repetition=True), *SHUFFLE)
    assert not g.is_over  # the position after placing, white to move, a second time
    play(g, *SHUFFLE)
    assert g.outcome == Outcome((), "draw: the same position for the third time")
    assert str(g.outcome) == "no winner (draw: the same position for the third time)"
    plain = play(placed(), *SHUFFLE, *SHUFFLE, *SHUFFLE)
    assert not plain.is_over


def test_rule_draw_no_capture_option():
    g = play(game(no_capture_limit=5), "a1", "b2", "d1", "b4", "g1xb2")  # capture: count anew
    play(g, "f2", "a7", "g7", "d7")
    assert not g.is_over
    play(g, "c5")
    assert g.outcome == Outcome((), "draw: 5 moves in a row without a stone taken")
    assert not play(placed(), *SHUFFLE * 10).is_over  # off by default


# -- other messages, scores, counts ---------------------------------------------


def test_moves_of_other_games_are_refused_in_plain_words():
    g = game()
    for move in (Throw((1, 2, 3, 4, 5)), SetAside()):
        assert refused(g, move) == (
            "in Mühle you place a stone or move one; there are no dice and no passing")
    assert refused(g, Place("a1", cards=2, colour="lime")) == "Mühle is played without cards"
    assert refused(play(game(), "a1", "b2", "d1", "b4"), Place("g1", capture="z0")) == (
        "'z0' is not a point of the board (points are named a1 to g7)")


def test_scores_count_stones_on_the_board_and_stones_taken():
    g = position("a1 g7 e3", "b2 d2 f4 c5 d6", to_move="black")
    play(g, "f4-f2xa1")
    white, black = g.scores()["white"], g.scores()["black"]
    assert (white.total, black.total) == (2 + 4, 5 + 7)
    assert [(line.label, line.points) for line in black.lines] == [
        ("stones on the board", 5), ("stones taken from white", 7)]
    assert g.scores() == g.recount_scores()
    assert g.max_rounds is None
    assert g.status()["pieces"] == {
        "white": {"on_board": 2, "in_supply": 0, "removed": 7},
        "black": {"on_board": 5, "in_supply": 0, "removed": 4}}
    assert g.status()["removed_label"] == "taken"


def test_legal_moves_are_exactly_the_moves_check_allows():
    names = game().board.names
    captures = [None, *names]
    for seed in range(4):
        g = game(no_capture_limit=60)
        rng = random.Random(seed)
        while not g.is_over:
            if g.turn % 9 == 0 or g.stone_counts()[g.current_player].on_board == 3:
                legal = set(g.legal_moves())
                allowed = {Place(d, capture=c) for d in names for c in captures
                           if g.check(Place(d, capture=c)) is None}
                own = [f for f, owners in g.stacks().items() if owners == (g.current_player,)]
                allowed |= {Step(s, d, c) for s in own for d in names for c in captures
                            if g.check(Step(s, d, c)) is None}
                assert legal == allowed
            g.apply(g.random_move(rng))


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    threefold=st.booleans(),
    limit=st.sampled_from([10, 30, 50]),
)
def test_random_legal_play_ends_and_keeps_stones_and_scores(seed, threefold, limit):
    g = game(threefold_repetition=threefold, no_capture_limit=limit)
    rng = random.Random(seed)
    while not g.is_over:
        move = g.random_move(rng)
        assert g.check(move) is None
        g.apply(move)
        counts = g.stone_counts()
        assert all(c.total == 9 for c in counts.values())
        assert len(g.stacks()) == sum(c.on_board for c in counts.values())
        assert g.scores() == g.recount_scores()
        assert g.turn < 3000
    assert g.outcome.winners in ((), ("white",), ("black",))


def test_undo_and_copy_keep_the_position():
    g = play_random(game(no_capture_limit=50), random.Random(7), max_turns=40)
    before = g.copy()
    assert before.board is g.board  # the tables are shared, the position is not
    g.apply(g.random_move(random.Random(1)))
    assert g.stacks() != before.stacks()
    g.undo()
    assert g.status() == before.status() and g.stacks() == before.stacks()


def test_simulate_ends_and_its_record_holds_the_draw_rule(tmp_path, capsys):
    record = tmp_path / "game.json"
    for seed in range(3):
        assert cli_main(["simulate", "--game", "muehle", "--players", "white,black",
                         "--seed", str(seed), "--quiet", "--record", str(record)]) == 0
        assert load_record(record).options["no_capture_limit"] == 50
    assert cli_main(["simulate", "--game", "muehle", "--seed", "1", "--quiet",
                     "--option", "no_capture_limit=12", "--record", str(record)]) == 0
    assert load_record(record).options["no_capture_limit"] == 12
    assert "Mühle: " in capsys.readouterr().out
