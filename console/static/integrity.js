// The Integrity page: the integrity watch's alarms (docs/integrity.md), each with its
// evidence: two shoes' shared runs side by side, a shuffle's statistic and p-values, a
// set's cards not accounted for, an outcome's counts against the exact rate. A Pit
// Supervisor or above, or surveillance, acknowledges one with a note; the archive keeps
// who did, when and what they wrote.
'use strict';

(function () {
  const { $, el, api, session } = Console;
  let list = [];
  const notes = new Map(); // id -> the note being written, kept across redraws
  const replies = new Map(); // id -> the answer to the last tap: {cls, text}

  const KINDS = {
    'integrity-repeated-order': 'Repeated order',
    'integrity-shuffler-input': "Shuffler's input dealt",
    'integrity-weak-shuffle': 'Weak shuffle',
    'integrity-set': 'Set not accounted for',
    'integrity-drift': 'Drifting outcome',
  };
  const OUTCOMES = { banker: 'Banker wins', player: 'Player wins', tie: 'Ties', natural: 'Naturals', pair: 'Pairs' };

  // when writes a time as the archive keeps it: the date and time in UTC.
  function when(iso) {
    const d = iso ? new Date(iso) : null;
    if (!d || isNaN(d) || d.getUTCFullYear() < 2) return '–';
    return d.toISOString().slice(0, 19).replace('T', ' ') + ' UTC';
  }

  function p(x) {
    if (x === undefined || x === null) return '–';
    if (x === 0) return '0';
    return x < 0.001 ? x.toExponential(2) : x.toFixed(4);
  }

  function shoeBox(title, s, run, at) {
    const b = el('div', 'shoe-side');
    b.append(el('div', 'shoe-title', title));
    const link = el('a', 'alert-table', s.table);
    link.href = 'table.html?table=' + encodeURIComponent(s.table);
    const id = el('div', 'shoe-id');
    id.append(link, el('span', '', ` · shoe ${s.shoe}` + (s.set ? ` · set ${s.set}` : '')));
    b.append(id, el('div', 'alert-times', `${when(s.started)} to ${when(s.ended)}`));
    if (run) {
      b.append(el('div', 'run-at', `cards ${at + 1} to ${at + run.len}`), el('div', 'run-cards', run.cards));
    }
    return b;
  }

  function row(label, value) {
    const r = el('div', 'ev-row');
    r.append(el('span', 'ev-label', label), el('span', 'ev-value', value));
    return r;
  }

  function evidence(a) {
    const ev = a.evidence || {};
    const box = el('div', 'evidence');
    switch (a.kind) {
      case 'integrity-repeated-order':
      case 'integrity-shuffler-input': {
        const runs = ev.runs || [];
        runs.slice(0, 4).forEach((r, i) => {
          box.append(el('div', 'run-head', `Run ${i + 1} of ${runs.length}: ${r.len} cards in the same order`));
          const sides = el('div', 'shoe-pair');
          sides.append(shoeBox('This shoe', ev.shoe, r, r.a), ev.other ? shoeBox('The earlier shoe', ev.other, r, r.b) : el('div'));
          box.append(sides);
        });
        if (runs.length > 4) box.append(el('div', 'alert-times', `and ${runs.length - 4} more runs`));
        break;
      }
      case 'integrity-weak-shuffle':
        box.append(shoeBox('The set', ev.shoe),
          row('Neighbours kept from the previous set', `${ev.neighbours} (chance gives ${(ev.expected || 0).toFixed(1)})`),
          row('p-value of this set', p(ev.p)),
          row('Combined over the last sets', `${p(ev.combined)} (${(ev.ps || []).length} sets)`),
          row('Alarm at or below', p(ev.alarm)));
        if ((ev.ps || []).length) box.append(row('The last sets, oldest first', ev.ps.map(p).join(' · ')));
        break;
      case 'integrity-set':
        box.append(shoeBox('The set', ev.shoe));
        for (const c of ev.over || []) box.append(row('Dealt too often', `${c.card}: ${c.dealt} times, the decks hold ${c.allowed}`));
        if ((ev.missing || []).length) box.append(row('Never dealt (passed over)', ev.missing.join(' ')));
        if ((ev.foreign || []).length) box.append(row('Not of the set', ev.foreign.join(' ')));
        if ((ev.misplaced || []).length) box.append(row('Out of the shuffler\'s order', ev.misplaced.join(' ')));
        box.append(row('Cards', `${ev.dealt || 0} dealt, ${ev.undealt || 0} behind the cut card` + (ev.set_cards ? `, ${ev.set_cards} in the shuffler's set` : '')));
        break;
      case 'integrity-drift':
        box.append(shoeBox('Up to the shoe', ev.shoe),
          row(OUTCOMES[ev.outcome] || ev.outcome, `${ev.seen} of ${ev.rounds} rounds (expected ${(ev.rounds_expected || 0).toFixed(1)})`),
          row('Exact rate of the rule set', (ev.p0 || 0).toFixed(4)),
          row('Raised rate looked for', (ev.p1 || 0).toFixed(4)),
          row('CUSUM', `${(ev.sum || 0).toFixed(2)} reached ${(ev.h || 0).toFixed(2)} (a false alarm once in ${Math.round(ev.arl || 0).toLocaleString('en')} rounds at most)`));
        break;
      default:
        box.append(el('div', 'alert-times', 'No evidence this page knows how to show.'));
    }
    return box;
  }

  function card(a) {
    const c = el('section', 'alert-card integrity-card' + (a.ack ? ' acked' : ' open'));
    c.id = 'alarm-' + a.id;
    c.dataset.alarm = a.id;
    c.dataset.kind = a.kind;
    const head = el('div', 'alert-head');
    const link = el('a', 'alert-table', a.table);
    link.href = 'table.html?table=' + encodeURIComponent(a.table);
    head.append(link, el('span', 'alert-kind', KINDS[a.kind] || a.kind), el('span', 'alert-pit', a.pit || ''));
    c.append(head, el('div', 'alert-text', a.text), el('div', 'alert-times', `Raised ${when(a.raised)}`), evidence(a));
    if (a.ack) {
      const t = el('div', 'alert-ack');
      t.append(el('b', '', `Acknowledged by ${a.ack.by} (${a.ack.role.replace(/_/g, ' ')}) at ${when(a.ack.at)}`), el('span', '', ': '), el('q', '', a.ack.note));
      c.append(t, el('div', 'alert-kept', a.kept ? 'Kept in the archive.' : 'Given to the archive: not yet shown by it.'));
      return c;
    }
    const note = el('textarea', 'alert-note');
    note.id = 'note-' + a.id;
    note.maxLength = 1024;
    note.rows = 2;
    note.placeholder = 'What was looked at and done: the note is kept with the acknowledgement';
    note.value = notes.get(a.id) || '';
    note.addEventListener('input', () => notes.set(a.id, note.value));
    const b = el('button', 'ack', 'Acknowledge');
    b.type = 'button';
    b.dataset.ack = a.id;
    const said = replies.get(a.id) || { cls: '', text: '' };
    const reply = el('div', 'reply ' + said.cls, said.text);
    b.addEventListener('click', async () => {
      if (!note.value.trim()) {
        replies.set(a.id, { cls: 'refused', text: 'Write what was done first: an acknowledgement needs a note.' });
        draw();
        return;
      }
      b.disabled = true;
      const r = await api('POST', '/api/integrity/ack', { id: a.id, note: note.value.trim() });
      if (r.status === 200) {
        notes.delete(a.id);
        replies.delete(a.id);
        list = list.map((x) => (x.id === r.body.id ? r.body : x));
        draw();
        return;
      }
      replies.set(a.id, { cls: 'refused', text: (r.body && r.body.error) || `refused (${r.status})` });
      draw();
    });
    c.append(note, b, reply);
    return c;
  }

  function draw() {
    const box = $('alarms');
    const focused = document.activeElement && document.activeElement.id;
    box.replaceChildren(...list.map(card));
    $('none').hidden = list.length > 0;
    const open = list.filter((a) => !a.ack).length;
    $('count').textContent = `${open} open · ${list.length} listed`;
    if (focused && $(focused)) $(focused).focus();
    if (location.hash) {
      const target = $('alarm-' + decodeURIComponent(location.hash.slice(1)));
      if (target) target.classList.add('target');
    }
    document.body.dataset.ready = '1';
  }

  async function load() {
    const q = new URLSearchParams();
    if ($('kind').value) q.set('kind', $('kind').value);
    if ($('table').value.trim()) q.set('table', $('table').value.trim());
    if ($('open').checked) q.set('open', '1');
    document.body.dataset.ready = '';
    const r = await api('GET', '/api/integrity' + (q.toString() ? '?' + q : ''));
    if (r.status !== 200) {
      list = [];
      $('refused').hidden = false;
      $('refused').textContent = (r.body && r.body.error) || `refused (${r.status})`;
      $('none').hidden = true;
      document.body.dataset.ready = '1';
      return;
    }
    $('refused').hidden = true;
    list = r.body.alarms || [];
    draw();
  }

  session().then(async () => {
    await Words.load();
    for (const id of ['kind', 'open']) $(id).addEventListener('change', load);
    $('table').addEventListener('change', load);
    $('refresh').addEventListener('click', load);
    await load();
  }).catch(() => {});
})();
