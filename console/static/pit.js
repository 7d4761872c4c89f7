// A pit's tables and dealers: each table's dealer and state live, its rounds in the
// last hour as the console saw them, and, from the floor's archive, its rounds per
// dealing hour and the time it stood still; each dealer's rounds in the last hour
// (docs/pit.md, "The Pit page").
'use strict';

(function () {
  const { $, el, api, session, watchFloor, phaseText } = Console;
  let tables = new Map();
  let figures = null; // GET /api/pit's answer
  const collator = new Intl.Collator(undefined, { numeric: true });

  const minutes = (ms) => {
    const s = Math.round((ms || 0) / 1000);
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  };

  function row(cells, cls) {
    const tr = el('tr', cls || '');
    for (const c of cells) tr.appendChild(typeof c === 'string' ? el('td', '', c) : c);
    return tr;
  }

  function head(names) {
    const tr = el('tr');
    for (const n of names) tr.appendChild(el('th', '', n));
    return tr;
  }

  function pitOptions() {
    const sel = $('pit');
    const have = new Set([...sel.options].map((o) => o.value));
    for (const s of tables.values()) {
      if (s.pit && !have.has(s.pit)) {
        sel.appendChild(el('option', '', s.pit)).value = s.pit;
        have.add(s.pit);
      }
    }
  }

  function draw() {
    pitOptions();
    const pit = $('pit').value;
    const byTable = new Map(((figures && figures.tables) || []).map((f) => [f.key, f]));
    const list = [...tables.values()].filter((s) => !pit || s.pit === pit).sort((a, b) => collator.compare(a.table, b.table));
    const tb = $('tables');
    tb.replaceChildren(head(['table', 'dealer', 'now', 'rounds, last hour', 'per dealing hour', 'stood still', 'why']));
    for (const s of list) {
      const f = byTable.get(s.table);
      const why = f && f.still_by_ms ? Object.keys(f.still_by_ms).filter((k) => f.still_by_ms[k] > 0).join(', ') : '';
      const dealer = el('td', s.dealer ? '' : 'none', s.dealer || 'No dealer on');
      const now = el('td', s.held ? 'held' : '', !s.online ? 'Offline' : phaseText(s, '–'));
      const r = row([el('td', 'id', s.table), dealer, now, String(s.last_hour || 0),
        f ? f.per_dealing_hour.toFixed(1) : '–', f ? minutes(f.still_ms) : '–', why]);
      r.dataset.table = s.table;
      tb.appendChild(r);
    }
    const dl = $('dealers');
    dl.replaceChildren(head(['dealer', 'at table now', 'rounds', 'mean dealing (s)']));
    const at = new Map(list.filter((s) => s.dealer).map((s) => [s.dealer, s.table]));
    const ds = ((figures && figures.dealers) || []).filter((f) => f.key).sort((a, b) => collator.compare(a.key, b.key));
    for (const f of ds) {
      const r = row([el('td', 'id', f.key), at.get(f.key) || '–', String(f.rounds), (f.dealing_ms / 1000).toFixed(1)]);
      r.dataset.dealer = f.key;
      dl.appendChild(r);
    }
    for (const [name, table] of at) {
      if (!ds.some((f) => f.key === name)) {
        const r = row([el('td', 'id', name), table, '0', '–']);
        r.dataset.dealer = name;
        dl.appendChild(r);
      }
    }
    $('note').textContent = !figures ? 'Reading the archive…' : figures.archive
      ? `Rounds per dealing hour, stand-still and dealers from the archive, ${Console.clock(figures.from)} to ${Console.clock(figures.to)}. Rounds in the last hour as the console saw them.`
      : 'The console has no archive: the figures from the rounds\u2019 own times are not shown.';
    document.body.dataset.ready = figures ? '1' : '';
  }

  async function load() {
    const r = await api('GET', '/api/pit?pit=' + encodeURIComponent($('pit').value));
    if (r.status === 200) figures = r.body;
    else figures = { archive: false };
    draw();
  }

  session().then(async (me) => {
    await Words.load();
    const want = new URLSearchParams(location.search).get('pit');
    if (want) $('pit').appendChild(el('option', '', want)).value = want;
    if (want) $('pit').value = want;
    $('pit').addEventListener('change', () => { figures = null; draw(); load(); });
    // Drawn once a frame at most: a floor's tables change many times a second.
    let due = false;
    watchFloor((all) => {
      tables = all;
      if (due) return;
      due = true;
      requestAnimationFrame(() => {
        due = false;
        draw();
      });
    });
    await load();
    setInterval(load, 30000);
  }).catch(() => {});
})();
