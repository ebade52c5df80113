// The replay page: controls, the game picker, the board of the replay's
// game (drawn by its file of `games/`, registered with `ArenaModel.game`),
// and beside each event the bot calls behind it (fuel and log lines).
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  // The one path from replay data to HTML: `h` is a template tag that
  // escapes every value put into it, unless the value is itself markup made
  // by `h` (a Raw). A replay is a file anyone can hand a teacher, so no field
  // of it (a card, a name, a score) is trusted to be what the format says.
  class Raw { constructor(html) { this.html = html; } }
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const frag = (v) => (v instanceof Raw ? v.html : Array.isArray(v) ? v.map(frag).join("") : v === null || v === undefined ? "" : esc(v));
  const h = (strings, ...values) => new Raw(strings.reduce((out, s, i) => out + frag(values[i - 1]) + s));
  const joined = (items, sep) => new Raw(items.map(frag).join(esc(sep)));
  const setHtml = (el, raw) => { el.innerHTML = raw instanceof Raw ? raw.html : esc(raw); };
  const num = (n) => (typeof n === "number" ? n.toLocaleString("en-US") : "-");
  const SPEEDS = [0.25, 0.5, 1, 2, 4, 8, 16, 64];
  const BASE_STEPS_PER_SECOND = 2;

  const view = {
    header: null, games: [], gameLines: null, game: null, events: [], states: [], calls: [], logs: [], fuel: null, result: null,
    at: 0, playing: false, speed: 2, timer: null, showHidden: true, parsed: new Map(),
  };
  window.arenaView = view; // for tests and the curious: the page's whole state
  // Open a replay's text as the "Open another replay" button does.
  view.openText = (text, name) => { try { loadText(text, name); } catch (err) { fail(err.message); } };

  function fail(message) {
    // A bad file opened over a good replay leaves the good one on the page.
    if (!view.states.length) $("app").hidden = true;
    const box = $("message");
    box.hidden = false;
    box.textContent = message;
  }

  // ---- loading ----
  async function inflate(b64) {
    if (typeof DecompressionStream === "undefined") {
      throw new Error("This browser cannot unpack the replay (it lacks DecompressionStream). Open the page in a current Chrome, Edge, Firefox or Safari.");
    }
    const bin = atob(b64.replace(/\s+/g, ""));
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return await new Response(stream).text();
  }

  async function loadEmbedded() {
    const data = $("replay-data");
    const index = JSON.parse($("replay-index").textContent);
    const text = await inflate(data.textContent);
    const lines = text.split("\n");
    const header = JSON.parse(lines[0]);
    ArenaModel.checkFormat(header);
    view.header = header;
    view.games = index.games.map((g) => ({ ...g, lines: null }));
    view.matchSeed = index.seed;
    view.gameLines = (i) => {
      const g = view.games[i];
      if (!g.lines) g.lines = lines.slice(g.first, g.last + 1).map((l) => JSON.parse(l));
      return g.lines;
    };
    start(index.note);
  }

  // A replay file the person opened on the page: checked here, since no arena read it first.
  function loadText(text, name) {
    const lines = [];
    const seeds = [];
    const raw = text.split("\n");
    // Seeds as written: JavaScript numbers cannot hold every u64.
    const seedOf = (t) => { const m = /"seed":(\d+)/.exec(t); return m ? m[1] : null; };
    for (let i = 0; i < raw.length; i++) {
      if (!raw[i].trim()) continue;
      seeds.push(seedOf(raw[i]));
      try {
        lines.push(JSON.parse(raw[i]));
      } catch (e) {
        throw new Error(`${name} line ${i + 1}: not valid JSON (${e.message}). Was the file cut short or edited?`);
      }
    }
    const { header, games } = ArenaModel.group(lines);
    view.header = header;
    view.matchSeed = seeds[0];
    let at = 1;
    view.games = games.map((g) => {
      const result = g.lines.find((l) => l.type === "result") || {};
      const seed = seeds[at];
      at += g.lines.length;
      return { index: g.index, seed, names: g.names, scores: result.scores, winner: result.winner, forfeit: result.forfeit, positions: result.positions, lines: g.lines };
    });
    view.gameLines = (i) => view.games[i].lines;
    start(null);
  }

  function start(note) {
    const h = view.header;
    $("message").hidden = true;
    $("app").hidden = false;
    $("title").textContent = `${(ArenaModel.GAMES[h.game] || {}).title || h.game}: ${h.bots.map((b) => b.name).join(" vs ")}`;
    document.title = $("title").textContent;
    $("facts").textContent = [
      `variant ${h.variant}`, `match seed ${view.matchSeed || h.seed}`, `${num(view.games.length)} of ${num(h.games)} games`,
      h.illegal ? `illegal moves: ${h.illegal}` : null,
      h.limits ? `fuel ${short(h.limits.fuel)} per move` : null,
      `arena ${h["arena-version"]}, wasmtime ${h["wasmtime-version"]}`, `replay format ${h.format}`,
    ].filter(Boolean).join(" · ");
    // A game that hides nothing (Sugargame) has no cards to show or hide.
    // A game with nothing hidden (a solitaire) offers no hidden cards: no box, no key.
    const hides = (ArenaModel.GAMES[h.game] || {}).hides !== false;
    $("hidden").parentElement.hidden = !hides;
    $("hidden-key").hidden = !hides;
    $("note").textContent = note || "";
    $("note").hidden = !note;
    const picker = $("game");
    picker.replaceChildren();
    view.games.forEach((g, i) => {
      const o = document.createElement("option");
      o.value = i;
      o.textContent = gameLabel(g);
      picker.appendChild(o);
    });
    $("picker").hidden = view.games.length < 2;
    selectGame(0);
    fromHash();
  }

  // Links may point into a page: `#game=17` (the game's index in its match)
  // and `&event=end` or `&event=K` (from 1).
  function fromHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    const g = params.get("game");
    if (g !== null) {
      const i = view.games.findIndex((x) => String(x.index) === g);
      if (i >= 0) selectGame(i);
    }
    const e = params.get("event");
    if (e === "end") go(view.events.length - 1);
    else if (e !== null && Number(e) >= 1) go(Number(e) - 1);
  }

  // The replay's game as its file of `games/` registered it, if the page has it.
  const current = () => (view.header && ArenaModel.GAMES[view.header.game]) || null;

  function gameLabel(g) {
    let s = `Game ${g.index}: `;
    // A game played alone has one seat; a table game's result has finishing positions.
    if (g.names.length === 1) s += `score ${g.scores ? g.scores[0] : "?"}`;
    else if (g.positions) s += g.names.map((n, i) => `${n} ${ordinal(g.positions[i])}`).join(", ");
    else s += g.names.map((n, i) => `${n} ${g.scores ? g.scores[i] : "?"}`).join(" - ");
    if (g.forfeit) s += ` (forfeit: ${g.names[g.forfeit.seat] || "seat " + g.forfeit.seat}, ${g.forfeit.reason})`;
    return s;
  }

  const ordinal = (n) => (!n ? "-" : n + (n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th"));
  // Fuel as every command writes it (sandbox `fuel_amount`): 950, 12.3k, 2.12M, 500M, 44.0G.
  const short = (f) => {
    if (f < 1e4) return String(f);
    const [v, unit] = f >= 1e9 ? [f / 1e9, "G"] : f >= 1e6 ? [f / 1e6, "M"] : [f / 1e3, "k"];
    return v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2) + unit;
  };

  // A share as every command writes it (`arena check`): 0.427%, 4.3%, 110%.
  const percent = (share) => {
    const p = 100 * share;
    if (p > 0 && p < 0.001) return "<0.001%";
    return p.toFixed(p >= 10 ? 0 : p >= 1 ? 1 : 3) + "%";
  };
  // Scores with the names they belong to: "ann 7, bob 5", never a bare "7 - 5" after a winner's name.
  const scored = (scores) => scores.map((x, i) => `${name(i)} ${x}`).join(", ");

  function selectGame(i) {
    pause();
    const g = view.games[i];
    view.game = g;
    $("game").value = i;
    const parts = ArenaModel.split(view.gameLines(i));
    view.events = parts.events;
    view.calls = parts.calls;
    view.logs = parts.logs;
    view.fuel = parts.fuel;
    view.result = parts.result;
    view.states = ArenaModel.redraw(view.header.game, parts.events);
    $("scrub").max = Math.max(0, view.events.length - 1);
    drawMarkers();
    go(opening());
  }

  // Where a game opens: the first state with the deal on the table. A
  // `game-start` that deals nothing itself (En Garde deals at the round's
  // start, Sugargame places agents next) shows an empty table.
  function opening() {
    const first = view.events[0];
    return first && first.type === "game-start" && !first.hands && view.events.length > 1 ? 1 : 0;
  }

  // ---- controls ----
  function go(at) {
    view.at = Math.max(0, Math.min(at, view.events.length - 1));
    $("scrub").value = view.at;
    draw();
  }

  function play() {
    if (view.at >= view.events.length - 1) go(0);
    view.playing = true;
    $("play").textContent = "⏸ Pause";
    $("play").setAttribute("aria-pressed", "true");
    tick();
  }

  function pause() {
    view.playing = false;
    clearTimeout(view.timer);
    $("play").textContent = "▶ Play";
    $("play").setAttribute("aria-pressed", "false");
  }

  function tick() {
    clearTimeout(view.timer);
    if (!view.playing) return;
    view.timer = setTimeout(() => {
      if (view.at >= view.events.length - 1) return pause();
      go(view.at + 1);
      tick();
    }, 1000 / (BASE_STEPS_PER_SECOND * SPEEDS[view.speed]));
  }

  function setSpeed(k) {
    view.speed = Math.max(0, Math.min(SPEEDS.length - 1, k));
    $("speed").value = view.speed;
    $("speed-label").textContent = `${SPEEDS[view.speed]}x (${BASE_STEPS_PER_SECOND * SPEEDS[view.speed]} events/s)`;
    if (view.playing) tick();
  }

  // Events worth a mark on the scrubber, and their kind (a CSS class): the
  // game's own events as its file says, forfeits, illegal moves and the end here.
  function marker(game, e, prev, next) {
    switch (e.type) {
      case "forfeit": return "forfeit";
      case "illegal": return "forfeit";
      case "game-end": return "round";
      default: return game && game.marker ? game.marker(e, prev, next) : null;
    }
  }

  function drawMarkers() {
    const box = $("markers");
    box.replaceChildren();
    const n = Math.max(1, view.events.length - 1);
    view.events.forEach((e, i) => {
      const kind = marker(current(), e, view.states[i - 1], view.states[i]);
      if (!kind) return;
      const m = document.createElement("button");
      m.className = `mark ${kind}`;
      m.style.left = `${(100 * i) / n}%`;
      m.title = `${i + 1}: ${describe(e, view.states[i])}`;
      m.setAttribute("aria-label", m.title);
      m.tabIndex = -1;
      m.onclick = () => { pause(); go(i); };
      box.appendChild(m);
    });
  }

  // ---- drawing ----
  function name(seat) {
    const n = view.game && view.game.names[seat];
    return n === undefined ? `seat ${seat}` : n;
  }

  function draw() {
    const e = view.events[view.at];
    const s = view.states[view.at];
    $("position").textContent = `event ${view.at + 1} of ${view.events.length}`;
    const game = current();
    setHtml($("board"), e && game ? game.board(s, e, ui) : h`<p>${e ? `No drawing for the game ${view.header.game}.` : "This game has no events."}</p>`);
    setHtml($("event"), e ? h`<b>${e.type}</b>: ${describe(e, s)}` : "");
    drawCalls();
    drawResult(s);
  }

  function drawCalls() {
    const calls = view.calls[view.at] || [];
    const budget = view.header.limits ? view.header.limits.fuel : null;
    const parts = [];
    if (view.header.format < 2 && view.fuel) parts.push(h`<p class=dim>This replay (format 1) does not say which call made which event; make it again with a newer arena to see each move's fuel and log lines.</p>`);
    if (!calls.length) parts.push(h`<p class=dim>No bot call behind this event (a house bot or the rules acted).</p>`);
    for (const c of calls) {
      const share = budget && c.fuel !== null && c.kind === "move" ? ` (${percent(c.fuel / budget)} of the per-move budget)` : "";
      const log = c.lines && c.lines.length ? h`<pre class=log>${c.lines.join("\n")}</pre>` : c.kind !== "after" ? h`<div class=dim>(logged nothing)</div>` : "";
      parts.push(h`<div class="call seat${c.seat}"><div><b>${name(c.seat)}</b> · ${c.kind === "after" ? "log lines after its last call" : c.kind + " call"}${c.fuel !== null ? ` · fuel ${short(c.fuel)}${share}` : ""}</div>${log}</div>`);
    }
    const truncated = view.logs.filter((l) => l && l.truncated).map((l) => name(l.seat));
    if (truncated.length) parts.push(h`<p class=dim>Log cut at the --log-bytes cap for: ${truncated.join(", ")}.</p>`);
    setHtml($("calls"), h`${parts}`);
  }

  function drawResult(s) {
    const r = view.result;
    const box = $("result");
    const atEnd = view.at === view.events.length - 1;
    if (!r || !atEnd) { box.hidden = true; return; }
    box.hidden = false;
    let text;
    if (list(r.scores).length === 1) text = `Score ${r.scores[0]}`;
    else if (r.positions) text = r.positions.map((p, i) => [p, i]).sort((a, b) => a[0] - b[0]).map(([p, i]) => `${ordinal(p)} ${name(i)}`).join(", ");
    else {
      const winner = r["winner-name"] !== undefined && r["winner-name"] !== null ? r["winner-name"] : r.winner === null ? null : name(r.winner);
      text = winner === null ? `Draw: ${scored(r.scores)}` : `${winner} wins: ${scored(r.scores)}`;
    }
    if (r.forfeit) text += ` · ${name(r.forfeit.seat)} forfeited (${r.forfeit.reason}): ${r.forfeit.detail}`;
    box.textContent = text;
    box.className = r.forfeit ? "result forfeit" : "result";
  }

  function forfeitBox(f) {
    return f ? h`<div class="forfeit-box"><b>${name(f.seat)} forfeited: ${f.reason}</b><div>${f.detail}</div></div>` : "";
  }

  // An event in words: the game's own events as its file says, the rest here.
  function describe(e, s) {
    const game = current();
    const own = game && game.describe ? game.describe(e, s, ui) : undefined;
    if (own !== undefined) return own;
    switch (e.type) {
      case "game-start": {
        const seed = (view.game && view.game.seed) || e.seed;
        return e.variant ? `${e.variant} variant, deal seed ${seed}` : `deal seed ${seed}`;
      }
      case "illegal": return `${name(e.seat)}: illegal ${e.why}${e.cards ? " with " + e.cards.map((c) => card(c, true)).join(" ") : ""}`;
      case "forfeit": return `${name(e.seat)} forfeits (${e.reason}): ${e.detail}`;
      case "game-end":
        if (e.titles) return e.titles.map((t, i) => `${name(i)}: ${t}`).join(", ");
        if (e.score !== undefined) return `score ${e.score}`;
        return `final score ${scored(e.scores)}`;
      default: return "";
    }
  }

  // ---- cards ----
  const SUITS = { spades: ["♠", "S", false], hearts: ["♥", "H", true], clubs: ["♣", "C", false], diamonds: ["♦", "D", true] };
  function rankText(r, aceLow) {
    if (aceLow && r === 1) return "A";
    return { 11: "J", 12: "Q", 13: "K", 14: "A" }[r] || String(r);
  }
  function card(c, text, cls) {
    // A card left out of the replay shown to this viewer (not theirs to see).
    if (c === null) return text ? "?" : h`<span class="card back" title="hidden">?</span>`;
    if (!c || typeof c !== "object") return text ? String(c) : h`<span class="card">${c}</span>`;
    if (c.kind === "joker") return text ? "Joker" : h`<span class="card joker ${cls || ""}" title="joker">★</span>`;
    const [sym, , red] = SUITS[c.suit] || ["?", "?", false];
    const r = rankText(c.rank, Boolean(current() && current().aceLow));
    return text ? `${r}${sym}` : h`<span class="card ${red ? "red" : ""} ${cls || ""}" title="${r} of ${c.suit}">${r}<small>${sym}</small></span>`;
  }
  const back = (n) => h`<span class="card back" title="${n} hidden">${n}</span>`;
  // Lists from the replay: an edited file may hold anything where a list belongs.
  const list = (v) => (Array.isArray(v) ? v : []);
  // Whether every card of a list is in the replay: a server leaves out the
  // cards a viewer may not see (each `null`), and those show face down.
  const known = (v) => !list(v).includes(null);

  // ---- boards ----
  // What a game's file draws its board with (`board(state, event, ui)`).
  // Every board is made with `h`: each value from the replay is escaped.
  const ui = { h, joined, view, name, card, back, list, known, ordinal, scored, describe, forfeitBox };

  // ---- wiring ----
  function wire() {
    $("play").onclick = () => (view.playing ? pause() : play());
    $("back").onclick = () => { pause(); go(view.at - 1); };
    $("fwd").onclick = () => { pause(); go(view.at + 1); };
    $("first").onclick = () => { pause(); go(0); };
    $("last").onclick = () => { pause(); go(view.events.length - 1); };
    $("scrub").oninput = (ev) => { pause(); go(Number(ev.target.value)); };
    $("speed").oninput = (ev) => setSpeed(Number(ev.target.value));
    $("game").onchange = (ev) => selectGame(Number(ev.target.value));
    $("hidden").onchange = (ev) => { view.showHidden = ev.target.checked; draw(); };
    $("open").onchange = (ev) => {
      const f = ev.target.files[0];
      if (!f) return;
      f.text().then((t) => view.openText(t, f.name));
    };
    document.addEventListener("keydown", (ev) => {
      if (ev.target && (ev.target.tagName === "SELECT" || ev.target.tagName === "INPUT") && ev.key !== " ") return;
      if (ev.key === " ") { ev.preventDefault(); view.playing ? pause() : play(); }
      else if (ev.key === "ArrowRight") { ev.preventDefault(); pause(); go(view.at + 1); }
      else if (ev.key === "ArrowLeft") { ev.preventDefault(); pause(); go(view.at - 1); }
      else if (ev.key === "Home") { pause(); go(0); }
      else if (ev.key === "End") { pause(); go(view.events.length - 1); }
      else if (ev.key === "+" || ev.key === "=") setSpeed(view.speed + 1);
      else if (ev.key === "-") setSpeed(view.speed - 1);
      else if (ev.key === "h" && !$("hidden-key").hidden) { $("hidden").checked = !$("hidden").checked; view.showHidden = $("hidden").checked; draw(); }
    });
    $("speed").max = SPEEDS.length - 1;
    setSpeed(2);
  }

  window.addEventListener("hashchange", () => view.header && fromHash());
  window.addEventListener("DOMContentLoaded", () => {
    wire();
    loadEmbedded().catch((err) => fail(err.message));
  });
})();
