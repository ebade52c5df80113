// ConnectFwar in the replay viewer: its states from its events (the model,
// tested under Node against the rules by tests/view.rs) and its board.
"use strict";

ArenaModel.game({
  name: "connect-fwar",
  title: "ConnectFwar",
  // Its aces are low: rank 1 is drawn "A".
  aceLow: true,

  redraw(events) {
    let s = { columns: [[], [], [], []], deckRemaining: 52, discard: [], drawn: null, last: null, connected: null, score: null, forfeit: null, over: false };
    const out = [];
    const copy = ArenaModel.copy;
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
  },

  marker(e) {
    return e.type === "draw" && e.connected ? "point" : null;
  },

  describe(e, s, { card }) {
    if (e.type !== "draw") return undefined;
    return `drew ${card(e.card, true)}, named column ${e.answer}: ${e.placed === null ? "discarded" : "placed in column " + e.placed}${e.connected ? `, connects ${e.connected.kind} ${e.connected.index}` : ""}`;
  },

  board(s, e, { h, view, card, list, known, forfeitBox }) {
    const line = new Set();
    if (s.connected) {
      for (let k = 0; k < 4; k++) {
        const [c, r] = { row: [k, s.connected.index], column: [s.connected.index, k], diagonal: [k, k], "anti-diagonal": [k, 3 - k] }[s.connected.kind] || [-1, -1];
        line.add(`${c},${r}`);
      }
    }
    const grid = [];
    for (let r = 3; r >= 0; r--) {
      for (let c = 0; c < 4; c++) {
        const column = list(s.columns[c]);
        const cd = column[r];
        const hot = s.last && s.last.placed === c && column.length - 1 === r && e.type === "draw";
        grid.push(h`<div class="cell${line.has(`${c},${r}`) ? " connected" : ""}">${cd ? card(cd, false, hot ? "hot" : "") : ""}</div>`);
      }
    }
    for (let c = 0; c < 4; c++) grid.push(h`<div class=colno>${c}</div>`);
    const drawn = s.last && e.type === "draw" ? h`<div>drawn: ${card(s.last.card)} named column ${s.last.answer}: ${s.last.placed === null ? h`<b>discarded</b>` : "placed"}</div>` : "";
    const upcoming = list(s.deck).slice(s.deck ? s.deck.length - s.deckRemaining : 0).slice(0, 5);
    const next = view.showHidden && s.deck && known(s.deck) && s.deckRemaining > 0 ? h`<div class=dim>next in the deck: ${upcoming.map((c) => card(c, true)).join(" ")}</div>` : "";
    const discard = list(s.discard);
    return h`<div class=cf><div class=grid4>${grid}</div><div class=side>${drawn}
        <div>${s.deckRemaining} cards in the deck${s.score !== null ? h` · <b>score ${s.score}</b>` : ""}</div>
        <div>discarded (${discard.length}): ${discard.slice(-12).map((c) => card(c, false))}</div>${next}</div>${forfeitBox(s.forfeit)}</div>`;
  },
});
