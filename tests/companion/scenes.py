"""Observations and game situations shared by the session and page tests."""

from dataclasses import replace

from companion import Place
from companion.infer import FieldView, Observation
from companion.session import Session


def seen_after(game, *moves, changes=None):
    """The observation of ``game`` after ``moves`` (on a copy), with optional overrides."""
    after = game.copy()
    for move in moves:
        after.apply(move)
    fields = dict(Observation.of_game(after).fields)
    fields.update(changes or {})
    return Observation(fields)


def blue_after_a_stone_missed_on_one_of_two_towers(session: Session) -> dict[str, FieldView]:
    """Just 4 Fun seed 119 on the simulated table, on ``session``'s new red-blue game: red
    towers of 3 on B2 and E3, both read 5 high at confidence 0.0; red's fourth stone went
    unseen on one of them, and blue's stone on D3 came after two hands over the board, so
    it is flagged. Returns the fields so read."""
    game = session.game
    for name in ("B2", "A1", "B2", "F1", "E3", "A6", "E3", "F6"):
        game.apply(Place(name))
    blind = {}
    for name, blue in (("B2", "C6"), ("E3", "D1")):
        blind[name] = FieldView("red", 5, 0.0)
        view = replace(seen_after(game, Place(name), changes=blind), after_hand=True)
        assert session.observe(view).move == Place(name)
        assert session.observe(seen_after(game, Place(blue), changes=blind)).kind == "move"
    for _ in range(2):
        session.hand_over_board()
        session.board_steady()
    stone = seen_after(game, changes={**blind, "D3": FieldView("blue", 1, 0.9)})
    assert session.observe(replace(stone, after_hand=True)).kind == "illegal"
    assert session.observe(stone).kind == "illegal"
    return blind
