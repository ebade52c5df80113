// Sugargame in the replay viewer: its states from its events (the model,
// tested under Node against the rules by tests/view.rs) and its board.
"use strict";

ArenaModel.game({
  name: "sugar",
  title: "Sugargame",
  // Nothing is hidden: no cards to show or hide.
  hides: false,

  redraw(events) {
    let s = { step: 0, maxSteps: 0, capacity: null, sugar: null, agents: [], scores: [0, 0], collected: [0, 0], kills: [0, 0], last: null, killed: [], illegal: null, forfeit: null, over: null };
    const out = [];
    const copy = ArenaModel.copy;
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
  },

  marker(e) {
    return e.type === "step" && e.killed && e.killed.length ? "kill" : null;
  },

  describe(e, s, { name }) {
    switch (e.type) {
      case "placement": return "both sides placed their agents";
      case "step": {
        const a = e.action;
        let t = a.kind === "pass" ? `${name(e.seat)} passes` : `${name(e.seat)} moves agent ${a.agent} ${a.direction}`;
        if (e.collected) t += `, collects ${e.collected}`;
        if (e.killed && e.killed.length) t += `, kills agent${e.killed.length > 1 ? "s" : ""} ${e.killed.join(", ")}`;
        return t;
      }
      default: return undefined;
    }
  },

  board(s, e, { h, view, name, list, describe, forfeitBox }) {
    const at = new Map();
    for (const a of list(s.agents)) at.set(`${a.x},${a.y}`, a);
    const prev = view.states[view.at - 1];
    const gone = new Map();
    const killed = list(s.killed);
    if (prev && killed.length) for (const a of list(prev.agents)) if (killed.includes(a.id)) gone.set(`${a.x},${a.y}`, a);
    const grid = [];
    const sugarRows = list(s.sugar);
    for (let y = 0; y < 5; y++) {
      for (let x = 0; x < 5; x++) {
        const level = Number(sugarRows[y] ? sugarRows[y][x] : 0) || 0;
        const a = at.get(`${x},${y}`);
        const k = gone.get(`${x},${y}`);
        const moved = s.last && s.last.action && s.last.action.kind === "move" && a && a.id === s.last.action.agent && e.type === "step";
        grid.push(h`<div class="sq" style="--sugar:${level / 4}" title="(${x}, ${y}): sugar ${level}">
            <span class=level>${level}</span>${a ? h`<span class="agent seat${a.owner}${moved ? " hot" : ""}">${a.id}</span>` : ""}${k && !a ? h`<span class="agent dead">✕</span>` : ""}</div>`);
      }
    }
    const side = (seat) => h`<div class="hand seat${seat}"><b>${name(seat)}</b> <span class=score>${list(s.scores)[seat]}</span> points · collected ${list(s.collected)[seat]} · kills ${list(s.kills)[seat]} · agents ${list(s.agents).filter((a) => a.owner === seat).length}</div>`;
    const illegal = s.illegal ? h`<div class=banner>${name(s.illegal.seat)} made an illegal step (${s.illegal.why}) and loses</div>` : "";
    return h`<div class=su>${side(0)}${side(1)}<div class=grid5>${grid}</div>
        <div class=facts>step ${s.step} of ${s.maxSteps}${s.last && e.type === "step" ? " · " + describe(e, s) : ""}</div>${illegal}${forfeitBox(s.forfeit)}</div>`;
  },
});
