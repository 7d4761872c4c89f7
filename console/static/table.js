// A table: its round, last result and roads, the irregularities of its shoe with who
// decided what, and the commands the logged-in person's role may give, as the console's
// table of commands says (GET /api/commands): the dealer's commands, for a held
// irregularity the decisions of that role, the players' options window of RWS Baccarat
// 5.12 and NC Insurance 5.13's record, each choice in words with the rule of the table's
// own rule set. End shoe, New shoe, Report, every decision, a box's option, the 5.13
// record and closing the options ask once more, saying what will happen, where the
// button was; the answer shows there too. An offline table shows its last known state,
// greyed, and offers no command.
'use strict';

(function () {
  const { $, el, api, session, rank, command, vocabulary, roleText, stream, phaseText, resultText, confirm, watchFloor, onBroker, heldFor, clock, archiveText } = Console;
  const table = new URLSearchParams(location.search).get('table') || '';
  const SVG = 'http://www.w3.org/2000/svg';
  const SUITS = { S: '\u2660', H: '\u2665', D: '\u2666', C: '\u2663' };
  const OUTCOME = { B: 'banker', P: 'player', T: 'tie' };
  // The commands given from a form or a place of their own on this page; every other
  // command the person's role may give is one button.
  const FORMS = ['report', 'new_shoe', 'end_shoe', 'decide', 'insurance_bet', 'box_option', 'options_closed',
    'call_supervisor', 'cancel_call', 'dealer_on', 'dealer_off'];
  // The Insurance commands: given only at a table whose rule set offers Insurance
  // (NC Insurance 3.11, 3.12), and not one set to offer none (NC Insurance 4.2.2).
  const INSURANCE = ['insurance_bet', 'insurance_closed'];
  // CALLED is the role the dealer's call is for: a Pit Supervisor (call_supervisor).
  const CALLED = 'supervisor';
  const NC513_TEXT = 'NC Insurance 5.13: a player who intended an Insurance bet the dealer neglected to offer ' +
    'has the Original Bet on that hand returned, where the Insurance would have won.';

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
  // the button asks once more first: ask(c), given the command, returns what will
  // happen ({text, yes}), a string saying why nothing can be sent yet, or null for a
  // command that needs no question.
  function button(label, cmd, cls, name, ask) {
    const b = el('button', cls || '', label);
    b.type = 'button';
    b.dataset.cmd = name || cmd.cmd;
    b.addEventListener('click', () => {
      const place = b.closest('.group, .decision') || b;
      const c = typeof cmd === 'function' ? cmd() : cmd;
      const q = ask ? ask(c) : null;
      if (!q) {
        send(c, label, place);
        return;
      }
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
      confirm(place, q.text, q.yes, () => send(c, label, place));
    });
    return b;
  }

  // question is what a consequential command c will do, to ask once more ({text, yes}),
  // or a string saying why it cannot be sent yet; null for a command that needs no
  // question. Every way of giving a command on this page asks it.
  function question(c) {
    const h = state && state.held;
    switch (c.cmd) {
      case 'end_shoe':
        return { text: Words.shoeEnd(state, rules()), yes: state && state.shoe ? `Yes, end shoe ${state.shoe}` : 'Yes, end the shoe' };
      case 'new_shoe':
        return { text: Words.newShoe(state, rules(), c.set || '', c.decks || 0), yes: 'Yes, start a new shoe' };
      case 'report':
        if (!c.kind) return 'Report: choose what happened first (the kind of irregularity); nothing was sent.';
        return { text: Words.report(c.kind, state, rules()), yes: `Yes, report ${Words.kindText(c.kind)}` };
      case 'decide': {
        if (h && h.id === c.irregularity) {
          const w = Words.decision(h, c.choice, rules());
          return { text: `Decide #${h.id} (${Words.kindText(h.kind)}): ${w.label}. ${w.text}`, yes: `Yes: ${w.label}` };
        }
        return { text: `Decide #${c.irregularity || '?'}: ${c.choice || '?'}. The table is not held for it now, and may refuse it.`, yes: 'Yes, send the decision' };
      }
      case 'box_option': {
        if (!c.box) return 'Box option: name the box first; nothing was sent.';
        const o = state && state.options;
        const w = Words.option(c.option, o ? o.rule : Words.ruleSet(rules()).options);
        const bet = c.bet ? ` (${c.bet.replace(/_/g, ' ')})` : '';
        return { text: `Box ${c.box}: ${w.label}${bet}. ${w.text}`, yes: `Yes: box ${c.box}, ${w.label.toLowerCase()}` };
      }
      case 'options_closed': {
        const o = state && state.options;
        const rule = o ? o.rule : Words.ruleSet(rules()).options;
        const none = o ? (o.boxes || []).filter((b) => !b.option).map((b) => b.box) : [];
        return { text: `Close the players' options now (${rule}): ${none.length ? 'box ' + none.join(', ') + ' chose nothing and continue' : 'the boxes that chose nothing continue'}, and the held cards are placed.`, yes: 'Yes, close the options' };
      }
    }
    return null;
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

  // may reports whether the person's role may give the command (its lowest role).
  function may(cmd) {
    const c = command(cmd);
    return !!c && rank(me.role) >= rank(c.role);
  }

  // insurance reports whether the table offers Insurance: its rule set has it, and the
  // table is not set to offer none.
  function insurance() {
    return Words.insurance(rules()) && !(status && status.no_insurance);
  }

  let insuranceShown = null; // whether the actions shown offer Insurance

  // offered reports whether the page offers command cmd at this table: an Insurance
  // command only where Insurance is offered, the call for a Pit Supervisor only to a
  // role below it.
  function offered(cmd) {
    if (cmd === 'call_supervisor') return rank(me.role) < rank(CALLED);
    return !INSURANCE.includes(cmd) || insurance();
  }

  function input(id, placeholder, type) {
    const i = el('input');
    i.id = id;
    i.placeholder = placeholder;
    if (type) i.type = type;
    return i;
  }

  function select(id, values) {
    const s = el('select');
    s.id = id;
    for (const [v, text] of values) s.appendChild(el('option', '', text)).value = v;
    return s;
  }

  // wagerOf reads box:bet:stake, as the scenarios write a wager.
  function wagerOf(text) {
    const [box, bet, stake] = text.trim().split(':');
    return { box: box || '', bet: bet || '', stake: Number(stake) || 0 };
  }

  // FIELDS make the input of each field a command takes, and read it back: undefined
  // when left empty.
  const FIELDS = {
    wagers: () => {
      const i = input('cmd-wagers', 'wagers: 1:banker:100 2:player:50');
      return [i, () => (i.value.trim() ? i.value.trim().split(/\s+/).map(wagerOf) : undefined)];
    },
    wager: () => {
      const i = input('cmd-wager', 'wager: 1:banker_insurance:50');
      return [i, () => (i.value.trim() ? wagerOf(i.value) : undefined)];
    },
    set: () => { const i = input('cmd-set', 'set'); return [i, () => i.value.trim() || undefined]; },
    decks: () => { const i = input('cmd-decks', 'decks', 'number'); return [i, () => Number(i.value) || undefined]; },
    kind: () => {
      const s = select('cmd-kind', [['', 'Choose what happened…'], ...reportKinds().map((k) => [k, Words.kindText(k)])]);
      return [s, () => s.value];
    },
    round: () => { const i = input('cmd-round', 'round', 'number'); return [i, () => Number(i.value) || undefined]; },
    card: () => { const i = input('cmd-card', 'card, e.g. QH'); return [i, () => i.value.trim().toUpperCase() || undefined]; },
    irregularity: () => {
      const i = input('cmd-irregularity', 'irregularity #', 'number');
      if (state && state.held) i.value = String(state.held.id);
      return [i, () => Number(i.value) || undefined];
    },
    choice: () => { const i = input('cmd-choice', 'decision'); return [i, () => i.value.trim() || undefined]; },
    box: () => { const i = input('cmd-box', 'box'); return [i, () => i.value.trim() || undefined]; },
    option: () => {
      const s = select('cmd-option', vocabulary().options.filter((o) => rank(me.role) >= rank(o.role)).map((o) => [o.option, Words.optionLabel(o.option)]));
      return [s, () => s.value];
    },
    bet: () => { const i = input('cmd-bet', 'bet, e.g. banker_insurance'); return [i, () => i.value.trim() || undefined]; },
  };

  // commandForm gives any command the table takes that the person's role may give,
  // with the fields it takes.
  function commandForm() {
    const g = el('div', 'group');
    g.id = 'command-form';
    const cmds = vocabulary().commands.filter((c) => may(c.cmd) && offered(c.cmd));
    const which = select('cmd-name', cmds.map((c) => [c.cmd, c.title]));
    const fields = el('span', 'fields');
    let readers = [];
    const draw = () => {
      const c = command(which.value);
      readers = [];
      fields.replaceChildren();
      for (const f of (c && c.takes) || []) {
        const make = FIELDS[f] || (() => { const i = input('cmd-' + f, f); return [i, () => i.value.trim() || undefined]; });
        const [node, read] = make();
        fields.appendChild(node);
        readers.push([f, read]);
      }
      which.title = c ? c.does : '';
    };
    which.addEventListener('change', draw);
    draw();
    const send = button('Send', () => {
      const c = { cmd: which.value };
      for (const [f, read] of readers) {
        const v = read();
        if (v !== undefined && v !== '') c[f] = v;
      }
      return c;
    }, '', 'form', question);
    g.append(el('label', '', 'Command'), which, fields, send);
    return g;
  }

  // insuranceRecord is NC Insurance 5.13's record of a box that intended an Insurance
  // bet the dealer neglected: only at a table whose rule set offers Insurance, while a
  // round is dealt or awaits confirmation, for the role the rule names.
  function insuranceRecord() {
    const g = el('div', 'group');
    g.id = 'nc513';
    const box = input('nc513-box', 'box');
    box.size = 3;
    const bet = select('nc513-bet', [['banker_insurance', 'Banker Insurance'], ['player_insurance', 'Player Insurance']]);
    const b = button('Record 5.13', () => ({ cmd: 'box_option', box: box.value.trim(), option: 'insurance-intended', bet: bet.value }), 'danger', 'box_option', question);
    b.dataset.option = 'insurance-intended';
    g.append(el('label', '', 'Insurance intended'), box, bet, b, el('span', 'why', NC513_TEXT));
    return g;
  }

  function drawInsuranceRecord() {
    const g = $('nc513');
    if (!g) return;
    const s = state || {};
    const st = status || {};
    // NC Insurance 5.13: a rule set whose book cites the neglected Insurance.
    const cites = !!Words.ruleSet(s.rules || st.rules).kinds.insurance_not_offered;
    g.hidden = !(cites && !st.no_insurance && (s.phase === 'dealing' || s.phase === 'complete'));
  }

  // callButton is the dealer's call for a Pit Supervisor, as the call_supervisor button:
  // it calls, or ends the call that stands. drawCall offers it to whom it may help.
  function callButton() {
    const on = command('call_supervisor');
    const off = command('cancel_call');
    if (!on || !may('call_supervisor')) return null;
    const b = button(on.title, () => ({ cmd: (status && status.call && off) ? 'cancel_call' : 'call_supervisor' }), 'call-button', 'call_supervisor');
    b.id = 'call-button';
    b.title = on.does;
    return b;
  }

  // drawCall names the call button for what it does now. No one is offered the call for
  // their own role or one below it: a Pit Supervisor calls no Pit Supervisor. They may
  // end a call that stands, once they have come.
  function drawCall() {
    const b = $('call-button');
    if (!b) return;
    const calling = !!(status && status.call === CALLED);
    const turn = command(calling ? 'cancel_call' : 'call_supervisor');
    if (turn) b.textContent = turn.title;
    b.hidden = !calling && rank(me.role) >= rank(CALLED);
  }

  // reportKinds are the reports the person may give at this table: their role's, of
  // the table's rule set.
  function reportKinds() {
    const noIns = !!(status && status.no_insurance);
    return vocabulary().reports.filter((r) => rank(me.role) >= rank(r.role) && Words.reportOffered(r.kind, rules(), noIns)).map((r) => r.kind);
  }

  function buildActions() {
    const box = $('actions');
    if (!working) {
      box.replaceChildren(el('div', 'no-decision', `${me.user} does not work table ${table}: no commands here.`));
      return;
    }
    insuranceShown = insurance();
    const play = el('div', 'group play');
    play.append(...vocabulary().commands.filter((c) => !FORMS.includes(c.cmd) && may(c.cmd) && offered(c.cmd)).map((c) => {
      const b = button(c.title, { cmd: c.cmd });
      b.title = c.does;
      return b;
    }));
    const call = callButton();
    if (call) play.append(call);
    box.replaceChildren(play, dealerGroup());
    // Report an irregularity.
    const rep = el('div', 'group');
    const kind = select('report-kind', []);
    kindsShown = '';
    fillKinds(kind);
    const detail = input('report-detail', 'what happened');
    detail.maxLength = 200;
    const round = input('report-round', 'round', 'number');
    round.min = '1';
    round.hidden = true;
    const card = input('report-card', 'card, e.g. QH');
    card.size = 4;
    card.hidden = true;
    kind.addEventListener('change', () => {
      round.hidden = kind.value !== 'late_error';
      card.hidden = kind.value !== 'foreign_card';
    });
    rep.append(el('label', '', 'Report'), kind, detail, round, card, button('Report', () => {
      const c = { cmd: 'report', kind: kind.value };
      if (detail.value.trim()) c.detail = detail.value.trim();
      if (kind.value === 'late_error') c.round = Number(round.value) || 0;
      if (kind.value === 'foreign_card' && card.value.trim()) c.card = card.value.trim().toUpperCase();
      return c;
    }, 'danger', 'report', question));
    // The shoe.
    const shoe = el('div', 'group');
    const set = input('new-shoe-set', 'set');
    set.size = 6;
    const decks = input('new-shoe-decks', '', 'number');
    decks.min = '1';
    decks.max = '8';
    decks.value = '8';
    shoe.append(el('label', '', 'Shoe'), set, decks,
      button(command('new_shoe').title, () => ({ cmd: 'new_shoe', set: set.value.trim(), decks: Number(decks.value) || 0 }), '', 'new_shoe', question),
      button(command('end_shoe').title, { cmd: 'end_shoe' }, '', 'end_shoe', question));
    box.append(rep, shoe);
    const intended = vocabulary().options.find((o) => o.option === 'insurance-intended');
    if (intended && rank(me.role) >= rank(intended.role)) box.append(insuranceRecord());
    box.append(commandForm());
    drawInsuranceRecord();
    drawCall();
  }

  // dealerGroup gives the dealer on and off: a dealer takes the table or leaves it in
  // their own name ("I deal here", "I leave"); a supervisor names the dealer, for one
  // without a login (docs/pit.md, "Dealers").
  function dealerGroup() {
    const g = el('div', 'group dealer-group');
    g.id = 'dealer-group';
    g.append(el('label', '', 'Dealer'), el('span', 'dealer-on', ''));
    if (me.role === 'dealer') {
      g.append(button(command('dealer_on').title, { cmd: 'dealer_on' }, '', 'dealer_on'),
        button(command('dealer_off').title, { cmd: 'dealer_off' }, '', 'dealer_off'));
    } else if (may('dealer_on')) {
      const name = input('dealer-name', 'dealer');
      name.maxLength = 64;
      const named = (cmd) => () => {
        const c = { cmd };
        if (name.value.trim()) c.dealer = name.value.trim();
        return c;
      };
      g.append(name, button('Dealer on', named('dealer_on'), '', 'dealer_on', dealerQuestion),
        button('Dealer off', named('dealer_off'), '', 'dealer_off'));
    }
    drawDealer(g);
    return g;
  }

  // dealerQuestion: a supervisor's dealer on names the dealer.
  function dealerQuestion(c) {
    return c.dealer ? null : 'Name the dealer who takes the table.';
  }

  // drawDealer shows who deals here, and offers a dealer only the button that applies.
  function drawDealer(g) {
    g = g || $('dealer-group');
    const on = (status && status.dealer) || '';
    // The header's dealer gives way first of all when the header is short of room
    // (fitHeader): its word, then the whole of it; the actions say it too.
    if (!status) $('dealer').replaceChildren();
    else if (on) $('dealer').replaceChildren(el('span', 'dealer-word', 'Dealer '), on);
    else $('dealer').replaceChildren('No dealer', el('span', 'dealer-word', ' on'));
    $('dealer').classList.toggle('none', !!status && !on);
    if (!g) return;
    g.querySelector('.dealer-on').textContent = on ? on : 'none on';
    if (me && me.role === 'dealer') {
      const onB = g.querySelector('[data-cmd="dealer_on"]'), offB = g.querySelector('[data-cmd="dealer_off"]');
      if (onB) onB.hidden = on === me.user;
      if (offB) offB.hidden = on !== me.user;
    }
  }

  let kindsShown = '';

  // fillKinds offers the reports of the table's rule set, none chosen: a report needs
  // its kind chosen.
  function fillKinds(kind) {
    kind = kind || $('report-kind');
    if (!kind || !me) return;
    const kinds = reportKinds();
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
    $('rules').textContent = Words.ruleSetName(s.rules || st.rules, st.rules_name || (sum && sum.rules_name));
    $('decks').textContent = (s.decks || st.decks) ? ` · ${s.decks || st.decks} decks` : '';
    const ph = $('phase');
    ph.dataset.phase = s.phase || '';
    ph.dataset.held = s.held ? '1' : '';
    ph.textContent = phaseText(s, 'Waiting for the table');
    ph.dataset.short = s.held ? 'Held' : ph.textContent; // a header short of room (fitHeader)
    const offline = !!status && st.state !== 'online';
    $('offline').hidden = !offline;
    document.body.classList.toggle('table-offline', offline);
    $('offline-note').hidden = !offline;
    $('offline-note').textContent = offline ? `Table ${table} is offline: what is shown is its last known state${st.at ? ' (' + clock(st.at) + ')' : ''}. No command can reach it.` : '';
    $('call').hidden = st.call !== 'supervisor';
    drawDealer();
    $('unknown').hidden = Console.broker().up;
    drawCall();
    fillKinds();
    // The rule set, or the table's setting, known only now: the actions follow it.
    if (me && working && insuranceShown !== null && insuranceShown !== insurance()) buildActions();
    Console.fitHeader();
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
  // saw, when it raised the hold itself. The summary says who, from the raised message or
  // the state's held (role, actor). A table older than held.role says only its reason:
  // "reported by the dealer" is a dealer's report with no note.
  function heldWho(h) {
    let note = h.reason || '';
    if (h.rule && note.endsWith(` (${h.rule})`)) note = note.slice(0, -(h.rule.length + 3));
    let by = sum && sum.held && sum.held.id === h.id ? sum.reported_by : '';
    if (!by && h.role) by = [roleText(h.role), h.actor].filter(Boolean).join(' ');
    const none = note.match(/^reported by the ([a-z_]+)$/);
    if (!by && none) by = `a ${roleText(none[1])}`;
    if (by) return `Reported by ${by}. ${none ? 'No note given.' : 'Note: ' + note}`;
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
    const key = h ? JSON.stringify([h.id, h.choices, h.decided_by, h.rule, h.options && state.options]) : '';
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
    if (h.options && state.options) {
      drawOptions(box, state.options);
      return;
    }
    if (!may) return;
    for (const choice of h.choices || []) {
      const d = el('div', 'decision');
      const w = Words.decision(h, choice, rules());
      const b = button(w.label, { cmd: 'decide', irregularity: h.id, choice }, 'danger', 'decide', question);
      b.dataset.choice = choice;
      d.append(b, el('span', 'why', w.text));
      box.appendChild(d);
    }
  }

  // drawOptions shows the players' options window of RWS Baccarat 5.12 in box: each box
  // in play with its choice, and while it is open the choices the dealer records for each
  // box, in words, and the supervisor's close (the boxes that chose nothing continue).
  function drawOptions(box, o) {
    $('no-decision').hidden = true;
    const head = el('div', 'decision options-head');
    head.append(el('b', '', `${o.rule}: the players' options ${o.open ? 'are open' : 'are closed'}`),
      el('span', 'why', 'A box that chooses nothing continues as dealt when the window closes.'));
    box.appendChild(head);
    const rec = working && may('box_option') && o.open;
    for (const b of o.boxes || []) {
      const d = el('div', 'decision option-box');
      d.dataset.box = b.box;
      d.appendChild(el('b', '', `Box ${b.box}: ${b.option ? Words.optionLabel(b.option) : 'no choice yet'}`));
      if (rec) {
        for (const opt of o.choices || []) {
          const w = Words.option(opt, o.rule);
          const btn = button(w.label, { cmd: 'box_option', box: b.box, option: opt }, opt === b.option ? 'chosen' : 'danger', 'box_option', question);
          btn.dataset.box = b.box;
          btn.dataset.option = opt;
          btn.title = w.text;
          d.appendChild(btn);
        }
      }
      box.appendChild(d);
    }
    if (o.open && working && may('options_closed') && rank(me.role) >= rank(o.closed_by || 'supervisor')) {
      const d = el('div', 'decision');
      d.append(button(command('options_closed').title, { cmd: 'options_closed' }, 'danger', 'options_closed', question),
        el('span', 'why', `${o.rule}: the boxes that chose nothing continue, and the held cards are placed`));
      box.appendChild(d);
    } else if (o.open) {
      const n = el('div', 'no-decision', `A ${roleText(o.closed_by || 'supervisor')} or above closes the options.`);
      box.appendChild(n);
    }
  }

  // drawSettlements lists each wager of the last round as the table settled it, with the
  // box's recorded option and the rule.
  function drawSettlements(r) {
    let t = $('settlements');
    if (!t) {
      t = el('table', 'irregs');
      t.id = 'settlements';
      $('last').after(t);
    }
    t.replaceChildren();
    const ss = (r && r.settlements) || [];
    t.hidden = !ss.length;
    if (!ss.length) return;
    const head = el('tr');
    for (const h of ['Box', 'Bet', 'Stake', 'Result', 'Returned', 'Option', 'Rule']) head.appendChild(el('th', '', h));
    t.appendChild(head);
    for (const x of ss) {
      const tr = el('tr');
      tr.dataset.box = x.box;
      tr.dataset.bet = x.bet;
      if (x.option) tr.dataset.option = x.option;
      for (const v of [x.box, x.bet.replace(/_/g, ' '), x.stake, x.result, x.returned, x.option ? Words.optionLabel(x.option) : '', x.rule]) tr.appendChild(el('td', '', String(v)));
      t.appendChild(tr);
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
    if (m.event === 'raised' && !m.from_state) {
      // The raised message takes the place of the row the console made from the state.
      const i = irregs.findIndex((x) => x.from_state && x.event === 'raised' && x.id === m.id);
      if (i >= 0) irregs.splice(i, 1);
    }
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
      const recorded = m.event === 'option_recorded';
      const by = m.event === 'resolved' || recorded ? [roleText(m.role), m.actor].filter(Boolean).join(' ') || 'the rule' : '';
      let decision = m.event === 'resolved' ? m.choice : (m.choices && m.choices.length ? 'awaiting: ' + m.choices.join(' / ') : '');
      if (recorded) decision = `box ${m.box}: ${Words.optionLabel(m.option)}` + (m.bet ? ` (${m.bet.replace(/_/g, ' ')})` : '');
      const who = m.event === 'raised' && m.actor ? [roleText(m.role), m.actor].join(' ') : by;
      for (const v of [m.id ? `#${m.id}` : '', m.round, m.event.replace(/_/g, ' '), Words.kindText(m.kind), m.rule, decision, who, at]) {
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
    drawInsuranceRecord();
  }

  // drawArchive shows the archive's alarm of the table and its lateness (an
  // ArchiveState, docs/console.md): it stays while the archive keeps items apart or is
  // late, and has no button to dismiss it.
  function drawArchive(a) {
    const t = archiveText(table, a);
    const box = $('archive');
    box.replaceChildren();
    if (t.alarm) {
      box.append(el('div', 'archive-alarm', t.alarm));
      box.append(el('div', 'archive-note', 'The archive did not store it and keeps it apart. It stays here until the archive is set right (docs/archive.md).'));
    }
    if (t.late) box.append(el('div', 'archive-late', t.late + (a.since ? ` (oldest record not held written ${clock(a.since)})` : '')));
    box.hidden = !t.alarm && !t.late;
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
        drawArchive(s.archive);
        if (state && state.held) drawHeldInfo(state.held);
      }
    });
    setInterval(() => { if (state && state.held) drawHeldInfo(state.held); }, 1000);
    stream(`/api/tables/${encodeURIComponent(table)}/events`, {
      detail: (d) => {
        sum = d.summary || sum;
        drawArchive(d.summary && d.summary.archive);
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
        if (d.result) { lastSeen = true; drawLast(d.result); drawSettlements(d.result); }
        drawRoadmap(d.roadmap);
        onState(d.state || null);
        document.body.dataset.ready = '1';
      },
      status: (s) => { status = s; drawHeader(); drawInsuranceRecord(); },
      state: onState,
      roadmap: drawRoadmap,
      result: (r) => { lastSeen = true; drawLast(r); drawSettlements(r); },
      irregularity: addIrregularity,
      card: () => {}, // the state that follows each card carries it
      archive: drawArchive,
    });
  }).catch(() => {});
})();
