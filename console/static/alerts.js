// The alerts: each one the console raised (a table held too long, dealing with no
// dealer on, not archived, a pace outside the band), open ones first. A Pit Supervisor
// or above acknowledges one with a note; the page then shows who did, when, and what
// they wrote, and whether the archive keeps it (docs/pit.md, "Alerts").
'use strict';

(function () {
  const { $, el, api, session, watchFloor, clock } = Console;
  let me = null;
  let may = false;
  let list = [];
  const notes = new Map(); // id -> the note being written, kept across redraws
  const replies = new Map(); // id -> the answer to the last tap: {cls, text}, kept across redraws

  const KINDS = { held: 'Held too long', 'no-dealer': 'No dealer on', 'archive-late': 'Not archived', pace: 'Pace' };

  function card(a) {
    const c = el('section', 'alert-card' + (a.ack ? ' acked' : ' open'));
    c.id = 'alert-' + a.id;
    c.dataset.alert = a.id;
    const head = el('div', 'alert-head');
    const link = el('a', 'alert-table', a.table);
    link.href = 'table.html?table=' + encodeURIComponent(a.table);
    head.append(link, el('span', 'alert-kind', KINDS[a.kind] || a.kind), el('span', 'alert-pit', a.pit || ''));
    c.append(head, el('div', 'alert-text', a.text),
      el('div', 'alert-times', `Since ${clock(a.since)} · raised ${clock(a.raised)}`));
    if (a.ack) {
      const t = el('div', 'alert-ack');
      t.append(el('b', '', `Acknowledged by ${a.ack.by} (${a.ack.role}) at ${clock(a.ack.at)}`), el('span', '', ': '), el('q', '', a.ack.note));
      c.append(t, el('div', 'alert-kept', a.kept ? 'Kept in the archive.' : 'Not yet kept in the archive: the console tries again.'));
      return c;
    }
    if (!may) {
      c.append(el('div', 'alert-who', 'A Pit Supervisor or above acknowledges it.'));
      return c;
    }
    const note = el('textarea', 'alert-note');
    note.id = 'note-' + a.id;
    note.maxLength = 1024;
    note.rows = 2;
    note.placeholder = 'What was done: the note is kept with the acknowledgement';
    note.value = notes.get(a.id) || '';
    note.addEventListener('input', () => {
      notes.set(a.id, note.value);
      if (replies.delete(a.id)) c.querySelector('.reply').replaceChildren(); // the prompt is answered
    });
    const b = el('button', 'ack', 'Acknowledge');
    b.type = 'button';
    b.dataset.ack = a.id;
    const said = replies.get(a.id) || { cls: '', text: '' };
    const reply = el('div', 'reply ' + said.cls, said.text);
    const answer = (cls, text) => {
      replies.set(a.id, { cls, text });
      draw();
    };
    b.addEventListener('click', async () => {
      if (!note.value.trim()) {
        answer('refused', 'Write what was done first: an acknowledgement needs a note.');
        return;
      }
      b.disabled = true;
      const r = await api('POST', '/api/alerts/ack', { id: a.id, note: note.value.trim() });
      if (r.status === 200) {
        notes.delete(a.id);
        replies.delete(a.id);
        list = list.map((x) => (x.id === r.body.id ? r.body : x));
        draw();
        return;
      }
      b.disabled = false;
      answer('refused', (r.body && r.body.error) || `refused (${r.status})`);
    });
    c.append(note, b, reply);
    return c;
  }

  function draw() {
    const box = $('alerts');
    const focused = document.activeElement && document.activeElement.id;
    box.replaceChildren(...list.map(card));
    $('none').hidden = list.length > 0;
    if (focused && $(focused)) $(focused).focus();
    if (location.hash) {
      const target = $('alert-' + decodeURIComponent(location.hash.slice(1)));
      if (target) target.classList.add('target');
    }
    document.body.dataset.ready = '1';
  }

  session().then(async (who) => {
    me = who;
    await Words.load();
    const r = await api('GET', '/api/alerts');
    if (r.status === 200) {
      may = !!r.body.acknowledge;
      list = r.body.alerts || [];
    }
    draw();
    watchFloor(null, (all) => {
      list = all;
      draw();
    });
  }).catch(() => {});
})();
