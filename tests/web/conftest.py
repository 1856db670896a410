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
