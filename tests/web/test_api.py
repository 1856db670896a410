"""The JSON API the page uses: state, actions, the PIN, bad input, live events."""

import json

from companion import Place
from companion.infer import Observation
from tests.web.conftest import PIN, post


def test_state_shows_round_turn_scores_and_board(client, table):
    table.session.play(Place("A1"))
    state = client.get("/api/state").get_json()
    assert state["status"]["round_text"] == "round 1 of 20"
    assert state["status"]["current_player"] == "blue"
    assert state["status"]["stacks"] == {"A1": ["red"]}
    assert state["status"]["scores"]["red"]["total"] == 1
    assert len(state["layout"]["fields"]) == 36
    assert state["log"] == [{"player": "red", "text": "place A1"}]


def test_the_pages_are_served(client):
    assert b'id="board"' in client.get("/").data
    assert b'id="frame"' in client.get("/camera").data


def test_actions_need_the_pin(client, table):
    table.session.play(Place("A1"))
    response = post(client, "undo", {}, pin="0000")
    assert response.status_code == 403 and "PIN" in response.get_json()["error"]
    assert post(client, "undo", {}, pin=None).status_code == 403
    assert table.session.game.moves == [Place("A1")]
    response = post(client, "undo", {})
    assert response.status_code == 200
    assert table.session.game.moves == []


def test_cross_site_requests_are_refused(client, table):
    table.session.play(Place("A1"))
    response = post(client, "undo", {}, Origin="http://evil.example")
    assert response.status_code == 403
    assert table.session.game.moves == [Place("A1")]


def test_form_posts_are_refused(client):
    response = client.post("/api/undo", data={"x": "1"}, headers={"X-Table-Pin": PIN})
    assert response.status_code == 400 and "JSON" in response.get_json()["error"]


def test_malformed_input_gets_400_with_a_message(client):
    cases = [
        ("correct", {"field": 3, "stack": []}, "field"),
        ("correct", {"field": "A1", "stack": "red"}, "stack"),
        ("correct", {"field": "A1", "stack": ["purple"]}, "not a player"),
        ("correct", {"field": "Z9", "stack": ["red"]}, "no field"),
        ("new_game", {"game": "chess", "players": ["a", "b"]}, "unknown game"),
        ("new_game", {"game": "muehle", "players": ["a", "b", "c"]}, "2 players"),
        ("corners", {"corners": [[1, 2]]}, "four"),
        ("confirm", {}, "nothing to confirm"),
        ("choose", {"index": "B2"}, "number of the choice"),
        ("choose", {"index": 0}, "nothing to choose"),
        ("dice", {"dice": "1 2 2 5 6"}, "list of numbers"),
        ("dice", {"dice": [1, 2, 2, 5, 6], "missed": "yes"}, "missed"),
        ("dice", {"dice": [1, 2, 2, 5, 6]}, "no throw this turn"),
    ]
    for action, payload, words in cases:
        response = post(client, action, payload)
        assert response.status_code == 400, (action, payload)
        assert words in response.get_json()["error"], (action, response.get_json())


def test_a_correction_with_the_pin_plays_the_move(client, table):
    response = post(client, "correct", {"field": "C3", "stack": ["red"]})
    assert response.status_code == 200, response.get_json()
    assert table.session.game.stacks() == {"C3": ("red",)}


def test_an_illegal_correction_is_refused_with_the_rule(client, table):
    response = post(client, "correct", {"field": "C3", "stack": ["blue"]})
    assert response.status_code == 400
    assert "red's turn" in response.get_json()["error"]


def test_dice_the_camera_misread_are_corrected_on_the_page(client, table):
    post(client, "new_game", {"game": "cuatro", "players": ["red", "blue"]})
    table.session.throw_settled((1, 2, 4, 5, 6))
    response = post(client, "dice", {"dice": [1, 2, 2, 5, 6]})
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["message"] == "the last throw is now 1 2 2 5 6"
    response = post(client, "dice", {"dice": [3, 3, 3, 5, 6], "missed": True})
    assert response.status_code == 200, response.get_json()
    state = client.get("/api/state").get_json()["status"]
    assert (state["dice"], state["throws"]) == ([3, 3, 3, 5, 6], 2)
    response = post(client, "dice", {"dice": [3, 3, 3, 5]})
    assert response.status_code == 400 and "5 dice" in response.get_json()["error"]


def test_a_throw_the_camera_missed_and_counted_is_told_on_the_page(client, table):
    post(client, "new_game", {"game": "cuatro", "players": ["red", "blue"]})
    session = table.session
    session.observe(Observation.of_game(session.game))
    for dice in [(1, 2, 4, 5, 6), (1, 3, 4, 5, 6), (2, 3, 4, 5, 6), (1, 2, 3, 5, 6)]:
        session.throw_settled(dice)
    assert not session.cannot_play()  # refused as after the fourth throw
    assert session.throw_missed((1, 2, 3, 5, 6))
    state = client.get("/api/state").get_json()
    assert state["status"]["current_player"] == "blue"
    assert "a throw the camera missed was counted" in state["message"]


def test_new_game_starts_over(client, table):
    response = post(client, "new_game", {"game": "cuatro", "players": ["red", "blue", "green"]})
    assert response.status_code == 200
    state = client.get("/api/state").get_json()
    assert state["status"]["game"] == "cuatro" and state["status"]["round_text"] == "round 1 of 15"


def test_events_replay_after_last_event_id(client, table):
    table.session.play(Place("A1"))
    table.session.play(Place("B1"))
    client_queue = table.broker.subscribe(last_id=0)
    events = [client_queue.get_nowait() for _ in range(2)]
    assert [e["kind"] for e in events] == ["move", "move"]
    assert [e["id"] for e in events] == [1, 2]
    assert json.loads(json.dumps(events[0]))["player"] == "red"


def test_closing_the_broker_ends_every_stream_after_what_it_was_sent(table):
    streams = [table.broker.stream(table.broker.subscribe()) for _ in range(2)]
    table.session.play(Place("A1"))
    table.broker.close()
    for stream in streams:
        text = "".join(stream)  # would wait for the keepalive forever if not ended
        assert text.startswith("retry:") and "event: move" in text
    assert table.broker.client_count == 0
    table.session.play(Place("B1"))  # publishing to no one is fine


def test_record_download_is_a_game_record(client, table):
    table.session.play(Place("A1"))
    response = client.get("/api/record.json")
    assert "attachment" in response.headers["Content-Disposition"]
    assert response.get_json()["moves"] == [{"place": "A1"}]
