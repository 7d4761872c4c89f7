// The floor: every table seen on the broker as a tile, held tables and supervisor
// calls first, updated live from /api/events; filter by pit, search by table id. A
// dealer's own tables are marked; an offline table shows its last known state, greyed;
// while the console cannot reach its broker every table's state is unknown.
'use strict';

(function () {
  const { $, el, session, watchFloor, onBroker, phaseText, resultText, mine, heldFor, archiveText } = Console;
  let tables = new Map(); // id -> summary
  const tiles = new Map(); // id -> element
  let scheduled = false;
  let brokerUp = true;
  // A tile is filled again only when its table's summary changed (each change is a new
  // object), or when all are (refill): the broker's state, the 5 s tick of the times
  // held, a whole new list.
  const filled = new Map(); // id -> the summary its tile shows
  let refill = true;

  function urgency(s) {
    if (s.held) return 4;
    if (s.call) return 3;
    if (s.archive && (s.archive.alarms > 0 || s.archive.late_minutes > 0)) return 2;
    if (!s.online) return 1;
    return 0;
  }

  function tileOf(id) {
    let t = tiles.get(id);
    if (!t) {
      t = el('a', 'tile');
      t.href = 'table.html?table=' + encodeURIComponent(id);
      t.dataset.table = id;
      const head = el('div', 'head');
      head.append(el('span', 'id', id), el('span', 'mine-tag', 'YOUR TABLE'), el('span', 'pit'));
      t.append(head, el('div', 'known', 'LAST KNOWN'), el('div', 'line phase-line'), el('div', 'line dealer'), el('div', 'line pace'), el('div', 'line devices'), el('div', 'last'),
        el('div', 'alert held'), el('div', 'alert call', 'CALLS A PIT SUPERVISOR'), el('div', 'alert archive-alarm'),
        el('div', 'alert archive-late'), el('div', 'alert offline', 'OFFLINE'),
        el('div', 'alert unknown', 'STATE UNKNOWN: the console cannot reach its broker'));
      tiles.set(id, t);
    }
    return t;
  }

  function fill(t, s) {
    const unknown = !brokerUp;
    t.classList.toggle('held', !!s.held);
    t.classList.toggle('call', !!s.call);
    t.classList.toggle('offline', !unknown && !s.online);
    t.classList.toggle('unknown', unknown);
    t.classList.toggle('mine', mine(s.table, s.pit));
    const arch = archiveText(s.table, s.archive);
    t.classList.toggle('archive-alarm', !!arch.alarm);
    t.classList.toggle('archive-late', !!arch.late);
    // The tile names its table already: the alert starts after the id.
    t.querySelector('.alert.archive-alarm').textContent = arch.alarm.slice(s.table.length + 1);
    t.querySelector('.alert.archive-late').textContent = arch.late.slice(s.table.length + 1).toUpperCase();
    t.querySelector('.pit').textContent = [s.site, s.pit].filter(Boolean).join(' · ');
    const phase = phaseText(s, 'no state yet');
    // No-break spaces inside each part and before each dot: a narrow tile breaks its
    // lines after a dot only.
    t.querySelector('.phase-line').textContent = [`Shoe\u00a0${s.shoe}`, `Round\u00a0${s.round}`, phase.replace(/ /g, '\u00a0'),
      Words.ruleSetName(s.rules, s.rules_name).replace(/ /g, '\u00a0')].filter(Boolean).join('\u00a0· ');
    const dl = t.querySelector('.line.dealer');
    dl.textContent = s.online || s.dealer ? (s.dealer ? 'Dealer ' + s.dealer : 'No dealer on') : '';
    t.querySelector('.line.pace').textContent = `${s.last_hour || 0} rounds in the last hour` +
      (s.last_hour_since ? ` (since ${Console.clock(s.last_hour_since)})` : '');
    dl.classList.toggle('none', !s.dealer);
    const dev = s.devices || {};
    const down = Object.keys(dev).filter((k) => dev[k] !== 'connected');
    // A device in trouble says so before a dealer calls: lost now, or failing in the last
    // hour (cards it could not read, its own faults, lost and back).
    const fails = Object.keys(s.failures || {}).sort().map((k) => `${k} failed ${s.failures[k]}\u00a0${s.failures[k] === 1 ? 'time' : 'times'}`);
    const devLine = t.querySelector('.devices');
    const failing = fails.join(', ').replace(/^./, (c) => c.toUpperCase());
    devLine.textContent = [down.length ? 'Disconnected: ' + down.join(', ') : '', fails.length ? failing + ' in the last hour' : '']
      .filter(Boolean).join(' · ') || (Object.keys(dev).length ? 'Devices connected' : '');
    devLine.classList.toggle('trouble', down.length > 0 || fails.length > 0);
    const r = resultText(s.last_result);
    const last = t.querySelector('.last');
    last.textContent = 'Last: ' + r.text;
    last.className = 'last ' + r.cls;
    const h = t.querySelector('.alert.held');
    if (s.held) {
      const since = heldFor(s.held_since);
      h.textContent = `HELD #${s.held.id} ${Words.kindText(s.held.kind)} · ${s.held.rule || ''}` +
        (since ? ` · ${s.held_since_seen ? 'at least ' : ''}${since}` : '');
    } else {
      h.textContent = '';
    }
  }

  // The pits seen, in natural order (pit2 before pit10).
  const collator = new Intl.Collator(undefined, { numeric: true });

  function pitOptions() {
    const sel = $('pit');
    const have = new Set([...sel.options].map((o) => o.value));
    let added = false;
    for (const s of tables.values()) {
      if (s.pit && !have.has(s.pit)) {
        have.add(s.pit);
        added = true;
      }
    }
    if (!added) return;
    const chosen = sel.value;
    const pits = [...have].filter(Boolean).sort(collator.compare);
    sel.replaceChildren(el('option', '', 'All pits'));
    sel.options[0].value = '';
    for (const p of pits) sel.appendChild(el('option', '', p)).value = p;
    sel.value = chosen;
  }

  function render() {
    scheduled = false;
    pitOptions();
    const pit = $('pit').value;
    const q = $('search').value.trim().toLowerCase();
    const list = [...tables.values()].sort((a, b) => urgency(b) - urgency(a) || (a.table < b.table ? -1 : a.table > b.table ? 1 : 0));
    let held = 0, call = 0, offline = 0, shown = 0;
    const box = $('tiles');
    let prev = null;
    for (const s of list) {
      if (s.held) held++;
      if (s.call) call++;
      if (!s.online) offline++;
      const t = tileOf(s.table);
      const visible = (!pit || s.pit === pit) && (!q || s.table.toLowerCase().includes(q));
      t.hidden = !visible;
      if (visible) shown++;
      if (refill || filled.get(s.table) !== s) {
        fill(t, s);
        filled.set(s.table, s);
      }
      // Keep the order without moving tiles already in place.
      const want = prev ? prev.nextSibling : box.firstChild;
      if (want !== t) box.insertBefore(t, want);
      prev = t;
    }
    refill = false;
    $('count-held').textContent = `${held} held`;
    $('count-held').dataset.n = String(held);
    $('count-call').dataset.n = String(call);
    $('count-call').textContent = `${call} call${call === 1 ? '' : 's'}`;
    $('count-offline').textContent = brokerUp ? `${offline} offline` : 'state unknown';
    $('count-shown').textContent = `${shown} of ${tables.size} tables`;
    $('empty').hidden = tables.size > 0;
    document.body.dataset.ready = '1';
  }

  function schedule() {
    if (!scheduled) {
      scheduled = true;
      requestAnimationFrame(render);
    }
  }

  $('pit').addEventListener('change', schedule);
  $('search').addEventListener('input', schedule);
  setInterval(() => { refill = true; schedule(); }, 5000); // the times held go on

  session().then(async (me) => {
    $('history-link').hidden = me.history !== 'open';
    $('integrity-link').hidden = me.integrity !== 'open';
    await Words.load();
    onBroker((b) => {
      brokerUp = b.up;
      refill = true;
      schedule();
    });
    watchFloor((all, whole) => {
      tables = all;
      if (whole) {
        for (const [id, t] of tiles) {
          if (!tables.has(id)) {
            t.remove();
            tiles.delete(id);
            filled.delete(id);
          }
        }
        refill = true;
      }
      schedule();
    });
  }).catch(() => {});
})();
