package daemon

import (
	"crypto/ed25519"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/messages"
)

// TestSignsEachRound: at each round's end the table signs its journal's chain head,
// keeps the checkpoint in the heads file and publishes it, retained, on the journal
// topic; the checkpoints verify with the table's key and the journal bears them out.
func TestSignsEachRound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := testConfig(t, dir)
	cfg.SigningKey = ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	pub := cfg.SigningKey.Public().(ed25519.PublicKey)
	r := startWith(t, cfg, nil)
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	r.f.cards(t, "9H 5C KS KD") // round 1: Player natural 9
	r.settle(t)
	r.f.cards(t, "2H 3D 4C") // round 2, not complete: nothing more is signed
	r.settle(t)
	r.f.cards(t, "5D")
	r.settle(t)

	var heads []api.JournalHead
	for _, m := range r.rec.Published() {
		if strings.HasSuffix(m.Topic, "/journal") {
			var h api.JournalHead
			if err := json.Unmarshal(m.Payload, &h); err != nil {
				t.Fatal(err)
			}
			if !m.Retained {
				t.Error("the journal head is not retained")
			}
			heads = append(heads, h)
		}
	}
	// The start's head (round 0: the settings and the key recorded), then each round's.
	if len(heads) != 3 || heads[0].Round != 0 || heads[1].Round != 1 || heads[2].Round != 2 || heads[0].Table != "T7" ||
		heads[2].Checkpoint.Seq <= heads[1].Checkpoint.Seq || heads[1].Checkpoint.Seq <= heads[0].Checkpoint.Seq || heads[2].Seq == 0 {
		t.Fatalf("journal heads published: %+v", heads)
	}
	r.close(t)

	j, _, err := journal.Open(dir, journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	own, err := j.Checkpoints()
	// At start: the settings signed, then the key record signed; then each round's end.
	if err != nil || len(own) != 4 {
		t.Fatalf("heads file: %d checkpoints, %v", len(own), err)
	}
	witness := []journal.Checkpoint{messages.HeadOf(heads[0].Checkpoint), messages.HeadOf(heads[1].Checkpoint), messages.HeadOf(heads[2].Checkpoint)}
	for i, c := range witness {
		if kept := own[i+1]; c.Seq != kept.Seq || c.Hash != kept.Hash || !c.Verify(pub) {
			t.Errorf("checkpoint %d published %+v, kept %+v", i, c, kept)
		}
	}
	if probs, _, err := j.CheckHeads(pub, "heads", own); err != nil || len(probs) != 0 {
		t.Fatalf("the journal does not bear out its heads: %v %v", probs, err)
	}
	if probs, _, err := j.CheckHeads(pub, "witness", witness); err != nil || len(probs) != 0 {
		t.Fatalf("the journal does not bear out its published heads: %v %v", probs, err)
	}
}
