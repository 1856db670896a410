"""The games; importing this package registers each of them."""

from companion.games import cuatro, just4fun, muehle, spexxx  # noqa: F401
