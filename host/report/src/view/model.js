// The arena replay model: from one game's events to the state after each
// event, for every game the arena plays. Pure functions, no page: the
// viewer draws these states, and the tests run this same file under Node
// to check each state against what the rules showed the bots
// (tests/view.rs). The meaning of every event is in docs/replay-format.md.
"use strict";

const ArenaModel = (() => {
  const FORMATS = [1, 2];
  const copy = (v) => (v === undefined ? v : JSON.parse(JSON.stringify(v)));
  const cardText = {
    "en-garde": (c) => String(c),
  };

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

  // ---- En Garde ----
  function enGarde(events) {
    let s = { round: 0, scores: [0, 0], positions: [0, 22], hands: [[], []], deckRemaining: 0, discard: [], last: null, lastChance: null, toMove: 0, end: null, forfeit: null, over: null, variant: null };
    const out = [];
    const sorted = (h) => h.slice().sort((a, b) => a - b);
    for (const e of events) {
      s = copy(s);
      s.kind = e.type;
      s.end = null;
      switch (e.type) {
        case "game-start": s.variant = e.variant; break;
        case "round-start":
          s.round = e.round; s.positions = e.positions.slice(); s.hands = e.hands.map(sorted);
          s.deckRemaining = e.deck.length; s.deck = e.deck.slice(); s.scores = e.scores.slice();
          s.discard = []; s.last = null; s.lastChance = null; s.toMove = e["first-to-move"];
          break;
        case "move":
          s.positions = e.positions.slice(); s.hands = e.hands.map(sorted); s.deckRemaining = e["deck-remaining"];
          s.discard.push(e.card); if (e.parried) s.discard.push(e.card);
          s.last = { seat: e.seat, card: e.card, direction: e.direction, parried: e.parried };
          s.toMove = 1 - e.seat;
          break;
        case "last-chance":
          s.positions = e.positions.slice(); s.hands = e.hands.map(sorted);
          s.discard.push(e.card); if (e.parried) s.discard.push(e.card);
          s.lastChance = { seat: e.seat, card: e.card, direction: e.direction, parried: e.parried };
          break;
        case "round-end":
          s.scores = e.scores.slice(); s.positions = e.positions.slice();
          s.end = { cause: e.cause, scorer: e.scorer, why: e.why || null, attempted: e.attempted || null, advanced: e.advanced || null };
          break;
        case "forfeit": s.forfeit = { seat: e.seat, reason: e.reason, detail: e.detail }; break;
        case "game-end": s.scores = e.scores.slice(); s.over = { winner: e.winner, rounds: e.rounds }; break;
      }
      out.push(s);
    }
    return out;
  }

  // ---- ConnectFwar ----
  function connectFwar(events) {
    let s = { columns: [[], [], [], []], deckRemaining: 52, discard: [], drawn: null, last: null, connected: null, score: null, forfeit: null, over: false };
    const out = [];
    for (const e of events) {
      s = copy(s);
      s.kind = e.type;
      switch (e.type) {
        case "game-start": s.deck = e.deck.slice(); s.deckRemaining = e.deck.length; break;
        case "draw":
          if (e.placed === null || e.placed === undefined) s.discard.push(e.card);
          else s.columns[e.placed].push(e.card);
          s.deckRemaining = e["deck-remaining"];
          s.last = { card: e.card, answer: e.answer, placed: e.placed };
          s.connected = e.connected || null;
          break;
        case "forfeit": s.forfeit = { seat: e.seat, reason: e.reason, detail: e.detail }; break;
        case "game-end":
          s.score = e.score; s.over = true;
          if (e.board && e.board.columns) s.columns = copy(e.board.columns);
          break;
      }
      out.push(s);
    }
    return out;
  }

  // ---- Sugargame ----
  function sugar(events) {
    let s = { step: 0, maxSteps: 0, capacity: null, sugar: null, agents: [], scores: [0, 0], collected: [0, 0], kills: [0, 0], last: null, killed: [], illegal: null, forfeit: null, over: null };
    const out = [];
    for (const e of events) {
      s = copy(s);
      s.kind = e.type;
      s.killed = [];
      switch (e.type) {
        case "game-start": s.capacity = copy(e.capacity); s.sugar = copy(e.capacity); s.maxSteps = e["max-steps"]; s.peaks = copy(e.peaks); break;
        case "placement": s.agents = copy(e.agents); s.sugar = copy(e.sugar); break;
        case "step":
          s.step = e.step; s.agents = copy(e.agents); s.sugar = copy(e.sugar); s.scores = e.scores.slice();
          s.last = { seat: e.seat, action: e.action, collected: e.collected };
          s.killed = e.killed.slice();
          if (typeof e.collected === "number") s.collected[e.seat] += e.collected;
          s.kills[e.seat] += e.killed.length;
          break;
        case "illegal": s.illegal = { seat: e.seat, action: e.action, why: e.why, step: e.step }; break;
        case "forfeit": s.forfeit = { seat: e.seat, reason: e.reason, detail: e.detail }; break;
        case "game-end":
          s.scores = e.scores.slice(); s.collected = e.collected.slice(); s.kills = e.kills.slice();
          s.over = { winner: e.winner, steps: e.steps };
          break;
      }
      out.push(s);
    }
    return out;
  }

  // ---- President ----
  const sameCard = (a, b) => a.kind === b.kind && (a.kind === "joker" || (a.rank === b.rank && a.suit === b.suit));
  function president(events) {
    let s = { players: 0, hands: [], counts: [], positions: [], toBeat: null, toBeatSeat: null, passed: [], trick: [], last: null, illegal: null, forfeit: null, titles: null, exchange: null, leader: null, lastPositions: null, burns: 0 };
    const out = [];
    for (const e of events) {
      s = copy(s);
      s.kind = e.type;
      s.burned = false;
      switch (e.type) {
        case "game-start":
          s.players = e.players; s.hands = copy(e.hands); s.counts = e.hands.map((h) => h.length);
          s.positions = e.hands.map(() => 0); s.exchange = copy(e.exchange); s.leader = e.leader;
          s.lastPositions = copy(e["last-positions"]); s.passed = e.hands.map(() => false);
          break;
        case "turn": {
          if (e.cards) {
            const hand = s.hands[e.seat];
            for (const c of e.cards) {
              const i = hand.findIndex((h) => sameCard(h, c));
              if (i >= 0) hand.splice(i, 1);
            }
          }
          if (e.meets === "lead") { s.passed = s.passed.map(() => false); s.trick = []; }
          if (e.cards) s.trick.push({ seat: e.seat, cards: e.cards, meets: e.meets });
          else { s.passed[e.seat] = true; s.trick.push({ seat: e.seat, cards: null, meets: null }); }
          if (e.cards) s.toBeatSeat = e.seat;
          if (e.meets === "burn") { s.burns += 1; s.burned = true; }
          s.counts = e.counts.slice(); s.positions = e.positions.slice();
          s.toBeat = e.state ? copy(e.state) : null;
          if (!s.toBeat) { s.toBeatSeat = null; s.passed = s.passed.map(() => false); }
          s.last = { seat: e.seat, cards: e.cards, meets: e.meets };
          break;
        }
        case "illegal": s.illegal = { seat: e.seat, cards: e.cards, why: e.why }; break;
        case "forfeit": s.forfeit = { seat: e.seat, reason: e.reason, detail: e.detail }; break;
        case "game-end": s.positions = e.positions.slice(); s.titles = e.titles.slice(); break;
      }
      out.push(s);
    }
    return out;
  }

  const REDRAW = { "en-garde": enGarde, "connect-fwar": connectFwar, sugar, president };

  // The state after each event of a game of `game`.
  function redraw(game, events) {
    const f = REDRAW[game];
    if (!f) throw new Error(`This viewer does not know the game "${game}" (it shows ${Object.keys(REDRAW).join(", ")}).`);
    return f(events);
  }

  return { FORMATS, group, split, redraw, checkFormat, cardText };
})();

if (typeof module !== "undefined") module.exports = ArenaModel;
