'use strict';
// Deals rounds with the JavaScript engine baccarat-engine (BaccaratGameEngine.dealGame,
// then BaccaratResultsEngine.calculateGameResult: the Table of Play, the outcome, the
// naturals and the pairs) from the very shoes the round controller's BenchmarkStep
// deals, in the same order and with the same rule for moving to the next shoe (fewer
// than 6 cards left). One op is one round, as in BenchmarkStep.
//
//   node deal.js SHOES.json ROUNDS
//
// SHOES.json is what BenchmarkStep writes when TABLECTL_BENCH_SHOES names a file: an
// array of shoes, each an array of cards such as "9H" and "TS". Prints one line in the
// format of a Go benchmark, so the two can be read side by side.
const fs = require('fs');
const { BaccaratGameEngine, Card } = require('baccarat-engine');

const [shoesFile, roundsArg] = process.argv.slice(2);
if (!shoesFile) {
  console.error('usage: node deal.js SHOES.json [ROUNDS]');
  process.exit(2);
}
const rounds = Number(roundsArg || 2000000);

const values = { A: 'A', T: '10', J: 'J', Q: 'Q', K: 'K' };
const suits = { S: 'spade', H: 'heart', D: 'diamond', C: 'club' };
function card(s) {
  const suit = suits[s[1]];
  if (s.length !== 2 || !suit || !(s[0] in values || /^[2-9]$/.test(s[0]))) {
    throw new Error(`card ${JSON.stringify(s)}: want a rank A23456789TJQK and a suit SHDC`);
  }
  return new Card(suit, values[s[0]] || s[0]);
}

// The engine's shoe draws from the end of its array: each shoe is kept reversed, and a
// new shoe is a copy of it.
const shoes = JSON.parse(fs.readFileSync(shoesFile, 'utf8')).map((s) => s.map(card).reverse());
if (shoes.length === 0 || shoes.some((s) => s.length < 6)) {
  throw new Error(`${shoesFile}: want one or more shoes of 6 cards or more`);
}

const engine = new BaccaratGameEngine();
let shoe = 0;
engine.shoe.cards = shoes[shoe].slice();
const tally = { banker: 0, player: 0, tie: 0 };
let sink = 0;

const start = process.hrtime.bigint();
for (let i = 0; i < rounds; i++) {
  if (engine.shoe.cards.length < 6) {
    shoe = (shoe + 1) % shoes.length;
    engine.shoe.cards = shoes[shoe].slice();
  }
  const result = engine.resultsEngine.calculateGameResult(engine.dealGame());
  tally[result.outcome]++;
  sink += result.pair.length;
}
const ns = Number(process.hrtime.bigint() - start);
if (sink < 0) console.log(sink);

console.log(`BenchmarkBaccaratEngineJS\t${rounds}\t${(ns / rounds).toFixed(1)} ns/op\t${(rounds / (ns / 1e9)).toFixed(0)} rounds/s` +
  `\t(banker ${tally.banker}, player ${tally.player}, tie ${tally.tie})`);
