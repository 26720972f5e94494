// boardenvs web app: draws the game, replay and home pages from the server's JSON (agents/web/app.py).
// Every legal move is a button with data-action="<action id>"; places on the board that choose moves
// are elements with data-board-actions="<ids>"; #status (data-testid="status") carries data-ply and
// data-over.
"use strict";

const B = window.BOARDENVS || {};
const $ = (id) => document.getElementById(id);
let data = null;
let running = true;
let timer = null;
let busy = false;
let index = 0;

function showError(text) {
  const el = $("error");
  if (el) el.textContent = text.trim();
}

function delay() {
  const el = $("delay");
  return el ? Number(el.value) : 600;
}

function viewQuery() {
  const el = $("view");
  return el ? "view=" + encodeURIComponent(el.value) : "";
}

// The server away (restarting): say so and try again each second; the game is kept in its database.
function retryLater(err) {
  showError(`the server does not answer (${err}); trying again ...`);
  clearTimeout(timer);
  timer = setTimeout(load, 1000);
}

async function load() {
  let url;
  if (B.kind === "play") url = `/api/game/${B.id}?${viewQuery()}`;
  else url = `/api/replay/${B.id}?index=${index}&${viewQuery()}`;
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    retryLater(err);
    return;
  }
  if (!response.ok) {
    showError(await response.text());
    return;
  }
  showError("");
  render(await response.json());
}

async function post(path, body) {
  if (busy) return;
  busy = true;
  clearTimeout(timer);
  try {
    const response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) {
      const reason = await response.text();
      busy = false;
      await load();
      showError(reason);
      return;
    }
    showError("");
    busy = false;
    render(await response.json());
  } catch (err) {
    busy = false;
    retryLater(err);
  }
}

function play(action) {
  post(`/api/game/${B.id}/move`, { ply: data.ply, action: action });
}

function stepAgent() {
  const query = viewQuery();
  post(`/api/game/${B.id}/step${query ? "?" + query : ""}`, { ply: data.ply });
}

function drawBoard(board) {
  const img = $("board-img");
  const places = $("places");
  places.innerHTML = "";
  if (!board.png) {
    img.hidden = true;
    places.textContent = board.text || "";
    places.className = "text-board";
    return;
  }
  img.hidden = false;
  img.src = "data:image/png;base64," + board.png;
  img.width = board.width;
  img.height = board.height;
  for (const place of board.places) {
    const spot = document.createElement("div");
    spot.className = "place";
    spot.style.left = (100 * place.x) / board.width + "%";
    spot.style.top = (100 * place.y) / board.height + "%";
    spot.style.width = (100 * place.w) / board.width + "%";
    spot.style.height = (100 * place.h) / board.height + "%";
    spot.dataset.boardActions = place.actions.join(" ");
    spot.title = place.actions
      .map((a) => (data.moves.find((m) => m.action === a) || { label: a }).label)
      .join("\n");
    spot.addEventListener("click", () => choosePlace(place.actions));
    places.appendChild(spot);
  }
}

function choosePlace(actions) {
  if (actions.length === 1) {
    play(actions[0]);
    return;
  }
  // Several moves from one place: show only those in the list, to pick one.
  for (const button of document.querySelectorAll("#moves [data-action]")) {
    const here = actions.includes(Number(button.dataset.action));
    button.classList.toggle("picked", here);
    button.classList.toggle("dimmed", !here);
  }
}

function drawMoves(d) {
  const box = $("moves");
  if (!box) return;
  box.innerHTML = "";
  if (d.over) return;
  if (!d.moves.length) {
    const p = document.createElement("p");
    p.className = "waiting";
    p.textContent = d.agent_turn ? "The agents are moving." : "";
    box.appendChild(p);
    return;
  }
  const title = document.createElement("h2");
  title.textContent = "Your moves";
  box.appendChild(title);
  d.moves.forEach((move, i) => {
    const button = document.createElement("button");
    button.dataset.action = String(move.action);
    button.textContent = `${i + 1}. ${move.label}`;
    button.addEventListener("click", () => play(move.action));
    box.appendChild(button);
  });
}

function drawLog(lines) {
  const log = $("log");
  log.innerHTML = "";
  for (const line of lines.slice().reverse()) {
    const li = document.createElement("li");
    li.textContent = line;
    log.appendChild(li);
  }
}

function render(d) {
  data = d;
  const status = $("status");
  status.textContent = d.status;
  status.dataset.over = String(d.over);
  status.dataset.ply = String(d.kind === "play" ? d.ply : d.index);
  drawBoard(d.board);
  drawLog(d.log);
  if (d.kind === "play") {
    drawMoves(d);
    $("end").hidden = !d.over;
    $("step").disabled = !d.agent_turn;
  } else {
    index = d.index;
    const slider = $("index");
    slider.max = String(d.count);
    slider.value = String(d.index);
  }
  schedule();
}

function schedule() {
  clearTimeout(timer);
  if (!running || !data) return;
  if (data.kind === "play" && data.agent_turn && !data.over) timer = setTimeout(stepAgent, delay());
  if (data.kind === "replay" && data.index < data.count) timer = setTimeout(() => goTo(data.index + 1), delay());
}

function goTo(i) {
  index = Math.max(0, Math.min(data ? data.count : 0, i));
  load();
}

function setRunning(on) {
  running = on;
  $("play").classList.toggle("on", on);
  $("pause").classList.toggle("on", !on);
  schedule();
}

function controls() {
  $("play").addEventListener("click", () => setRunning(true));
  $("pause").addEventListener("click", () => setRunning(false));
  const pace = $("delay");
  const asked = new URLSearchParams(location.search).get("delay");  // ?delay=0: agents at full speed
  if (asked !== null && !Number.isNaN(Number(asked))) pace.value = asked;
  const paceText = () => ($("delay-text").textContent = (Number(pace.value) / 1000).toFixed(1) + " s");
  pace.addEventListener("input", () => {
    paceText();
    schedule();
  });
  paceText();
  if ($("view")) $("view").addEventListener("change", load);
  if (B.kind === "play") {
    $("step").addEventListener("click", () => {
      setRunning(false);
      if (data && data.agent_turn) stepAgent();
    });
    $("watch-replay").addEventListener("click", watchReplay);
  } else {
    $("first").addEventListener("click", () => (setRunning(false), goTo(0)));
    $("prev").addEventListener("click", () => (setRunning(false), goTo(index - 1)));
    $("next").addEventListener("click", () => (setRunning(false), goTo(index + 1)));
    $("last").addEventListener("click", () => (setRunning(false), goTo(data.count)));
    $("index").addEventListener("input", (e) => (setRunning(false), goTo(Number(e.target.value))));
  }
  document.addEventListener("keydown", (e) => {
    if (B.kind !== "play" || !data || !data.moves.length || e.target.tagName === "INPUT") return;
    const n = Number(e.key);
    if (n >= 1 && n <= Math.min(9, data.moves.length)) play(data.moves[n - 1].action);
  });
}

async function upload(text) {
  const response = await fetch("/api/replays", { method: "POST", body: text });
  if (!response.ok) {
    showError(await response.text());
    return;
  }
  location.href = (await response.json()).url;
}

async function watchReplay() {
  const response = await fetch(`/game/${B.id}/replay.json`);
  if (!response.ok) {
    showError(await response.text());
    return;
  }
  await upload(await response.text());
}

if (B.kind === "home") {
  $("replay-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (file) await upload(await file.text());
  });
} else if (B.kind === "play" || B.kind === "replay") {
  running = B.kind === "play";
  controls();
  setRunning(running);
  load();
}
