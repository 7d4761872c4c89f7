// What the console says in words: rule sets by name, what a report, a decision, a box's
// option, the shoe's end or a new shoe does to the cards and the bets, each citing the
// rule of the table's own rule set (from GET /api/rulebook), and a table's reply. Every
// page loads it after common.js.
'use strict';

const Words = (function () {
  let book = null; // rule set id -> {name, void, options, kinds: {kind: rule}}

  // load reads the rule book once.
  async function load() {
    if (book) return book;
    const r = await Console.api('GET', '/api/rulebook');
    if (r.status === 200 && r.body) book = r.body;
    return book || {};
  }

  // ruleSet is what the console knows of rule set id; RWS Baccarat's rules for one it
  // does not know.
  function ruleSet(id) {
    const rws = book && book.rws;
    return (book && book[id]) || { name: id || '', void: 'RWS Baccarat 5.15', options: 'RWS Baccarat 5.12', kinds: (rws && rws.kinds) || {} };
  }

  // ruleSetName is a rule set's name for people: "NC Insurance", not "nc-insurance".
  // given is the name the table's status gives (rules_name), which comes first; a
  // table that gives none is named from the rule book, or by its id.
  function ruleSetName(id, given) {
    if (given) return given;
    if (!id) return '';
    return (book && book[id] && book[id].name) || id;
  }

  // insurance reports whether rule set id offers Insurance (NC Insurance 3.11, 3.12); a
  // rule set the console does not know is taken to, so no command is kept from it.
  function insurance(id) {
    const rs = book && book[id];
    return rs ? !!rs.insurance : true;
  }

  // rule is the rule of irregularity kind at a table of rule set id.
  function rule(kind, id) {
    return ruleSet(id).kinds[kind] || '';
  }

  const KIND = {
    wrong_hand: 'wrong hand', exposed_card: 'exposed card', simultaneous_draw: 'cards drawn together',
    incorrect_cards: 'cards not accounted for', excess_card: 'excess card', foreign_card: 'card not of the set',
    insufficient_cards: 'insufficient cards', technical_interruption: 'technical interruption',
    insurance_not_offered: 'Insurance not offered', late_error: 'error found late', card_count: 'wrong card count',
    not_shuffled: 'set not shuffled', bad_shuffle: 'bad shuffle', device_fault: 'device fault',
  };

  function kindText(k) { return KIND[k] || (k || '').replace(/_/g, ' '); }

  // reportOffered reports whether a table of rule set id (no Insurance offered: noInsurance)
  // takes a report of kind: its rule set names it.
  function reportOffered(kind, id, noInsurance) {
    if (kind === 'insurance_not_offered' && noInsurance) return false; // NC Insurance 4.2.2
    return !!ruleSet(id).kinds[kind];
  }

  // decision is a held irregularity's choice in words: {label, text}, what happens to
  // the cards and the bets, with the rules of the table's rule set.
  function decision(h, choice, id) {
    const rs = ruleSet(id);
    const r = h.rule || rs.kinds[h.kind] || '';
    const o = rs.options;
    const v = rs.void;
    switch (h.kind + ' ' + choice) {
      case 'simultaneous_draw as-read':
        return { label: 'Cards as read', text: `The held cards go to their hands in the order the shoe read them (${r}). Bets stand; each player keeps the options of ${o}: continue, or have the bet returned.` };
      case 'simultaneous_draw swapped':
        return { label: 'First two swapped', text: `The two cards drawn together are taken the other way round, then play goes on (${r}). Bets stand; each player keeps the options of ${o}: continue, or have the bet returned.` };
      case 'wrong_hand reconstructed':
        return { label: 'Reconstructed', text: `The cards are back in their right places and play goes on (${r}). Bets stand; each player may continue with the reconstructed hand or have the bet returned (${o}).` };
      case 'wrong_hand continue':
        return { label: 'Continue as dealt', text: `The cards cannot be put back: play goes on as dealt (${r}). Each player may continue the hand as dealt or have the bet returned (${o}).` };
      case 'incorrect_cards continue':
        return { label: 'Set aside, play on', text: `The cards not accounted for are set aside (in the burn they count as burned); the held cards follow and play goes on (${r}). Bets stand.` };
      case 'incorrect_cards void':
        return { label: 'Void the round', text: `The round is void (${r}): its cards and the held cards are discarded, and every bet is returned (${v}). The next round opens.` };
      case 'foreign_card continue':
        return { label: 'Play on', text: `The round is already void (${r}) and its bets returned (${v}); play goes on with the next round.` };
      case 'technical_interruption continue':
        return { label: 'Continue: outcome established', text: `An outcome is established: the round goes on and is settled as dealt (${r ? r + '.1' : ''}). Bets stand.` };
      case 'technical_interruption void':
        return { label: 'Void the round', text: `No outcome is established: the round is void (${r ? r + '.2' : ''}) and every bet is returned (${v}).` };
    }
    if (choice === 'void') return { label: 'Void the round', text: `The round is void: its cards are discarded and every bet is returned (${v}).` };
    if (choice === 'continue') return { label: 'Play on', text: `Play goes on (${r}). Bets stand.` };
    return { label: choice, text: r };
  }

  // option is a box's option in words: {label, text}, what happens to the box's hand
  // and bets, citing rule, the options window's rule (RWS Baccarat 5.12 or the table's
  // own), or NC Insurance 5.13 and NC Tournament 3.9 for their own records.
  function option(opt, rule) {
    const sub = (n) => (rule ? ` (${rule}.${n})` : '');
    switch (opt) {
      case 'continue':
        return { label: 'Continue as dealt', text: `The box plays on with its hand as dealt and takes the cards that follow${sub(1)}.` };
      case 'continue-reconstructed':
        return { label: 'Continue reconstructed', text: `The box plays on with the reconstructed hand and takes the cards that follow${sub(2)}.` };
      case 'bet-returned':
        return { label: 'Bet returned', text: `The box's bets are returned; it takes no further part in the round${sub(3)}.` };
      case 'insurance-intended':
        return { label: 'Insurance intended', text: 'The Original Bet on that hand is returned where the Insurance the box intended would have won (NC Insurance 5.13).' };
      case 'withdraw':
        return { label: 'Withdraw on a Tie', text: 'On a Tie the box takes its Original Bet back instead of leaving it for the next round (NC Tournament 3.9).' };
    }
    return { label: (opt || '').replace(/-/g, ' '), text: rule || '' };
  }

  // optionLabel is an option's label alone: "Bet returned".
  function optionLabel(opt) { return option(opt, '').label; }

  // report says what a report of kind does now, at a table in state s (rule set id).
  function report(kind, s, id) {
    const rs = ruleSet(id);
    const r = rs.kinds[kind] || '';
    const round = s && s.round ? `round ${s.round}` : 'the round';
    const o = rs.options;
    const v = rs.void;
    const what = {
      wrong_hand: `the table is held until a supervisor decides (${r}); the players may get the options of ${o}`,
      exposed_card: `${round} goes on and its result stands (${r}); with no outcome established, the players' options (${o}) hold the table until they are taken`,
      simultaneous_draw: `the cards are held until a Pit Supervisor decides which came first (${r}); the players get the options of ${o}`,
      incorrect_cards: `the table is held until a supervisor decides to set the cards aside and play on, or to void the round (${r})`,
      excess_card: `the card is kept as the next card dealt, or burned, as the table is set (${r})`,
      foreign_card: `${round} will be void and every bet returned (${r}; ${v}); the table is held until a supervisor lets play go on`,
      insufficient_cards: `${round} will be void and every bet returned (${r}; ${v}); no more rounds are dealt from the shoe`,
      technical_interruption: `the rule decides: ${round} goes on if an outcome is established, otherwise it is void and every bet returned (${r})`,
      insurance_not_offered: `recorded; the offer is forgone, and a Pit Manager may record the boxes that intended Insurance (${r})`,
      late_error: `recorded against the round named; the rounds after it stand (${r})`,
    }[kind] || `recorded (${r})`;
    return `Report ${kindText(kind)}${s && s.round ? ' at ' + round : ''} now: ${what}.`;
  }

  // shoeEnd says what ending the shoe does now, at a table in state s.
  function shoeEnd(s, id) {
    const rs = ruleSet(id);
    if (!s || !s.shoe || s.phase === 'no-shoe') return 'No shoe is in play.';
    if (s.held) return `Shoe ${s.shoe}: the table is held for #${s.held.id}, and refuses to end the shoe until it is decided.`;
    switch (s.phase) {
      case 'dealing':
        return `Shoe ${s.shoe} ends now: round ${s.round} will be void and every bet returned (${rs.kinds.insufficient_cards || ''}; ${rs.void}). No more rounds from this shoe.`;
      case 'complete':
        return `Shoe ${s.shoe}: round ${s.round} is complete and not confirmed; the table refuses to end the shoe until its result is confirmed.`;
      case 'betting-open':
        return `Shoe ${s.shoe} ends now: round ${s.round} is not dealt (no bet has been taken yet). No more rounds from this shoe.`;
    }
    return `Shoe ${s.shoe} ends now: no more rounds from this shoe.`;
  }

  // newShoe says what a new shoe does now (set and decks: those given, if any).
  function newShoe(s, id, set, decks) {
    const load = set ? `set ${set}${decks ? ` of ${decks} decks` : ''} is loaded` : 'the next shuffled set is loaded';
    if (!s || !s.shoe || s.phase === 'no-shoe') return `Start a new shoe now: ${load}.`;
    return `Start a new shoe now. ${shoeEnd(s, id)} Then ${load}.`;
  }

  const WINNER = { banker: 'Banker wins', player: 'Player wins', tie: 'Tie' };

  // effect is one effect of a table's reply in words.
  function effect(e) {
    const first = String(e).split('\n')[0];
    const sp = first.indexOf(' ');
    const kind = sp < 0 ? first : first.slice(0, sp);
    const rest = sp < 0 ? '' : first.slice(sp + 1);
    const num = (name) => { const m = rest.match(new RegExp(name + '=(\\S+)')); return m ? m[1] : ''; };
    const after = (sep) => { const i = rest.indexOf(sep); return i < 0 ? '' : rest.slice(i + sep.length); };
    let m;
    switch (kind) {
      case 'irregularity-raised':
        m = rest.match(/^#(\d+) (\S+)/);
        return m ? `Irregularity #${m[1]} raised: ${kindText(m[2])}${rest.includes(' player-options') ? ', the players get their options' : ''} (${after(': ')})` : 'Irregularity raised';
      case 'irregularity-resolved':
        m = rest.match(/^#(\d+) (\S+) (\S+) by (.*)$/);
        return m ? `#${m[1]} ${kindText(m[2])} decided: ${m[3]}, by ${m[4].replace(/_/g, ' ')}` : 'Irregularity decided';
      case 'round-voided': return `Round ${num('round')} is void and every bet returned: ${after(': ')}`;
      case 'round-settled': return `Round ${num('round')} settled: ${WINNER[rest.split(' ')[1]] || rest.split(' ')[1]}`;
      case 'round-complete': return `Round ${num('round')} complete`;
      case 'shoe-ended': return `Shoe ${num('shoe')} ended after ${num('rounds')} rounds`;
      case 'shoe-finished': return `Shoe ${num('shoe')} finished`;
      case 'shoe-started': case 'set-loaded': return `Shoe ${num('shoe')} started: set ${num('set')}, ${num('decks')} decks`;
      case 'betting-opened': return `Betting open for round ${num('round')}`;
      case 'betting-closed': return `Bets closed for round ${num('round')} (${num('wagers')} wagers)`;
      case 'insurance-closed': return 'Insurance closed';
      case 'squeeze-noted': return `Squeeze noted: ${after(': ')}`;
      case 'cut-card-reached': return `Cut card out: ${num('more-rounds')} more round(s)`;
      case 'supervisor-call': return rest === 'on' ? 'A Pit Supervisor is called' : 'The call for a Pit Supervisor has ended';
      case 'event-refused': return after(': ') || rest;
      case 'options-opened': return 'The players\u2019 options are open';
      case 'options-closed': return `The players\u2019 options are closed${after(': ') ? ': ' + after(': ') : ''}`;
      case 'option-recorded':
        m = rest.match(/^box=(\S+) (\S+)(?: (\S+))? by (\S+)(?: (.*))?$/);
        return m ? `Box ${m[1]}: ${optionLabel(m[2])}${m[3] ? ' (' + m[3].replace(/_/g, ' ') + ')' : ''} recorded, by ${[m[4].replace(/_/g, ' '), m[5]].filter(Boolean).join(' ')}` : 'Option recorded';
      case 'repeat:': return 'Carried out before a restart';
    }
    return (kind.replace(/-/g, ' ') + (rest ? ' ' + rest : '')).replace(/^./, (c) => c.toUpperCase());
  }

  // reply is a table's reply in words: its effects joined, each in words.
  function reply(effects) {
    return (effects || []).map(effect).filter(Boolean).join('. ');
  }

  return { load, ruleSet, ruleSetName, insurance, rule, kindText, reportOffered, decision, option, optionLabel, report, shoeEnd, newShoe, effect, reply };
})();
