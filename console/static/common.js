// The console's shared script: the session, the API calls with their CSRF token, the
// event streams, the notices every page shows (the broker out of reach, tables held and
// supervisor calls, in the tab's title and with an optional sound), the confirmation a
// consequential command asks for, and small DOM helpers. Every page loads it first.
'use strict';

const Console = (function () {
  // The roles in rank order, the commands and the reports, as the table takes them
  // (GET /api/commands): loaded with the session.
  let vocabulary = { roles: [], commands: [], reports: [], options: [] };
  let me = null; // {user, role, tables, pits, csrf}
  let leaving = false; // the person logs out
  let baseTitle = ''; // the page's own title, taken once its script has set it

  const $ = (id) => document.getElementById(id);

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  function roleText(role) {
    return (role || '').replace(/_/g, ' ');
  }

  // goLogin sends the page to the login; why 'expired' has the login page say that the
  // session ended.
  function goLogin(why) {
    if (leaving) return; // logging out: the page goes to the login by itself
    const next = location.pathname + location.search;
    location.replace('login.html?next=' + encodeURIComponent(next) + (why ? '&why=' + encodeURIComponent(why) : ''));
  }

  // expired reports whether a 401's answer says the session expired or ended (rather
  // than that there was none).
  function expired(body) {
    return !!(body && body.error && /expired|ended/.test(body.error));
  }

  // api calls the console's JSON API; requests that change anything carry the CSRF
  // token. It resolves to {status, body}; a lost session sends the page to the login.
  async function api(method, path, body) {
    const opts = { method, headers: {}, credentials: 'same-origin' };
    if (body !== undefined) {
      opts.headers['Content-Type'] = 'application/json';
      opts.body = JSON.stringify(body);
    }
    if (method !== 'GET' && me) opts.headers['X-CSRF-Token'] = me.csrf;
    const r = await fetch(path, opts);
    let data = null;
    const text = await r.text();
    try { data = text ? JSON.parse(text) : null; } catch (e) { data = { error: text }; }
    if (r.status === 401 && path !== '/api/login') {
      goLogin(expired(data) ? 'expired' : '');
    }
    return { status: r.status, body: data };
  }

  // session loads who is logged in, or sends the page to the login.
  async function session() {
    const r = await api('GET', '/api/session');
    if (r.status !== 200) {
      throw new Error('not logged in');
    }
    me = r.body;
    const v = await api('GET', '/api/commands');
    if (v.status === 200 && v.body) vocabulary = v.body;
    if ($('who-name')) $('who-name').textContent = me.user;
    if ($('who-role')) $('who-role').textContent = '(' + roleText(me.role) + ')';
    if ($('logout')) {
      $('logout').addEventListener('click', async () => {
        leaving = true;
        await api('POST', '/api/logout');
        location.replace('login.html');
      });
    }
    soundSetting();
    return me;
  }

  function rank(role) { return vocabulary.roles.indexOf(role) + 1; }

  // command is the table's command named cmd: its title, fields and lowest role.
  function command(cmd) { return vocabulary.commands.find((c) => c.cmd === cmd) || null; }

  // mine reports whether the person works the table (in pit) by name: a person with
  // neither tables nor pits works every table, and has none marked as their own.
  function mine(table, pit) {
    if (!me) return false;
    return (me.tables || []).includes(table) || (!!pit && (me.pits || []).includes(pit));
  }

  // ---- the notices at the top of every page ----

  function notices() {
    let n = $('notices');
    if (!n) {
      n = el('div', 'notices');
      n.id = 'notices';
      const top = document.querySelector('header.top');
      if (top) top.after(n); else document.body.prepend(n);
    }
    return n;
  }

  function clock(iso) {
    const d = iso ? new Date(iso) : null;
    return d && !isNaN(d) ? d.toLocaleTimeString([], { hour12: false }) : '';
  }

  let broker = { up: true };
  let brokerKnown = false; // a stream has said the broker's state
  let brokerWasDown = false;
  let backTimer = 0;
  const brokerListeners = [];

  // setBroker shows what the console knows of its link to the broker: while it is down,
  // every table's state is unknown; once it is back, the page says so for two minutes.
  function setBroker(b) {
    broker = b || { up: true };
    brokerKnown = true;
    drawLink();
    let box = $('broker-notice');
    if (!box) {
      box = el('div', 'notice broker');
      box.id = 'broker-notice';
      box.setAttribute('role', 'alert');
      notices().prepend(box);
    }
    clearTimeout(backTimer);
    document.body.dataset.broker = broker.up ? 'up' : 'down';
    if (!broker.up) {
      brokerWasDown = true;
      box.className = 'notice broker down';
      box.textContent = `The console cannot reach its broker${broker.since ? ' since ' + clock(broker.since) : ''}` +
        `${broker.error ? ' (' + broker.error + ')' : ''}. Every table's state is unknown: what is shown is the last known, and no command can be sent.`;
      box.hidden = false;
    } else if (brokerWasDown) {
      box.className = 'notice broker back';
      box.textContent = `The console reaches its broker again${broker.since ? ' since ' + clock(broker.since) : ''}: the tables' state is live.`;
      box.hidden = false;
      backTimer = setTimeout(() => { box.hidden = true; }, 120000);
    } else {
      box.hidden = true;
    }
    for (const f of brokerListeners) f(broker);
  }

  function onBroker(f) { brokerListeners.push(f); }

  // heldFor is how long ago since was, in words: "4 min 10 s".
  function heldFor(since) {
    const t = Date.parse(since || '');
    if (isNaN(t)) return '';
    let s = Math.max(0, Math.floor((Date.now() - t) / 1000));
    const d = Math.floor(s / 86400); s -= d * 86400;
    const h = Math.floor(s / 3600); s -= h * 3600;
    const m = Math.floor(s / 60); s -= m * 60;
    if (d) return `${d} d ${h} h`;
    if (h) return `${h} h ${m} min`;
    if (m) return `${m} min ${s} s`;
    return `${s} s`;
  }

  // ---- sound ----

  const SOUND_KEY = 'tablectl-console-sound';
  let audio = null;

  function soundOn() { try { return localStorage.getItem(SOUND_KEY) === 'on'; } catch (e) { return false; } }

  // soundSetting puts the page's sound setting in its header: off unless the person
  // turned it on on this screen.
  function soundSetting() {
    const top = document.querySelector('header.top');
    if (!top || $('sound')) return;
    const label = el('label', 'sound-setting');
    const box = el('input');
    box.type = 'checkbox';
    box.id = 'sound';
    box.checked = soundOn();
    label.append(box, el('span', 'long', 'Sound on hold'), el('span', 'short', 'Sound'), el('span', 'tiny', '\u266a'));
    label.title = 'Sound on hold';
    box.addEventListener('change', () => {
      try { localStorage.setItem(SOUND_KEY, box.checked ? 'on' : 'off'); } catch (e) { /* kept for this page only */ }
      if (box.checked) beep(); // the tap lets the browser play, and the person hears it
    });
    const who = top.querySelector('.who');
    if (who) top.insertBefore(label, who); else top.appendChild(label);
    fitHeader();
  }

  // ---- the header on one line ----

  // FIT_LEVELS is how many ways the header has of taking less room (console.css, "The
  // header on one line"): each level keeps those before it.
  const FIT_LEVELS = 9;

  // fitHeader keeps the page's header on one line, the rule set and the decks whole:
  // while it is too wide, it drops what matters least first ("Logged in:", then the
  // sound's long label, the role, the word "Table", the phase's long text, the badges'
  // long texts, the decks, the word "Sound", then it sets the rest closer). Only a
  // header still too wide then lets the rule set's name shorten.
  function fitHeader() {
    const top = document.querySelector('header.top');
    if (!top) return;
    for (let i = 1; i <= FIT_LEVELS; i++) top.classList.remove('fit-' + i);
    top.classList.remove('fit-last');
    let level = 0;
    while (top.scrollWidth > top.clientWidth && level < FIT_LEVELS) top.classList.add('fit-' + ++level);
    if (top.scrollWidth > top.clientWidth) top.classList.add('fit-last');
    top.dataset.fit = String(level);
  }

  window.addEventListener('resize', fitHeader);

  // beep plays two short tones, when the setting is on.
  function beep() {
    if (!$('sound') || !$('sound').checked) return;
    document.body.dataset.beeps = String(Number(document.body.dataset.beeps || 0) + 1);
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      if (audio.state === 'suspended') audio.resume();
      for (const [at, f] of [[0, 880], [0.25, 660]]) {
        const o = audio.createOscillator();
        const g = audio.createGain();
        o.frequency.value = f;
        g.gain.value = 0.2;
        o.connect(g).connect(audio.destination);
        o.start(audio.currentTime + at);
        o.stop(audio.currentTime + at + 0.18);
      }
    } catch (e) { /* no audio on this screen */ }
  }

  // ---- attention: holds and calls on every page ----

  let alerted = null; // the holds and calls already signalled
  let floorTables = new Map();
  let openAlerts = []; // the alerts the console gives (GET /api/alerts), open and acknowledged

  // archiveText says what is wrong with a table's archives (a summary's "archive"):
  // alarm, the latest item an archive refused and kept apart, naming the archive, the
  // place, the kind and the reason, and the items kept apart by all of them; late, how
  // long the table has not been archived (by the archive furthest behind, named when
  // the table has more than one). Each '' when none.
  function archiveText(table, a) {
    if (!a) return { alarm: '', late: '' };
    let alarm = '';
    if (a.alarms > 0) {
      const x = a.alarm || {};
      alarm = `${table} ARCHIVE ALARM${x.archive ? ` (archive ${x.archive})` : ''}: ` +
        `${x.item || 'item'} ${x.seq !== undefined ? x.seq : '?'} refused (${x.kind || 'unknown'})` +
        `${x.reason ? ': ' + x.reason : ''}` + (a.alarms > 1 ? ` \u00b7 ${a.alarms} items kept apart` : '');
    }
    const late = a.late_minutes > 0 ? `${table} not archived for ${a.late_minutes} min` +
      (a.behind ? ` (${a.behind} record${a.behind === 1 ? '' : 's'} behind${a.archive ? `, archive ${a.archive}` : ''})` : '') : '';
    return { alarm, late };
  }

  // attention shows the tables held, the supervisor calls and the archive's alarms and
  // late tables in a banner and in the tab's title, and beeps (when on) for each new
  // one. None is dismissed from the page: each stays while its cause stands.
  function attention() {
    const held = [], calls = [], archived = [];
    for (const s of floorTables.values()) {
      if (s.held) held.push(s);
      else if (s.call) calls.push(s);
      const t = archiveText(s.table, s.archive);
      if (t.alarm || t.late) archived.push(Object.assign({ s }, t));
    }
    const byId = (a, b) => (a.table < b.table ? -1 : a.table > b.table ? 1 : 0);
    held.sort(byId);
    calls.sort(byId);
    archived.sort((a, b) => byId(a.s, b.s));
    let box = $('attention');
    if (!box) {
      box = el('div', 'notice attention');
      box.id = 'attention';
      box.setAttribute('role', 'alert');
      notices().appendChild(box);
    }
    box.replaceChildren();
    for (const s of held) {
      const a = el('a', 'att held' + (mine(s.table, s.pit) ? ' mine' : ''));
      a.href = 'table.html?table=' + encodeURIComponent(s.table);
      a.dataset.table = s.table;
      const kind = typeof Words !== 'undefined' ? Words.kindText(s.held.kind) : s.held.kind;
      const since = heldFor(s.held_since);
      a.textContent = `${s.table} HELD: ${kind}${since ? ' \u00b7 ' + (s.held_since_seen ? 'at least ' : '') + since : ''}`;
      box.appendChild(a);
    }
    for (const s of calls) {
      const a = el('a', 'att call' + (mine(s.table, s.pit) ? ' mine' : ''));
      a.href = 'table.html?table=' + encodeURIComponent(s.table);
      a.dataset.table = s.table;
      a.textContent = `${s.table} calls a Pit Supervisor`;
      box.appendChild(a);
    }
    let alarms = 0;
    for (const x of archived) {
      for (const [cls, text] of [['archive-alarm', x.alarm], ['archive-late', x.late]]) {
        if (!text) continue;
        const a = el('a', 'att ' + cls + (mine(x.s.table, x.s.pit) ? ' mine' : ''));
        a.href = 'table.html?table=' + encodeURIComponent(x.s.table);
        a.dataset.table = x.s.table;
        a.textContent = text;
        box.appendChild(a);
      }
      if (x.alarm) alarms++;
    }
    // The alerts not yet acknowledged, each with the way to answer it (alerts.html).
    const open = openAlerts.filter((a) => !a.ack);
    for (const x of open) {
      const a = el('a', 'att alert-open' + (mine(x.table, x.pit) ? ' mine' : ''));
      a.href = 'alerts.html#' + encodeURIComponent(x.id);
      a.dataset.alert = x.id;
      a.textContent = `${x.table} ALERT: ${x.text} \u00b7 answer`;
      box.appendChild(a);
    }
    box.hidden = !held.length && !calls.length && !archived.length && !open.length;
    const parts = [];
    if (open.length) parts.push(`${open.length} ALERT${open.length === 1 ? '' : 'S'}`);
    if (held.length) parts.push(`${held.length} HELD`);
    if (calls.length) parts.push(`${calls.length} CALL${calls.length === 1 ? '' : 'S'}`);
    if (alarms) parts.push(`${alarms} ARCHIVE ALARM${alarms === 1 ? '' : 'S'}`);
    baseTitle = baseTitle || document.title;
    document.title = parts.length ? `(${parts.join(', ')}) ${baseTitle}` : baseTitle;
    const keys = new Set([...held.map((s) => `h ${s.table} ${s.held.id}`), ...calls.map((s) => `c ${s.table}`), ...open.map((a) => `x ${a.id}`),
      ...archived.filter((x) => x.alarm).map((x) => `a ${x.s.table} ${x.s.archive.alarms}`)]);
    if (alerted) {
      for (const k of keys) {
        if (!alerted.has(k)) { beep(); break; }
      }
    }
    alerted = keys;
  }

  // watchFloor follows every table's summary on /api/events for the notices, and hands
  // the tables (a Map by id) to onTables, when given, after each change.
  // attentionSoon draws the attention line once at the next frame, however many tables
  // changed before it: a floor of 500 tables sends many changes a second.
  let attentionDue = false;
  function attentionSoon() {
    if (attentionDue) return;
    attentionDue = true;
    requestAnimationFrame(() => {
      attentionDue = false;
      attention();
    });
  }

  function watchFloor(onTables, onAlerts) {
    stream('/api/events', {
      alerts: (all) => {
        openAlerts = all || [];
        attentionSoon();
        if (onAlerts) onAlerts(openAlerts);
      },
      tables: (all) => {
        floorTables = new Map();
        for (const s of all || []) floorTables.set(s.table, s);
        attentionSoon();
        if (onTables) onTables(floorTables, true);
      },
      table: (s) => {
        floorTables.set(s.table, s);
        attentionSoon();
        if (onTables) onTables(floorTables, false);
      },
    });
    setInterval(attention, 5000); // the times held go on
  }

  // The page's streams, each true while it is open.
  const streams = [];

  // drawLink says in the link badge whether what the page shows is live: every stream
  // of the page open, and the console reaching its broker. With the broker lost the page
  // shows the last state known, not a live one.
  function drawLink() {
    const link = $('link');
    if (!link) return;
    const open = streams.length > 0 && streams.every((s) => s.open);
    let cls = 'badge live', text = 'Live';
    if (!open) {
      cls = 'badge lost';
      text = streams.some((s) => s.was) ? 'Reconnecting' : 'Connecting';
    } else if (!brokerKnown) {
      cls = 'badge';
      text = 'Connecting';
    } else if (!broker.up) {
      cls = 'badge lost';
      text = 'Not live';
    }
    link.className = cls;
    link.textContent = text;
    link.title = text === 'Not live' ? 'The console cannot reach its broker: what is shown is the last known' : '';
    fitHeader();
  }

  // stream opens an event stream and calls handlers[name](data) for each event; the
  // link badge says whether it is live (drawLink). The broker's state goes to setBroker.
  // It reconnects by itself.
  function stream(url, handlers) {
    let retry = 1000;
    const self = { open: false, was: false };
    streams.push(self);
    function connect() {
      const src = new EventSource(url);
      src.onopen = () => {
        retry = 1000;
        self.open = self.was = true;
        drawLink();
      };
      src.onerror = async () => {
        self.open = false;
        drawLink();
        if (src.readyState === EventSource.CLOSED) {
          src.close();
          const r = await api('GET', '/api/session'); // a lost session goes to the login
          if (r.status === 200) {
            setTimeout(connect, retry);
            retry = Math.min(retry * 2, 15000);
          }
        }
      };
      src.addEventListener('expired', () => { src.close(); goLogin('expired'); });
      const all = Object.assign({ broker: setBroker }, handlers);
      for (const name of Object.keys(all)) {
        src.addEventListener(name, (e) => {
          let v;
          try { v = JSON.parse(e.data); } catch (err) { console.warn('console: event', name, 'is not JSON'); return; }
          try { all[name](v); } catch (err) { console.error('console: drawing', name, 'failed:', err); }
        });
      }
    }
    connect();
  }

  // ---- confirmation ----

  // confirm asks once more before a consequential command, where the button was: after
  // anchor, a box saying what will happen (text), with yes (its label) and Cancel. On
  // yes it calls onYes with the box, in which the answer then shows. Only one box is
  // open at a time.
  function confirm(anchor, text, yes, onYes) {
    const old = $('confirm');
    if (old) old.remove();
    const box = el('div', 'confirm');
    box.id = 'confirm';
    box.setAttribute('role', 'alertdialog');
    const say = el('div', 'confirm-text', text);
    const y = el('button', 'danger', yes);
    y.type = 'button';
    y.id = 'confirm-yes';
    const n = el('button', 'cancel', 'Cancel');
    n.type = 'button';
    n.id = 'confirm-cancel';
    const row = el('div', 'confirm-buttons');
    row.append(y, n);
    box.append(say, row);
    anchor.after(box);
    box.scrollIntoView({ block: 'nearest' });
    n.addEventListener('click', () => box.remove());
    y.addEventListener('click', () => {
      box.remove();
      onYes();
    });
    n.focus();
    return box;
  }

  const PHASE_TEXT = {
    'no-shoe': 'Waiting for a shoe',
    'burning': 'Burning cards',
    'betting-open': 'Betting open',
    'dealing': 'Dealing',
    'complete': 'Result: to confirm',
    'shoe-done': 'Shoe done',
    'next-set': 'Waiting for the next set',
  };

  // phaseText is what a table is doing: held for a decision above all, since a held
  // table waits in whatever phase the hold found it (state.held, docs/mqtt.md).
  function phaseText(s, none) {
    if (s.held) return 'Held for a decision';
    return PHASE_TEXT[s.phase] || s.phase || none;
  }

  function resultText(r) {
    if (!r) return { text: '–', cls: '' };
    if (r.void) return { text: 'VOID', cls: 'win-void' };
    const w = { banker: 'BANKER', player: 'PLAYER', tie: 'TIE' }[r.winner] || '–';
    let pts = '';
    // No-break spaces: the points stay on one line.
    if (r.player_points !== undefined && r.player_points !== null) pts = `\u00a0· P\u00a0${r.player_points}\u00a0B\u00a0${r.banker_points}`;
    return { text: w + pts, cls: r.winner ? 'win-' + r.winner : '' };
  }

  return {
    $, el, api, session, rank, command, roleText, stream, phaseText, resultText, confirm, watchFloor, onBroker,
    heldFor, mine, clock, archiveText, fitHeader, broker: () => broker, me: () => me, vocabulary: () => vocabulary,
  };
})();
