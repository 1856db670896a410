"""Twenty live pages on one table: every client gets every event, in order, and the
referee's 10 frames/s loop keeps its pace."""

import http.client
import json
import random
import statistics
import threading
import time

from companion import new_game
from companion.session import Session
from companion.table import Table
from tests.web.conftest import serving_app

CLIENTS = 20
FPS = 10


def sse_client(port, received, ready, stop):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/api/events")
    response = conn.getresponse()
    ready.release()
    buffer = b""
    while not stop.is_set():
        chunk = response.fp.readline()
        if not chunk:
            break
        buffer += chunk
        if chunk == b"\n" and buffer.strip():
            for line in buffer.decode().splitlines():
                if line.startswith("data: "):
                    event = json.loads(line[6:])
                    received.append(event)
                    if event["kind"] == "game_over":
                        conn.close()
                        return
            buffer = b""
    conn.close()


def test_twenty_clients_receive_every_event_in_order_at_ten_frames_per_second():
    table = Table(Session(new_game("spexxx", ["red", "blue"], {"children": True})))
    with serving_app(table, "1234", threads=32) as url:
        received, periods = play_to_many_clients(table, int(url.rsplit(":", 1)[1]))

    sent = table.broker.last_id
    assert sent > 40
    for events in received:
        ids = [e["id"] for e in events]
        assert ids == list(range(1, sent + 1)), "a client missed or reordered events"
    assert statistics.median(periods) < 1.1 / FPS, f"loop slowed to {statistics.median(periods)}"


def play_to_many_clients(table, port):
    """The referee loop at 10 frames/s, one move a frame, with CLIENTS live pages: what
    each page received, and the loop's periods."""
    received = [[] for _ in range(CLIENTS)]
    ready = threading.Semaphore(0)
    stop = threading.Event()
    threads = [threading.Thread(target=sse_client, args=(port, received[i], ready, stop),
                                daemon=True) for i in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for _ in range(CLIENTS):
        assert ready.acquire(timeout=10)
    while table.broker.client_count < CLIENTS:
        time.sleep(0.01)

    # the referee loop: one frame every 100 ms, each with a move (a throw or a placement)
    rng = random.Random(4)
    game = table.session.game
    periods = []
    last = time.perf_counter()
    while not game.is_over:
        table.session.play(game.random_move(rng))
        table.state()  # what a page fetch costs the loop's process
        deadline = last + 1 / FPS
        time.sleep(max(0.0, deadline - time.perf_counter()))
        now = time.perf_counter()
        periods.append(now - last)
        last = now
    for thread in threads:
        thread.join(timeout=20)
    stop.set()
    return received, periods
