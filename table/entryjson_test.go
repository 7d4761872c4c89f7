package table

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// checkEntryJSON fails unless entryJSON gives exactly json.Marshal's bytes for e, or an
// error where json.Marshal gives one.
func checkEntryJSON(t *testing.T, e Entry) {
	t.Helper()
	want, werr := json.Marshal(e)
	got, gerr := entryJSON(&e)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("entry %+v: error %v, json.Marshal's %v", e, gerr, werr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("entry %+v:\n got %s\nwant %s", e, got, want)
	}
}

// randomEntry is a journal entry drawn from rng: mostly events, each field set or not,
// valid or not, and now and then an entry of another kind.
func randomEntry(rng *rand.Rand) Entry {
	pick := rng.IntN
	texts := []string{"A", "set 7", "pit-boss", "<&>", "a\"b\\c", "Tisch ü", "\x01", "\xff"}
	text := func() string {
		if pick(3) == 0 {
			return texts[pick(len(texts))]
		}
		return ""
	}
	num := func() uint64 {
		if pick(2) == 0 {
			return 0
		}
		return rng.Uint64() >> pick(64)
	}
	flag := func() bool { return pick(4) == 0 }
	ev := round.Event{Kind: round.EventKind(pick(30)), Set: text(), Decks: int(num() % 9), Cards: int(num()%1000) - 2,
		Empty: flag(), Seq: num(), Renumbered: flag(), Burned: flag(), ShoeTime: uint32(num()), ShoeTimed: flag(),
		Resent: flag(), Signal: num(), ID: uint32(num()), Round: uint32(num()), Actor: text(), Detail: text(), Box: text()}
	switch pick(6) {
	case 0:
	case 1:
		ev.At = time.Date(pick(12000)-1000, 1, 1, 0, 0, 0, 0, time.UTC) // perhaps a year JSON cannot carry
	default:
		ev.At = time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int64N(int64(400 * 24 * time.Hour)))).
			In([]*time.Location{time.UTC, time.FixedZone("CET", 3600), time.FixedZone("far", 25*3600)}[pick(3)])
	}
	switch pick(8) {
	case 0:
	case 1:
		ev.Card = baccarat.Card{Rank: baccarat.Rank(pick(15)), Suit: baccarat.Suit(pick(6))} // perhaps not a card
	default:
		ev.Card = baccarat.Card{Rank: baccarat.Rank(1 + pick(13)), Suit: baccarat.Suit(1 + pick(4))}
	}
	switch pick(12) { // the fields written through encoding/json
	case 0:
		ev.Order = []baccarat.Card{{Rank: 1, Suit: 1}}
	case 1:
		ev.Wagers = []baccarat.Wager{{Box: "1", Bet: baccarat.Bet(pick(4)), Stake: baccarat.Money(pick(100))}}
	case 2:
		ev.Irregularity = irregularities.Kind(pick(20))
	case 3:
		ev.Choice, ev.Role = irregularities.Choice(pick(8)), irregularities.Role(pick(5))
	case 4:
		ev.Option, ev.Bet = irregularities.Option(pick(6)), baccarat.Bet(pick(6))
	case 5:
		ev.Order = []baccarat.Card{} // empty: left out, as nil is
	}
	e := Entry{Event: &ev}
	switch pick(20) {
	case 0:
		e.Command = &CommandID{Role: "dealer", ID: "c1", At: ev.At}
	case 1:
		e = Entry{Key: &KeyRecord{Public: "k"}}
	case 2:
		e = Entry{}
	}
	return e
}

func TestEntryJSONIsEncodingJSONs(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 5))
	for range 30000 {
		checkEntryJSON(t, randomEntry(rng))
	}
}

// FuzzEntryJSON checks the journal record's writer against encoding/json on entries
// drawn from the fuzzer's seeds.
func FuzzEntryJSON(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(28), uint64(5))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		checkEntryJSON(t, randomEntry(rand.New(rand.NewPCG(a, b))))
	})
}

// BenchmarkEntryJSON writes a card's journal record with encoding/json, as before, and
// with entryJSON.
func BenchmarkEntryJSON(b *testing.B) {
	ev := round.Event{Kind: round.CardDrawn, At: time.Date(2026, 11, 27, 12, 0, 0, 123456789, time.UTC),
		Card: baccarat.MustParseCard("9H"), Seq: 17, ShoeTime: 123456, ShoeTimed: true}
	e := Entry{Event: &ev}
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(&e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("entryJSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := entryJSON(&e); err != nil {
				b.Fatal(err)
			}
		}
	})
}
