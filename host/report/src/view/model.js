// The arena replay model: from one game's events to the state after each
// event. Pure functions, no page: the viewer draws these states, and the
// tests run this same file under Node to check each state against what the
// rules showed the bots (tests/view.rs). Each game is one file of `games/`
// that registers itself with `ArenaModel.game` (its title, its states from
// its events, its board); the page carries this file and then every
// registered game's. The meaning of every event is in docs/replay-format.md.
"use strict";

const ArenaModel = (() => {
  const FORMATS = [1, 2];
  const copy = (v) => (v === undefined ? v : JSON.parse(JSON.stringify(v)));
  // The games, by name, in the order they registered: each a `games/<name>.js`.
  const GAMES = {};

  // Register a game: {name, title, redraw(events), board(state, event, ui)},
  // and optionally marker(event, before, after), describe(event, state, ui),
  // `hides: false` (nothing hidden to show or hide), `aceLow: true`.
  function game(def) {
    GAMES[def.name] = def;
  }

  // Group a replay's parsed lines into its header and games.
  // `lines` are objects; returns {header, games: [{index, names, lines}]}.
  function group(lines) {
    if (!lines.length) throw new Error("the replay is empty");
    const header = lines[0];
    if (!header || header.type !== "match") throw new Error("line 1 is not a match header: is this a replay written by arena match --replay?");
    checkFormat(header);
    const games = [];
    let current = null;
    for (let i = 1; i < lines.length; i++) {
      const l = lines[i];
      if (l.type === "game") {
        current = { index: l.game, names: l.names || [], seats: l.seats || [], seed: l.seed, lines: [l] };
        games.push(current);
      } else if (current) {
        current.lines.push(l);
      } else {
        throw new Error(`line ${i + 1}: a "${l.type}" line before the first game`);
      }
    }
    return { header, games };
  }

  function checkFormat(header) {
    const f = header.format;
    if (!FORMATS.includes(f)) {
      if (typeof f === "number" && f > FORMATS[FORMATS.length - 1]) {
        throw new Error(`This replay has format ${f}, newer than this viewer reads (formats ${FORMATS.join(" and ")}). Make the page again with the arena that wrote the replay: arena view REPLAY.`);
      }
      throw new Error(`This replay's format (${JSON.stringify(f)}) is not one this viewer reads (formats ${FORMATS.join(" and ")}).`);
    }
  }

  // The events of one game (without the game, log, fuel and result lines),
  // and what the record says about its calls.
  function split(gameLines) {
    const events = [];
    const logs = [];
    let fuel = null;
    let result = null;
    for (const l of gameLines) {
      if (l.type === "game") continue;
      else if (l.type === "log") logs[l.seat] = l;
      else if (l.type === "fuel") fuel = l;
      else if (l.type === "result") result = l;
      else events.push(l);
    }
    return { events, logs, fuel, result, calls: callsByEvent(events.length, logs, fuel) };
  }

  // For each event index, the bot calls that led to it: {seat, kind, fuel,
  // lines}. Format 2 records where each call happened (the number of events
  // before it) and the log lines it had written when it returned.
  function callsByEvent(n, logs, fuel) {
    const at = Array.from({ length: n + 1 }, () => []);
    if (!fuel || !fuel.calls) return at;
    fuel.calls.forEach((calls, seat) => {
      if (!calls) return;
      const lines = (logs[seat] && logs[seat].lines) || [];
      let from = 0;
      for (const c of calls) {
        const [kind, used, mark, upTo] = c;
        const entry = { seat, kind, fuel: used };
        if (typeof mark === "number" && typeof upTo === "number") {
          entry.lines = lines.slice(from, upTo);
          from = upTo;
          at[Math.min(mark, n)].push(entry);
        }
      }
      const rest = lines.slice(from);
      if (rest.length && at[n]) at[n].push({ seat, kind: "after", fuel: null, lines: rest });
    });
    return at;
  }

  // The state after each event of a game of `game`.
  function redraw(game, events) {
    const g = GAMES[game];
    if (!g) throw new Error(`This viewer does not know the game "${game}" (it shows ${Object.keys(GAMES).join(", ")}).`);
    return g.redraw(events);
  }

  return { FORMATS, GAMES, game, copy, group, split, redraw, checkFormat };
})();

if (typeof module !== "undefined") module.exports = ArenaModel;
