// The display board: draws what the table publishes on MQTT, as relayed by the board's
// event stream (/events). Every event is one MQTT message: "status", "state",
// "roadmap" (the retained ones, sent again whenever the stream reconnects), "card",
// "result" and "irregularity". The board keeps nothing of its own beyond what it was
// last sent.
'use strict';

(function () {
  const SVG = 'http://www.w3.org/2000/svg';
  const CELL = 10; // SVG units a road cell

  // Columns shown of each road; the newest columns stay in view as a shoe grows.
  const ROADS = {
    bead_plate: { id: 'bead-plate', cols: 12 },
    big_road: { id: 'big-road', cols: 30 },
    big_eye_boy: { id: 'big-eye-boy', cols: 60 },
    small_road: { id: 'small-road', cols: 30 },
    cockroach_pig: { id: 'cockroach-pig', cols: 30 },
  };
  const ROWS = 6;

  const SUITS = { S: '\u2660', H: '\u2665', D: '\u2666', C: '\u2663' };
  const RANKS = { T: '10' };
  const WINNER_TEXT = { banker: 'BANKER WINS', player: 'PLAYER WINS', tie: 'TIE' };
  const PHASE_TEXT = {
    'no-shoe': 'Waiting for a shoe',
    'burning': 'Burning cards',
    'betting-open': 'Place your bets',
    'dealing': 'No more bets',
    'complete': 'Result',
    'shoe-done': 'Last round of the shoe',
  };

  const $ = (id) => document.getElementById(id);

  // What the board knows: the latest of each retained message, and the round's cards.
  const board = { shoe: null, round: null, cards: {}, status: null };

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function svgEl(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }

  // ---- cards and the current round ----

  function cardElement(code) {
    const c = el('div', 'card');
    if (typeof code !== 'string' || code.length !== 2) {
      c.appendChild(el('span', 'rank', '?'));
      return c;
    }
    const rank = RANKS[code[0]] || code[0];
    const suit = SUITS[code[1]] || '?';
    if (code[1] === 'H' || code[1] === 'D') c.classList.add('red');
    c.dataset.card = code;
    c.appendChild(el('span', 'rank', rank));
    c.appendChild(el('span', 'suit', suit));
    return c;
  }

  function drawCards(player, banker) {
    for (const slot of document.querySelectorAll('.slot')) {
      const code = board.cards[slot.dataset.slot];
      slot.replaceChildren();
      if (code) slot.appendChild(cardElement(code));
    }
    // A hand's points show once it has a card.
    const has = (p) => Object.keys(board.cards).some((s) => s[0] === p);
    $('player-points').textContent = has('P') ? String(player) : '–';
    $('banker-points').textContent = has('B') ? String(banker) : '–';
  }

  function setWinner(w) {
    $('player-hand').classList.toggle('winner', w === 'player');
    $('banker-hand').classList.toggle('winner', w === 'banker');
  }

  // ---- roads ----

  function grid(svg, cols, rows) {
    svg.setAttribute('viewBox', `0 0 ${cols * CELL} ${rows * CELL}`);
    svg.setAttribute('preserveAspectRatio', 'xMinYMin meet');
    let d = '';
    for (let c = 0; c <= cols; c++) d += `M${c * CELL} 0V${rows * CELL}`;
    for (let r = 0; r <= rows; r++) d += `M0 ${r * CELL}H${cols * CELL}`;
    svg.appendChild(svgEl('path', { class: 'grid', d }));
  }

  // layout returns the number of rows and the first column shown for a road's cells.
  function layout(cells, cols) {
    let maxCol = -1;
    let rows = ROWS;
    for (const c of cells) {
      if (c.col > maxCol) maxCol = c.col;
      if (c.row + 1 > rows) rows = c.row + 1;
    }
    return { rows, first: Math.max(0, maxCol + 2 - cols) };
  }

  function cellGroup(cls, c, first) {
    const g = svgEl('g', {
      class: cls,
      transform: `translate(${(c.col - first) * CELL} ${c.row * CELL})`,
      'data-col': c.col,
      'data-row': c.row,
    });
    return g;
  }

  const OUTCOME = { B: 'banker', P: 'player', T: 'tie' };

  // drawRoad draws a road's grid and, for each cell in view, a group at the cell's
  // column and row: mark(c) gives its class names, its data attributes and its shapes.
  function drawRoad(road, cells, mark) {
    const svg = $(ROADS[road].id);
    const { cols } = ROADS[road];
    const { rows, first } = layout(cells, cols);
    svg.replaceChildren();
    grid(svg, cols, rows);
    for (const c of cells) {
      if (c.col < first) continue;
      const { cls, data, parts } = mark(c);
      const g = cellGroup(`mark ${cls}`, c, first);
      for (const k in data) g.setAttribute(`data-${k}`, data[k]);
      for (const p of parts) if (p) g.appendChild(p);
      svg.appendChild(g);
    }
  }

  function label(cls, text) {
    const t = svgEl('text', { class: cls, x: 5, y: 5.2 });
    t.textContent = text;
    return t;
  }

  function pairDots(c) {
    return [
      c.banker_pair && svgEl('circle', { class: 'pair-dot banker', cx: 2.1, cy: 2.1, r: 1.5 }),
      c.player_pair && svgEl('circle', { class: 'pair-dot player', cx: 7.9, cy: 7.9, r: 1.5 }),
    ];
  }

  // The bead plate: one filled circle per round, ties included, at the column and row
  // the roadmap gives (roadmap R2.1), with its pairs (R2.2).
  function drawBead(cells) {
    drawRoad('bead_plate', cells, (c) => ({
      cls: `bead ${OUTCOME[c.outcome] || 'unknown'}`,
      data: { outcome: c.outcome },
      parts: [
        svgEl('circle', { class: 'disc', cx: 5, cy: 5, r: 4.4 }),
        label('letter', c.outcome),
        ...pairDots(c),
      ],
    }));
  }

  // The Big Road: hollow circles at the roadmap's cells (roadmap R3.3); a tie takes no
  // cell but is counted on the cell before it, drawn as a green slash and its number
  // (R3.4); each cell carries its own round's pairs (R3.5).
  function drawBigRoad(cells) {
    drawRoad('big_road', cells, (c) => {
      const ties = c.ties > 0;
      return {
        cls: `big ${OUTCOME[c.outcome] || 'unknown'}`,
        data: { outcome: c.outcome, ties: c.ties || 0 },
        parts: [
          svgEl('circle', { class: 'ring', cx: 5, cy: 5, r: 3.7 }),
          ties && svgEl('line', { class: 'tie', x1: 1.6, y1: 8.4, x2: 8.4, y2: 1.6 }),
          ties && label('ties', String(c.ties)),
          ...pairDots(c),
        ],
      };
    });
  }

  // A derived road's mark: hollow circle (Big Eye Boy), filled dot (Small Road) or
  // slash (Cockroach Pig), red or blue (roadmap R4.2, R4.3), at the cell the roadmap
  // lays it out in (R4.6).
  function derivedShape(road) {
    switch (road) {
      case 'big_eye_boy': return svgEl('circle', { class: 'ring', cx: 5, cy: 5, r: 3.5 });
      case 'small_road': return svgEl('circle', { class: 'dot', cx: 5, cy: 5, r: 3.8 });
      default: return svgEl('line', { class: 'slash', x1: 2, y1: 8, x2: 8, y2: 2 });
    }
  }

  function drawDerived(road, d) {
    drawRoad(road, (d && d.cells) || [], (c) => ({
      cls: `derived ${c.mark}`, data: { mark: c.mark }, parts: [derivedShape(road)],
    }));
  }

  // The marks a Banker or a Player result would add to each derived road, or none
  // (roadmap R5).
  function drawPredictions(p) {
    for (const ask of ['banker', 'player']) {
      const next = (p && p[ask]) || {};
      for (const td of document.querySelectorAll(`tr[data-ask="${ask}"] td`)) {
        const road = td.dataset.road;
        const mark = next[road];
        td.replaceChildren();
        td.dataset.mark = mark || 'none';
        if (mark === 'red' || mark === 'blue') {
          const s = svgEl('svg', { viewBox: '0 0 10 10' });
          const g = svgEl('g', { class: `derived ${mark}` });
          g.appendChild(derivedShape(road));
          s.appendChild(g);
          td.appendChild(s);
        } else {
          td.appendChild(el('span', 'none', '–'));
        }
      }
    }
  }

  function drawStats(s) {
    for (const dd of document.querySelectorAll('[data-stat]')) {
      const v = s ? s[dd.dataset.stat] : undefined;
      dd.textContent = v === null || v === undefined ? '–' : String(v);
    }
  }

  function drawRoadmap(m) {
    m = m || {};
    drawBead(m.bead_plate || []);
    drawBigRoad(m.big_road || []);
    for (const road of ['big_eye_boy', 'small_road', 'cockroach_pig']) {
      drawDerived(road, m[road]);
    }
    drawPredictions(m.predictions);
    drawStats(m.stats);
    if (!lastResultShown && m.bead_plate && m.bead_plate.length > 0) {
      // A board that connects between rounds has no result message yet: the bead plate
      // says how the last round ended.
      const b = m.bead_plate[m.bead_plate.length - 1];
      showLast({ winner: OUTCOME[b.outcome], points: b.points, banker_pair: b.banker_pair,
        player_pair: b.player_pair, natural: b.natural, round: null });
    }
  }

  // ---- last result ----

  let lastResultShown = false;

  function showLast(r) {
    const w = $('last-winner');
    w.dataset.winner = r.winner || '';
    w.textContent = r.void ? 'ROUND VOID' : (WINNER_TEXT[r.winner] || '–');
    $('last-result').dataset.winner = r.void ? 'void' : (r.winner || '');
    let score = '';
    if (!r.void && r.player_points !== undefined) {
      score = `Player ${r.player_points} · Banker ${r.banker_points}`;
    } else if (!r.void && r.points !== undefined && r.points !== null) {
      score = `on ${r.points}`;
    }
    $('last-score').textContent = score;
    const tags = $('last-tags');
    tags.replaceChildren();
    if (r.natural) tags.appendChild(el('span', 'tag natural', 'Natural'));
    if (r.banker_pair) tags.appendChild(el('span', 'tag banker-pair', 'Banker pair'));
    if (r.player_pair) tags.appendChild(el('span', 'tag player-pair', 'Player pair'));
    if (r.void && r.reason) tags.appendChild(el('span', 'tag reason', r.reason));
  }

  // ---- messages ----

  function newRound(shoe, round) {
    if (board.shoe !== shoe) {
      board.shoe = shoe;
      $('warning').hidden = true;
    }
    if (board.round !== round) {
      board.round = round;
      board.cards = {};
      setWinner(null);
    }
  }

  function onStatus(s) {
    board.status = s;
    const off = !s || s.state === 'offline';
    $('offline').hidden = !off;
    document.body.classList.toggle('offline', off);
    if (!s) return;
    if (s.table) $('table-id').textContent = s.table;
    const bits = [];
    if (s.rules) bits.push(s.rules);
    if (s.decks) bits.push(`${s.decks} decks`);
    $('rules').textContent = bits.join(' · ');
  }

  function onState(s) {
    if (!s) return;
    if (s.table) $('table-id').textContent = s.table;
    $('shoe').textContent = `Shoe ${s.shoe}`;
    $('round').textContent = `Round ${s.round}`;
    const ph = $('phase');
    ph.dataset.phase = s.phase || '';
    ph.textContent = PHASE_TEXT[s.phase] || s.phase || '';
    newRound(s.shoe, s.round);
    board.cards = {};
    for (const sc of s.cards || []) board.cards[sc.slot] = sc.card;
    drawCards(s.player_points, s.banker_points);
    setWinner(s.outcome ? s.outcome.winner : null);
    const ins = $('insurance');
    const offers = s.insurance_offers || [];
    ins.hidden = offers.length === 0;
    ins.textContent = offers.length === 0 ? '' : 'Insurance open: ' +
      offers.map((o) => `${o.bet} (Player ${o.player_points}, Banker ${o.banker_points}) pays ${o.odds}`).join('; ');
    if (s.decks > 0) {
      // The state counts every card drawn, so it is newer than the roadmap's count.
      document.querySelector('[data-stat="cards_remaining"]').textContent = String(s.cards_remaining);
    }
    drawHeld(s.held);
  }

  function drawHeld(h) {
    $('held').hidden = !h;
    if (!h) return;
    $('held-id').textContent = h.id ? `#${h.id}` : '';
    $('held-display').textContent = h.display || h.kind || '';
    $('held-rule').textContent = h.rule || '';
    $('held-choices').textContent = (h.choices || []).join(' · ');
    $('held-by').textContent = h.decided_by ? `(${h.decided_by.replace(/_/g, ' ')} or above)` : '';
    const pend = $('held-pending');
    pend.hidden = !(h.pending && h.pending.length);
    pend.textContent = pend.hidden ? '' : `Cards awaiting the decision: ${h.pending.join(' ')}`;
  }

  function onCard(c) {
    if (!c) return;
    newRound(c.shoe, c.round);
    board.cards[c.slot] = c.card;
    drawCards(c.player_points, c.banker_points);
  }

  function onResult(r) {
    if (!r) return;
    lastResultShown = true;
    showLast({
      void: r.void, reason: r.reason, winner: r.winner, natural: r.natural,
      banker_pair: r.banker_pair, player_pair: r.player_pair,
      player_points: r.player_points, banker_points: r.banker_points, round: r.round,
    });
  }

  function onIrregularity(m) {
    if (!m) return;
    let text = '';
    if (m.event === 'dealer_warning') {
      text = m.reason || '';
    } else if (m.event === 'raised' && m.action === 'continue') {
      // An irregularity that does not hold the table; a held one is the banner's.
      text = [m.display || m.kind, m.reason || m.rule].filter(Boolean).join(' · ');
    }
    if (!text) return;
    $('warning-text').textContent = text;
    $('warning').hidden = false;
  }

  function onRoadmap(m) { drawRoadmap(m); }

  const HANDLERS = {
    status: onStatus, state: onState, roadmap: onRoadmap, card: onCard,
    result: onResult, irregularity: onIrregularity,
  };

  // ---- the stream ----

  let source = null;
  let retry = 1000;

  function setLink(state, text) {
    const l = $('link');
    l.dataset.state = state;
    l.textContent = text;
  }

  function connect() {
    source = new EventSource('events');
    source.onopen = () => {
      retry = 1000;
      setLink('live', 'Live');
    };
    source.onerror = () => {
      setLink('lost', 'Reconnecting');
      if (source.readyState === EventSource.CLOSED) {
        // The browser gave up (the server answered with an error): try again later.
        source.close();
        setTimeout(connect, retry);
        retry = Math.min(retry * 2, 15000);
      }
    };
    for (const name of Object.keys(HANDLERS)) {
      source.addEventListener(name, (e) => {
        let v;
        try {
          v = JSON.parse(e.data);
        } catch (err) {
          console.warn(`board: ${name} event is not JSON:`, err);
          return;
        }
        try {
          HANDLERS[name](v);
        } catch (err) {
          console.error(`board: drawing the ${name} event failed:`, err);
        }
      });
    }
  }

  drawRoadmap(null);
  connect();
})();
