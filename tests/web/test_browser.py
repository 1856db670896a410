"""The game page in a real headless Chromium, as a player's phone shows it."""

import os
import shutil
import socket
from contextlib import contextmanager
from pathlib import Path

import pytest

from companion import Place, new_game
from companion.infer import FieldView, Observation
from companion.session import Session
from companion.table import Table
from tests.companion.scenes import blue_after_a_stone_missed_on_one_of_two_towers
from tests.web.conftest import serving_app

PIN = "2468"
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run"]

if CHROMIUM is None:
    if os.environ.get("CI"):
        pytest.fail("Debian's chromium is needed for the browser tests", pytrace=False)
    pytest.skip("no chromium here (apt-get install chromium)", allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api")


def css_rgb(hex_colour: str) -> str:
    """``#c62828`` as the browser's computed style writes it."""
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(game: str):
    """A table of ``game``'s page served by waitress: (table, url)."""
    table = Table(Session(new_game(game, ["red", "blue"])))
    with serving_app(table, PIN) as url:
        yield table, url


@pytest.fixture
def served():
    with serving("just4fun") as served:
        yield served


@pytest.fixture
def served_cuatro():
    with serving("cuatro") as served:
        yield served


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


def test_scores_round_and_banner_follow_the_game_live(served, browser):
    table, url = served
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.goto(url)
    expect = sync_api.expect
    expect(page.locator("#round")).to_have_text("round 1 of 20")
    expect(page.locator("#turn")).to_have_text("red to play")
    # the cards sit in seating order; the one to move is outlined in its player's colour
    expect(page.locator(".score.current")).to_have_attribute("data-player", "red")
    assert page.locator(".score").evaluate_all("cards => cards.map(c => c.dataset.player)") \
        == ["red", "blue"]
    red = table.session.game.layout.piece_colours["red"]
    expect(page.locator(".score.current")).to_have_css("outline-color", css_rgb(red))
    table.session.play(Place("A1"))
    table.session.play(Place("B2"))
    table.session.play(Place("A2"))
    expect(page.locator("#turn")).to_have_text("blue to play")
    expect(page.locator(".score.current")).to_have_attribute("data-player", "blue")
    expect(page.locator('.score[data-player="red"] .total')).to_have_text("2")
    expect(page.locator('.score[data-player="red"] .pieces')).to_have_text(
        "18 to place · 2 on the board")
    expect(page.locator("#round")).to_have_text("round 2 of 20")
    expect(page.locator('[data-field="A2"] .piece')).to_have_count(1)
    # an illegal move: a red stone appears while it is blue's turn
    wrong = Observation({**Observation.of_game(table.session.game).fields,
                         "F6": FieldView("red", 1)})
    table.session.observe(wrong)
    expect(page.locator("#banner")).to_be_visible()
    expect(page.locator("#banner")).to_contain_text("blue's turn")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "game-illegal.png"), full_page=True)
    table.session.observe(Observation.of_game(table.session.game))  # the stone is taken back
    expect(page.locator("#banner")).to_be_hidden()
    page.screenshot(path=str(SHOTS / "game.png"), full_page=True)


def test_a_correction_needs_the_pin(served, browser):
    table, url = served
    page = browser.new_page()
    page.goto(url)
    page.on("dialog", lambda dialog: dialog.accept("red"))
    page.locator('[data-field="C3"]').click()
    expect = sync_api.expect
    expect(page.locator("#action-result")).to_contain_text("enter the PIN")
    page.fill("#pin", "1111")
    page.locator('[data-field="C3"]').click()
    expect(page.locator("#action-result")).to_contain_text("PIN")
    assert table.session.game.moves == []
    page.fill("#pin", PIN)
    page.locator('[data-field="C3"]').click()
    expect(page.locator('[data-field="C3"] .piece')).to_have_count(1)
    assert table.session.game.moves == [Place("C3")]


def test_dice_the_camera_misread_are_put_right_on_the_page(served_cuatro, browser):
    table, url = served_cuatro
    session = table.session
    session.throw_settled((1, 2, 4, 5, 6), sure=False)  # truth: 1 2 2 5 6
    stone = Observation({**Observation.of_game(session.game).fields, "A4": FieldView("red", 1)})
    session.observe(stone)  # A4 is the pair-of-2s field: flagged against the misread dice
    page = browser.new_page()
    page.goto(url)
    expect = sync_api.expect
    expect(page.locator("#banner")).to_contain_text("pair of 2s")
    expect(page.locator("#dice")).to_have_text(
        "throw 1 of 5 · 1 2 4 5 6 · may build on towers up to 4 high")
    expect(page.locator("#message")).to_contain_text("unsure of the dice (read 1 2 4 5 6)")
    page.fill("#pin", PIN)
    page.fill("#dice-values", "1 2 2 5 6")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "dice-correction.png"), full_page=True)
    page.get_by_role("button", name="Correct the last throw").click()
    expect(page.locator("#banner")).to_be_hidden()
    expect(page.locator('[data-field="A4"] .piece')).to_have_count(1)
    expect(page.locator("#turn")).to_have_text("blue to play")
    expect(page.locator("#message")).to_be_hidden()
    expect(page.locator("#log li")).to_have_text(["red: place A4", "red: throw 1 2 2 5 6"])
    assert [str(m) for m in session.game.moves] == ["throw 1 2 2 5 6", "place A4"]


def test_the_page_asks_which_tower_took_a_stone_the_camera_missed(served, browser):
    table, url = served
    blue_after_a_stone_missed_on_one_of_two_towers(table.session)
    page = browser.new_page()
    page.goto(url)
    expect = sync_api.expect
    expect(page.locator("#message")).to_contain_text("on B2 or E3?")
    choices = page.locator("#choices button")
    expect(choices).to_have_text(["place B2", "place E3"])
    page.fill("#pin", PIN)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "missed-stone-choice.png"), full_page=True)
    choices.nth(1).click()
    expect(page.locator("#action-result")).to_have_text("chose place E3")
    expect(page.locator("#banner")).to_be_hidden()
    expect(page.locator("#choices")).to_be_hidden()
    expect(page.locator("#log li").first).to_have_text("blue: place D3")
    assert table.session.game.stacks()["E3"] == ("red",) * 4


def test_each_player_sees_the_stones_left_to_place_and_those_taken(browser):
    with serving("muehle") as (table, url):
        page = browser.new_page()
        page.goto(url)
        expect = sync_api.expect
        expect(page.locator('.score[data-player="red"] .pieces')).to_have_text(
            "9 to place · 0 on the board")
        # red closes a mill a1-d1-g1 with its third stone and takes blue's b2
        for move in [Place("a1"), Place("b2"), Place("d1"), Place("f4"),
                     Place("g1", capture="b2")]:
            table.session.play(move)
        expect(page.locator('.score[data-player="red"] .pieces')).to_have_text(
            "6 to place · 3 on the board")
        expect(page.locator('.score[data-player="blue"] .pieces')).to_have_text(
            "7 to place · 1 on the board · 1 taken")


def test_layout_fits_a_phone_and_shows_the_end_screen(served, browser):
    table, url = served
    page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    page.goto(url)
    expect = sync_api.expect
    expect(page.locator("#round")).to_have_text("round 1 of 20")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide on a 390 px phone"
    board = page.locator("#board").bounding_box()
    assert board["width"] <= 390 and board["width"] > 300
    page.screenshot(path=str(SHOTS / "phone.png"), full_page=True)
    for field in ["A1", "A2", "B1", "B2", "C1", "C2", "D1"]:  # red: A1 B1 C1 D1 in a row
        table.session.play(Place(field))
    expect(page.locator("#end")).to_be_visible()
    expect(page.locator("#end-title")).to_contain_text("red wins")
    expect(page.locator("#record")).to_have_attribute("href", "/api/record.json")
    page.screenshot(path=str(SHOTS / "end.png"), full_page=True)


@pytest.fixture
def simulated_table(tmp_path):
    """`companion play --simulate` as a person starts it: the referee on the simulated table,
    its page served by waitress."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "companion", "play", "--game", "muehle", "--players",
         "white,black", "--simulate", "--seed", "3", "--port", str(port), "--pin", PIN,
         "--log", str(tmp_path / "games.sqlite")],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = process.stdout.readline()
    assert line.startswith("web page:"), line + process.stdout.read()
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    process.wait(timeout=20)


def test_simulated_table_shows_its_panel_and_camera(simulated_table, browser):
    page = browser.new_page()
    page.goto(simulated_table)
    expect = sync_api.expect
    expect(page.locator("#panel")).to_be_visible()
    expect(page.locator("#log li")).not_to_have_count(0, timeout=30_000)  # a move accepted
    expect(page.locator('[data-led="status"].lit')).to_have_count(1)  # green: accepted
    expect(page.locator(".led.lit[data-led^='seat']")).to_have_count(1)  # whose turn
    page.locator('#buttons button[data-button="confirm"]').click()
    expect(page.locator("#action-result")).to_contain_text("PIN")  # refused without it
    page.fill("#pin", PIN)
    page.locator('#buttons button[data-button="menu"]').click()
    expect(page.locator("#action-result")).to_have_text("pressed menu")
    page.screenshot(path=str(SHOTS / "simulated-table.png"), full_page=True)
    camera = browser.new_page()
    camera.goto(simulated_table + "/camera")
    camera.wait_for_function("document.getElementById('frame').naturalWidth > 0",
                             timeout=15_000)
    assert camera.evaluate("document.getElementById('frame').naturalWidth") == 1280
    camera.screenshot(path=str(SHOTS / "camera.png"), full_page=True)
