"""The `companion` command as a person runs it: a subprocess."""

import json

import pytest


def test_help_explains_each_subcommand(cli):
    result = cli("--help")
    assert result.returncode == 0
    for command in ("games", "replay", "simulate"):
        assert command in result.stdout


def test_games_lists_all_four(cli):
    result = cli("games")
    assert result.returncode == 0
    for name in ("just4fun", "spexxx", "cuatro", "muehle"):
        assert name in result.stdout


@pytest.mark.parametrize(
    ("game", "players"),
    [("cuatro", "red,blue,green"), ("just4fun", "red,blue"), ("spexxx", "red,blue,green,yellow"),
     ("muehle", "white,black")],
)
def test_simulated_game_replays_to_the_same_result(cli, tmp_path, game, players):
    record = tmp_path / "game.json"
    played = cli("simulate", "--game", game, "--players", players, "--seed", "4", "--quiet",
                 "--record", str(record))
    assert played.returncode == 0, played.stderr
    replayed = cli("replay", str(record), "--json")
    assert replayed.returncode == 0, replayed.stderr
    final = json.loads(replayed.stdout)["final"]
    assert final["is_over"]
    # the outcome line the simulation printed is the one the replay reaches
    assert final["outcome"] in played.stdout
    text = cli("replay", str(record))
    assert text.returncode == 0 and final["outcome"] in text.stdout


def write(tmp_path, data):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(path)


def test_replay_stops_at_an_illegal_move_with_exit_code_2(cli, tmp_path):
    record = {
        "game": "cuatro",
        "players": ["red", "blue"],
        "moves": [{"throw": [3, 3, 3, 5, 5]}, {"place": "A0"}, {"place": "B0"}],
    }
    result = cli("replay", write(tmp_path, record))
    assert result.returncode == 2
    assert "illegal move 3" in result.stdout
    assert "Cuatro:" in result.stdout
    as_json = cli("replay", write(tmp_path, record), "--json")
    assert as_json.returncode == 2
    assert json.loads(as_json.stdout)["illegal"]["index"] == 2


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("{not json", "not valid JSON"),
        ({"game": "chess", "players": ["a", "b"], "moves": []}, "game: unknown game 'chess'"),
        ({"game": "cuatro", "players": "red", "moves": []}, "players: expected a list"),
        ({"game": "cuatro", "players": ["red"], "moves": []}, "players: Cuatro needs 2-4"),
        ({"game": "cuatro", "players": ["red", "blue"], "moves": {}}, "moves: expected a list"),
        ({"game": "cuatro", "players": ["red", "blue"], "moves": [{"throw": [9, 1, 1, 1, 1]}]},
         r"moves[0].throw: expected five dice"),
        ({"game": "cuatro", "players": ["red", "blue"], "options": {"x": 1}, "moves": []},
         "options.x: Cuatro has no such option"),
        ({"game": "cuatro", "players": ["red", "blue"],
          "moves": [{"throw": [1, 1, 1, 1, 1], "player": "blue"}]},
         "moves[0].player: it is red's turn"),
    ],
)
def test_malformed_record_gets_one_line_naming_the_field(cli, tmp_path, data, message):
    result = cli("replay", write(tmp_path, data))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert message in result.stderr


def test_missing_record_file_is_one_line(cli, tmp_path):
    result = cli("replay", str(tmp_path / "nope.json"))
    assert result.returncode == 1
    assert "cannot read" in result.stderr and "Traceback" not in result.stderr
