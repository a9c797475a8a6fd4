// The hexjax play page: draws the game the API returns, posts the person's moves and asks the
// AI for its replies. Every change comes from the server's game JSON; the page keeps no rules.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const COLOURS = ["Black", "White"];
const LETTERS = "abcdefghijklmnopqrstuvwxyz";
// Rules by game, and for Gomoku by rule.
const RULES = {
  hex: "Black joins the top and bottom edges, White the left and right.",
  hexSwap: "Black joins the top and bottom edges, White the left and right. White's first " +
    "move may instead take over Black's first stone (swap).",
  freestyle: "Five or more in a row wins, for either side.",
  standard: "Exactly five in a row wins; six or more (an overline) does not.",
  renju: "Renju: Black must make exactly five and may not play the crossed points (double " +
    "three, double four, overline); White wins with five or more.",
  othello: "Place a disc that outflanks the opponent's; they flip. Most discs at the end wins.",
};

function rulesText(game) {
  if (game.game === "gomoku") return RULES[game.rule];
  if (game.game === "hex" && game.swap) return RULES.hexSwap;
  return RULES[game.game];
}

const page = {
  options: null, // GET /api/options
  game: null, // the game JSON of the game in play
  shown: null, // the game JSON drawn: the game, or an earlier position of it (stepping back)
  stop: false, // computer vs computer: stop after the move in progress
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
  page.shown = game;
  draw();
}

// Whether the board shows the game's latest position (moves are played only there).
function atLatest() {
  return page.shown === page.game;
}

// Stepping through the game: the position after `ply` moves, from the server.
function showPly(ply) {
  run(async () => {
    const game = page.game;
    const target = Math.max(0, Math.min(ply, game.plies));
    const earlier = () => api("GET", `/api/games/${game.id}?ply=${target}`);
    page.shown = target === game.plies ? game : await earlier();
    draw();
  });
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
  if (!atLatest()) return;
  run(async () => {
    show(await api("POST", gamePath("moves"), { move }));
    await aiTurns();
  });
}

// The new-game request for the variant chosen, who plays (null: nobody) and an opening.
function gameRequest(variant, human, moves) {
  return {
    game: variant.game,
    size: variant.size,
    rule: variant.rule,
    swap: variant.swap,
    human,
    simulations: Number($("simulations").value),
    moves,
  };
}

function chosenVariant() {
  return page.options.games[Number($("variant").value)];
}

function newGame(event) {
  if (event) event.preventDefault();
  const colour = $("colour").value;
  const human = colour === "watch" ? null : Number(colour);
  run(async () => {
    page.analysis = null;
    show(await api("POST", "/api/games", gameRequest(chosenVariant(), human, [])));
    if (human === null) await computerGame();
    else await aiTurns();
  });
}

// Computer vs computer from the position shown: a new game the AI plays alone, move by move
// until the end or Stop.
function watch() {
  const shown = page.shown;
  const variant = page.options.games.find(
    (v) => v.game === shown.game && v.size === shown.size && v.rule === shown.rule && v.swap === shown.swap,
  );
  run(async () => {
    page.analysis = null;
    show(await api("POST", "/api/games", gameRequest(variant, null, shown.moves)));
    await computerGame();
  });
}

async function computerGame() {
  page.stop = false;
  $("stop").hidden = false;
  try {
    while (!page.game.over && !page.stop) {
      setThinking(true);
      show(await api("POST", gamePath("ai")));
    }
  } finally {
    $("stop").hidden = true;
  }
}

// A record: the moves pasted, or one line of a records file (evaluate.py --records), played
// in the game chosen above; shown at its last move, to step through.
async function loadRecord() {
  const file = $("record-file").files[0];
  const text = file ? await file.text() : $("record-text").value;
  const lines = text.split(/\r?\n/).filter((line) => line.split("#")[0].trim());
  const number = Number($("record-line").value) || 1;
  run(async () => {
    if (lines.length === 0) throw new Error("no moves to load: paste a move list or pick a file");
    if (number < 1 || number > lines.length) {
      throw new Error(`game ${number} is not in the record (it has ${lines.length})`);
    }
    page.analysis = null;
    const moves = lines[number - 1].split("#")[0].trim();
    show(await api("POST", "/api/games", gameRequest(chosenVariant(), null, moves)));
  });
}

function undo() {
  if (!atLatest()) return;
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
  const [boardWidth, boardHeight] = [2 * margin + width * (n + (n - 1) / 2), 2 * margin + radius * (2 + 1.5 * (n - 1))];
  setSize(board, boardWidth, boardHeight);
  svg("rect", { x: 0, y: 0, width: boardWidth, height: boardHeight, class: "hex-backdrop" }, board);

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
    text(LETTERS[i], x, y - radius - 12, "coordinate on-backdrop", board);
    const [rx, ry] = centre(i, 0);
    text(String(i + 1), rx - width * 0.85, ry, "coordinate on-backdrop", board);
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
  const game = page.shown;
  const board = $("board");
  board.replaceChildren();
  board.dataset.game = game.game;
  board.dataset.size = game.size;
  const layout = DRAWERS[game.game](board, game);

  if (game.last && game.last.action < game.size * game.size) {
    const [cx, cy] = layout.centre(game.last.action);
    svg("circle", { cx, cy, r: 4, class: "last-move", id: "last-move" }, board);
  }
  for (const action of game.chain) {
    const [cx, cy] = layout.centre(action);
    svg("circle", { cx, cy, r: layout.radius * 0.8, class: "chain", "data-action": action }, board);
  }
  drawHeatmap(board, game, layout);
  drawWinbar(game);
  $("status").textContent = statusLine(game);
  $("rules").textContent = rulesText(game);
  $("score").hidden = game.game !== "othello";
  $("score").textContent = `Discs: Black ${game.stones[0]} · White ${game.stones[1]}`;
  $("ply").textContent = `move ${game.ply} of ${game.plies}`;
  $("sgf").hidden = game.game === "othello";
  $("sgf").href = `/api/games/${game.id}/sgf`;
  $("moves").replaceChildren(
    ...game.moves.map((move) => Object.assign(document.createElement("li"), { textContent: move })),
  );
  updateControls();
}

// The search's policy for the position on the board: the likelier the move, the deeper the
// orange; percentages on the likely ones.
function drawHeatmap(board, game, layout) {
  const analysis = page.analysis;
  const fresh = analysed(game) && !game.over && atLatest();
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
  const analysis = page.analysis;
  if (!game.over && analysed(game) && analysis.proven) {
    // A solver proved it: a certainty, not an estimate.
    const moves = analysis.moves_to_win;
    const when = moves === null ? "" : moves === 1 ? " with its next move" : ` in ${moves} moves`;
    $("winbar-text").textContent = `${COLOURS[analysis.to_play]} wins${when} (proven)`;
  }
}

function statusLine(game) {
  const you = COLOURS[game.human];
  if (game.human === null) {
    const state = game.over ? `${game.result}.` : `${COLOURS[game.to_play]} to move.`;
    return `${game.label}. Computer vs computer. ${state}`;
  }
  if (game.over) {
    const verdict = game.winner < 0 ? "" : game.winner === game.human ? ": you win" : ": the AI wins";
    return `${game.label}. ${game.result}${verdict}.`;
  }
  const mover = game.to_play === game.human ? "you" : "the AI";
  return `${game.label}. You play ${you}. ${COLOURS[game.to_play]} (${mover}) to move.`;
}

function updateControls() {
  const game = page.game;
  const shown = page.shown;
  const yourTurn = game && atLatest() && !game.over && !game.ai_to_move && !page.busy;
  $("pass").hidden = !(yourTurn && game.can_pass);
  $("swap").hidden = !(yourTurn && game.can_swap);
  const undoable = game && game.human !== null && atLatest() && game.moves.length > 0;
  $("undo").disabled = page.busy || !undoable;
  $("start").disabled = page.busy;
  $("load").disabled = page.busy;
  $("watch").disabled = page.busy || !shown || shown.over;
  $("first").disabled = $("back").disabled = page.busy || !shown || shown.ply === 0;
  $("forward").disabled = $("last").disabled = page.busy || !shown || shown.ply === shown.plies;
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
  $("watch").addEventListener("click", watch);
  $("stop").addEventListener("click", () => {
    page.stop = true;
  });
  $("load").addEventListener("click", loadRecord);
  $("first").addEventListener("click", () => showPly(0));
  $("back").addEventListener("click", () => showPly(page.shown.ply - 1));
  $("forward").addEventListener("click", () => showPly(page.shown.ply + 1));
  $("last").addEventListener("click", () => showPly(page.game.plies));
  $("show-heatmap").addEventListener("change", () => run(refreshAnalysis));
  $("show-winbar").addEventListener("change", () => run(refreshAnalysis));
  $("board").addEventListener("click", (event) => {
    const target = event.target.closest(".target");
    if (target) playMove(Number(target.dataset.action));
  });
  newGame();
}

start();
