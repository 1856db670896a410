"""Properties every game keeps under random legal play (hypothesis)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import find_game
from companion.core import GAMES

COLOURS = ["red", "blue", "green", "yellow"]
CASES = [
    (name, n)
    for name in ["cuatro", "just4fun", "muehle", "spexxx"]
    for n in range(2, 5)
    if find_game(name).min_players <= n <= find_game(name).max_players
]


def options_for(name):
    """Random play's options (Mühle adds a draw rule so random games end)."""
    options = dict(GAMES[name].random_play_options)
    if name == "muehle":
        options["threefold_repetition"] = True
    return options


@pytest.mark.parametrize(("name", "players"), CASES)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_legal_play_keeps_the_rules_invariants(name, players, seed):
    game = GAMES[name](COLOURS[:players], options_for(name))
    rng = random.Random(seed)
    start = {p: c.total for p, c in game.stone_counts().items()}
    while not game.is_over:
        move = game.random_move(rng)
        assert game.check(move) is None, (move, game.check(move))
        game.apply(move)
        assert {p: c.total for p, c in game.stone_counts().items()} == start
        if game.max_rounds is not None:
            assert game.round <= game.max_rounds
        assert game.turn < 5000
    assert game.outcome is not None
    assert set(game.outcome.winners) <= set(game.players)
    assert game.scores() == game.recount_scores()
    on_board = sum(len(owners) for owners in game.stacks().values())
    assert on_board == sum(c.on_board for c in game.stone_counts().values())
