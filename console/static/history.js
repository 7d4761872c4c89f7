// The History page: rounds the floor's archive holds, searched by table, pit, time,
// irregularity, decision and person (GET /api/history/rounds), a page at a time; the same
// search as CSV; each round opened with its cards, settlements, irregularities and
// decisions, and the commands given during it. The search is kept in the page's address,
// so a link opens it again. Opened without a search, the page searches the last hour of
// the person's tables, by the console's clock, and shows the range it searched.
'use strict';

(function () {
  const { $, el, api, session, roleText } = Console;
  const PAGE = 50;
  const DECISIONS = ['as-read', 'swapped', 'reconstructed', 'continue', 'void'];
  let next = ''; // the after parameter of the next page
  let shown = 0;
  let query = ''; // the search shown, as parameters
  let opened = ''; // the round open, "table/seq"
  let me = null; // the session
  const HOUR = 3600 * 1000;

  const pad = (n) => String(n).padStart(2, '0');

  // when is a time for people, in the browser's zone: 2026-11-27 03:40:54.
  function when(iso) {
    const d = iso ? new Date(iso) : null;
    if (!d || isNaN(d)) return '';
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  }

  // localInput is an RFC 3339 time as a datetime-local field takes it.
  function localInput(iso) {
    const w = when(iso);
    return w ? w.replace(' ', 'T') : '';
  }

  // params reads the form into the search's parameters.
  function params() {
    const q = new URLSearchParams();
    const add = (name, v) => { if (v) q.set(name, v); };
    add('table', $('f-table').value.split(',').map((s) => s.trim()).filter(Boolean).join(','));
    add('pit', $('f-pit').value);
    for (const k of ['from', 'to']) {
      const v = $('f-' + k).value;
      if (v) {
        const d = new Date(v);
        add(k, isNaN(d) ? v : d.toISOString());
      }
    }
    add('kind', $('f-kind').value);
    add('decision', $('f-decision').value);
    add('person', $('f-person').value.trim());
    return q;
  }

  // fill puts a search's parameters into the form.
  function fill(q) {
    $('f-table').value = q.get('table') || '';
    ensureOption($('f-pit'), q.get('pit') || '');
    $('f-from').value = localInput(q.get('from'));
    $('f-to').value = localInput(q.get('to'));
    ensureOption($('f-kind'), q.get('kind') || '');
    ensureOption($('f-decision'), q.get('decision') || '');
    $('f-person').value = q.get('person') || '';
  }

  function ensureOption(sel, v) {
    if (v && ![...sel.options].some((o) => o.value === v)) sel.appendChild(el('option', '', v)).value = v;
    sel.value = v;
  }

  function csvLink() {
    const q = params().toString();
    $('csv').href = '/api/history/rounds.csv' + (q ? '?' + q : '');
  }

  function showError(msg) {
    $('error').textContent = msg || '';
    $('error').hidden = !msg;
  }

  function winnerText(r) {
    if (r.void) return { text: 'VOID', cls: 'win-void' };
    const w = { banker: 'BANKER', player: 'PLAYER', tie: 'TIE' }[r.winner] || '–';
    return { text: `${w} ${r.player_points}–${r.banker_points}`, cls: r.winner ? 'win-' + r.winner : '' };
  }

  function row(r) {
    const tr = el('tr', 'round-row');
    tr.dataset.round = `${r.table}/${r.seq}`;
    tr.tabIndex = 0;
    const res = winnerText(r);
    const table = el('td', 'table-cell', r.table);
    if (r.pit) table.appendChild(el('span', 'pit-note', ' ' + r.pit));
    tr.append(el('td', 'time', when(r.ended)), table, el('td', '', `${r.shoe}/${r.round}`),
      el('td', 'cards-text', r.player), el('td', 'cards-text', r.banker), el('td', 'result ' + res.cls, res.text),
      el('td', 'kinds', (r.irregularities || []).map((k) => Words.kindText(k)).join(', ')));
    const open = () => openRound(r.table, r.seq);
    tr.addEventListener('click', open);
    tr.addEventListener('keydown', (e) => { if (e.key === 'Enter') open(); });
    return tr;
  }

  // list names a few values, and how many more.
  function list(vs) {
    return vs.length > 4 ? `${vs.slice(0, 4).join(', ')} and ${vs.length - 4} more` : vs.join(', ');
  }

  // rangeText says what search q covers: the time the rounds ended, and the tables,
  // those the person works when the search names none (the console keeps to them).
  function rangeText(q, lastHour) {
    const from = q.get('from'), to = q.get('to');
    let time = 'rounds ended at any time';
    if (from && to) time = `rounds ended from ${when(from)} to ${when(to)}`;
    else if (from) time = `rounds ended from ${when(from)} on`;
    else if (to) time = `rounds ended before ${when(to)}`;
    let where = 'at every table';
    const tables = (me.tables || []), pits = (me.pits || []);
    if (q.get('table') && q.get('pit')) where = `at tables ${q.get('table').replace(/,/g, ', ')} of pit ${q.get('pit')}`;
    else if (q.get('table')) where = `at tables ${q.get('table').replace(/,/g, ', ')}`;
    else if (q.get('pit')) where = `at the tables of pit ${q.get('pit')}`;
    else if (tables.length || pits.length) {
      where = 'at your tables: ' + [tables.length ? list(tables) : '', pits.length ? `the tables of ${list(pits)}` : ''].filter(Boolean).join(' and ');
    }
    return `${lastHour ? 'The last hour: ' : 'Searched: '}${time}, ${where}.`;
  }

  // search shows the first page of the form's search, or (more) the next page of the one
  // shown. lastHour says it is the search the page opened on: the address stays the
  // page's own, so opening it again searches the hour before then.
  async function search(more, lastHour) {
    const q = more ? new URLSearchParams(query) : params();
    if (!more) {
      query = q.toString();
      if (!lastHour) history.replaceState(null, '', 'history.html' + (query ? '?' + query : ''));
      next = '';
      shown = 0;
      $('rounds').replaceChildren();
      $('range').textContent = rangeText(q, !!lastHour);
      $('range').hidden = false;
    }
    q.set('limit', String(PAGE));
    if (more && next) q.set('after', next);
    $('search').disabled = true;
    const r = await api('GET', '/api/history/rounds?' + q.toString());
    $('search').disabled = false;
    if (r.status !== 200) {
      showError(`The search was not made: ${(r.body && r.body.error) || 'error ' + r.status}.`);
      document.body.dataset.searched = String(Number(document.body.dataset.searched || 0) + 1);
      return;
    }
    showError('');
    for (const x of r.body.rounds) $('rounds').appendChild(row(x));
    shown += r.body.rounds.length;
    next = r.body.next || '';
    $('more').hidden = !next;
    $('count').textContent = shown === 0 ? 'No round found' : `${shown} round${shown === 1 ? '' : 's'}${next ? ', more to load' : ''}`;
    $('layout').hidden = false;
    document.body.dataset.searched = String(Number(document.body.dataset.searched || 0) + 1);
  }

  function cardEl(code) {
    const c = el('div', 'card');
    c.dataset.card = code;
    const suits = { S: '\u2660', H: '\u2665', D: '\u2666', C: '\u2663' };
    if (code[1] === 'H' || code[1] === 'D') c.classList.add('red');
    c.append(el('span', 'rank', code[0] === 'T' ? '10' : code[0]), el('span', 'suit', suits[code[1]] || '?'));
    return c;
  }

  // rows fills tbody with a row of cells(x) for each x; a cell given as [text, class]
  // takes the class.
  function rows(tbody, list, cells) {
    tbody.replaceChildren();
    for (const x of list) {
      const tr = el('tr');
      for (const c of cells(x)) tr.appendChild(Array.isArray(c) ? el('td', c[1], c[0]) : el('td', '', c));
      tbody.appendChild(tr);
    }
    if (!list.length) {
      const tr = el('tr', 'none');
      const td = el('td', '', 'None');
      td.colSpan = tbody.parentElement.querySelectorAll('th').length;
      tr.appendChild(td);
      tbody.appendChild(tr);
    }
  }

  async function openRound(table, seq) {
    const r = await api('GET', `/api/history/rounds/${encodeURIComponent(table)}/${seq}`);
    if (r.status !== 200) {
      showError(`The round was not opened: ${(r.body && r.body.error) || 'error ' + r.status}.`);
      return;
    }
    showError('');
    const d = r.body;
    opened = `${d.table}/${d.seq}`;
    for (const tr of document.querySelectorAll('.round-row')) tr.classList.toggle('open', tr.dataset.round === opened);
    $('round-title').textContent = `Table ${d.table}${d.pit ? ' (' + d.pit + ')' : ''} · Shoe ${d.shoe} · Round ${d.round}`;
    $('round-meta').textContent = `Started ${when(d.started) || '–'} · ended ${when(d.ended)} · records ${d.first_seq} to ${d.seq}`;
    for (const [side, cards, pts] of [['player', d.player, d.player_points], ['banker', d.banker, d.banker_points]]) {
      $(`r-${side}-cards`).replaceChildren(...(cards ? cards.split(' ') : []).map(cardEl));
      $(`r-${side}-points`).textContent = String(pts);
      $(`r-${side}`).classList.toggle('winner', d.winner === side);
    }
    const res = winnerText(d);
    $('r-result').className = 'last-line ' + res.cls;
    $('r-result').textContent = d.void ? `VOID: ${d.void_reason || ''}` : res.text;
    rows($('r-settlements').tBodies[0], d.settlements || [], (s) => [
      s.box + (s.seat === 'standing' ? ' (standing)' : ''), s.bet, String(s.stake), s.result, String(s.won), String(s.returned),
      (s.rule || '') + (s.option ? ' · ' + s.option : '')]);
    rows($('r-irregs').tBodies[0], d.irregularities || [], (i) => [
      String(i.id), Words.kindText(i.kind) + (i.reason ? ': ' + i.reason : ''), i.rule,
      i.decision ? i.decision + (i.decision_reason ? ' (' + i.decision_reason + ')' : '') : (i.holds ? 'not decided' : '–'),
      [roleText(i.decided_role), i.decided_by].filter(Boolean).join(' '), [when(i.decided || i.raised), 'time']]);
    rows($('r-commands').tBodies[0], d.commands || [], (c) => [String(c.seq), [when(c.at), 'time'], c.kind, roleText(c.role), c.actor || '', c.detail || '']);
    $('round').hidden = false;
    $('round').scrollIntoView({ block: 'nearest' });
    document.body.dataset.opened = opened;
  }

  async function options() {
    const book = await Words.load();
    const kinds = new Set();
    for (const rs of Object.values(book || {})) for (const k of Object.keys(rs.kinds || {})) kinds.add(k);
    for (const k of [...kinds].sort()) $('f-kind').appendChild(el('option', '', Words.kindText(k))).value = k;
    for (const c of DECISIONS) $('f-decision').appendChild(el('option', '', c)).value = c;
    const t = await api('GET', '/api/tables');
    const pits = new Set();
    for (const s of (t.status === 200 && t.body) || []) {
      $('tables-seen').appendChild(el('option')).value = s.table;
      if (s.pit) pits.add(s.pit);
    }
    const collator = new Intl.Collator(undefined, { numeric: true });
    for (const p of [...pits].sort(collator.compare)) $('f-pit').appendChild(el('option', '', p)).value = p;
  }

  session().then(async (m) => {
    me = m;
    try { $('zone').textContent = 'Times in ' + Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { /* no zone name */ }
    if (me.history !== 'open') {
      $('none').textContent = me.history === 'role'
        ? `A ${roleText(me.role)} may not read the history: it takes a Pit Supervisor or above.`
        : 'This console has no archive (console.archive is not set): there is no history to search.';
      $('none').hidden = false;
      document.body.dataset.ready = '1';
      return;
    }
    $('search-form').hidden = false;
    await options();
    const q = new URLSearchParams(location.search);
    fill(q);
    csvLink();
    $('search-form').addEventListener('input', csvLink);
    $('search-form').addEventListener('change', csvLink);
    $('search-form').addEventListener('submit', (e) => { e.preventDefault(); search(false); });
    $('more').addEventListener('click', () => search(true));
    $('round-close').addEventListener('click', () => { $('round').hidden = true; opened = ''; document.body.dataset.opened = ''; });
    document.body.dataset.ready = '1';
    if ([...q.keys()].length) {
      await search(false); // a link to a search opens it
      return;
    }
    // The last hour of the person's tables, by the console's clock.
    const now = Date.parse(me.now || '');
    const end = isNaN(now) ? Date.now() : now;
    $('f-from').value = localInput(new Date(end - HOUR).toISOString());
    $('f-to').value = localInput(new Date(end).toISOString());
    csvLink();
    await search(false, true);
  }).catch(() => {});
})();
