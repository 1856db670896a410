"""``companion play``: referee a game at the table, with the web page served beside the loop."""

from __future__ import annotations

import argparse
import random
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path

from companion.cli import CommandError
from companion.core import find_game
from companion.gamelog import GameLog
from companion.referee import Referee, player_colours
from companion.report import final_report
from companion.session import Event, Session
from companion.simtable import SimOptions, SimTable, first_difference, same_end, same_game
from companion.table import Table
from hardware.camera import CameraError, open_source
from hardware.config import load_config
from hardware.panel import Panel, PanelError
from hardware.pins import NoGPIOError
from vision.calibration import ColourCalibration
from vision.config import VisionConfig
from vision.errors import VisionError

DEFAULT_LOG = "companion-games.sqlite"


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "play",
        help="referee a game at the table (camera, LED panel and web page)",
        description="Watches the board, accepts legal moves, flags illegal ones and scores the "
        "end. --simulate plays on the simulated table with a mock LED panel; --autoplay lets "
        "the scripted player finish a whole game unattended and then exits.",
    )
    parser.add_argument("--game", help="just4fun, spexxx, cuatro or muehle")
    parser.add_argument("--players", help="comma-separated player names (colour names pick "
                        "that piece colour, e.g. red,blue)")
    parser.add_argument("--simulate", action="store_true",
                        help="the simulated table and a mock LED panel instead of the hardware")
    parser.add_argument("--autoplay", action="store_true",
                        help="on the simulated table: play a whole game as fast as possible, "
                        "then exit")
    parser.add_argument("--camera", default="picamera",
                        help="picamera, usb:N, a stream URL, replay:PATH or sim (the simulated "
                        "table with the real LED panel; --simulate implies it)")
    parser.add_argument("--log", default=DEFAULT_LOG, help=f"game log (default {DEFAULT_LOG})")
    parser.add_argument("--resume", action="store_true",
                        help="continue the latest unfinished game in the log (with --game "
                        "and --players: or start that game when there is none)")
    parser.add_argument("--host", default="127.0.0.1", help="web page address")
    parser.add_argument("--port", type=int, default=8080, help="web page port (0: any free)")
    parser.add_argument("--pin", help="the PIN the web page asks for (default: random)")
    parser.add_argument("--panel-config", metavar="PATH", help="panel pins (TOML)")
    parser.add_argument("--seed", type=int, help="seed of the simulated game (default: random)")
    parser.add_argument("--max-moves", type=int, metavar="N",
                        help="on the simulated table: the scripted player stops after N moves")
    parser.add_argument("--fps", type=float, default=10.0, help="frames per second")
    parser.add_argument("--calibration", metavar="FILE",
                        help="the players' colours learned at setup (companion calibrate); "
                        "default: the layout's piece colours")
    parser.set_defaults(func=run)


def _session(args: argparse.Namespace, log: GameLog) -> Session:
    unfinished = any(not g.finished for g in log.games())
    if args.resume and (unfinished or not (args.game and args.players)):
        try:
            session = Session.resume(log)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if args.game and find_game(args.game).name != session.game.name:
            raise CommandError(f"the unfinished game in {log.path} is {session.game.title}, "
                               f"not {args.game}")
        return session
    if not args.game or not args.players:
        raise CommandError("give --game and --players (or --resume)")
    try:
        cls = find_game(args.game)
        options = dict(cls.random_play_options) if _simulated_camera(args) else {}
        game = cls([p.strip() for p in args.players.split(",")], options)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    return Session(game)  # logged once the camera and the panel are ready (see run)


def _printer(session: Session) -> Callable[[Event], None]:
    def show(event: Event) -> None:
        data = event.data
        if event.kind == "move":
            print(f"  {data['player']}: {data['text']}", flush=True)
        elif event.kind == "illegal":
            print(f"  ILLEGAL ({data.get('player', '')}): {data['rule']}", flush=True)
        elif event.kind in ("waiting", "confirm", "cleared"):
            print(f"  ({data['message']})", flush=True)
        elif event.kind == "undo":
            print(f"  took back: {data['text']}", flush=True)
        elif event.kind == "correction" and "dice" in data:
            dice = " ".join(map(str, data["dice"]))
            if data["replaced"]:
                before = " ".join(map(str, data["replaced"]))
                print(f"  (the dice show {dice}: the last throw was read as {before})", flush=True)
            else:
                print(f"  (the dice show {dice}: a throw the camera missed)", flush=True)
    return show


def _serve(table: Table, args: argparse.Namespace, pin: str):
    from waitress import create_server

    from web.app import create_app

    server = create_server(create_app(table, pin), host=args.host, port=args.port, threads=6,
                           channel_timeout=3600)
    threading.Thread(target=server.run, name="web", daemon=True).start()
    print(f"web page: http://{args.host}:{server.effective_port}/  PIN {pin}", flush=True)
    return server


def run(args: argparse.Namespace) -> int:
    if args.autoplay and not _simulated_camera(args):
        raise CommandError("--autoplay needs the simulated table (--simulate or --camera sim): "
                           "a real table needs real players")
    if args.fps <= 0:
        raise CommandError("--fps must be above 0")
    try:
        log = GameLog(Path(args.log))
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    session = _session(args, log)
    game = session.game
    try:
        colours = player_colours(list(game.players), game.layout.piece_colours)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    calibration = None
    if args.calibration:
        try:
            calibration = ColourCalibration.load(args.calibration).only(list(colours.values()))
        except VisionError as exc:
            raise CommandError(str(exc)) from None
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    sim = None
    if _simulated_camera(args):
        sim = SimTable(game.name, list(game.players), seed, fps=args.fps, colours=colours,
                       game_options=game.options,
                       options=SimOptions(start_after=len(game.moves),
                                          max_moves=args.max_moves))
        if game.moves and not _script_matches(sim, game):
            raise CommandError("the logged game is not the simulated game of this --seed; "
                               "resume with the --seed it was started with")
    clock = time.monotonic
    if sim is not None:  # button presses on the simulated table happen in simulated time
        sim.shows_end = lambda: game.is_over
        def clock() -> float:
            return sim.current.timestamp if sim.current else 0.0
    try:
        panel = Panel(load_config(args.panel_config), simulate=True if args.simulate else None,
                      clock=clock)
    except (PanelError, NoGPIOError, ValueError) as exc:
        log.close()
        raise CommandError(str(exc)) from None
    try:
        source = open_source("sim" if args.simulate else args.camera,
                             sim_factory=sim.source if sim else None, fps=args.fps)
        config = VisionConfig(k1=sim.pose.k1) if sim else VisionConfig()
        referee = Referee(session, colours=colours, panel=panel, calibration=calibration,
                          config=config, on_event=_printer(session),
                          before_step=(lambda frame: sim.press_buttons(panel))
                          if args.simulate else None)
    except (CameraError, ValueError) as exc:
        panel.close()
        log.close()
        raise CommandError(str(exc)) from None
    if session.log is None:  # a new game: into the log now that everything is ready
        session.log, session.game_id = log, log.start(game)
    table = Table(session, log=log, simulate=args.simulate, panel=panel,
                  corners_callback=referee.set_corners)
    referee.table = table
    pin = args.pin or f"{secrets.randbelow(10**4):04d}"
    server = _serve(table, args, pin)
    where = f"simulated table, seed {seed}" if sim else f"camera {args.camera}"
    print(f"{game.title}: {', '.join(game.players)} ({where}; log {log.path}, game "
          f"{session.game_id})", flush=True)
    try:
        with source:
            referee.run(source, pace=None if args.autoplay else args.fps)
        print(final_report(game), flush=True)
        if sim is not None:
            same = same_game(game, sim.game)
            if not sim.game.is_over:
                print(f"the scripted player stopped after {len(sim.game.moves)} moves "
                      "(--max-moves)", flush=True)
            # a throw read otherwise on the way need not change what the players are told
            differs = "" if same else (
                f" ({first_difference(game, sim.game)}); same board, end and scores: "
                f"{'yes' if same_end(game, sim.game) else 'NO'}")
            print(f"same as the scripted game: {'yes' if same else 'NO'}{differs} "
                  f"({referee.stats.frames} frames, loop CPU "
                  f"{referee.stats.cpu_seconds / max(referee.stats.frames / args.fps, 1e-9):.2f}"
                  " s per second of play)", flush=True)
            if args.autoplay and not same:
                return 1
        if not args.autoplay:
            print("the game has ended; the web page stays up (Ctrl-C to stop)", flush=True)
            threading.Event().wait()
    except CameraError as exc:
        raise CommandError(str(exc)) from None
    finally:
        server.close()
        panel.close()
        log.close()
    return 0


def _simulated_camera(args: argparse.Namespace) -> bool:
    return args.simulate or args.camera.strip().lower() == "sim"


def _script_matches(sim: SimTable, game) -> bool:
    """Whether the seeded script begins with the logged moves (so the table can continue)."""
    probe = SimTable(game.name, list(game.players), sim.seed, game_options=game.options)
    script = probe._shots()
    while len(probe.game.moves) < len(game.moves) and next(script, None) is not None:
        pass
    return probe.game.moves[:len(game.moves)] == game.moves
