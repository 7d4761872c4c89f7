// The display board: draws what the table publishes on MQTT, as relayed by the board's
// event stream (/events). Every event is one MQTT message: "status", "state",
// "roadmap" (the retained ones, sent again whenever the stream reconnects), "card",
// "result" and "irregularity"; "ping" keeps an idle stream alive. The board keeps
// nothing of its own beyond what it was last sent.
'use strict';

(function () {
  const SVG = 'http://www.w3.org/2000/svg';
  const CELL = 10; // SVG units a road cell
  const ROWS = 6;

  // The smallest road cell drawn, as a fraction of the screen's shorter side. A road
  // that would need smaller cells shows its newest columns instead.
  const MIN_CELL = { bead_plate: 0.036, big_road: 0.045, big_eye_boy: 0.026, small_road: 0.026, cockroach_pig: 0.026 };

  const ROADS = {
    bead_plate: 'bead-plate',
    big_road: 'big-road',
    big_eye_boy: 'big-eye-boy',
    small_road: 'small-road',
    cockroach_pig: 'cockroach-pig',
  };

  // How long the stream may be gone before the page says OFFLINE, and how long it may
  // be silent (the server sends a ping every 15 s) before the page reopens it.
  const LOST_AFTER_MS = 2000;
  const SILENT_MS = 40000;

  // How long a completed round stays on screen while later states come (board.result_hold);
  // 0 shows each state as it comes.
  const RESULT_HOLD_MS = Math.max(0, Number(document.body.dataset.resultHold) || 0);

  // Every label of the page in each language the board speaks: English (en), and
  // Chinese in Simplified (hans) and in Traditional (hant) characters. The board shows
  // one language or a pair (the lang setting: "en", "zh", "en+zh", "zh+en"), its Chinese
  // in one script (the script setting: "simplified" or "traditional"). A Go test
  // (board/script_test.go) reads this table: keep each label on one line.
  const LABELS = {
    table: { en: 'Table', hans: '台号', hant: '枱號' },
    shoe: { en: 'Shoe', hans: '靴', hant: '靴' },
    round: { en: 'Round', hans: '局', hant: '局' },
    limits: { en: 'Limits', hans: '限红', hant: '限紅' },
    min: { en: 'min', hans: '最低', hant: '最低' },
    max: { en: 'max', hans: '最高', hant: '最高' },
    maxDifferential: { en: 'Max differential', hans: '最高差额', hant: '最高差額' },
    'bet.player': { en: 'Player', hans: '闲', hant: '閒' },
    'bet.banker': { en: 'Banker', hans: '庄', hant: '莊' },
    'bet.tie': { en: 'Tie', hans: '和', hant: '和' },
    'bet.royal_tie': { en: 'Tie', hans: '和', hant: '和' },
    'bet.player_pair': { en: 'Player pair', hans: '闲对', hant: '閒對' },
    'bet.banker_pair': { en: 'Banker pair', hans: '庄对', hant: '莊對' },
    'bet.super_six_plus': { en: 'Super Six Plus', hans: '超级六', hant: '超級六' },
    'bet.player_wins_on': { en: 'Player wins on', hans: '闲点数赢', hant: '閒點數贏' },
    'bet.banker_wins_on': { en: 'Banker wins on', hans: '庄点数赢', hant: '莊點數贏' },
    'bet.tie_wins_on': { en: 'Tie wins on', hans: '和点数', hant: '和點數' },
    'bet.player_insurance': { en: 'Player insurance', hans: '闲保险', hant: '閒保險' },
    'bet.banker_insurance': { en: 'Banker insurance', hans: '庄保险', hant: '莊保險' },
    'bet.player_banker': { en: 'Player · Banker', hans: '闲 · 庄', hant: '閒 · 莊' },
    'bet.pairs': { en: 'Pairs', hans: '对子', hant: '對子' },
    'bet.player_banker_wins_on': { en: 'Player · Banker wins on', hans: '闲 · 庄点数赢', hant: '閒 · 莊點數贏' },
    'bet.insurance': { en: 'Insurance', hans: '保险', hant: '保險' },
    payRounded: { en: 'Fractional payouts rounded', hans: '派彩零头取整', hant: '派彩零頭取整' },
    'payRounded.down': { en: 'Fractional payouts rounded down', hans: '派彩零头向下取整', hant: '派彩零頭向下取整' },
    'payRounded.half-up': { en: 'Fractional payouts rounded to the nearest unit', hans: '派彩零头四舍五入', hant: '派彩零頭四捨五入' },
    'payRounded.up': { en: 'Fractional payouts rounded up', hans: '派彩零头向上取整', hant: '派彩零頭向上取整' },
    noInsurance: { en: 'No Insurance offered at this table', hans: '本台不设保险', hant: '本枱不設保險' },
    banker: { en: 'BANKER', hans: '庄', hant: '莊' },
    player: { en: 'PLAYER', hans: '闲', hant: '閒' },
    tie: { en: 'TIE', hans: '和', hant: '和' },
    void: { en: 'VOID', hans: '作废', hant: '作廢' },
    bankerShort: { en: 'B', hans: '庄', hant: '莊' },
    playerShort: { en: 'P', hans: '闲', hant: '閒' },
    tieShort: { en: 'T', hans: '和', hant: '和' },
    wins: { en: 'wins', hans: '赢', hant: '贏' },
    lastResult: { en: 'Last result', hans: '上局结果', hant: '上局結果' },
    beadPlate: { en: 'Bead Plate', hans: '珠盘路', hant: '珠盤路' },
    bigRoad: { en: 'Big Road', hans: '大路', hant: '大路' },
    bigEyeBoy: { en: 'Big Eye Boy', hans: '大眼仔', hant: '大眼仔' },
    smallRoad: { en: 'Small Road', hans: '小路', hant: '小路' },
    cockroachPig: { en: 'Cockroach Pig', hans: '曱甴路', hant: '曱甴路' },
    bankerAsk: { en: 'Banker Ask', hans: '庄问路', hant: '莊問路' },
    playerAsk: { en: 'Player Ask', hans: '闲问路', hant: '閒問路' },
    rounds: { en: 'Rounds', hans: '局数', hant: '局數' },
    bankerPair: { en: 'Banker pair', hans: '庄对', hant: '莊對' },
    playerPair: { en: 'Player pair', hans: '闲对', hant: '閒對' },
    natural: { en: 'Natural', hans: '例牌', hant: '例牌' },
    cardsLeft: { en: 'Cards left', hans: '余牌', hant: '餘牌' },
    offline: { en: 'OFFLINE', hans: '离线', hant: '離線' },
    offlineTable: { en: 'The table is not sending results', hans: '本台暂无结果', hant: '本枱暫無結果' },
    offlineLink: { en: 'No connection to the table', hans: '与本台失去连接', hant: '與本枱失去連接' },
    paused: { en: 'Table paused', hans: '暂停', hant: '暫停' },
    pausedSupervisor: { en: 'supervisor called, please wait', hans: '已呼叫主管，请稍候', hant: '已呼叫主管，請稍候' },
    pausedDealer: { en: 'please wait', hans: '请稍候', hant: '請稍候' },
    cardsWaiting: { en: 'Cards waiting', hans: '待定牌', hant: '待定牌' },
    more: { en: 'more', hans: '张', hant: '張' },
    supervisorCalled: { en: 'Supervisor called', hans: '已呼叫主管', hant: '已呼叫主管' },
    notice: { en: 'Notice', hans: '提示', hant: '提示' },
    shoeDown: { en: 'Card shoe disconnected', hans: '牌靴断开', hant: '牌靴斷開' },
    shufflerDown: { en: 'Shuffler disconnected', hans: '洗牌机断开', hant: '洗牌機斷開' },
    live: { en: 'Live', hans: '在线', hant: '在線' },
    connecting: { en: 'Connecting', hans: '连接中', hant: '連接中' },
    reconnecting: { en: 'Reconnecting', hans: '重新连接', hant: '重新連接' },
    insurance: { en: 'Insurance open', hans: '保险开放', hant: '保險開放' },
    'phase.waiting': { en: 'Waiting for the table', hans: '等待开台', hant: '等待開枱' },
    'phase.no-shoe': { en: 'Waiting for a shoe', hans: '等待新靴', hant: '等待新靴' },
    'phase.burning': { en: 'Burning cards', hans: '烧牌', hant: '燒牌' },
    'phase.betting-open': { en: 'Place your bets', hans: '请下注', hant: '請下注' },
    'phase.dealing': { en: 'No more bets', hans: '停止下注', hant: '停止下注' },
    'phase.complete': { en: 'Result', hans: '开牌', hant: '開牌' },
    'phase.shoe-done': { en: 'Last round of the shoe', hans: '本靴最后一局', hant: '本靴最後一局' },
    'phase.next-set': { en: 'Shuffling', hans: '洗牌中', hant: '洗牌中' },
    'phase.offline': { en: 'Offline', hans: '离线', hant: '離線' },
    'game.baccarat': { en: 'Baccarat', hans: '百家乐', hant: '百家樂' },
    'game.non-commission': { en: 'Non-Commission Baccarat', hans: '免佣百家乐', hant: '免佣百家樂' },
    'game.royal': { en: 'Royal Baccarat', hans: '皇家百家乐', hant: '皇家百家樂' },
  };

  const SUITS = { S: '\u2660', H: '\u2665', D: '\u2666', C: '\u2663' };
  const RANKS = { T: '10' };
  const OUTCOME = { B: 'banker', P: 'player', T: 'tie' };

  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);

  // langs is the language pair shown: the first in large type, the second beside it.
  const langs = parseLang(params.get('lang') || document.body.dataset.lang || 'en+zh');
  // script is the Chinese script shown (?script= in the address, else the board's
  // script setting), and ZH the labels' field of its texts.
  const script = parseScript(params.get('script'), document.body.dataset.script);
  const ZH = script === 'traditional' ? 'hant' : 'hans';
  document.documentElement.lang = langs[0] === 'zh' ? (ZH === 'hant' ? 'zh-Hant' : 'zh-Hans') : langs[0];
  document.body.dataset.langs = langs.join('+');
  document.body.dataset.script = script;

  function parseLang(s) {
    const out = [];
    for (const l of String(s).split(/[+, ]/)) {
      if ((l === 'en' || l === 'zh') && !out.includes(l)) out.push(l);
    }
    return out.length ? out : ['en', 'zh'];
  }

  // parseScript is the first of choices that names a script, else simplified.
  function parseScript(...choices) {
    return choices.find((s) => s === 'simplified' || s === 'traditional') || 'simplified';
  }

  // say is the text of label l ({en, hans, hant}) in lang: its Chinese in the board's
  // script, English when it has no text in lang.
  function say(l, lang) {
    return (lang === 'zh' ? l[ZH] : l[lang]) || l.en;
  }

  // What the board knows: the latest of each retained message, and the round's cards.
  const board = { shoe: null, round: null, cards: {}, status: null, roadmap: null, state: null,
    lastShoe: null, streamLost: false };

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

  // text is a label in the first language (and a string in the second, or '').
  function text(key, lang) {
    const l = LABELS[key];
    if (!l) return key;
    return say(l, lang || langs[0]);
  }

  // label fills e with the label key in each language shown.
  function label(e, key) {
    labelOf(e, LABELS[key] || { en: key });
  }

  // labelOf fills e with the texts of a label ({en, hans, hant}) in each language shown;
  // the second is left out when it says nothing the first does not.
  function labelOf(e, l) {
    e.replaceChildren();
    e.appendChild(el('span', 'l1', say(l, langs[0])));
    if (langs[1] && say(l, langs[1]) !== say(l, langs[0])) {
      e.appendChild(document.createTextNode(' '));
      e.appendChild(el('span', 'l2', say(l, langs[1])));
    }
  }

  // both is a label key in every language shown, as plain text.
  function both(key) {
    return langs.map((l) => text(key, l)).join(' ');
  }

  function applyLabels() {
    for (const e of document.querySelectorAll('[data-t]')) label(e, e.dataset.t);
  }

  // fit shrinks the type of each .fit element until its text fits its width.
  function fit() {
    for (const e of document.querySelectorAll('.fit')) {
      e.style.fontSize = '';
      if (e.offsetParent === null) continue;
      let size = parseFloat(getComputedStyle(e).fontSize);
      const min = +(e.dataset.fitMin || 8);
      while (e.scrollWidth > e.clientWidth + 1 && size > min) {
        size = Math.max(min, size * 0.92);
        e.style.fontSize = `${size}px`;
      }
    }
  }

  // ---- header ----

  function drawGame() {
    const s = board.status || {};
    const given = document.body.dataset.game;
    const g = $('game');
    g.replaceChildren();
    if (given) {
      g.appendChild(el('span', 'l1', given));
    } else {
      // The game's name after the family of the status's rule set (rules_family).
      const key = 'game.' + s.rules_family;
      label(g, LABELS[key] ? key : 'game.baccarat');
    }
    // The rule set's name, as the status gives it (rules_name), after the table's.
    $('rules-name').textContent = s.rules_name ? ` · ${s.rules_name}` : '';
  }

  // ---- table limits ----

  // The order the board lists the bets in: the Original Bets as the layouts print them
  // (PLAYER 闲, BANKER 庄), the Tie, then the side bets. Keys are the rule sets' bet
  // identifiers (baccarat.Bet), the Wins On bets by their family, and the pairs of bets
  // that share a line when they share their limits.
  const BET_ORDER = ['player_banker', 'player', 'banker', 'tie', 'royal_tie', 'pairs',
    'player_pair', 'banker_pair', 'super_six_plus', 'player_banker_wins_on', 'player_wins_on',
    'banker_wins_on', 'tie_wins_on', 'insurance', 'player_insurance', 'banker_insurance'];
  // The point totals of each Wins On family (RWS Baccarat 1.2, 1.16, 1.23).
  const WINS_ON = { player_wins_on: 9, banker_wins_on: 9, tie_wins_on: 10 };
  // The Player and Banker bets of a kind, which share one line when their limits are the
  // same: PLAYER · BANKER 闲 · 庄 100 – 20,000.
  const SHARED = [['player', 'banker', 'player_banker'], ['player_pair', 'banker_pair', 'pairs'],
    ['player_wins_on', 'banker_wins_on', 'player_banker_wins_on'],
    ['player_insurance', 'banker_insurance', 'insurance']];

  // How long each page of the limits stays up when they do not all fit at once.
  const LIMIT_PAGE_MS = 6000;

  // money is an amount of the status in the table's smallest unit: a whole number, 0 or
  // more, or null when it is absent or anything else (which is said on the console).
  function money(v, what) {
    if (v === undefined || v === null) return null;
    if (Number.isSafeInteger(v) && v >= 0) return v;
    console.warn(`board: status limits: ${what} is ${JSON.stringify(v)}, not a whole number of units`);
    return null;
  }

  // formatMoney writes a whole number of units with its thousands grouped: 20,000.
  function formatMoney(n) {
    return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  }

  // limitRows turns the status's limits ({min: {bet: n}, max: {bet: n}}) into the lines
  // the board lists, in BET_ORDER, each with its minimum and maximum (null when not
  // given): one per bet, except that the Wins On bets of one family that share their
  // limits share a line (naming their point totals unless it holds the whole family),
  // and so do the Player and Banker bets of a kind (SHARED).
  function limitRows(limits) {
    const obj = (v) => (v && typeof v === 'object' && !Array.isArray(v) ? v : {});
    const min = obj(limits.min);
    const max = obj(limits.max);
    let rows = [];
    const family = {};
    for (const bet of new Set([...Object.keys(min), ...Object.keys(max)])) {
      const lo = money(min[bet], `min.${bet}`);
      const hi = money(max[bet], `max.${bet}`);
      if (lo === null && hi === null) continue;
      const m = /^(player|banker|tie)_wins_on_(\d)$/.exec(bet);
      if (!m) {
        rows.push({ kind: bet, bets: [bet], points: [], min: lo, max: hi });
        continue;
      }
      const kind = `${m[1]}_wins_on`;
      const k = `${kind}|${lo}|${hi}`;
      if (!family[k]) {
        family[k] = { kind, bets: [], points: [], min: lo, max: hi };
        rows.push(family[k]);
      }
      family[k].bets.push(bet);
      family[k].points.push(+m[2]);
    }
    for (const r of rows) r.points.sort((a, b) => a - b);
    for (const [p, b, both] of SHARED) {
      for (const pr of rows.filter((r) => r.kind === p)) {
        const br = rows.find((r) => r.kind === b && r.min === pr.min && r.max === pr.max &&
          r.points.join() === pr.points.join());
        if (!br) continue;
        rows = rows.filter((r) => r !== br);
        pr.kind = both;
        pr.bets = pr.bets.concat(br.bets);
      }
    }
    const rank = (r) => {
      const i = BET_ORDER.indexOf(r.kind);
      return i < 0 ? BET_ORDER.length : i;
    };
    rows.sort((a, b) => rank(a) - rank(b) || a.kind.localeCompare(b.kind) ||
      (a.points[0] || 0) - (b.points[0] || 0));
    return rows;
  }

  // betName is a line's name as a label ({en, hans, hant}): its bet's or bets', with the point
  // totals of a Wins On line that does not hold the whole family; an identifier the
  // board does not know, as it is.
  function betName(r) {
    const l = LABELS[`bet.${r.kind}`] || { en: r.kind.replace(/_/g, ' ') };
    const fam = r.kind.replace('player_banker_', 'player_');
    if (!(fam in WINS_ON) || r.points.length === WINS_ON[fam]) return l;
    const out = {};
    for (const lang of Object.keys(l)) out[lang] = `${l[lang]} ${r.points.join(', ')}`;
    return out;
  }

  // betNames is a bet identifier's display name in each language shown, as plain text
  // (the second left out when it says nothing the first does not): Player insurance
  // 闲保险 (閒保險 in Traditional). An identifier the board does not know, with spaces
  // for its underscores.
  function betNames(bet) {
    const l = LABELS[`bet.${bet}`] || { en: String(bet).replace(/_/g, ' ') };
    const out = [say(l, langs[0])];
    if (langs[1] && say(l, langs[1]) !== out[0]) out.push(say(l, langs[1]));
    return out.join(' ');
  }

  // amount is a span with an amount of money; data-units keeps the number.
  function amount(cls, n) {
    const e = el('span', `limit-amount ${cls}`, formatMoney(n));
    e.dataset.units = String(n);
    return e;
  }

  // limitItem is one line of the limits: its name, then range (the amounts).
  function limitItem(cls, name, bets, range) {
    const item = el('div', `limit ${cls}`);
    item.dataset.bet = bets;
    const n = el('span', 'limit-name');
    labelOf(n, name);
    item.appendChild(n);
    item.appendChild(range);
    return item;
  }

  // The Insurance bets' lines of the limits (NC Insurance 4.2).
  const INSURANCE_BETS = ['insurance', 'player_insurance', 'banker_insurance'];

  // drawLimits shows the table's limits when the status carries them (RWS Baccarat 3.4,
  // NC Insurance 3.4: the minimum and the maximum of each bet, and the maximum
  // Differential), the notice that the table offers no Insurance (the status's
  // no_insurance, NC Insurance 4.2.2; the Insurance bets' limits are then left out), and
  // says so when the table rounds the payouts its smallest unit cannot pay exactly (the
  // status's pay_rounded; its rounding, when given, says which way). Amounts are whole
  // numbers of the table's smallest unit, shown as they are, grouped by thousands.
  function drawLimits(s) {
    const lim = s && s.limits && typeof s.limits === 'object' ? s.limits : null;
    const noInsurance = !!(s && s.no_insurance === true);
    const list = $('limits-list');
    list.replaceChildren();
    const rows = (lim ? limitRows(lim) : []).filter((r) => !(noInsurance && INSURANCE_BETS.includes(r.kind)));
    for (const r of rows) {
      const range = el('span', 'limit-range');
      if (r.min !== null && r.max !== null) {
        range.appendChild(amount('limit-min', r.min));
        range.appendChild(el('span', 'limit-sep', '–'));
        range.appendChild(amount('limit-max', r.max));
      } else {
        const only = r.min !== null ? 'min' : 'max';
        range.appendChild(el('span', 'limit-word', both(only)));
        range.appendChild(amount(`limit-${only}`, r.min !== null ? r.min : r.max));
      }
      list.appendChild(limitItem(`bet-${r.kind}`, betName(r), r.bets.join(' '), range));
    }
    // The maximum Differential stays in view at the line's end while the bets take
    // turns.
    const fixed = $('limits-diff');
    fixed.replaceChildren();
    const diff = lim ? money(lim.max_differential, 'max_differential') : null;
    if (diff !== null) {
      const range = el('span', 'limit-range');
      range.appendChild(amount('limit-max', diff));
      fixed.appendChild(limitItem('differential', LABELS.maxDifferential, 'max_differential', range));
    }
    fixed.hidden = diff === null;
    $('limits-title').hidden = rows.length === 0 && diff === null;
    if (noInsurance) {
      const note = el('div', 'limit limits-note');
      note.id = 'no-insurance';
      label(note, 'noInsurance');
      list.appendChild(note);
    }
    if (s && s.pay_rounded === true) {
      const note = el('div', 'limit limits-note');
      note.id = 'pay-rounded';
      const how = `payRounded.${s.rounding}`;
      label(note, how in LABELS ? how : 'payRounded');
      list.appendChild(note);
    }
    list.hidden = list.children.length === 0;
    limitsEmpty = list.hidden && fixed.hidden;
    showLimits();
    pageLimits();
  }

  // showLimits shows the limits' line unless it has nothing to say or a banner says the
  // table is paused or offline: nobody bets then, and the banner takes the line's room,
  // so the roads keep theirs.
  let limitsEmpty = true;

  function showLimits() {
    const box = $('limits');
    const was = box.hidden;
    box.hidden = limitsEmpty || !$('held').hidden || !$('offline').hidden;
    if (was && !box.hidden) pageLimits();
  }

  // The limits' pages: the line (two on a portrait screen, --limit-lines in board.css)
  // shows as many of the limits as fit; when a table has more, they take turns, a page
  // every LIMIT_PAGE_MS (or at a tap on the line), and the line says which page is up
  // (1/2).
  let limitPages = [];
  let limitPage = 0;
  let limitTimer = null;

  function pageLimits() {
    const list = $('limits-list');
    const items = [...list.children];
    for (const it of items) it.hidden = false;
    limitPages = [items];
    if (!$('limits').hidden && items.length > 1) {
      const css = getComputedStyle(list);
      const lines = Math.max(1, parseInt(css.getPropertyValue('--limit-lines'), 10) || 1);
      const gap = parseFloat(css.columnGap) || 0;
      const width = list.clientWidth;
      limitPages = [];
      let page = [];
      let line = 0;
      let used = 0;
      for (const it of items) {
        const w = it.getBoundingClientRect().width;
        if (page.length > 0 && used + gap + w > width + 0.5) {
          used = 0;
          if (++line >= lines) {
            limitPages.push(page);
            page = [];
            line = 0;
          }
        }
        used += (used > 0 ? gap : 0) + w;
        page.push(it);
      }
      limitPages.push(page);
    }
    if (limitPages.length > 1 && limitTimer === null) {
      limitTimer = setInterval(() => showLimitPage(limitPage + 1), LIMIT_PAGE_MS);
    } else if (limitPages.length <= 1 && limitTimer !== null) {
      clearInterval(limitTimer);
      limitTimer = null;
    }
    showLimitPage(limitPage);
  }

  function showLimitPage(n) {
    limitPage = limitPages.length > 0 ? n % limitPages.length : 0;
    limitPages.forEach((page, i) => {
      for (const it of page) {
        it.hidden = i !== limitPage;
        it.dataset.page = String(i + 1);
      }
    });
    const ind = $('limits-page');
    ind.textContent = `${limitPage + 1}/${limitPages.length}`;
    ind.dataset.pages = String(limitPages.length);
    $('limits').dataset.page = String(limitPage + 1);
  }

  function setPhase(key, phase) {
    const ph = $('phase');
    ph.dataset.phase = phase;
    label(ph, key);
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

  function clearRound() {
    board.cards = {};
    drawCards(0, 0);
    setWinner(null);
    $('insurance').hidden = true;
  }

  // ---- roads ----

  // size works out the cell size in pixels, the columns shown and the first column for
  // a road's cells in its box: square cells, six rows (more if the road goes deeper)
  // filling the box's height; as many columns as the width holds. The bead plate keeps
  // the whole shoe while its cells stay at least MIN_CELL; every other road keeps its
  // cells as large as the height allows and shows its newest columns.
  function size(road, box, cells) {
    let maxCol = -1;
    let rows = ROWS;
    for (const c of cells) {
      if (c.col > maxCol) maxCol = c.col;
      if (c.row + 1 > rows) rows = c.row + 1;
    }
    const w = Math.max(1, box.clientWidth);
    const h = Math.max(1, box.clientHeight);
    const min = MIN_CELL[road] * Math.min(innerWidth, innerHeight);
    let cell = h / rows;
    let cols = Math.max(1, Math.floor(w / cell));
    const want = maxCol + 2; // the cells drawn, and room for the next column
    if (road === 'bead_plate' && want > cols) {
      cell = Math.max(min, Math.min(cell, w / want));
      cols = Math.max(1, Math.floor(w / cell));
    }
    return { cell, cols, rows, first: Math.max(0, want - cols) };
  }

  function grid(svg, cols, rows, cell) {
    svg.setAttribute('viewBox', `0 0 ${cols * CELL} ${rows * CELL}`);
    svg.setAttribute('width', String(Math.floor(cols * cell)));
    svg.setAttribute('height', String(Math.floor(rows * cell)));
    svg.dataset.cell = cell.toFixed(1);
    svg.dataset.cols = cols;
    let d = '';
    for (let c = 0; c <= cols; c++) d += `M${c * CELL} 0V${rows * CELL}`;
    for (let r = 0; r <= rows; r++) d += `M0 ${r * CELL}H${cols * CELL}`;
    svg.appendChild(svgEl('path', { class: 'grid', d }));
  }

  // drawRoad draws a road's grid and, for each cell in view, a group at the cell's
  // column and row: mark(c) gives its class names, its data attributes and its shapes.
  function drawRoad(road, cells, mark) {
    const svg = $(ROADS[road]);
    const { cell, cols, rows, first } = size(road, svg.parentElement, cells);
    svg.replaceChildren();
    grid(svg, cols, rows, cell);
    svg.dataset.first = first;
    for (const c of cells) {
      if (c.col < first) continue;
      const { cls, data, parts } = mark(c);
      const g = svgEl('g', {
        class: `mark ${cls}`,
        transform: `translate(${(c.col - first) * CELL} ${c.row * CELL})`,
        'data-col': c.col,
        'data-row': c.row,
      });
      for (const k in data) g.setAttribute(`data-${k}`, data[k]);
      for (const p of parts) if (p) g.appendChild(p);
      svg.appendChild(g);
    }
  }

  function svgText(cls, s) {
    const t = svgEl('text', { class: cls, x: 5, y: 5.3 });
    t.textContent = s;
    return t;
  }

  // Pair dots: Banker top left, Player bottom right. On the Big Road they are drawn
  // under the ring, so the ring stays whole.
  function pairDots(c, ringed) {
    const cls = ringed ? 'pair-dot under' : 'pair-dot';
    return [
      c.banker_pair && svgEl('circle', { class: `${cls} banker`, cx: 1.9, cy: 1.9, r: 1.45 }),
      c.player_pair && svgEl('circle', { class: `${cls} player`, cx: 8.1, cy: 8.1, r: 1.45 }),
    ];
  }

  // The bead plate: one filled circle per round, ties included, at the column and row
  // the roadmap gives (roadmap R2.1), with its pairs (R2.2), lettered in the first
  // language (B P T, or 庄 闲 和 and 莊 閒 和).
  function drawBead(cells) {
    const letter = { B: text('bankerShort'), P: text('playerShort'), T: text('tieShort') };
    drawRoad('bead_plate', cells, (c) => ({
      cls: `bead ${OUTCOME[c.outcome] || 'unknown'}`,
      data: { outcome: c.outcome },
      parts: [
        svgEl('circle', { class: 'disc', cx: 5, cy: 5, r: 4.4 }),
        svgText('letter', letter[c.outcome] || '?'),
        ...pairDots(c, false),
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
          ...pairDots(c, true),
          svgEl('circle', { class: 'ring', cx: 5, cy: 5, r: 3.6 }),
          ties && svgEl('line', { class: 'tie', x1: 1.8, y1: 8.2, x2: 8.2, y2: 1.8 }),
          ties && svgText('ties', String(c.ties)),
        ],
      };
    });
  }

  // A derived road's mark: hollow circle (Big Eye Boy), filled dot (Small Road) or
  // slash (Cockroach Pig), red or blue (roadmap R4.2, R4.3), at the cell the roadmap
  // lays it out in (R4.6).
  function derivedShape(road) {
    switch (road) {
      case 'big_eye_boy': return svgEl('circle', { class: 'ring', cx: 5, cy: 5, r: 3.4 });
      case 'small_road': return svgEl('circle', { class: 'dot', cx: 5, cy: 5, r: 3.8 });
      default: return svgEl('line', { class: 'slash', x1: 2.2, y1: 7.8, x2: 7.8, y2: 2.2 });
    }
  }

  function drawDerived(road, d) {
    drawRoad(road, (d && d.cells) || [], (c) => ({
      cls: `derived ${c.mark}`, data: { mark: c.mark }, parts: [derivedShape(road)],
    }));
  }

  // Banker Ask and Player Ask (庄问路 and 闲问路, 莊問路 and 閒問路): the mark a Banker
  // or a Player result would add to each derived road, or none (roadmap R5).
  function drawPredictions(p) {
    for (const ask of ['banker', 'player']) {
      const next = (p && p[ask]) || {};
      for (const m of document.querySelectorAll(`[data-ask="${ask}"] .ask-mark`)) {
        const road = m.dataset.road;
        const mark = next[road];
        m.replaceChildren();
        m.dataset.mark = mark || 'none';
        if (mark === 'red' || mark === 'blue') {
          const s = svgEl('svg', { viewBox: '0 0 10 10' });
          const g = svgEl('g', { class: `derived ${mark}` });
          g.appendChild(derivedShape(road));
          s.appendChild(g);
          m.appendChild(s);
        } else {
          m.appendChild(el('span', 'none', '–'));
        }
      }
    }
  }

  // drawStats shows the shoe's counts and the Banker, Player and Tie shares of its
  // rounds, in whole percent.
  function drawStats(s) {
    for (const dd of document.querySelectorAll('[data-stat]')) {
      if (dd.dataset.stat === 'cards_remaining' && board.state && board.state.decks > 0) continue;
      const v = s ? s[dd.dataset.stat] : undefined;
      dd.textContent = v === null || v === undefined ? '–' : String(v);
    }
    const rounds = s && s.rounds > 0 ? s.rounds : 0;
    for (const e of document.querySelectorAll('[data-pct]')) {
      const n = s ? s[e.dataset.pct] : undefined;
      e.textContent = rounds > 0 && n !== undefined ? `${Math.round((100 * n) / rounds)}%` : '–';
    }
  }

  function drawRoads() {
    const m = board.roadmap || {};
    drawBead(m.bead_plate || []);
    drawBigRoad(m.big_road || []);
    for (const road of ['big_eye_boy', 'small_road', 'cockroach_pig']) drawDerived(road, m[road]);
    drawPredictions(m.predictions);
  }

  function onRoadmap(m) {
    board.roadmap = m;
    drawRoads();
    drawStats(m && m.stats);
    if (!lastResultShown && m && m.bead_plate && m.bead_plate.length > 0) {
      // A board that connects between rounds has no result message yet: the bead plate
      // says how the last round ended.
      const b = m.bead_plate[m.bead_plate.length - 1];
      showLast({ winner: OUTCOME[b.outcome], banker_pair: b.banker_pair,
        player_pair: b.player_pair, natural: b.natural });
    }
    fit();
  }

  // ---- last result ----

  let lastResultShown = false;

  function showLast(r) {
    const w = $('last-winner');
    const winner = r.void ? 'void' : (r.winner || '');
    w.dataset.winner = winner;
    $('last-result').dataset.winner = winner;
    if (winner === 'banker' || winner === 'player' || winner === 'tie' || winner === 'void') {
      label(w, winner);
    } else {
      w.textContent = '–';
    }
    let score = '';
    if (!r.void && r.player_points !== undefined && r.banker_points !== undefined) {
      score = `${text('playerShort')} ${r.player_points} · ${text('bankerShort')} ${r.banker_points}`;
    }
    $('last-score').textContent = score;
    const tags = $('last-tags');
    tags.replaceChildren();
    if (r.natural) tags.appendChild(el('span', 'tag natural', both('natural')));
    if (r.banker_pair) tags.appendChild(el('span', 'tag banker-pair', both('bankerPair')));
    if (r.player_pair) tags.appendChild(el('span', 'tag player-pair', both('playerPair')));
    fit();
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

  // offline says whether the table is offline (its status says so) or the page's
  // stream is gone, and if so blanks what would be stale: the phase and the round's
  // cards. The roads and the last result stay, as they were.
  function drawOffline() {
    const tableOff = !board.status || board.status.state === 'offline';
    const off = board.streamLost || (board.status && board.status.state === 'offline');
    $('offline').hidden = !off;
    label($('offline-text'), board.streamLost ? 'offlineLink' : 'offlineTable');
    document.body.classList.toggle('offline', !!off);
    if (off) {
      endHold('offline');
      setPhase('phase.offline', 'offline');
      clearRound();
      $('held').hidden = true;
      $('call').hidden = true;
    } else if (tableOff) {
      setPhase('phase.waiting', '');
    } else if (board.state) {
      onState(board.state);
    }
    showLimits();
    fit();
  }

  function onStatus(s) {
    board.status = s;
    if (s && s.table) $('table-id').textContent = s.table;
    drawGame();
    drawLimits(s);
    const down = [];
    const devs = (s && s.state !== 'offline' && s.devices) || {};
    if (devs.shoe === 'disconnected') down.push('shoeDown');
    if (devs.shuffler === 'disconnected') down.push('shufflerDown');
    $('devices').hidden = down.length === 0;
    $('devices-text').textContent = down.map(both).join(' · ');
    $('call').hidden = !(s && s.state !== 'offline' && s.call === 'supervisor');
    drawOffline();
  }

  // ---- the completed round, held ----

  // hold is the last completed round kept on screen ({shoe, round, timer, over}), or
  // null. A round is held from its complete state for RESULT_HOLD_MS, as the cards stay
  // on the layout while the dealer pays: the states that follow (the next round's
  // betting, opened at once) wait until the hold is over, or the next round's first card
  // ends it sooner. A round is held once. The round panel's data-hold says "on" while a
  // round is held, then why the hold ended: "timer", "card" or "offline"; its
  // data-held-ms how long the last hold lasted, by the page's clock.
  let hold = null;

  function startHold(s) {
    if (RESULT_HOLD_MS <= 0 || s.phase !== 'complete') return;
    if (hold && hold.shoe === s.shoe && hold.round === s.round) return; // held already
    hold = { shoe: s.shoe, round: s.round, over: false, since: performance.now(),
      timer: setTimeout(() => endHold('timer'), RESULT_HOLD_MS) };
    $('hands').dataset.hold = 'on';
  }

  // endHold ends the hold of the held round, saying why, and draws the latest state.
  function endHold(why) {
    if (!hold || hold.over) return;
    clearTimeout(hold.timer);
    hold.over = true;
    $('hands').dataset.heldMs = String(Math.floor(performance.now() - hold.since));
    $('hands').dataset.hold = why;
    if (why !== 'offline' && board.state) onState(board.state);
  }

  // held says whether s waits for the held round to go: a round is held, and s is a
  // later state than its complete one.
  function held(s) {
    return hold !== null && !hold.over &&
      !(s.shoe === hold.shoe && s.round === hold.round && s.phase === 'complete');
  }

  function onState(s) {
    board.state = s;
    if (!s) return;
    if (held(s)) {
      // The held round stays; the pause banner and the cards left do not wait.
      drawHeld(s.held);
      if (s.decks > 0) document.querySelector('[data-stat="cards_remaining"]').textContent = String(s.cards_remaining);
      return;
    }
    if (s.table) $('table-id').textContent = s.table;
    $('shoe').textContent = String(s.shoe);
    $('round').textContent = String(s.round);
    if (board.lastShoe !== null && board.lastShoe !== s.shoe) {
      // A new shoe: the last result was the previous shoe's.
      lastResultShown = false;
      showLast({});
    }
    board.lastShoe = s.shoe;
    if (board.streamLost || !board.status || board.status.state === 'offline') return;
    setPhase(`phase.${s.phase}` in LABELS ? `phase.${s.phase}` : 'phase.waiting', s.phase || '');
    newRound(s.shoe, s.round);
    board.cards = {};
    for (const sc of s.cards || []) board.cards[sc.slot] = sc.card;
    drawCards(s.player_points, s.banker_points);
    setWinner(s.outcome ? s.outcome.winner : null);
    const ins = $('insurance');
    const offers = s.insurance_offers || [];
    ins.hidden = offers.length === 0;
    ins.textContent = offers.length === 0 ? '' : `${both('insurance')}: ` +
      offers.map((o) => `${betNames(o.bet)} ${o.odds}`).join(' · ');
    if (s.decks > 0) {
      // The state counts every card drawn, so it is newer than the roadmap's count.
      document.querySelector('[data-stat="cards_remaining"]').textContent = String(s.cards_remaining);
    }
    drawHeld(s.held);
    startHold(s);
    fit();
  }

  // drawHeld shows the held table to the players: that it is paused and why, in their
  // words, and at most a few of the cards waiting. The irregularity's number, rule,
  // decisions and roles are the pit's, on the console.
  function drawHeld(h) {
    $('held').hidden = !h;
    showLimits();
    if (!h) return;
    const bySupervisor = h.decided_by && h.decided_by !== 'dealer';
    label($('held-text'), bySupervisor ? 'pausedSupervisor' : 'pausedDealer');
    const pend = $('held-pending');
    const cards = h.pending || [];
    pend.hidden = cards.length === 0;
    pend.replaceChildren();
    if (cards.length === 0) return;
    pend.appendChild(el('span', 'pending-label', `${both('cardsWaiting')}:`));
    for (const code of cards.slice(0, 3)) pend.appendChild(cardElement(code));
    if (cards.length > 3) pend.appendChild(el('span', 'pending-more', `+${cards.length - 3}`));
  }

  function onCard(c) {
    if (!c || board.streamLost) return;
    if (hold && (c.shoe !== hold.shoe || c.round !== hold.round)) endHold('card'); // the next round's first card
    newRound(c.shoe, c.round);
    board.cards[c.slot] = c.card;
    drawCards(c.player_points, c.banker_points);
  }

  function onResult(r) {
    if (!r) return;
    if (board.state && r.shoe !== board.state.shoe) return; // an earlier shoe's
    lastResultShown = true;
    showLast({
      void: r.void, winner: r.winner, natural: r.natural,
      banker_pair: r.banker_pair, player_pair: r.player_pair,
      player_points: r.player_points, banker_points: r.banker_points,
    });
  }

  // A warning that does not hold the table: the bad-shuffle alarm, or an irregularity
  // whose action is to continue.
  function onIrregularity(m) {
    if (!m) return;
    let t = '';
    if (m.event === 'dealer_warning') {
      t = m.reason || '';
    } else if (m.event === 'raised' && m.action === 'continue') {
      t = [m.display || m.kind, m.reason].filter(Boolean).join(' · ');
    }
    if (!t) return;
    $('warning-text').textContent = t;
    $('warning').hidden = false;
    fit();
  }

  const HANDLERS = {
    status: onStatus, state: onState, roadmap: onRoadmap, card: onCard,
    result: onResult, irregularity: onIrregularity, ping: () => {},
  };

  // ---- the stream ----

  let source = null;
  let retry = 1000;
  let lostTimer = null;
  let silentTimer = null;

  function setLink(state, key) {
    const l = $('link');
    l.dataset.state = state;
    l.textContent = both(key);
  }

  function streamLost(lost) {
    if (board.streamLost === lost) return;
    board.streamLost = lost;
    drawOffline();
  }

  // heard restarts the silence watch: a stream that says nothing for SILENT_MS (no
  // ping either) is taken as gone, as when the network drops without a word.
  function heard() {
    clearTimeout(silentTimer);
    silentTimer = setTimeout(() => {
      source.close();
      setLink('lost', 'reconnecting');
      streamLost(true);
      connect();
    }, SILENT_MS);
  }

  function connect() {
    source = new EventSource('events');
    source.onopen = () => {
      retry = 1000;
      clearTimeout(lostTimer);
      lostTimer = null;
      setLink('live', 'live');
      heard();
      // The status comes next, with the retained picture, and says whether the table
      // is online.
      board.streamLost = false;
    };
    source.onerror = () => {
      setLink('lost', 'reconnecting');
      if (lostTimer === null) {
        lostTimer = setTimeout(() => { lostTimer = null; streamLost(true); }, LOST_AFTER_MS);
      }
      if (source.readyState === EventSource.CLOSED) {
        // The browser gave up (the server answered with an error): try again later.
        source.close();
        setTimeout(connect, retry);
        retry = Math.min(retry * 2, 15000);
      }
    };
    for (const name of Object.keys(HANDLERS)) {
      source.addEventListener(name, (e) => {
        heard();
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

  // ---- start ----

  if (document.body.dataset.logo === 'true') {
    const logo = $('logo');
    logo.src = 'logo';
    logo.hidden = false;
    logo.onerror = () => { logo.hidden = true; };
  }
  applyLabels();
  $('limits').addEventListener('click', () => {
    // A tap shows the next page, for a whole turn.
    if (limitTimer !== null) {
      clearInterval(limitTimer);
      limitTimer = setInterval(() => showLimitPage(limitPage + 1), LIMIT_PAGE_MS);
    }
    showLimitPage(limitPage + 1);
  });
  drawGame();
  setPhase('phase.waiting', '');
  setLink('connecting', 'connecting');
  drawRoads();
  drawStats(null);
  // The roads are drawn again whenever a road's box changes size: the screen turns, or
  // a banner comes or goes.
  let pending = false;
  const resized = new ResizeObserver(() => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; pageLimits(); drawRoads(); fit(); });
  });
  resized.observe(document.body);
  for (const box of document.querySelectorAll('.road-box')) resized.observe(box);
  if (document.fonts) document.fonts.ready.then(() => { pageLimits(); fit(); });
  fit();
  connect();
})();
