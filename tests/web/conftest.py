from contextlib import contextmanager

import pytest

from companion import new_game
from companion.session import Session
from companion.table import Table
from web.app import create_app

PIN = "4321"


@pytest.fixture
def table():
    return Table(Session(new_game("just4fun", ["red", "blue"])))


@pytest.fixture
def client(table):
    app = create_app(table, PIN)
    app.testing = True
    return app.test_client()


def post(client, action, payload, pin=PIN, **headers):
    return client.post(f"/api/{action}", json=payload,
                       headers={"X-Table-Pin": pin, **headers} if pin is not None else headers)


@contextmanager
def serving_app(table, pin, threads=8):
    """``table``'s page served by waitress in a thread: yields its url. On the way out the
    event streams end first, then the server's threads, then the server: a stream thread
    still writing to a closed server fails noisily. Closing the server's socket while its
    loop waits on it in ``select`` raises EBADF there, which only says the server stopped
    (as WebTest's StopableWSGIServer takes it)."""
    import threading

    from waitress.server import create_server

    server = create_server(create_app(table, pin), host="127.0.0.1", port=0, threads=threads)
    stopping = threading.Event()

    def run() -> None:
        try:
            server.run()
        except OSError:
            if not stopping.is_set():
                raise

    threading.Thread(target=run, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        stopping.set()
        table.broker.close()
        server.task_dispatcher.shutdown()
        server.close()
