"""The Flask app: the game page, the camera page, a JSON API and live events.

Anyone on the table's network may watch; actions that change the game need the
table's PIN. Actions accept only JSON bodies with the PIN in a header, and a request
whose Origin is another site is refused, so a page elsewhere cannot act for a player.
"""

from __future__ import annotations

import hmac
from typing import Any, Protocol

from flask import Flask, Response, abort, jsonify, render_template, request

from web.broker import EventBroker

ACTIONS = ("undo", "confirm", "choose", "cannot_play", "correct", "dice", "new_game", "press",
           "corners")


class TableProtocol(Protocol):
    """What the web page needs from the referee (implemented in companion.table)."""

    broker: EventBroker
    simulate: bool

    def state(self) -> dict[str, Any]: ...

    def act(self, action: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Carry out an action; raises ValueError with a message for bad input."""
        ...

    def frame_jpeg(self) -> bytes | None: ...

    def record(self) -> dict[str, Any]: ...


def create_app(table: TableProtocol, pin: str) -> Flask:
    app = Flask(__name__)
    app.config["JSON_SORT_KEYS"] = False

    @app.after_request
    def _headers(response: Response) -> Response:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        return response

    @app.get("/")
    def game_page() -> str:
        return render_template("game.html", simulate=table.simulate)

    @app.get("/camera")
    def camera_page() -> str:
        return render_template("camera.html")

    @app.get("/api/state")
    def api_state() -> Response:
        return jsonify(table.state())

    @app.get("/api/events")
    def api_events() -> Response:
        last = request.headers.get("Last-Event-ID") or request.args.get("last")
        try:
            last_id = int(last) if last else None
        except ValueError:
            last_id = None
        client = table.broker.subscribe(last_id)
        return Response(
            table.broker.stream(client),
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    @app.get("/api/frame.jpg")
    def api_frame() -> Response:
        frame = table.frame_jpeg()
        if frame is None:
            abort(404, "no camera frame yet")
        return Response(frame, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.get("/api/record.json")
    def api_record() -> Response:
        response = jsonify(table.record())
        response.headers["Content-Disposition"] = "attachment; filename=game-record.json"
        return response

    @app.post("/api/<action>")
    def api_action(action: str) -> tuple[Response, int] | Response:
        if action not in ACTIONS:
            return jsonify(error=f"unknown action {action!r}"), 404
        origin = request.headers.get("Origin")
        if origin and origin.rstrip("/") != request.host_url.rstrip("/"):
            return jsonify(error="cross-site requests are refused"), 403
        given = request.headers.get("X-Table-Pin", "")
        if not hmac.compare_digest(given.encode(), pin.encode()):
            return jsonify(error="this action needs the table's PIN"), 403
        if not request.is_json:
            return jsonify(error="send the action as JSON (Content-Type: application/json)"), 400
        payload = request.get_json(silent=True)
        if not isinstance(payload, dict):
            return jsonify(error="the body must be a JSON object"), 400
        try:
            return jsonify(table.act(action, payload))
        except ValueError as exc:
            return jsonify(error=str(exc)), 400

    return app


def serve(app: Flask, host: str = "127.0.0.1", port: int = 8080, threads: int = 32) -> None:
    """Serve with waitress (each live page holds one thread for its event stream)."""
    from waitress import serve as waitress_serve

    waitress_serve(app, host=host, port=port, threads=threads, channel_timeout=3600)
