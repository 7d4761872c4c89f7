package service

import (
	"encoding/json"
	"testing"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/journal"
)

// FuzzDecodeBatch reads any bytes as a batch of the fixture's table and checks its
// signature and chain as the archive does: no input panics, a batch that decodes keeps
// its bounds, and one that verifies with the table's key is the table's own, record for
// record. The seeds are batches the table signed, and forgeries of them.
func FuzzDecodeBatch(f *testing.F) {
	fx := loadFixture(f)
	ft := &fakeTable{t: f, f: fx, id: fixtureTable, archive: "floor"}
	for _, span := range [][2]uint64{{1, 1}, {1, 20}, {30, 60}, {fx.last() - 5, fx.last()}} {
		b := ft.batch(span[0], span[1])
		payload, _ := json.Marshal(b)
		f.Add(payload)
		b.Records[0].Data = append(b.Records[0].Data, ' ')
		payload, _ = json.Marshal(b)
		f.Add(payload)
		b.Signed = nil
		payload, _ = json.Marshal(b)
		f.Add(payload)
	}
	f.Add([]byte(`{"schema":2,"table":"pit3-bac07","archive":"floor","records":[],"written":0}`))
	keys := keysOf(fx)[fixtureTable]
	f.Fuzz(func(t *testing.T, payload []byte) {
		b, err := decode(payload, fixtureTable, "floor")
		if err != nil {
			return
		}
		if n := len(b.Records); n == 0 || n > api.MaxArchiveBatch || b.Written < b.Records[n-1].Seq {
			t.Fatalf("decoded a batch of %d records written %d", n, b.Written)
		}
		for i := 1; i < len(b.Records); i++ {
			if b.Records[i].Seq != b.Records[i-1].Seq+1 {
				return // the archive refuses it as no batch (archive.BatchError)
			}
		}
		held := archive.Position{}
		if first := b.Records[0].Seq; first > 1 && first-1 <= fx.last() {
			prev := fx.records[first-2]
			held = archive.Position{Seq: prev.Seq, Hash: prev.Hash}
		}
		if archive.VerifyBatch(fixtureTable, keys, b, held) != nil {
			return
		}
		for _, r := range b.Records {
			if r.Seq == 0 || r.Seq > fx.last() {
				t.Fatalf("record %d verified under the table's key: the table never wrote it", r.Seq)
			}
			own := fx.records[r.Seq-1]
			if r.Hash != own.Hash || string(r.Data) != string(own.Data) {
				t.Fatalf("record %d verified under the table's key but is not the table's", r.Seq)
			}
		}
		if b.Signed.Table != fixtureTable || !journal.Checkpoint(b.Signed).Verify(fx.pub) {
			t.Fatalf("verified under a head that is not the table's: %+v", b.Signed)
		}
	})
}
