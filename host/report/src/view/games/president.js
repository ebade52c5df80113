// President in the replay viewer: its states from its events (the model,
// tested under Node against the rules by tests/view.rs) and its table.
"use strict";

ArenaModel.game({
  name: "president",
  title: "President",

  redraw(events) {
    const copy = ArenaModel.copy;
    const sameCard = (a, b) => a.kind === b.kind && (a.kind === "joker" || (a.rank === b.rank && a.suit === b.suit));
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
              const i = hand.findIndex((h) => h && sameCard(h, c));
              // A hand left out of this replay (not the viewer's): one face-down card goes.
              const at = i >= 0 ? i : hand.indexOf(null);
              if (at >= 0) hand.splice(at, 1);
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
  },

  marker(e, prev, next) {
    if (e.type !== "turn") return null;
    if (e.meets === "burn") return "kill";
    return prev && next && next.positions.some((p, i) => p && !prev.positions[i]) ? "point" : null;
  },

  describe(e, s, { name, card }) {
    if (e.type !== "turn") return undefined;
    return e.cards ? `${name(e.seat)} plays ${e.cards.map((c) => card(c, true)).join(" ")} (${e.meets})` : `${name(e.seat)} passes`;
  },

  board(s, e, { h, view, name, card, back, list, known, joined, ordinal, describe, forfeitBox }) {
    const rows = [];
    const counts = list(s.counts);
    for (let seat = 0; seat < counts.length; seat++) {
      const out = list(s.positions)[seat];
      const title = s.titles ? s.titles[seat] : null;
      const turn = e.type === "turn" && e.seat === seat;
      // A player out of the game holds nothing (its cards left the game, rule 10.1).
      const hand = counts[seat] === 0 ? "" : view.showHidden && known(s.hands[seat]) ? list(s.hands[seat]).map((c) => card(c)) : back(counts[seat]);
      const swap = s.exchange && s.exchange[seat];
      const ex = swap && (list(swap[0]).length || list(swap[1]).length) && e.type === "game-start"
        ? h`<div class=dim>gave ${list(swap[0]).map((c) => card(c, true)).join(" ") || "nothing"}, received ${list(swap[1]).map((c) => card(c, true)).join(" ") || "nothing"}</div>` : "";
      rows.push(h`<div class="seatrow${turn ? " turn" : ""}${out ? " out" : ""}"><div class=who><b>${name(seat)}</b>${s.leader === seat && e.type === "game-start" ? " (leads)" : ""}
          ${out ? h`<span class=pos>${ordinal(out)}${title ? " · " + title : ""}</span>` : ""}${list(s.passed)[seat] && !out ? h` <span class=pass>passed</span>` : ""}</div>
          <div class=hand>${hand} <span class=dim>${counts[seat]} cards</span></div>${ex}</div>`);
    }
    const beat = s.toBeat ? list(s.toBeat).map((c) => card(c)) : h`<span class=dim>nothing: the next player leads</span>`;
    const burn = s.burned ? h`<div class=banner>Burn! The pile is cleared and the same player leads again.</div>` : "";
    const illegal = s.illegal && e.type === "illegal" ? h`<div class=banner>${describe(e, s)}: put out as last</div>` : "";
    const trick = joined(list(s.trick).slice(-8).map((t) => h`<span class="tr">${name(t.seat)}: ${t.cards ? list(t.cards).map((c) => card(c, true)).join(" ") : "pass"}</span>`), " ");
    return h`<div class=pr><div class=pile><div>to beat${s.toBeatSeat !== null && s.toBeat ? ` (${name(s.toBeatSeat)})` : ""}:</div>${beat}</div>${burn}${illegal}
        <div class=table>${rows}</div><div class="facts">this round: ${trick.html ? trick : "-"} · burns so far: ${s.burns}</div>${forfeitBox(s.forfeit)}</div>`;
  },
});
