// En Garde in the replay viewer: its states from its events (the model,
// tested under Node against the rules by tests/view.rs) and its board.
"use strict";

ArenaModel.game({
  name: "en-garde",
  title: "En Garde",

  redraw(events) {
    let s = { round: 0, scores: [0, 0], positions: [0, 22], hands: [[], []], deckRemaining: 0, discard: [], last: null, lastChance: null, toMove: 0, end: null, forfeit: null, over: null, variant: null };
    const out = [];
    const copy = ArenaModel.copy;
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
  },

  marker(e) {
    if (e.type !== "round-end") return null;
    // A round lost to an illegal move is the offender's fault: the legend's red mark.
    if (e.cause === "illegal-move") return "forfeit";
    return e.scorer === null || e.scorer === undefined ? "round" : "point";
  },

  describe(e, s, { name, scored }) {
    switch (e.type) {
      case "round-start": return `round ${e.round}: ${name(e["first-to-move"])} moves first`;
      case "move": return `${name(e.seat)} plays ${e.card} ${e.direction}${e.parried ? ", parried" : ""}`;
      case "last-chance": return `the deck is out: ${name(e.seat)} attacks with ${e.card} (last chance)${e.parried ? ", parried" : ""}`;
      case "round-end": {
        let t = e.scorer === null || e.scorer === undefined ? "no point" : `point to ${name(e.scorer)}`;
        t += ` (${e.cause}${e.why ? ": " + e.why : ""}${e.attempted ? `, tried ${e.attempted.card} ${e.attempted.direction}` : ""})`;
        return t + `; score ${scored(e.scores)}`;
      }
      default: return undefined;
    }
  },

  board(s, e, { h, view, name, back, list, known, describe, forfeitBox }) {
    const strip = [];
    for (let i = 0; i < 23; i++) {
      const who = s.positions[0] === i ? 0 : s.positions[1] === i ? 1 : -1;
      strip.push(h`<div class="space${who >= 0 ? " fencer seat" + who : ""}" title="space ${i}">${who >= 0 ? (who === 0 ? "▶" : "◀") : ""}<i>${i}</i></div>`);
    }
    const hand = (seat) => {
      const cards = list(s.hands[seat]);
      const shown = view.showHidden && known(cards) ? cards.map((c) => h`<span class="card">${c}</span>`) : back(cards.length);
      const played = s.last && s.last.seat === seat && (e.type === "move") ? h`<span class="played">played <span class="card hot">${s.last.card}</span> ${s.last.direction}${s.last.parried ? " - parried" : ""}</span>` : "";
      return h`<div class="hand seat${seat}"><b>${name(seat)}</b> <span class=score>${list(s.scores)[seat]}</span> ${shown} ${played}</div>`;
    };
    const extra = [];
    if (e.type === "last-chance" && s.lastChance) extra.push(h`<div class=banner>Last chance: ${name(s.lastChance.seat)} attacks with ${s.lastChance.card}${s.lastChance.parried ? " - parried" : ""}</div>`);
    if (s.end) extra.push(h`<div class=banner>${describe(e, s)}</div>`);
    const deck = view.showHidden && s.deck && known(s.deck) && s.deckRemaining > 0 ? `deck order: ${list(s.deck).slice(s.deck.length - s.deckRemaining).join(" ")}` : "";
    return h`<div class=eg>${hand(0)}<div class=strip>${strip}</div>${hand(1)}
        <div class=facts>round ${s.round} · first to 5 points · ${s.deckRemaining} cards in the deck · discarded: ${list(s.discard).join(" ") || "none"} ${deck ? "· " + deck : ""}</div>
        ${extra}${forfeitBox(s.forfeit)}</div>`;
  },
});
