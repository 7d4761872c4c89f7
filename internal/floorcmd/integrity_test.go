package floorcmd

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/history"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// integrityJournal is table id's journal of two shoes from 09:00 on 2026-03-02: a
// shuffled one, then one dealt in the order the first was dealt in (its shuffler
// handed the discards back unshuffled). It returns the records and the first shoe's
// dealt cards.
func integrityJournal(t *testing.T, id string) ([]archive.Record, []baccarat.Card) {
	t.Helper()
	cfg := round.DefaultConfig(baccarat.MustLookup("rws", baccarat.Options{}))
	cfg.Burn = round.BurnNone
	ctl, err := round.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var recs []archive.Record
	var prev journal.Hash
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	step := func(ev round.Event) []round.Effect {
		ev.At = at
		at = at.Add(2 * time.Second)
		effs := ctl.Step(ev)
		for _, e := range effs {
			if e.Kind == round.EventRefused || e.Kind == round.IrregularityRaised {
				t.Fatalf("%s: %s", ev, e.Reason())
			}
		}
		data, err := json.Marshal(table.Entry{Event: &ev})
		if err != nil {
			t.Fatal(err)
		}
		seq := uint64(len(recs) + 1)
		r := archive.Record{Seq: seq, Hash: journal.ChainHash(prev, seq, data), Data: data}
		prev, recs = r.Hash, append(recs, r)
		return effs
	}
	s := table.Settings{Table: id, Round: cfg, AutoConfirm: true, AutoCloseInsurance: true}
	data, err := json.Marshal(table.Entry{Settings: &s})
	if err != nil {
		t.Fatal(err)
	}
	recs = append(recs, archive.Record{Seq: 1, Hash: journal.ChainHash(prev, 1, data), Data: data})
	prev = recs[0].Hash
	deal := func(set string, cards []baccarat.Card) []baccarat.Card {
		step(round.Event{Kind: round.NewShoe, Set: set, Decks: 8})
		pos := 0
		for len(cards)-pos >= 6 {
			step(round.Event{Kind: round.BetsClosed})
			_, n := baccarat.CoupOf(cards[pos:]...)
			for _, c := range cards[pos : pos+n] {
				for _, e := range step(round.Event{Kind: round.CardDrawn, Card: c}) {
					if e.Kind == round.InsuranceOffered {
						step(round.Event{Kind: round.InsuranceWindowClosed})
					}
				}
			}
			pos += n
			step(round.Event{Kind: round.ConfirmResult})
		}
		step(round.Event{Kind: round.ShoeEnd})
		return cards[:pos]
	}
	var shoe []baccarat.Card
	for range 8 {
		for i := range 52 {
			shoe = append(shoe, baccarat.Card{Rank: baccarat.Rank(i%13 + 1), Suit: baccarat.Suit(i/13 + 1)})
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(shoe), func(i, j int) { shoe[i], shoe[j] = shoe[j], shoe[i] })
	dealt := slices.Clone(deal("1", shoe))
	deal("2", append(slices.Clone(dealt), shoe[len(dealt):]...))
	return recs, dealt
}

// TestIntegrityCommand: tablectl-floor integrity reads a SQLite archive holding a
// shoe dealt in its shuffler's input order and gives, as JSON, the one alarm with its
// run of every card dealt; as CSV and the page for A4 the same alarm; --kind of another
// kind gives none; 'integrity positions' gives the position test of the table's two
// sets, as JSON, CSV and a page.
func TestIntegrityCommand(t *testing.T) {
	t.Parallel()
	const id = "pit4-bac03"
	ctx := context.Background()
	dsn := filepath.Join(t.TempDir(), "archive.db")
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	db, err := archive.OpenDB(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a := archive.New(db, archive.Keys{id: {key.Public().(ed25519.PublicKey)}}, archive.Options{})
	recs, dealt := integrityJournal(t, id)
	last := recs[len(recs)-1]
	signed, err := journal.SignTable(key, id, last.Seq, last.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := a.Ingest(ctx, id, archive.Batch{Records: recs, Signed: signed, Written: last.Seq}); err != nil || res.Stored != len(recs) {
		t.Fatalf("ingest: %+v, %v", res, err)
	}

	span := []string{"--db", dsn, "--from", "2026-03-02T08:00:00Z", "--to", "2026-03-03T00:00:00Z", "--tz", "UTC"}
	out, errs, err := runCmd(t, "", append([]string{"integrity", "--format", "json"}, span...)...)
	if err != nil {
		t.Fatalf("integrity: %v\n%s", err, errs)
	}
	var as []history.IntegrityAlarm
	if err := json.Unmarshal([]byte(out), &as); err != nil {
		t.Fatalf("integrity: %v\n%s", err, out)
	}
	if len(as) != 1 || as[0].Kind != api.AlertIntegrityInput || as[0].Table != id || len(as[0].Evidence.Runs) != 1 ||
		as[0].Evidence.Runs[0].Len != len(dealt) || as[0].Evidence.Shoe.Shoe != 2 {
		t.Fatalf("integrity: %s", out)
	}
	csv, _, err := runCmd(t, "", append([]string{"integrity"}, span...)...)
	if err != nil || !strings.HasPrefix(csv, "table,kind,alarm,shoe,other shoe,since,raised,evidence,acknowledged by,at,note\n") ||
		!strings.Contains(csv, id+","+api.AlertIntegrityInput+",") || !strings.Contains(csv, "cards from card 1 here and 1 there") {
		t.Errorf("integrity as CSV: %v\n%s", err, csv)
	}
	page, _, err := runCmd(t, "", append([]string{"integrity", "--format", "html"}, span...)...)
	if err != nil || !strings.Contains(page, "<h2>Integrity alarms</h2>") || !strings.Contains(page, api.AlertIntegrityInput) {
		t.Errorf("integrity --format html: %v\n%s", err, page)
	}
	none, _, err := runCmd(t, "", append([]string{"integrity", "--format", "json", "--kind", api.AlertIntegrityDrift}, span...)...)
	if err != nil || strings.TrimSpace(none) != "[]" {
		t.Errorf("integrity --kind %s: %v\n%s", api.AlertIntegrityDrift, err, none)
	}
	if _, _, err := runCmd(t, "", append([]string{"integrity", "--kind", "held"}, span...)...); err == nil {
		t.Error("integrity --kind held: no error")
	}

	out, errs, err = runCmd(t, "", append([]string{"integrity", "positions", "--table", id, "--format", "json"}, span...)...)
	if err != nil {
		t.Fatalf("integrity positions: %v\n%s", err, errs)
	}
	var rep history.PositionsReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, row := range rep.Counts {
		for _, c := range row {
			n += c
		}
	}
	if rep.Table != id || rep.Sets != 2 || rep.Short != 0 || rep.DF != 51*7 || len(rep.Counts) != 52 || n != 2*400 {
		t.Errorf("integrity positions: %d positions tallied: %s", n, out)
	}
	csv, _, err = runCmd(t, "", append([]string{"integrity", "positions", "--table", id}, span...)...)
	if err != nil || !strings.HasPrefix(csv, "Position test\ntable,sets,short,depth,parts,chi2,df,p,passes\n"+id+",2,0,400,8,") ||
		!strings.Contains(csv, "card,cards 1-50,cards 51-100,") {
		t.Errorf("integrity positions as CSV: %v\n%s", err, csv)
	}
	page, _, err = runCmd(t, "", append([]string{"integrity", "positions", "--table", id, "--format", "html"}, span...)...)
	if err != nil || !strings.Contains(page, "COMAR 36.05.02.17") || !strings.Contains(page, "357 degrees of freedom") {
		t.Errorf("integrity positions --format html: %v\n%s", err, page)
	}
	if _, _, err := runCmd(t, "", "integrity", "positions", "--db", dsn); err == nil {
		t.Error("integrity positions without --table: no error")
	}
}
