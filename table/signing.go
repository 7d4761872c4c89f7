package table

import (
	"time"

	"github.com/tablectl/tablectl/journal"
)

// KeyRecord names the key a table signs its journal with from this record on: its
// public key as `tablectl key show` prints it ("ed25519:..."). The table records it once
// its journal holds a signed checkpoint, so a journal with a key record always has one,
// and a heads file missing or emptied, or a key file missing or replaced, shows.
type KeyRecord struct {
	Public string `json:"public"`
}

// Recovery is what a supervisor's recovery (`tablectl journal recover`) recorded: who,
// when and why, and what was lost. It is recorded before anything else is written after
// the loss, and signed at once.
type Recovery struct {
	At     time.Time `json:"at"`
	By     string    `json:"by"`
	Reason string    `json:"reason"`
	// Lost says, one line each, what was lost or set aside: a heads file, a key, a
	// snapshot, records rolled back.
	Lost []string `json:"lost"`
	// LostHead is the table's signed head that the broker held and the journal no longer
	// bears out (records rolled back), when that was recovered from.
	LostHead *journal.Checkpoint `json:"lost_head,omitempty"`
}

// Signing is what a journal says of its signing: the key named by its last key record,
// and the heads its recoveries recorded as lost.
type Signing struct {
	// Key is the public key of the last key record ("" when the journal has none).
	Key string
	// KeySeq is that record's sequence number, 0 when it came with the snapshot.
	KeySeq uint64
	// LostHeads are the heads recorded as lost by the recoveries read.
	LostHeads []journal.Checkpoint
}

// take reads one record's part.
func (s *Signing) take(seq uint64, e Entry) {
	switch {
	case e.Key != nil:
		s.Key, s.KeySeq = e.Key.Public, seq
	case e.Recovery != nil && e.Recovery.LostHead != nil:
		s.LostHeads = append(s.LostHeads, *e.Recovery.LostHead)
	}
}

// Lost reports whether a recovery recorded the head c as lost.
func (s Signing) Lost(c journal.Checkpoint) bool {
	for _, h := range s.LostHeads {
		if h.Seq == c.Seq && h.Hash == c.Hash {
			return true
		}
	}
	return false
}

// ReadSigning reads what the journal says of its signing, from its snapshot (when the
// journal uses one) and the records after it.
func ReadSigning(j *journal.Journal) (Signing, error) {
	var s Signing
	from := uint64(1)
	if snap, seq, ok := readSnapshot(j); ok {
		s.Key, from = snap.Key, seq+1
	}
	if j.LastSeq() < from {
		return s, nil
	}
	for rec, err := range j.Records(from) {
		if err != nil {
			return s, err
		}
		e, err := DecodeEntry(rec.Seq, rec.Data)
		if err != nil {
			return s, err
		}
		s.take(rec.Seq, e)
	}
	return s, nil
}

// Signing is what the journal replayed says of its signing key and recoveries.
func (n *Node) Signing() Signing { return n.signing }

// RecordKey records that the journal is signed with the key whose public key is pub
// from here on. Record it only once the journal holds a signed checkpoint.
func (n *Node) RecordKey(pub string) {
	n.rd.Records = append(n.rd.Records, Entry{Key: &KeyRecord{Public: pub}})
	n.signing.Key, n.signing.KeySeq = pub, 0
}
