// The game page: draws the state from /api/state and follows /api/events live.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
let state = null;

function el(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function drawBoard(svg, s) {
  const L = s.layout;
  const [w, h] = L.board_size_mm;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.replaceChildren(el("rect", { x: 0, y: 0, width: w, height: h, class: "board-bg",
    fill: L.field_colours.board || "#efe6d2" }));
  for (const line of L.lines || []) {
    svg.append(el("line", { x1: line[0][0], y1: line[0][1], x2: line[1][0], y2: line[1][1],
      class: "board-line" }));
  }
  const stacks = s.status.stacks;
  for (const f of L.fields) {
    const g = el("g", { class: "field", "data-field": f.name });
    const half = f.size / 2;
    const fill = f.colour ? (L.field_colours[f.colour] || f.colour) : "none";
    if (L.round_fields) {
      g.append(el("circle", { cx: f.x, cy: f.y, r: half * 0.35, class: "point" }));
    } else {
      g.append(el("rect", { x: f.x - half, y: f.y - half, width: f.size, height: f.size,
        rx: 2, fill, class: f.playable === false ? "cell blocked" : "cell" }));
    }
    if (f.label) {
      g.append(el("text", { x: f.x, y: f.y - half * 0.55, class: "label",
        "font-size": Math.max(3, f.size * 0.22) }, f.label));
    }
    const owners = stacks[f.name];
    if (owners && owners.length) {
      const r = Math.min(L.piece_diameter / 2, half * 0.8);
      owners.forEach((owner, i) => {  // stacked rings: bottom ring largest
        const ring = r * (1 - 0.12 * (owners.length - 1 - i));
        g.append(el("circle", { cx: f.x, cy: f.y, r: Math.max(ring, r * 0.35),
          fill: L.piece_colours[owner] || owner, class: "piece", "data-owner": owner }));
      });
      if (owners.length > 1) {
        g.append(el("text", { x: f.x, y: f.y + r * 0.35, class: "height",
          "font-size": r * 1.0 }, String(owners.length)));
      }
    }
    if (s.flag && s.flag.fields && s.flag.fields.includes(f.name)) g.classList.add("flagged");
    g.addEventListener("click", () => correctField(f.name));
    svg.append(g);
  }
}

// Cards in seating order (the JSON's keys arrive sorted), the player to move outlined in
// their own colour, as the turn badge is: a neutral outline read as another player's turn.
function drawScores(box, s) {
  box.replaceChildren();
  for (const player of s.status.players) {
    const score = s.status.scores[player];
    const div = document.createElement("div");
    div.dataset.player = player;
    div.className = "score";
    if (player === s.status.current_player) {
      div.classList.add("current");
      div.style.outlineColor = s.layout.piece_colours[player] || "#888";
    }
    const swatch = `<span class="swatch" style="background:${s.layout.piece_colours[player] || player}"></span>`;
    const lines = score.lines.map((l) => `<li><span>${escapeHtml(l.label)}</span><b>${l.points}</b></li>`).join("");
    div.innerHTML = `<h3>${swatch}${escapeHtml(player)} <span class="total">${score.total}</span></h3><ul>${lines}</ul>`
      + piecesLine(s.status.pieces[player], s.status.removed_label);
    box.append(div);
  }
}

// Where a player's pieces are: the ones still to place matter most at the table.
function piecesLine(count, removedLabel) {
  const parts = [`${count.in_supply} to place`, `${count.on_board} on the board`];
  if (count.removed) parts.push(`${count.removed} ${escapeHtml(removedLabel)}`);
  return `<p class="pieces">${parts.join(" · ")}</p>`;
}

// Cuatro: how tall a tower the throws used so far still allow building on.
function heightLimitText(limit) {
  if (limit === undefined || limit === null) return "";
  if (limit === 0) return " · may only build on an empty field";
  return ` · may build on towers up to ${limit} high`;
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

function render(s) {
  state = s;
  const st = s.status;
  $("title").textContent = st.title;
  $("round").textContent = st.round_text;
  $("turn").textContent = st.is_over ? "game over" : `${st.current_player} to play`;
  $("turn").style.borderColor = s.layout.piece_colours[st.current_player] || "#888";
  const dice = $("dice");
  dice.hidden = st.max_throws === undefined;
  $("dice-fix").hidden = dice.hidden;
  if (!dice.hidden) {
    dice.textContent = `throw ${st.throws} of ${st.max_throws}` + (st.dice ? ` · ${st.dice.join(" ")}` : "")
      + heightLimitText(st.height_limit);
  }
  const banner = $("banner");
  banner.hidden = !s.flag;
  banner.textContent = s.flag ? `Illegal move: ${s.flag.rule}` : "";
  const message = $("message");
  message.hidden = !s.message;
  message.textContent = s.message || "";
  const choices = $("choices");
  choices.hidden = !s.choices.length;
  choices.replaceChildren(...s.choices.map((text, index) => {
    const button = document.createElement("button");
    button.textContent = text;
    button.addEventListener("click", () => act("choose", { index }));
    return button;
  }));
  drawBoard($("board"), s);
  drawScores($("scores"), s);
  const log = $("log");
  log.replaceChildren(...s.log.slice().reverse().map((m) => {
    const li = document.createElement("li");
    li.textContent = `${m.player}: ${m.text}`;
    return li;
  }));
  const select = $("ng-game");
  if (!select.options.length) {
    for (const g of s.games) select.append(new Option(g.title, g.name, false, g.name === st.game));
  }
  if (s.panel) drawPanel(s.panel);
  const end = $("end");
  if (st.is_over && !end.dataset.closed) {
    end.hidden = false;
    $("end-title").textContent = st.outcome;
    $("end-board").replaceChildren($("board").cloneNode(true));
    $("end-scores").replaceChildren(...$("scores").cloneNode(true).childNodes);
  } else if (!st.is_over) {
    end.hidden = true;
    delete end.dataset.closed;
  }
}

function drawPanel(panel) {
  $("panel").hidden = false;
  const leds = $("leds");
  leds.replaceChildren(...Object.entries(panel.leds).map(([name, value]) => {
    const span = document.createElement("span");
    span.className = "led" + (value ? " lit" : "");
    span.dataset.led = name;
    span.title = name;
    span.style.setProperty("--glow", Array.isArray(value) ? `rgb(${value.map((v) => Math.round(v * 255)).join(",")})` : "#ffd54f");
    span.textContent = name;
    return span;
  }));
}

async function refresh() {
  const response = await fetch("/api/state", { cache: "no-store" });
  if (response.ok) render(await response.json());
}

async function act(action, payload = {}) {
  const response = await fetch(`/api/${action}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Table-Pin": $("pin").value },
    body: JSON.stringify(payload),
  });
  const body = await response.json().catch(() => ({}));
  $("action-result").textContent = response.ok ? (body.message || "done") : (body.error || `refused (${response.status})`);
  $("action-result").className = response.ok ? "ok" : "error";
  await refresh();
  return response.status;
}

function correctField(name) {
  if (!state || $("pin").value === "") {
    $("action-result").textContent = `enter the PIN to correct ${name}`;
    return;
  }
  const current = (state.status.stacks[name] || []).join(",");
  const answer = prompt(`Pieces on ${name}, bottom to top (comma-separated; empty = none):`, current);
  if (answer === null) return;
  const stack = answer.split(",").map((p) => p.trim()).filter(Boolean);
  act("correct", { field: name, stack });
}

$("undo").addEventListener("click", () => act("undo"));
$("confirm").addEventListener("click", () => act("confirm"));
$("cannot-play").addEventListener("click", () => act("cannot_play"));
function fixDice(missed) {
  const dice = ($("dice-values").value.match(/[1-6]/g) || []).map(Number);
  act("dice", { dice, missed });
}
$("dice-fix").addEventListener("submit", (e) => { e.preventDefault(); fixDice(false); });
$("dice-missed").addEventListener("click", () => fixDice(true));
$("end-close").addEventListener("click", () => { $("end").hidden = true; $("end").dataset.closed = "1"; });
$("new-game").addEventListener("submit", (e) => {
  e.preventDefault();
  act("new_game", { game: $("ng-game").value, players: $("ng-players").value.split(",").map((p) => p.trim()) });
});
for (const button of document.querySelectorAll("#buttons button")) {
  button.addEventListener("click", () => act("press", { button: button.dataset.button }));
}

function follow() {
  if (!window.EventSource) { setInterval(refresh, 2000); return; }
  const source = new EventSource("/api/events");
  source.onopen = refresh;  // whatever happened before the stream opened
  source.onmessage = refresh;
  for (const kind of ["move", "illegal", "cleared", "undo", "confirm", "waiting", "game_over", "new_game", "throw", "panel", "correction"]) {
    source.addEventListener(kind, refresh);
  }
  source.onerror = () => { if (source.readyState === EventSource.CLOSED) setTimeout(follow, 2000); };
}

refresh().then(follow);
