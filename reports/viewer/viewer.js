/* cardgame view: draws one replayed game from the JSON in #game-data (reports/viewer.py).
   One cursor (the position shown) and one perspective (omniscient, or what one seat may
   know) drive everything; every click that names a card, a column or a steal moves the
   cursor to the turn that changed it. No library, no network. */
(function () {
  "use strict";
  const D = JSON.parse(document.getElementById("game-data").textContent);
  // the chances drawn: the play-outs' when computed, else the learned model's (no noise shown)
  const CH = D.chance || (D.model ? { p: D.model.p, se: D.model.p.map((r) => r.map(() => 0)),
    swings: [], swing: 0.1, fromModel: true } : null);
  const F = D.frames;
  const LAST = F.length - 1;
  const N = D.players;
  const CARD = D.cards; // the game's colours, then "locomotive"
  const LOCO = CARD.length - 1; // the locomotive comes after the colours
  const SEAT_HEX = ["#0072b2", "#d55e00", "#009e73", "#cc79a7"]; // Okabe-Ito: tell apart when colour-blind
  let cur = 0;
  let view = -1; // -1: omniscient; else the seat whose knowledge is shown

  // ---------------------------------------------------------------- small helpers
  const el = (tag, attrs, ...kids) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "on") node.addEventListener("click", v);
      else if (k === "text") node.textContent = v;
      else if (k === "style") node.setAttribute("style", v);
      else node.setAttribute(k, v);
    }
    for (const kid of kids.flat()) if (kid != null) node.append(kid);
    return node;
  };
  const svg = (tag, attrs) => {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    return node;
  };
  const sum = (xs) => xs.reduce((a, b) => a + b, 0);
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const seatName = (s) => `seat ${s} (${D.strategies[s]})`;
  const sees = (s) => view === -1 || view === s; // whether the shown view sees seat s's hand
  const pct = (p) => `${Math.round(p * 100)}%`;
  const turnName = (i) => (i === 0 ? "setup" : `turn ${i}`);

  /* The last position <= cur at which get(i) took its present value: the turn that
     changed it (0, the setup, if it never changed). */
  function changedAt(get) {
    const now = get(cur);
    for (let i = cur; i > 0; i--) if (get(i - 1) !== now) return i;
    return 0;
  }
  function jump(i, why) {
    return (ev) => {
      ev.stopPropagation();
      go(i);
      if (why) flash(why);
    };
  }
  let flashTimer = 0;
  function flash(text) {
    const note = document.getElementById("flash");
    note.textContent = text;
    clearTimeout(flashTimer);
    flashTimer = setTimeout(() => (note.textContent = ""), 4000);
  }
  function cardChip(kind, count, title, onclick, big) {
    const label = kind === LOCO ? `loco ×${count}` : `${count}`;
    return el("span", { class: `card k${kind}${big ? " big" : ""}`, title, on: onclick,
      "data-kind": CARD[kind] }, label);
  }
  function destName(id) {
    const d = D.destinations[id];
    return `#${id} ${d[0]}-${d[1]} (${d[2]})`;
  }

  // ---------------------------------------------------------------- layout (built once)
  const app = document.getElementById("app");
  app.textContent = "";
  const title = `Ticket to Ride: The Card Game — game ${D.seed}, ${N} players`;
  const header = el("header", {},
    el("h1", { text: title }),
    el("div", { class: "meta" },
      el("span", {}, "seed ", el("b", { text: String(D.seed) })),
      el("span", {}, "rules: ", el("b", { text: D.rulesLine, title: JSON.stringify(D.rules) })),
      el("span", {}, "seats: ", ...D.strategies.map((name, s) =>
        el("b", { style: `color:${SEAT_HEX[s]}`, text: `${s} ${name}${s < N - 1 ? ", " : ""}` }))),
      D.unfinished ? el("span", { class: "warn", text: `unfinished: stopped after ${plural(LAST, "turn")}` }) : null));
  const where = el("span", { id: "where" });
  const slider = el("input", { type: "range", min: "0", max: String(LAST), value: "0",
    "aria-label": "position" });
  slider.addEventListener("input", () => go(Number(slider.value)));
  const persp = el("div", { class: "persp" }, el("span", { text: "Perspective:" }));
  const perspButtons = [];
  for (let s = -1; s < N; s++) {
    const b = el("button", { "data-seat": String(s), text: s === -1 ? "everything" : `seat ${s}`,
      title: s === -1 ? "every hand, pile and destination (omniscient)"
        : `what ${seatName(s)} may know: its own hand and destinations; rivals' hands, ` +
          "their destinations and every circulation pile (face down, R9) as counts" });
    b.addEventListener("click", () => setView(s));
    perspButtons.push(b);
    persp.append(b);
  }
  const toolbar = el("div", { class: "toolbar" },
    el("button", { title: "first position (Home)", on: () => go(0), text: "|◀" }),
    el("button", { title: "one round of the table back ([)", on: () => go(cur - N), text: "«" }),
    el("button", { title: "previous turn (←)", on: () => go(cur - 1), text: "◀" }),
    el("button", { title: "next turn (→)", on: () => go(cur + 1), text: "▶" }),
    el("button", { title: "one round of the table on (])", on: () => go(cur + N), text: "»" }),
    el("button", { title: "last position (End)", on: () => go(LAST), text: "▶|" }),
    where, slider, persp,
    el("button", { title: "keys (?)", on: () => help(true), text: "?" }),
    el("span", { id: "flash", class: "none" }));
  const tableBox = el("div", { class: "box", id: "table" });
  const seatsBox = el("div", { class: "seats", id: "seats" });
  const resultBox = el("div", { id: "result" });
  const now = el("div", { id: "now" });
  const log = el("div", { id: "log" });
  const chanceBox = el("section", { id: "chance", class: "box" });
  app.append(header, toolbar,
    el("main", {},
      el("div", {}, el("section", {}, tableBox), resultBox, seatsBox),
      el("aside", {}, now, log),
      chanceBox));
  const helpBox = el("div", { id: "help", on: () => help(false) },
    el("div", {},
      el("h2", { text: "Keys" }),
      el("table", {}, ...[
        ["← / →", "one turn back / on"], ["Home / End", "the setup / the last position"],
        ["[ / ]", `one round of the table (${N} turns) back / on`],
        ["p", "next perspective: everything, then each seat's"], ["?", "this help (Esc closes)"],
      ].map(([k, what]) => el("tr", {}, el("td", {}, ...k.split(" / ").map((x, j) =>
        j ? [" / ", el("kbd", { text: x })] : el("kbd", { text: x }))), el("td", { text: what })))),
      el("p", { class: "none", text: "Click a card, a yard column, a destination or a steal to jump " +
        "to the turn that changed it; click the chart or a line of the log to jump to that turn." })));
  app.append(helpBox);

  // the log: one line per position, built once
  const logRows = F.map((f, i) => {
    const row = el("div", { "data-turn": String(i), on: () => go(i) });
    log.append(row);
    return row;
  });

  // ---------------------------------------------------------------- drawing one position
  function lineText(line) {
    const [whole, seat, pub] = line;
    return seat === null || sees(seat) || pub === null ? whole : pub;
  }
  function drawTable(f) {
    tableBox.textContent = "";
    const row = el("div", { class: "cards" });
    f.f.forEach((card, slot) => {
      const at = changedAt((i) => F[i].f[slot]);
      const why = `face-up slot ${slot}: ${card < 0 ? "empty" : CARD[card]} since ${turnName(at)}`;
      row.append(card < 0
        ? el("span", { class: "card big empty", title: why, on: jump(at, why) }, "empty")
        : el("span", { class: `card big k${card}`, title: why, on: jump(at, why),
          "data-kind": CARD[card] }, card === LOCO ? "loco" : CARD[card]));
    });
    const discard = f.x.map((n, k) => (n ? `${n} ${CARD[k]}` : "")).filter(Boolean).join(", ");
    tableBox.append(
      el("div", { class: "row" },
        el("div", {}, el("h2", { text: "Face-up row" }), row),
        el("div", { class: "count", title: "train cards left in the deck" }, String(f.d),
          el("small", { text: "train deck" })),
        el("div", { class: "count", title: discard || "empty" }, String(sum(f.x)),
          el("small", { text: "discard pile" })),
        el("div", { class: "count", title: "destination cards left" }, String(f.dd),
          el("small", { text: "destination deck" })),
        el("div", { class: "count" }, `${f.round}`,
          el("small", { text: `round (of ${D.rules.rounds[String(N)]})` }))));
  }

  function partRow(label, ...content) {
    return el("div", { class: "part" }, el("span", { text: label }), ...content);
  }
  function hidden(n, what, at) {
    const why = `${what}: ${plural(n, "card")}, changed at ${turnName(at)}`;
    return el("div", { class: "cards" },
      el("span", { class: "card back", title: why, on: jump(at, why) }, plural(n, "card")));
  }
  function pile(counts, s, field, what) {
    if (!sum(counts)) return el("div", { class: "cards" }, el("span", { class: "none", text: "empty" }));
    const box = el("div", { class: "cards" });
    counts.forEach((n, k) => {
      if (!n) return;
      const at = changedAt((i) => F[i][field][s][k]);
      const why = `${what} of seat ${s}: ${n} ${CARD[k]}, changed at ${turnName(at)}`;
      box.append(cardChip(k, n, why, jump(at, why)));
    });
    return box;
  }
  function yard(f, s) {
    const box = el("div", { class: "yard" });
    for (let c = 0; c < 8; c++) {
      if (f.yo[c] !== s) continue;
      // placed: the last position at which the column appeared or grew
      const size = (i) => F[i].yw[c] + F[i].yl[c];
      let placed = cur;
      while (placed > 0 && F[placed - 1].yo[c] === s && size(placed) <= size(placed - 1)) placed--;
      const w = f.yw[c], l = f.yl[c];
      const why = `${CARD[c]} column of seat ${s}: ${w} wagons` + (l ? ` + ${l} locomotives` : "") +
        `, placed at ${turnName(placed)}`;
      const col = el("div", { class: "col", title: why, on: jump(placed, why), "data-colour": CARD[c] });
      for (let j = 0; j < w; j++) col.append(el("i", { class: `k${c}` }));
      for (let j = 0; j < l; j++) col.append(el("i", { class: "k8" }));
      col.append(el("b", { text: l ? `${w}+${l}` : `${w}` }));
      box.append(col);
    }
    if (!box.childNodes.length) box.append(el("span", { class: "none", text: "empty" }));
    return box;
  }
  function destChip(id, s, cls, mark) {
    const d = D.destinations[id];
    let since = cur;
    while (since > 0 && !F[since].kept[s].includes(Number(id))) since--;
    const why = `${destName(id)}: needs ${d[3].map((c) => CARD[c]).join(" + ")}` +
      (d[4] ? `; ${d[4]} big ${d[4] === 1 ? "city" : "cities"}` : "") + `; kept at ${turnName(since)}`;
    return el("div", { class: `dest ${cls}`, title: why, on: jump(since, why) },
      el("span", { class: "need" }, ...d[3].map((c) => el("i", { class: `k${c}` }))),
      el("span", { text: destName(id) }), mark ? el("span", { class: "mark", text: mark }) : null);
  }
  function destinations(f, s) {
    const box = el("div", { class: "dests" });
    const res = f.res;
    const over = cur === LAST && !D.unfinished;
    if (sees(s)) {
      for (const id of f.held[s]) {
        let cls = f.kept[s].includes(id) ? "new" : "";
        let mark = cls ? "kept now" : "";
        if (res && res.reached[s].includes(id)) [cls, mark] = ["reached", "✓ reached"];
        else if (res && res.unreached[s].includes(id)) {
          [cls, mark] = ["missed", over ? `✗ −${D.destinations[id][2]}` : "✗ not reached"];
        }
        box.append(destChip(id, s, cls, mark));
      }
    } else {
      const n = f.held[s].length;
      const kept = f.kept[s].length;
      const at = changedAt((i) => F[i].held[s].length);
      box.append(el("div", { class: "cards" }, el("span", { class: "card back",
        title: `destinations seat ${s} holds (hidden), changed at ${turnName(at)}`, on: jump(at) },
      plural(n, "destination")), kept ? el("span", { class: "none", text: ` (kept ${kept} now)` }) : null));
      if (res) {
        box.append(el("span", { class: "none", text:
          `resolution: ${res.reached[s].length} reached, ${res.unreached[s].length} not reached` }));
      }
    }
    for (const id of f.reached[s]) box.append(destChip(id, s, "reached", "✓ set aside"));
    if (!box.childNodes.length) box.append(el("span", { class: "none", text: "none" }));
    return box;
  }
  function steals(s) {
    const out = [];
    for (let i = 1; i <= cur; i++) {
      const st = F[i].steal;
      if (!st || (st.by !== s && st.victim !== s)) continue;
      const took = st.by === s;
      const text = took ? `took ${CARD[st.colour]} from ${st.victim}` : `lost ${CARD[st.colour]} to ${st.by}`;
      const why = `${turnName(i)}: seat ${st.by} beat seat ${st.victim}'s ${CARD[st.colour]} column; ` +
        `${plural(st.cards, "card")} discarded (R12)`;
      out.push(el("span", { class: `steal ${took ? "took" : "lost"}`, title: why, on: jump(i, why) },
        el("b", { text: `t${i}` }), ` ${text}`));
    }
    return out.length ? el("div", {}, ...out) : el("span", { class: "none", text: "none" });
  }
  function drawSeats(f) {
    seatsBox.textContent = "";
    const p = CH ? CH.p[cur] : null;
    for (let s = 0; s < N; s++) {
      const winner = cur === LAST && D.result && D.result.winners.includes(s);
      const panel = el("section", { class: `seat${f.seat === s ? " acted" : ""}`,
        style: `--c:${SEAT_HEX[s]}`, "data-seat": String(s) },
        el("h3", {}, el("span", { text: `Seat ${s}` }), el("span", { class: "tag", text: D.strategies[s] }),
          f.seat === s ? el("span", { class: "tag", text: "played this turn" }) : null,
          view === s ? el("span", { class: "tag", text: "perspective" }) : null,
          winner ? el("span", { class: "tag win", text: "winner" }) : null,
          p ? el("span", { class: "odds", title: `chance of winning after this turn (${CH.fromModel ? "learned model" : "play-outs"})`,
            text: `win chance ${pct(p[s])}` }) : null),
        partRow("Hand", sees(s) ? pile(f.h[s], s, "h", "hand")
          : hidden(sum(f.h[s]), `hand of seat ${s}`, changedAt((i) => sum(F[i].h[s])))),
        partRow("Rail yard", yard(f, s)),
        partRow("Circulation", view === -1 ? pile(f.c[s], s, "c", "circulation pile")
          : hidden(sum(f.c[s]), `circulation pile of seat ${s} (face down, R9)`,
            changedAt((i) => sum(F[i].c[s])))),
        partRow("Destinations", destinations(f, s)),
        partRow("Steals", steals(s)));
      seatsBox.append(panel);
    }
  }
  function drawResult() {
    resultBox.textContent = "";
    if (cur !== LAST || !D.result) return;
    const r = D.result;
    const rows = r.scores.map((sc) => el("tr", { class: r.winners.includes(sc.seat) ? "win" : "" },
      el("td", { text: seatName(sc.seat) }), el("td", { text: String(sc.reached) }),
      el("td", { text: String(sc.destination_points) }), el("td", { text: sc.penalties ? `−${sc.penalties}` : "0" }),
      el("td", { text: `+${sc.bonus_points}` }), el("td", { text: String(sc.total) }),
      el("td", { text: sc.big_city_bonuses.join(", ") || "—" })));
    const won = r.winners.map((s) => `seat ${s}`).join(" and ");
    resultBox.append(el("section", { class: "box", style: "margin-top:12px" },
      el("h2", { text: "Final scores (R20-R22)" }),
      el("table", { class: "result" },
        el("tr", {}, ...["seat", "reached", "destination points", "penalties", "big-city bonus",
          "total", "big cities won"].map((h) => el("th", { text: h }))), ...rows),
      el("p", { text: `${won} ${r.winners.length === 1 ? "wins" : "share the win"} after ` +
        `${plural(r.turns, "turn")}.` })));
  }
  function drawNow(f) {
    now.textContent = "";
    const head = cur === 0 ? "Setup: destinations kept"
      : `Turn ${cur} · round ${f.round} · ${seatName(f.seat)}`;
    now.append(el("h2", { text: head }));
    for (const line of f.lines) now.append(el("p", { class: line[1] === null ? "sub" : "", text: lineText(line) }));
    logRows.forEach((row, i) => {
      const first = F[i].lines.find((l) => l[1] !== null) || F[i].lines[0];
      row.textContent = i === 0 ? "Setup" : lineText(first);
      row.title = row.textContent;
      row.classList.toggle("on", i === cur);
    });
    const on = logRows[cur];
    const top = on.offsetTop - log.offsetTop;
    if (top < log.scrollTop || top > log.scrollTop + log.clientHeight - 20) {
      log.scrollTop = top - log.clientHeight / 2;
    }
  }

  // ---------------------------------------------------------------- the win-chance chart
  const W = 1000, H = 250, L = 46, R = 14, T = 12, B = 40;
  const x = (i) => L + (LAST ? (i / LAST) * (W - L - R) : 0);
  const y = (p) => T + (1 - p) * (H - T - B);
  let cursorLine = null, cursorDots = [], legendValues = [];
  function buildChart() {
    const C = CH;
    if (!C) {
      chanceBox.append(el("h2", { text: "Chance of winning" }),
        el("p", { class: "none", text: "Not computed for this page (cardgame view --playouts 0)." }));
      return;
    }
    const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`,
      role: "img", "aria-label": "each seat's chance of winning after each turn" });
    for (const p of [0, 0.25, 0.5, 0.75, 1]) {
      chart.append(svg("line", { class: "grid", x1: L, x2: W - R, y1: y(p), y2: y(p) }));
      const label = svg("text", { class: "axis", x: L - 6, y: y(p) + 4, "text-anchor": "end" });
      label.textContent = pct(p);
      chart.append(label);
    }
    const step = [1, 2, 5, 10, 20, 25, 50, 100].find((s) => LAST / s <= 12) || 200;
    for (let i = 0; i <= LAST; i += step) {
      const label = svg("text", { class: "axis", x: x(i), y: H - B + 15, "text-anchor": "middle" });
      label.textContent = String(i);
      chart.append(label);
    }
    const axisName = svg("text", { class: "axis", x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle" });
    axisName.textContent = "turn (0: after setup)";
    chart.append(axisName);
    for (let i = 1; i <= LAST; i++) {
      if (F[i].round !== F[i - 1].round && i > 1) {
        chart.append(svg("line", { class: "round", x1: x(i - 0.5), x2: x(i - 0.5), y1: T, y2: H - B }));
        const label = svg("text", { class: "axis", x: x(i - 0.5) + 4, y: T + 10 });
        label.textContent = `round ${F[i].round}`;
        chart.append(label);
      }
    }
    for (let s = 0; s < N; s++) {
      const d = C.p.map((row, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(row[s]).toFixed(1)}`).join("");
      chart.append(svg("path", { d, fill: "none", stroke: SEAT_HEX[s], "stroke-width": 2,
        "vector-effect": "non-scaling-stroke", "data-seat": String(s) }));
    }
    if (D.chance && D.model) {  // the learned model's curve beside the play-outs', dashed
      for (let s = 0; s < N; s++) {
        const d = D.model.p.map((row, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(row[s]).toFixed(1)}`).join("");
        chart.append(svg("path", { d, fill: "none", stroke: SEAT_HEX[s], "stroke-width": 1,
          "stroke-dasharray": "4 3", "vector-effect": "non-scaling-stroke", "data-model-seat": String(s) }));
      }
    }
    cursorLine = svg("line", { class: "cursor", y1: T, y2: H - B, "vector-effect": "non-scaling-stroke" });
    chart.append(cursorLine);
    for (let s = 0; s < N; s++) {
      const dot = svg("circle", { r: 4, fill: SEAT_HEX[s] });
      cursorDots.push(dot);
      chart.append(dot);
    }
    for (const sw of C.swings) {
      const ring = svg("circle", { class: "swing", cx: x(sw.turn), cy: y(C.p[sw.turn][sw.seat]), r: 6,
        stroke: SEAT_HEX[sw.seat], "data-turn": String(sw.turn), "vector-effect": "non-scaling-stroke" });
      const tip = svg("title", {});
      tip.textContent = swingText(sw);
      ring.append(tip);
      ring.addEventListener("click", jump(sw.turn, swingText(sw)));
      chart.append(ring);
    }
    chart.addEventListener("click", (ev) => {
      const box = chart.getBoundingClientRect();
      const at = ((ev.clientX - box.left) / box.width) * W;
      go(Math.round(((at - L) / (W - L - R)) * LAST));
    });
    const legend = el("div", { class: "legend" });
    for (let s = 0; s < N; s++) {
      const value = el("b", {});
      legendValues.push(value);
      legend.append(el("span", { style: `--c:${SEAT_HEX[s]}`,
        title: "chance of winning after the turn shown, ± two standard errors of the play-outs" },
      el("i", {}), `${seatName(s)}: `, value));
    }
    const swingList = el("div", { id: "swings" },
      el("span", { class: "none", text: C.swings.length ? "Swings:" : "No swing of 10 points or more beyond the noise." }),
      ...C.swings.map((sw) => el("button", { on: jump(sw.turn, swingText(sw)), text: swingShort(sw),
        title: swingText(sw), style: `color:${SEAT_HEX[sw.seat]}` })));
    const modelText = D.model ? "the learned standing model (sims/standing.py): each seat's " +
      "standing in counts and points, and the strength of the strategy that plays it" +
      (D.model.unknown.length ? ` (not known to the model, counted as an average player: ${D.model.unknown.join(", ")})` : "") +
      "; it sees every hidden card as the play-outs do" : "";
    if (C.fromModel) {
      chanceBox.append(el("h2", { text: "Chance of winning after each turn" }), legend, chart,
        el("p", { class: "caption", text: `Each point: ${modelText}. No play-outs were run ` +
          "(cardgame view --playouts 0): no noise is shown and no swing is marked. Click the chart to go to that turn." }));
      return;
    }
    const who = [...new Set(C.policies)].length === 1 ? `${C.policies[0]} at every seat`
      : C.policies.map((p, s) => `seat ${s}: ${p}`).join(", ");
    chanceBox.append(el("h2", { text: "Chance of winning after each turn" }), legend, chart, swingList,
      el("p", { class: "caption", text:
        `Each point: ${C.playouts} games played out from the true position after that turn ` +
        `(${who}; ${C.engine} engine), every hand, pile and destination as they were, only the ` +
        "order of the unseen cards drawn anew; a shared win counts as a share. It uses what no " +
        "seat could see, so it is not what a seat knew. ± in the legend: two standard errors. Rings: swings of " +
        `${Math.round(C.swing * 100)} points or more that exceed two standard errors of the change ` +
        "(the play-outs' noise). Click the chart or a ring to go to that turn." +
        (D.model ? ` Dashed: ${modelText}.` : "") }));
  }
  function swingShort(sw) {
    const sign = sw.change > 0 ? "+" : "−";
    return `turn ${sw.turn}: seat ${sw.seat} ${sign}${Math.round(Math.abs(sw.change) * 100)}`;
  }
  function swingText(sw) {
    const p = CH.p;
    return `turn ${sw.turn}: ${seatName(sw.seat)} ${pct(p[sw.turn - 1][sw.seat])} → ` +
      `${pct(p[sw.turn][sw.seat])} (noise: ±${Math.round(sw.noise * 100)} points)`;
  }
  function drawChart() {
    if (!CH) return;
    cursorLine.setAttribute("x1", x(cur));
    cursorLine.setAttribute("x2", x(cur));
    const p = CH.p[cur], se = CH.se[cur];
    for (let s = 0; s < N; s++) {
      cursorDots[s].setAttribute("cx", x(cur));
      cursorDots[s].setAttribute("cy", y(p[s]));
      legendValues[s].textContent = se[s] ? `${pct(p[s])} ± ${Math.round(200 * se[s])}` : pct(p[s]);
    }
  }

  // ---------------------------------------------------------------- cursor, perspective, keys
  function draw() {
    const f = F[cur];
    slider.value = String(cur);
    where.textContent = cur === 0 ? `Setup (of ${LAST} turns)` : `Turn ${cur} of ${LAST} · round ${f.round}`;
    perspButtons.forEach((b) => b.classList.toggle("on", Number(b.dataset.seat) === view));
    drawTable(f);
    drawResult();
    drawSeats(f);
    drawNow(f);
    drawChart();
    document.body.dataset.turn = String(cur);
    document.body.dataset.view = String(view);
    history.replaceState(null, "", `#turn=${cur}&view=${view}`);
  }
  function go(i) {
    const next = Math.max(0, Math.min(LAST, Number.isFinite(i) ? i : cur));
    if (next !== cur) {
      cur = next;
      draw();
    }
  }
  function setView(s) {
    view = s;
    draw();
  }
  function help(on) {
    helpBox.classList.toggle("on", on);
  }
  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const moves = { ArrowLeft: -1, ArrowRight: 1, "[": -N, "]": N };
    if (ev.key in moves) go(cur + moves[ev.key]);
    else if (ev.key === "Home") go(0);
    else if (ev.key === "End") go(LAST);
    else if (ev.key === "?") help(!helpBox.classList.contains("on"));
    else if (ev.key === "Escape") help(false);
    else if (ev.key === "p") setView(view + 1 < N ? view + 1 : -1);
    else return;
    ev.preventDefault();
  });

  // a link to a position: #turn=T&view=S (the page keeps its address in step)
  function fromAddress() {
    const start = /turn=(\d+)/.exec(location.hash);
    const seen = /view=(-?\d+)/.exec(location.hash);
    cur = start ? Math.min(LAST, Number(start[1])) : 0;
    view = seen && Number(seen[1]) < N ? Math.max(-1, Number(seen[1])) : -1;
    draw();
  }
  window.addEventListener("hashchange", fromAddress);
  buildChart();
  fromAddress();
})();
