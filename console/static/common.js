// The console's shared script: the session, the API calls with their CSRF token, the
// event streams, and small DOM helpers. Every page loads it before its own script.
'use strict';

const Console = (function () {
  // The roles in rank order, the commands and the reports, as the table takes them
  // (GET /api/commands): loaded with the session.
  let vocabulary = { roles: [], commands: [], reports: [], options: [] };
  let me = null; // {user, role, tables, pits, csrf}

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

  function goLogin() {
    const next = location.pathname + location.search;
    location.replace('login.html?next=' + encodeURIComponent(next));
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
      goLogin();
    }
    return { status: r.status, body: data };
  }

  // session loads who is logged in, or sends the page to the login.
  async function session() {
    const r = await api('GET', '/api/session');
    if (r.status !== 200) {
      goLogin();
      throw new Error('not logged in');
    }
    me = r.body;
    const v = await api('GET', '/api/commands');
    if (v.status === 200 && v.body) vocabulary = v.body;
    if ($('who-name')) $('who-name').textContent = me.user;
    if ($('who-role')) $('who-role').textContent = '(' + roleText(me.role) + ')';
    if ($('logout')) {
      $('logout').addEventListener('click', async () => {
        await api('POST', '/api/logout');
        location.replace('login.html');
      });
    }
    return me;
  }

  function rank(role) { return vocabulary.roles.indexOf(role) + 1; }

  // command is the table's command named cmd: its title, fields and lowest role.
  function command(cmd) { return vocabulary.commands.find((c) => c.cmd === cmd) || null; }

  // stream opens an event stream and calls handlers[name](data) for each event; the
  // link badge says whether it is live. It reconnects by itself.
  function stream(url, handlers) {
    const link = $('link');
    let retry = 1000;
    function connect() {
      const src = new EventSource(url);
      src.onopen = () => {
        retry = 1000;
        link.className = 'badge live';
        link.textContent = 'Live';
      };
      src.onerror = async () => {
        link.className = 'badge lost';
        link.textContent = 'Reconnecting';
        if (src.readyState === EventSource.CLOSED) {
          src.close();
          const r = await api('GET', '/api/session'); // a lost session goes to the login
          if (r.status === 200) {
            setTimeout(connect, retry);
            retry = Math.min(retry * 2, 15000);
          }
        }
      };
      src.addEventListener('expired', () => { src.close(); goLogin(); });
      for (const name of Object.keys(handlers)) {
        src.addEventListener(name, (e) => {
          let v;
          try { v = JSON.parse(e.data); } catch (err) { console.warn('console: event', name, 'is not JSON'); return; }
          try { handlers[name](v); } catch (err) { console.error('console: drawing', name, 'failed:', err); }
        });
      }
    }
    connect();
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

  return { $, el, api, session, rank, command, roleText, stream, phaseText, resultText, me: () => me, vocabulary: () => vocabulary };
})();
