// The hexjax play page: draws the game the API returns, posts the person's moves and asks the
// AI for its replies. Every change comes from the server's game JSON; the page keeps no rules.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const COLOURS = ["Black", "White"];
const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const RULES = {
  hex: "Black joins the top and bottom edges, White the left and right. With swap, White's " +
    "first move may take over Black's first stone.",
  gomoku: "Five in a row wins. In renju Black must make exactly five, and may not play the " +
    "crossed points (double three, double four, overline).",
  othello: "Place a disc that outflanks the opponent's; they flip. Most discs at the end wins.",
};

const page = {
  options: null, // GET /api/options
  game: null, // the game JSON of the game in play
  analysis: null, // GET .../analysis of the position `analysis.position` names
  busy: false, // a request chain is running: clicks wait
};

const $ = (id) => document.getElementById(id);

// --- talking to the server -------------------------------------------------------------

async function api(method, path, body) {
  const request = { method, headers: {} };
  if (body !== undefined) {
    request.headers["Content-Type"] = "application/json";
    request.body = JSON.stringify(body);
  }
  const response = await fetch(path, request);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
  return data;
}

// Run one chain of requests at a time; an error lands in the message area.
async function run(task) {
  if (page.busy) return;
  page.busy = true;
  showMessage("");
  updateControls();
  try {
    await task();
  } catch (error) {
    showMessage(error.message);
  } finally {
    page.busy = false;
    setThinking(false);
    updateControls();
  }
}

function gamePath(suffix) {
  return `/api/games/${page.game.id}/${suffix}`;
}

function show(game) {
  page.game = game;
  draw();
}

// The AI moves whenever it is its turn; then the toggles' analysis is fetched.
async function aiTurns() {
  while (page.game.ai_to_move) {
    setThinking(true);
    show(await api("POST", gamePath("ai")));
  }
  setThinking(false);
  await refreshAnalysis();
}

async function refreshAnalysis() {
  const game = page.game;
  if (!game) return;
  const wanted = $("show-heatmap").checked || $("show-winbar").checked;
  if (wanted && !analysed(game) && !game.over && !game.ai_to_move) {
    setThinking(true);
    const analysis = await api("GET", gamePath("analysis"));
    page.analysis = { ...analysis, position: position(game) };
  }
  draw();
}

// A position's name: its game and the moves that led to it.
function position(game) {
  return `${game.id} ${game.moves.join(" ")}`;
}

function analysed(game) {
  return page.analysis !== null && page.analysis.position === position(game);
}

function playMove(move) {
  run(async () => {
    show(await api("POST", gamePath("moves"), { move }));
    await aiTurns();
  });
}

function newGame(event) {
  if (event) event.preventDefault();
  const variant = page.options.games[Number($("variant").value)];
  run(async () => {
    page.analysis = null;
    show(
      await api("POST", "/api/games", {
        game: variant.game,
        size: variant.size,
        rule: variant.rule,
        swap: variant.swap,
        human: Number($("colour").value),
        simulations: Number($("simulations").value),
      }),
    );
    await aiTurns();
  });
}

function undo() {
  run(async () => {
    show(await api("POST", gamePath("undo")));
    await refreshAnalysis();
  });
}

// --- drawing ---------------------------------------------------------------------------

function svg(name, attributes, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

function text(content, x, y, className, parent) {
  svg("text", { x, y, class: className }, parent).textContent = content;
}

// The drawing's own units; the style sheet scales it to the page.
function setSize(board, width, height) {
  board.setAttribute("viewBox", `0 0 ${width} ${height}`);
}

// Cell names as the API writes them: column letter, row number (Gomoku counts from the bottom).
function cellName(game, row, col) {
  const number = game.game === "gomoku" ? game.size - row : row + 1;
  return LETTERS[col] + number;
}

// Hex: pointy-top hexagons on a rhombus, each row half a cell further right than the one above.
// Edge k of a hexagon joins corners k and k+1 (corner 0 at the top, clockwise) and faces the
// neighbour one step of NEIGHBOURS[k] away; where that is off the board the edge is a side of
// the board: Black's (top and bottom rows) or White's (left and right columns).
const NEIGHBOURS = [[-1, 1], [0, 1], [1, 0], [1, -1], [0, -1], [-1, 0]];

function drawHex(board, game) {
  const n = game.size;
  const radius = 22;
  const width = Math.sqrt(3) * radius;
  const margin = 34;
  const centre = (row, col) => [
    margin + width / 2 + (col + row / 2) * width,
    margin + radius + row * 1.5 * radius,
  ];
  const corner = ([x, y], k) => {
    const angle = (Math.PI / 180) * (60 * k - 90);
    return [x + radius * Math.cos(angle), y + radius * Math.sin(angle)];
  };
  setSize(board, 2 * margin + width * (n + (n - 1) / 2), 2 * margin + radius * (2 + 1.5 * (n - 1)));

  const edges = { black: [], white: [] };
  for (let row = 0; row < n; row++) {
    for (let col = 0; col < n; col++) {
      const middle = centre(row, col);
      const corners = [0, 1, 2, 3, 4, 5].map((k) => corner(middle, k));
      const cell = svg("polygon", {
        points: corners.map((point) => point.join(",")).join(" "),
        class: "hex-cell target",
        "data-action": row * n + col,
        "data-stone": game.board[row][col],
      }, board);
      svg("title", {}, cell).textContent = cellName(game, row, col);
      NEIGHBOURS.forEach(([dr, dc], k) => {
        const [r, c] = [row + dr, col + dc];
        if (r >= 0 && r < n && c >= 0 && c < n) return;
        edges[r < 0 || r >= n ? "black" : "white"].push([corners[k], corners[(k + 1) % 6]]);
      });
    }
  }
  const drawEdges = (list, className) => {
    for (const [[x1, y1], [x2, y2]] of list) svg("line", { x1, y1, x2, y2, class: className }, board);
  };
  drawEdges(edges.white, "edge edge-white-outline");
  drawEdges(edges.white, "edge edge-white");
  drawEdges(edges.black, "edge edge-black");

  for (let i = 0; i < n; i++) {
    const [x, y] = centre(0, i);
    text(LETTERS[i], x, y - radius - 12, "coordinate", board);
    const [rx, ry] = centre(i, 0);
    text(String(i + 1), rx - width * 0.85, ry, "coordinate", board);
  }
  return { centre: (action) => centre(Math.floor(action / n), action % n), radius: radius * 0.75 };
}

// Gomoku and renju: lines, stones on the intersections.
function drawGomoku(board, game) {
  const n = game.size;
  const step = 32;
  const margin = 34;
  const at = (row, col) => [margin + col * step, margin + row * step];
  const side = 2 * margin + (n - 1) * step;
  setSize(board, side, side);
  svg("rect", { x: 0, y: 0, width: side, height: side, class: "wood" }, board);
  for (let i = 0; i < n; i++) {
    const [x1, y1] = at(i, 0);
    const [x2, y2] = at(i, n - 1);
    svg("line", { x1, y1, x2, y2, class: "grid-line" }, board);
    svg("line", { x1: y1, y1: x1, x2: y2, y2: x2, class: "grid-line" }, board);
    text(LETTERS[i], margin + i * step, side - margin / 2 + 4, "coordinate", board);
    text(String(n - i), margin / 2 - 4, margin + i * step, "coordinate", board);
  }
  drawStones(board, game, at, step * 0.45);

  const crossed = game.rule === "renju" && game.to_play === 0 && !game.over;
  for (const action of crossed ? game.forbidden : []) {
    const [x, y] = at(Math.floor(action / n), action % n);
    const d = step * 0.2;
    const mark = svg("g", { class: "forbidden", "data-action": action }, board);
    svg("line", { x1: x - d, y1: y - d, x2: x + d, y2: y + d }, mark);
    svg("line", { x1: x - d, y1: y + d, x2: x + d, y2: y - d }, mark);
  }
  addTargets(board, game, at, step, "point");
  return { centre: (action) => at(Math.floor(action / n), action % n), radius: step * 0.42 };
}

// Othello: green squares, discs in them, small dots where the person may play.
function drawOthello(board, game) {
  const n = game.size;
  const step = 46;
  const margin = 30;
  const at = (row, col) => [margin + (col + 0.5) * step, margin + (row + 0.5) * step];
  const side = 2 * margin + n * step;
  setSize(board, side, side);
  svg("rect", { x: 0, y: 0, width: side, height: side, class: "felt" }, board);
  addTargets(board, game, at, step, "square");
  for (let i = 0; i < n; i++) {
    text(LETTERS[i], margin + (i + 0.5) * step, margin / 2, "coordinate on-felt", board);
    text(String(i + 1), margin / 2, margin + (i + 0.5) * step, "coordinate on-felt", board);
  }
  drawStones(board, game, at, step * 0.4);
  if (!game.over && !game.ai_to_move) {
    for (const action of game.legal.filter((a) => a < n * n)) {
      const [cx, cy] = at(Math.floor(action / n), action % n);
      svg("circle", { cx, cy, r: step * 0.1, class: "hint", "data-action": action }, board);
    }
  }
  return { centre: (action) => at(Math.floor(action / n), action % n), radius: step * 0.4 };
}

function drawStones(board, game, at, radius) {
  game.board.forEach((cells, row) =>
    cells.forEach((stone, col) => {
      if (!stone) return;
      const [cx, cy] = at(row, col);
      svg("circle", { cx, cy, r: radius, class: `stone stone-${stone}` }, board);
    }),
  );
}

// One clickable square per cell, carrying the cell's action and what stands on it.
function addTargets(board, game, at, step, className) {
  game.board.forEach((cells, row) =>
    cells.forEach((stone, col) => {
      const [x, y] = at(row, col);
      const target = svg("rect", {
        x: x - step / 2,
        y: y - step / 2,
        width: step,
        height: step,
        class: `${className} target`,
        "data-action": row * game.size + col,
        "data-stone": stone,
      }, board);
      svg("title", {}, target).textContent = cellName(game, row, col);
    }),
  );
}

const DRAWERS = { hex: drawHex, gomoku: drawGomoku, othello: drawOthello };

function draw() {
  const game = page.game;
  const board = $("board");
  board.replaceChildren();
  board.dataset.game = game.game;
  board.dataset.size = game.size;
  const layout = DRAWERS[game.game](board, game);

  if (game.last && game.last.action < game.size * game.size) {
    const [cx, cy] = layout.centre(game.last.action);
    svg("circle", { cx, cy, r: 4, class: "last-move", id: "last-move" }, board);
  }
  drawHeatmap(board, game, layout);
  drawWinbar(game);
  $("status").textContent = statusLine(game);
  $("rules").textContent = RULES[game.game];
  $("moves").replaceChildren(
    ...game.moves.map((move) => Object.assign(document.createElement("li"), { textContent: move })),
  );
  updateControls();
}

// The search's policy for the position on the board: the likelier the move, the deeper the
// orange; percentages on the likely ones.
function drawHeatmap(board, game, layout) {
  const analysis = page.analysis;
  const fresh = analysed(game) && !game.over;
  $("swap").textContent = "Swap";
  $("pass").textContent = "Pass";
  if (!$("show-heatmap").checked || !fresh) return;
  const policy = analysis.policy.flat();
  const top = Math.max(...policy, ...Object.values(analysis.policy_extra), 1e-9);
  const group = svg("g", { id: "heatmap" }, board);
  policy.forEach((p, action) => {
    if (p < 0.005) return;
    const [cx, cy] = layout.centre(action);
    const opacity = (0.15 + 0.6 * (p / top)).toFixed(2);
    svg("circle", { cx, cy, r: layout.radius, class: "heat", "fill-opacity": opacity }, group);
    if (p >= 0.05) text(`${Math.round(100 * p)}`, cx, cy, "heat-text", group);
  });
  for (const [move, p] of Object.entries(analysis.policy_extra)) {
    $(move).textContent = `${move[0].toUpperCase()}${move.slice(1)} (${Math.round(100 * p)}%)`;
  }
}

function drawWinbar(game) {
  const shown = $("show-winbar").checked;
  $("winbar").hidden = !shown;
  if (!shown) return;
  let black = null;
  if (game.over) black = game.winner === 0 ? 1 : game.winner === 1 ? 0 : 0.5;
  else if (page.analysis) black = page.analysis.black_win_probability;
  $("winbar-black").style.width = black === null ? "50%" : `${100 * black}%`;
  $("winbar-text").textContent =
    black === null
      ? "no estimate yet"
      : `Black ${Math.round(100 * black)}% · White ${Math.round(100 * (1 - black))}%`;
}

function statusLine(game) {
  const you = COLOURS[game.human];
  if (game.over) {
    const verdict = game.winner < 0 ? "" : game.winner === game.human ? ": you win" : ": the AI wins";
    return `${game.label}. ${game.result}${verdict}.`;
  }
  const mover = game.to_play === game.human ? "you" : "the AI";
  return `${game.label}. You play ${you}. ${COLOURS[game.to_play]} (${mover}) to move.`;
}

function updateControls() {
  const game = page.game;
  const yourTurn = game && !game.over && !game.ai_to_move && !page.busy;
  $("pass").hidden = !(yourTurn && game.can_pass);
  $("swap").hidden = !(yourTurn && game.can_swap);
  $("undo").disabled = page.busy || !game || game.moves.length === 0;
  $("start").disabled = page.busy;
}

function setThinking(on) {
  $("thinking").hidden = !on;
}

function showMessage(message) {
  $("message").textContent = message;
  $("message").hidden = !message;
}

// --- start ---------------------------------------------------------------------------------

async function start() {
  try {
    page.options = await api("GET", "/api/options");
  } catch (error) {
    showMessage(`cannot reach the server: ${error.message}`);
    return;
  }
  const { games, defaults, max_simulations: maxSimulations } = page.options;
  if (games.length === 0) {
    showMessage("no models to play: train one with experiments/train.py");
    return;
  }
  games.forEach((variant, index) =>
    $("variant").append(new Option(variant.label, String(index))),
  );
  $("simulations").value = defaults.simulations;
  $("simulations").max = maxSimulations;

  $("new-game").addEventListener("submit", newGame);
  $("undo").addEventListener("click", undo);
  $("pass").addEventListener("click", () => playMove("pass"));
  $("swap").addEventListener("click", () => playMove("swap"));
  $("show-heatmap").addEventListener("change", () => run(refreshAnalysis));
  $("show-winbar").addEventListener("change", () => run(refreshAnalysis));
  $("board").addEventListener("click", (event) => {
    const target = event.target.closest(".target");
    if (target) playMove(Number(target.dataset.action));
  });
  newGame();
}

start();
