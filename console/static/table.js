// A table: its round, last result and roads, the irregularities of its shoe with who
// decided what, and the commands the logged-in person's role may give: the dealer's
// commands, and for a held irregularity the decisions of that role, each in words with
// the rule of the table's own rule set. End shoe, New shoe, Report and every decision
// ask once more, saying what will happen, where the button was; the answer shows there
// too. An offline table shows its last known state, greyed, and offers no command.
'use strict';

(function () {
  const { $, el, api, session, rank, roleText, stream, phaseText, resultText, confirm, watchFloor, onBroker, heldFor, clock } = Console;
  const table = new URLSearchParams(location.search).get('table') || '';
  const SVG = 'http://www.w3.org/2000/svg';
  const SUITS = { S: '\u2660', H: '\u2665', D: '\u2666', C: '\u2663' };
  const OUTCOME = { B: 'banker', P: 'player', T: 'tie' };
  const REPORTS = ['wrong_hand', 'exposed_card', 'simultaneous_draw', 'incorrect_cards', 'excess_card',
    'foreign_card', 'insufficient_cards', 'technical_interruption', 'insurance_not_offered'];

  let me = null;
  let state = null;
  let status = null;
  let sum = null; // the table's summary on the floor: who reported its hold, since when
  const irregs = [];
  const seen = new Set();

  document.title = `tablectl console: table ${table}`;
  $('table-id').textContent = table;

  // ---- commands ----

  // rules is the table's rule set id.
  function rules() {
    return (state && state.rules) || (status && status.rules) || (sum && sum.rules) || '';
  }

  // send gives cmd to the table; its answer, in words, shows after place (where the
  // button was), on screen.
  async function send(cmd, label, place) {
    const reply = $('reply');
    if (place && place.isConnected) place.after(reply);
    reply.scrollIntoView({ block: 'nearest' });
    reply.className = 'reply';
    reply.textContent = `${label}: sent, waiting for table ${table}…`;
    for (const b of document.querySelectorAll('.actions button, .decisions button')) b.disabled = true;
    try {
      const r = await api('POST', `/api/tables/${encodeURIComponent(table)}/commands`, cmd);
      const b = r.body || {};
      if (r.status === 200 && b.ok) {
        reply.className = 'reply ok';
        reply.textContent = `${label}: done. ` + Words.reply(b.effects);
        reply.dataset.effects = (b.effects || []).join('\n');
      } else if (r.status === 200) {
        reply.className = 'reply refused';
        reply.textContent = `${label}: the table refused it: ${b.error}`;
      } else if (r.status === 503 || r.status === 504) {
        reply.className = 'reply refused';
        reply.textContent = `${label}: ${(b.error || '').replace(/^not sent/, 'not sent')}`;
      } else {
        reply.className = 'reply refused';
        reply.textContent = `${label}: the console refused it: ${b.error || r.status}`;
      }
      reply.scrollIntoView({ block: 'nearest' });
    } catch (err) {
      reply.className = 'reply refused';
      reply.textContent = `${label}: the console cannot be reached`;
    } finally {
      for (const b of document.querySelectorAll('.actions button, .decisions button')) b.disabled = false;
    }
  }

  // button sends cmd (or what the function cmd makes at the click) as name. With ask,
  // the button asks once more first: ask() returns what will happen ({text, yes}), or
  // a string saying why nothing can be sent yet; cmd returning null sends nothing.
  function button(label, cmd, cls, name, ask) {
    const b = el('button', cls || '', label);
    b.type = 'button';
    b.dataset.cmd = name || cmd.cmd;
    b.addEventListener('click', () => {
      const place = b.closest('.group, .decision') || b;
      if (!ask) {
        send(typeof cmd === 'function' ? cmd() : cmd, label, place);
        return;
      }
      const q = ask();
      if (typeof q === 'string') {
        const reply = $('reply');
        place.after(reply);
        reply.className = 'reply refused';
        reply.textContent = q;
        reply.scrollIntoView({ block: 'nearest' });
        return;
      }
      $('reply').textContent = '';
      $('reply').className = 'reply';
      confirm(place, q.text, q.yes, () => send(typeof cmd === 'function' ? cmd() : cmd, label, place));
    });
    return b;
  }

  // works reports whether the person works this table (in pit): the console refuses
  // the commands of anyone else, so their buttons are not shown.
  function works(pit) {
    const t = me.tables || [];
    const p = me.pits || [];
    if (!t.length && !p.length) return true;
    return t.includes(table) || (!!pit && p.includes(pit));
  }

  let working = true;

  function buildActions() {
    const box = $('actions');
    if (!working) {
      box.replaceChildren(el('div', 'no-decision', `${me.user} does not work table ${table}: no commands here.`));
      return;
    }
    const play = el('div', 'group play');
    play.append(
      button('Close bets', { cmd: 'bets_closed' }),
      button('Confirm result', { cmd: 'confirm' }),
      button('Squeeze', { cmd: 'squeeze' }),
      button('Insurance closed', { cmd: 'insurance_closed' }),
      button('Cut card out', { cmd: 'cut_card' }),
    );
    const call = button('Call a supervisor', () => ({ cmd: (status && status.call) ? 'cancel_call' : 'call_supervisor' }), 'call-button', 'call_supervisor');
    call.id = 'call-button';
    play.append(call);
    box.replaceChildren(play);
    // Report an irregularity.
    const rep = el('div', 'group');
    const kind = el('select');
    kind.id = 'report-kind';
    kindsShown = '';
    fillKinds(kind);
    const detail = el('input');
    detail.id = 'report-detail';
    detail.placeholder = 'what happened';
    detail.maxLength = 200;
    const round = el('input');
    round.id = 'report-round';
    round.type = 'number';
    round.min = '1';
    round.placeholder = 'round';
    round.hidden = true;
    kind.addEventListener('change', () => { round.hidden = kind.value !== 'late_error'; });
    rep.append(el('label', '', 'Report'), kind, detail, round, button('Report', () => {
      const c = { cmd: 'report', kind: kind.value };
      if (detail.value.trim()) c.detail = detail.value.trim();
      if (kind.value === 'late_error') c.round = Number(round.value) || 0;
      return c;
    }, 'danger', 'report', () => {
      if (!kind.value) return 'Report: choose what happened first (the kind of irregularity); nothing was sent.';
      return { text: Words.report(kind.value, state, rules()), yes: `Yes, report ${Words.kindText(kind.value)}` };
    }));
    // The shoe.
    const shoe = el('div', 'group');
    const set = el('input');
    set.id = 'new-shoe-set';
    set.placeholder = 'set';
    set.size = 6;
    const decks = el('input');
    decks.id = 'new-shoe-decks';
    decks.type = 'number';
    decks.min = '1';
    decks.max = '8';
    decks.value = '8';
    shoe.append(el('label', '', 'Shoe'), set, decks,
      button('New shoe', () => ({ cmd: 'new_shoe', set: set.value.trim(), decks: Number(decks.value) || 0 }), '', 'new_shoe',
        () => ({ text: Words.newShoe(state, rules(), set.value.trim(), Number(decks.value) || 0), yes: 'Yes, start a new shoe' })),
      button('End shoe', { cmd: 'end_shoe' }, '', 'end_shoe',
        () => ({ text: Words.shoeEnd(state, rules()), yes: state && state.shoe ? `Yes, end shoe ${state.shoe}` : 'Yes, end the shoe' })));
    box.append(rep, shoe);
  }

  let kindsShown = '';

  // fillKinds offers the reports of the table's rule set, none chosen: a report needs
  // its kind chosen.
  function fillKinds(kind) {
    kind = kind || $('report-kind');
    if (!kind || !me) return;
    const noIns = !!(status && status.no_insurance);
    const kinds = REPORTS.filter((k) => Words.reportOffered(k, rules(), noIns));
    if (rank(me.role) >= rank('supervisor') && Words.reportOffered('late_error', rules(), noIns)) kinds.push('late_error');
    const key = kinds.join();
    if (key === kindsShown) return;
    kindsShown = key;
    const chosen = kind.value;
    kind.replaceChildren(el('option', '', 'Choose what happened…'));
    kind.options[0].value = '';
    for (const k of kinds) kind.appendChild(el('option', '', Words.kindText(k))).value = k;
    kind.value = kinds.includes(chosen) ? chosen : '';
  }

  // ---- drawing ----

  function cardEl(code) {
    const c = el('div', 'card');
    c.dataset.card = code;
    if (typeof code !== 'string' || code.length !== 2) {
      c.appendChild(el('span', 'rank', '?'));
      return c;
    }
    if (code[1] === 'H' || code[1] === 'D') c.classList.add('red');
    c.append(el('span', 'rank', code[0] === 'T' ? '10' : code[0]), el('span', 'suit', SUITS[code[1]] || '?'));
    return c;
  }

  function drawHeader() {
    const s = state || {};
    const st = status || {};
    $('shoe').textContent = `Shoe ${s.shoe !== undefined ? s.shoe : '–'}`;
    $('round').textContent = `Round ${s.round !== undefined ? s.round : '–'}`;
    $('rules').textContent = Words.ruleSetName(s.rules || st.rules);
    $('decks').textContent = (s.decks || st.decks) ? ` · ${s.decks || st.decks} decks` : '';
    const ph = $('phase');
    ph.dataset.phase = s.phase || '';
    ph.dataset.held = s.held ? '1' : '';
    ph.textContent = phaseText(s, 'Waiting for the table');
    const offline = !!status && st.state !== 'online';
    $('offline').hidden = !offline;
    document.body.classList.toggle('table-offline', offline);
    $('offline-note').hidden = !offline;
    $('offline-note').textContent = offline ? `Table ${table} is offline: what is shown is its last known state${st.at ? ' (' + clock(st.at) + ')' : ''}. No command can reach it.` : '';
    $('call').hidden = st.call !== 'supervisor';
    $('unknown').hidden = Console.broker().up;
    const call = $('call-button');
    if (call) call.textContent = st.call === 'supervisor' ? 'End the call' : 'Call a supervisor';
    fillKinds();
  }

  function drawRound() {
    const s = state || {};
    const hands = { P: [], B: [] };
    for (const c of s.cards || []) (hands[c.slot[0]] || []).push(c);
    for (const [k, id] of [['P', 'player'], ['B', 'banker']]) {
      const box = $(`${id}-cards`);
      box.replaceChildren(...hands[k].sort((a, b) => a.slot.localeCompare(b.slot)).map((c) => cardEl(c.card)));
      $(`${id}-points`).textContent = hands[k].length ? String(s[`${id}_points`]) : '–';
    }
    const w = s.outcome ? s.outcome.winner : null;
    $('player-hand').classList.toggle('winner', w === 'player');
    $('banker-hand').classList.toggle('winner', w === 'banker');
  }

  let heldKey = '';

  function heldMeta(h) {
    return `${Words.kindText(h.kind)} · decided by a ${roleText(h.decided_by || 'supervisor')} or above` +
      (h.pending && h.pending.length ? ` · cards awaiting the decision: ${h.pending.join(' ')}` : '');
  }

  // heldWho says who reported the hold and with what note, in full; or what the table
  // saw, when it raised the hold itself.
  function heldWho(h) {
    let note = h.reason || '';
    if (h.rule && note.endsWith(` (${h.rule})`)) note = note.slice(0, -(h.rule.length + 3));
    const by = sum && sum.held && sum.held.id === h.id ? sum.reported_by : '';
    if (by) {
      const none = /^reported by the /.test(note);
      return `Reported by ${by}. ${none ? 'No note given.' : 'Note: ' + note}`;
    }
    return note ? `Raised by the table: ${note}` : '';
  }

  // heldSince says how long the table has been held.
  function heldSince(h) {
    if (!sum || !sum.held || sum.held.id !== h.id || !sum.held_since) return '';
    return `Held for ${sum.held_since_seen ? 'at least ' : ''}${heldFor(sum.held_since)} (since ${clock(sum.held_since)})`;
  }

  function drawHeldInfo(h) {
    $('held-meta').textContent = heldMeta(h);
    $('held-who').textContent = heldWho(h);
    $('held-since').textContent = heldSince(h);
  }

  function drawHeld() {
    const h = state && state.held;
    $('held').hidden = !h;
    const box = $('decisions');
    // The buttons are made again only when the irregularity changes, so a state
    // published while the person reaches for a button does not take it away.
    const key = h ? JSON.stringify([h.id, h.choices, h.decided_by, h.rule]) : '';
    if (key === heldKey && h) {
      drawHeldInfo(h);
      return;
    }
    heldKey = key;
    // The answer to a decision stays on screen, at the top, as the hold ends.
    const reply = $('reply');
    if ($('held').contains(reply)) $('held').after(reply);
    box.replaceChildren();
    if (!h) return;
    $('held-id').textContent = `#${h.id}`;
    $('held-rule').textContent = h.rule || '';
    $('held-display').textContent = h.display || h.kind || '';
    const by = h.decided_by || 'supervisor';
    drawHeldInfo(h);
    const may = working && rank(me.role) >= rank(by);
    $('no-decision').hidden = may;
    $('no-decision').textContent = may ? '' : (working ? `A ${roleText(by)} or above decides; call one.` : `${me.user} does not work this table.`);
    if (!may) return;
    for (const choice of h.choices || []) {
      const d = el('div', 'decision');
      const w = Words.decision(h, choice, rules());
      const b = button(w.label, { cmd: 'decide', irregularity: h.id, choice }, 'danger', 'decide',
        () => ({ text: `Decide #${h.id} (${Words.kindText(h.kind)}): ${w.label}. ${w.text}`, yes: `Yes: ${w.label}` }));
      b.dataset.choice = choice;
      d.append(b, el('span', 'why', w.text));
      box.appendChild(d);
    }
  }

  function drawLast(r) {
    const t = resultText(r);
    const last = $('last');
    last.textContent = t.text;
    last.className = 'last-line ' + t.cls;
  }

  function svgEl(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }

  function drawRoad(id, cells, cols, mark) {
    const svg = $(id);
    let maxCol = -1;
    for (const c of cells) maxCol = Math.max(maxCol, c.col);
    const first = Math.max(0, maxCol + 2 - cols);
    svg.setAttribute('viewBox', `0 0 ${cols * 10} 60`);
    let d = '';
    for (let c = 0; c <= cols; c++) d += `M${c * 10} 0V60`;
    for (let r = 0; r <= 6; r++) d += `M0 ${r * 10}H${cols * 10}`;
    svg.replaceChildren(svgEl('path', { class: 'grid', d }));
    for (const c of cells) {
      if (c.col < first || c.row > 5) continue;
      const g = svgEl('g', { transform: `translate(${(c.col - first) * 10} ${c.row * 10})` });
      mark(g, c);
      svg.appendChild(g);
    }
  }

  function drawRoadmap(m) {
    m = m || {};
    drawRoad('bead-plate', m.bead_plate || [], 30, (g, c) => {
      g.setAttribute('class', `bead ${OUTCOME[c.outcome] || ''}`);
      g.appendChild(svgEl('circle', { cx: 5, cy: 5, r: 4.4 }));
      const t = svgEl('text', { x: 5, y: 5.2 });
      t.textContent = c.outcome;
      g.appendChild(t);
    });
    drawRoad('big-road', m.big_road || [], 30, (g, c) => {
      g.setAttribute('class', `big ${OUTCOME[c.outcome] || ''}`);
      g.appendChild(svgEl('circle', { cx: 5, cy: 5, r: 3.7 }));
      if (c.ties > 0) g.appendChild(svgEl('line', { class: 'tie', x1: 1.6, y1: 8.4, x2: 8.4, y2: 1.6 }));
    });
    if (!lastSeen && m.bead_plate && m.bead_plate.length) {
      drawLast({ winner: OUTCOME[m.bead_plate[m.bead_plate.length - 1].outcome] });
    }
  }

  let lastSeen = false;

  function addIrregularity(m) {
    if (!m || !m.event || m.event === 'dealer_warning') return;
    const key = m.seq ? `seq${m.seq}` : JSON.stringify(m);
    if (seen.has(key)) return;
    seen.add(key);
    if (irregs.length && m.shoe && irregs[irregs.length - 1].shoe && m.shoe > irregs[irregs.length - 1].shoe) {
      irregs.length = 0; // a new shoe
    }
    irregs.push(m);
    drawIrregularities();
  }

  function drawIrregularities() {
    const body = $('irregs');
    body.replaceChildren();
    for (const m of irregs.slice().reverse()) {
      const tr = el('tr', m.event);
      const at = m.at ? new Date(m.at).toLocaleTimeString([], { hour12: false }) : '';
      const by = m.event === 'resolved' ? [roleText(m.role), m.actor].filter(Boolean).join(' ') || 'the rule' : '';
      const decision = m.event === 'resolved' ? m.choice : (m.choices && m.choices.length ? 'awaiting: ' + m.choices.join(' / ') : '');
      const who = m.event === 'raised' && m.actor ? [roleText(m.role), m.actor].join(' ') : by;
      for (const v of [`#${m.id}`, m.round, m.event.replace(/_/g, ' '), Words.kindText(m.kind), m.rule, decision, who, at]) {
        tr.appendChild(el('td', '', v === undefined || v === null ? '' : String(v)));
      }
      // What was seen, or the dealer's note, in full under the kind.
      if (m.reason) tr.children[3].appendChild(el('div', 'note', m.reason));
      body.appendChild(tr);
    }
  }

  function onState(s) {
    state = s;
    drawHeader();
    drawRound();
    drawHeld();
  }

  // ---- the stream ----

  session().then(async (m) => {
    me = m;
    await Words.load();
    onBroker(() => { drawHeader(); });
    watchFloor((all) => {
      const s = all.get(table);
      if (s) {
        sum = s;
        if (state && state.held) drawHeldInfo(state.held);
      }
    });
    setInterval(() => { if (state && state.held) drawHeldInfo(state.held); }, 1000);
    stream(`/api/tables/${encodeURIComponent(table)}/events`, {
      detail: (d) => {
        sum = d.summary || sum;
        const w = works(d.summary && d.summary.pit);
        if (w !== working || !$('actions').hasChildNodes()) {
          working = w;
          heldKey = '';
          buildActions();
        }
        status = d.status || null;
        irregs.length = 0;
        seen.clear();
        for (const m of d.irregularities || []) addIrregularity(m);
        drawIrregularities();
        if (d.result) { lastSeen = true; drawLast(d.result); }
        drawRoadmap(d.roadmap);
        onState(d.state || null);
        document.body.dataset.ready = '1';
      },
      status: (s) => { status = s; drawHeader(); },
      state: onState,
      roadmap: drawRoadmap,
      result: (r) => { lastSeen = true; drawLast(r); },
      irregularity: addIrregularity,
      card: () => {}, // the state that follows each card carries it
    });
  }).catch(() => {});
})();
