"""The table's web page: a Flask app served by waitress beside the referee loop."""

from web.app import TableProtocol, create_app
from web.broker import EventBroker

__all__ = ["EventBroker", "TableProtocol", "create_app"]
