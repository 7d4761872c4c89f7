package messages

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
)

// checkCardJSON fails unless cardJSON gives exactly json.Marshal's bytes for m, or an
// error where json.Marshal gives one.
func checkCardJSON(t *testing.T, m api.Card) {
	t.Helper()
	tj, err := json.Marshal(m.Table)
	if err != nil {
		t.Fatal(err)
	}
	got, err := cardJSON(&m, tj)
	checkAsEncodingJSON(t, m, got, err)
}

// checkAsEncodingJSON fails unless got is json.Marshal's bytes for v, and gerr an error
// exactly when json.Marshal gives one.
func checkAsEncodingJSON(t *testing.T, v any, got []byte, gerr error) {
	t.Helper()
	want, werr := json.Marshal(v)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%+v: error %v, json.Marshal's %v", v, gerr, werr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%+v:\n got %s\nwant %s", v, got, want)
	}
}

func TestCardJSONIsEncodingJSONs(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 3))
	tables := []string{"B1", "", "T<1>&", "Tisch ü", "a\"b\\c", "\x01\u2028", "\xff"}
	zones := []*time.Location{time.UTC, time.FixedZone("CET", 3600), time.FixedZone("NPT", 5*3600+45*60),
		time.FixedZone("neg", -9*3600-30*60), time.FixedZone("sec", 3600+7), time.FixedZone("far", 25*3600)}
	pick := func(n int) int { return rng.IntN(n) }
	for i := 0; i < 20000; i++ {
		at := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int64N(int64(400 * 24 * time.Hour))))
		switch pick(10) {
		case 0:
			at = at.Truncate(time.Second) // no fraction
		case 1:
			at = at.Truncate(time.Millisecond * 10) // trailing zeros dropped
		case 2:
			at = time.Date(rng.IntN(12000)-1000, 1, 1, 0, 0, 0, 0, time.UTC) // years JSON cannot carry
		case 3:
			at = time.Time{}
		}
		at = at.In(zones[pick(len(zones))])
		m := api.Card{
			Envelope: api.Envelope{Schema: api.Schema, Table: tables[pick(len(tables))], Shoe: rng.Uint32(), Round: rng.Uint32() >> pick(32),
				Seq: rng.Uint64() >> pick(64), At: at},
			SlotCard: api.SlotCard{Slot: WireSlot(baccarat.Slot(pick(9))), Card: api.CardCode(baccarat.Card{Rank: baccarat.Rank(pick(15)), Suit: baccarat.Suit(pick(6))}.String()),
				CardNo: rng.Uint64() >> pick(65)},
			PlayerPoints: pick(12) - 1, BankerPoints: pick(12) - 1,
		}
		if pick(4) == 0 {
			m.CardNo = 0
		}
		if pick(20) == 0 {
			m.Schema = -pick(1000)
		}
		checkCardJSON(t, m)
	}
}

// FuzzCardJSON checks the card message's writer against encoding/json on any values.
func FuzzCardJSON(f *testing.F) {
	f.Add("B1", uint32(1), uint32(3), uint64(17), int64(1795766400123456789), 0, uint8(2), uint8(10), uint8(1), uint64(5), 7, 3)
	f.Add("<&>", uint32(0), uint32(0), uint64(0), int64(-62135596800000000), -3600, uint8(0), uint8(0), uint8(0), uint64(0), 0, 0)
	f.Fuzz(func(t *testing.T, table string, shoe, round uint32, seq uint64, unixNano int64, zone int, slot, rank, suit uint8, cardNo uint64, pp, bp int) {
		at := time.Unix(0, unixNano).In(time.FixedZone("z", zone%(30*3600)))
		checkCardJSON(t, api.Card{
			Envelope:     api.Envelope{Schema: api.Schema, Table: table, Shoe: shoe, Round: round, Seq: seq, At: at},
			SlotCard:     api.SlotCard{Slot: WireSlot(baccarat.Slot(slot)), Card: api.CardCode(baccarat.Card{Rank: baccarat.Rank(rank), Suit: baccarat.Suit(suit)}.String()), CardNo: cardNo},
			PlayerPoints: pp, BankerPoints: bp,
		})
	})
}

// BenchmarkCardJSON is the card message written directly ("direct") and by
// encoding/json ("encoding-json"), the way the builder wrote it before.
func BenchmarkCardJSON(b *testing.B) {
	m := api.Card{Envelope: api.Envelope{Schema: api.Schema, Table: "B1", Shoe: 12, Round: 34, Seq: 5678,
		At: time.Date(2026, 11, 27, 8, 0, 0, 123456789, time.UTC)},
		SlotCard: api.SlotCard{Slot: "B2", Card: "TH", CardNo: 211}, PlayerPoints: 7, BankerPoints: 3}
	tj, _ := json.Marshal(m.Table)
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := cardJSON(&m, tj); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := json.Marshal(m); err != nil {
				b.Fatal(err)
			}
		}
	})
}
