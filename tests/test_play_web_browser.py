"""The play page in headless Chromium (Playwright), served by uvicorn on tiny untrained models.

Needs /usr/bin/chromium (Debian's `chromium`; `.ci/run` installs it): skipped without it, except
under CI (the CI variable set), where a missing browser fails. Screenshots of the three boards
go to test-artifacts/ at the repository root.
"""

import os
import pathlib
import socket
import threading

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = pathlib.Path(__file__).parents[1] / "test-artifacts"
TIMEOUT_MS = 180_000  # the first search of each game compiles it


def _unavailable(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must run the browser test", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


try:
    import uvicorn
    from playwright.sync_api import expect, sync_playwright
except ImportError as error:
    _unavailable(f"the web extras are not installed ({error})")

from support.play_models import make_tiny_model  # noqa: E402

from hexjax.play import Agents  # noqa: E402
from hexjax.play.web import create_app  # noqa: E402


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    directory = tmp_path_factory.mktemp("models")
    make_tiny_model(directory, "gomoku7", "gomoku", 7, rule="freestyle")
    make_tiny_model(directory, "hex5", "hex", 5)
    make_tiny_model(directory, "othello6", "othello", 6)
    make_tiny_model(directory, "renju9", "gomoku", 9, rule="renju")
    app = create_app(Agents(model_dir=directory), simulations=2)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))  # a free port, held from here on
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/"
    finally:
        server.should_exit = True
        thread.join(30)
        listener.close()


@pytest.fixture
def page():
    if not pathlib.Path(CHROMIUM).exists():
        _unavailable(f"{CHROMIUM} is missing (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1000, "height": 720})
        page.set_default_timeout(TIMEOUT_MS)
        expect.set_options(timeout=TIMEOUT_MS)
        yield page
        browser.close()


def points(page, selector: str) -> list[tuple[float, float]]:
    """The corners of an SVG polygon, rounded to hundredths."""
    text = page.locator(selector).get_attribute("points")
    return [tuple(round(float(v), 2) for v in pair.split(",")) for pair in text.split()]


def start_game(page, label: str) -> None:
    page.select_option("#variant", label=label)
    page.click("#start")
    expect(page.locator("#start")).to_be_enabled()  # disabled while the game is requested


def test_play_three_games_in_the_page(page, url):
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    ARTIFACTS.mkdir(exist_ok=True)
    board = page.locator("#board")
    stones = {s: page.locator(f'#board .target[data-stone="{s}"]') for s in (1, 2)}

    # HEX opens (listed first): hexagons tiling a rhombus, sides coloured by who joins them.
    page.goto(url)
    expect(board).to_have_attribute("data-game", "hex")
    expect(page.locator("#start")).to_be_enabled()
    expect(page.locator("#variant option")).to_have_text(
        ["hex 5x5", "gomoku 7x7 freestyle", "gomoku 9x9 renju", "othello 6x6"]
    )
    expect(page.locator("#board polygon.hex-cell")).to_have_count(25)
    # Two sides a cell along each edge of the board; the obtuse corners' shared side is Black's.
    expect(page.locator("#board .edge-black")).to_have_count(20)  # top and bottom rows
    expect(page.locator("#board .edge-white")).to_have_count(18)  # left and right columns
    a1, b1, a2 = (points(page, f'#board [data-action="{a}"]') for a in (0, 1, 5))
    assert len(a1) == 6 and len(set(a1)) == 6
    assert {a1[1], a1[2]} == {b1[5], b1[4]}  # a1's east side is b1's west side
    assert {a1[2], a1[3]} == {a2[0], a2[5]}  # a2 sits below, half a cell to the right

    page.click('#board [data-action="12"]')  # c3
    expect(stones[2]).to_have_count(1)  # the AI's reply is on the board
    expect(stones[1]).to_have_count(1)
    expect(page.locator('#board [data-action="12"]')).to_have_attribute("data-stone", "1")
    expect(page.locator("#thinking")).to_be_hidden()
    expect(page.locator("#moves li")).to_have_count(2)
    expect(page.locator("#message")).to_be_hidden()

    page.click('#board [data-action="12"]')  # occupied
    expect(page.locator("#message")).to_be_visible()
    expect(page.locator("#message")).to_contain_text("c3: that cell is already occupied")
    expect(page.locator("#moves li")).to_have_count(2)

    page.check("#show-heatmap")
    page.check("#show-winbar")
    expect(page.locator("#heatmap circle.heat").first).to_be_visible()
    expect(page.locator("#winbar")).to_be_visible()
    expect(page.locator("#winbar-text")).to_contain_text("Black")
    expect(page.locator("#message")).to_be_hidden()
    page.screenshot(path=ARTIFACTS / "web-hex.png", full_page=True)
    page.uncheck("#show-heatmap")
    page.uncheck("#show-winbar")
    expect(page.locator("#heatmap")).to_have_count(0)

    # GOMOKU: a line grid, stones on its intersections.
    start_game(page, "gomoku 7x7 freestyle")
    expect(board).to_have_attribute("data-game", "gomoku")
    expect(page.locator("#rules")).to_have_text("Five or more in a row wins, for either side.")
    expect(page.locator("#board line.grid-line")).to_have_count(14)
    expect(page.locator("#board rect.point")).to_have_count(49)
    expect(page.locator("#board circle.stone")).to_have_count(0)
    page.click('#board [data-action="24"]')  # d4, the centre
    expect(page.locator("#board circle.stone")).to_have_count(2)
    centre = page.locator("#board circle.stone-1")
    lines = page.locator("#board line.grid-line")
    row_3, column_3 = lines.nth(6), lines.nth(7)  # two lines per index: its row, its column
    assert centre.get_attribute("cy") == row_3.get_attribute("y1") == row_3.get_attribute("y2")
    assert centre.get_attribute("cx") == column_3.get_attribute("x1")
    page.screenshot(path=ARTIFACTS / "web-gomoku.png", full_page=True)

    # OTHELLO: green squares, the four starting discs, dots on Black's four moves.
    start_game(page, "othello 6x6")
    expect(board).to_have_attribute("data-game", "othello")
    expect(page.locator("#board rect.square")).to_have_count(36)
    expect(page.locator("#board circle.stone")).to_have_count(4)
    expect(page.locator("#board circle.hint")).to_have_count(4)
    expect(page.locator("#pass")).to_be_hidden()
    expect(page.locator("#score")).to_have_text("Discs: Black 2 · White 2")
    expect(page.locator("#sgf")).to_be_hidden()  # SGF covers Hex and Gomoku only
    page.screenshot(path=ARTIFACTS / "web-othello.png", full_page=True)

    assert errors == []


def _luminance(css: str) -> float:
    """WCAG relative luminance of an "rgb(r, g, b)" colour."""
    channels = [int(v) / 255 for v in css[css.index("(") + 1 : css.index(")")].split(",")[:3]]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def style(page, selector: str, prop: str) -> str:
    return page.locator(selector).first.evaluate(f"e => getComputedStyle(e).{prop}")


def test_watch_a_record_step_through_it_and_let_the_ai_play_on(page, url):
    errors, missing = [], []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    ARTIFACTS.mkdir(exist_ok=True)
    stones = page.locator("#board .target:not([data-stone='0'])")
    page.goto(url)
    expect(page.locator("#start")).to_be_enabled()
    expect(page.locator("#rules")).to_contain_text("Black joins the top and bottom edges")
    assert page.request.get(url + "favicon.ico").status == 200

    # Both players' edges stand out: against the backdrop outside the board and (the white
    # ones by their dark outline) against the cells inside.
    backdrop = style(page, "#board .hex-backdrop", "fill")
    cell = style(page, '#board .hex-cell[data-stone="0"]', "fill")
    black, white = (style(page, f"#board .edge-{c}", "stroke") for c in ("black", "white"))
    outline = style(page, "#board .edge-white-outline", "stroke")
    assert contrast(black, backdrop) >= 3 and contrast(black, cell) >= 3
    assert contrast(white, backdrop) >= 3 and contrast(outline, cell) >= 3
    assert contrast(outline, white) >= 3
    widths = [
        float(style(page, f"#board .edge-{c}", "strokeWidth")[:-2])
        for c in ("white", "white-outline")
    ]
    assert widths[1] >= widths[0] + 3  # the outline shows on both sides

    # A records file, as evaluate.py --records writes it: the second game is loaded.
    page.click("#record summary")
    page.fill("#record-text", "a1 b2\nc1 a1 c2 a2 c3 a3 c4 a4 c5\n")
    page.fill("#record-line", "2")
    page.click("#load")
    expect(page.locator("#ply")).to_have_text("move 9 of 9")
    expect(page.locator("#status")).to_contain_text("Computer vs computer. Black wins.")
    expect(page.locator("#board circle.chain")).to_have_count(5)  # column c, the winning chain
    chain = sorted(int(a) for a in page.locator("#board circle.chain").evaluate_all(
        "nodes => nodes.map(n => n.dataset.action)"))  # fmt: skip
    assert chain == [2, 7, 12, 17, 22]
    game_id = page.evaluate("page.game.id")
    expect(page.locator("#sgf")).to_have_attribute("href", f"/api/games/{game_id}/sgf")
    page.screenshot(path=ARTIFACTS / "web-record.png", full_page=True)

    # Stepping: first, forward, last.
    page.click("#first")
    expect(page.locator("#ply")).to_have_text("move 0 of 9")
    expect(stones).to_have_count(0)
    expect(page.locator("#board circle.chain")).to_have_count(0)
    for ply in (1, 2, 3, 4):
        page.click("#forward")
        expect(page.locator("#ply")).to_have_text(f"move {ply} of 9")
    expect(stones).to_have_count(4)
    page.click("#back")
    expect(page.locator("#ply")).to_have_text("move 3 of 9")
    page.click('#board [data-action="24"]')  # no move while an earlier position is shown
    expect(page.locator("#ply")).to_have_text("move 3 of 9")

    # Computer vs computer from the position shown, until Stop (or the end).
    page.click("#watch")
    expect(page.locator("#stop")).to_be_visible()
    expect(page.locator("#ply")).not_to_have_text("move 3 of 3")
    # Clicked by script: the tiny model may finish the game first, and a hidden button would
    # make a user-like click wait for it.
    page.evaluate("document.querySelector('#stop').click()")
    expect(page.locator("#stop")).to_be_hidden()
    expect(page.locator("#start")).to_be_enabled()
    played = page.evaluate("page.game.plies")
    assert played > 3 and page.evaluate("page.game.moves.slice(0, 3)") == ["c1", "a1", "c2"]
    page.wait_for_timeout(500)
    assert page.evaluate("page.game.plies") == played  # stopped

    # A bad record names the move.
    page.fill("#record-text", "a1 d²")
    page.fill("#record-line", "1")
    page.click("#load")
    expect(page.locator("#message")).to_contain_text("'d²' is not a cell like 'a1'")
    assert errors == [] and missing == []


def test_a_renju_board_crosses_blacks_forbidden_point(page, url):
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    start_game(page, "gomoku 9x9 renju")
    expect(page.locator("#rules")).to_contain_text("may not play the crossed points")
    # Black's f5 g5 and e6 e7 make e5 a double three: forbidden to Black, who is to move.
    page.click("#record summary")
    page.fill("#record-text", "f5 a1 g5 c1 e6 a9 e7 i9\n")
    page.fill("#record-line", "1")
    page.click("#load")
    expect(page.locator("#ply")).to_have_text("move 8 of 8")
    crosses = page.locator("#board g.forbidden")
    expect(crosses).to_have_count(1)
    expect(crosses).to_have_attribute("data-action", "40")  # e5: row 4 from the top, column e
    page.screenshot(path=ARTIFACTS / "web-renju.png", full_page=True)
    page.click("#back")  # White to move: no cross
    expect(crosses).to_have_count(0)
    assert errors == []


def test_a_proven_win_reads_as_one(page, url):
    """Hex 5x5 is solved from the empty board in a moment: the first player wins. The page says
    so as a fact, not as a percentage (renju's count of moves: tests/test_play_web_api.py)."""
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    start_game(page, "hex 5x5")  # the person plays Black, to move
    page.check("#show-winbar")
    expect(page.locator("#winbar-text")).to_have_text("Black wins (proven)")
    assert errors == []
