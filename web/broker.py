"""Fan-out of table events to Server-Sent-Event clients without ever blocking the referee.

Each client has its own bounded queue; publishing never waits. A client too slow to
keep up loses its queue and reconnects, asking for what it missed with
``Last-Event-ID``; recent events are kept for that.
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
from collections import deque
from typing import Any

#: Marker put on a client's queue to end its stream: a slow client must reconnect and
#: catch up, and every client when the server stops.
END = object()


class EventBroker:
    def __init__(self, history: int = 500, client_queue: int = 1000) -> None:
        self._clients: set[queue.Queue] = set()
        self._history: deque[dict[str, Any]] = deque(maxlen=history)
        self._client_queue = client_queue
        self._lock = threading.Lock()
        self._next_id = 1

    def __repr__(self) -> str:
        return f"<EventBroker {len(self._clients)} clients, next id {self._next_id}>"

    @property
    def client_count(self) -> int:
        return len(self._clients)

    @property
    def last_id(self) -> int:
        """The id of the last event published (0 before the first)."""
        return self._next_id - 1

    def publish(self, event: dict[str, Any]) -> dict[str, Any]:
        """Send ``event`` to every client; returns it with its stream ``id``."""
        with self._lock:
            event = {**event, "id": self._next_id}
            self._next_id += 1
            self._history.append(event)
            for client in list(self._clients):
                try:
                    client.put_nowait(event)
                except queue.Full:
                    self._clients.discard(client)
                    _force(client, END)
        return event

    def subscribe(self, last_id: int | None = None) -> queue.Queue:
        """A new client's queue, pre-filled with the events after ``last_id``."""
        client: queue.Queue = queue.Queue(self._client_queue)
        with self._lock:
            if last_id is not None:
                for event in self._history:
                    if event["id"] > last_id:
                        client.put_nowait(event)
            self._clients.add(client)
        return client

    def unsubscribe(self, client: queue.Queue) -> None:
        with self._lock:
            self._clients.discard(client)

    def close(self) -> None:
        """End every client's stream, before the server stops: a thread still streaming to
        a closed server fails noisily (the pages reconnect to the next server)."""
        with self._lock:
            clients, self._clients = self._clients, set()
        for client in clients:
            _force(client, END)

    def stream(self, client: queue.Queue, keepalive: float = 15.0):
        """Server-Sent-Events text for one client, until it disconnects or overflows."""
        try:
            yield "retry: 1000\n\n"
            while True:
                try:
                    event = client.get(timeout=keepalive)
                except queue.Empty:
                    yield ": keepalive\n\n"
                    continue
                if event is END:
                    return
                yield f"id: {event['id']}\nevent: {event.get('kind', 'message')}\n"
                yield f"data: {json.dumps(event)}\n\n"
        finally:
            self.unsubscribe(client)


def _force(client: queue.Queue, item: object) -> None:
    """Put ``item`` on a full queue by dropping what it holds."""
    while True:
        try:
            client.put_nowait(item)
            return
        except queue.Full:
            with contextlib.suppress(queue.Empty):
                client.get_nowait()
