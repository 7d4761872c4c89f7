package archive

import (
	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/messages"
)

// BatchOf is the batch a table's archive batch message carries: its records, its signed
// head and heads, and how far the table has written. It checks nothing.
func BatchOf(b api.ArchiveBatch) Batch {
	out := Batch{Records: make([]Record, len(b.Records)), Written: b.Written}
	if b.Heads != nil {
		out.Heads = make([]journal.Checkpoint, len(b.Heads))
		for i, h := range b.Heads {
			out.Heads[i] = messages.HeadOf(h)
		}
	}
	if b.Signed != nil {
		out.Signed = messages.HeadOf(*b.Signed)
	}
	for i, r := range b.Records {
		out.Records[i] = Record{Seq: r.Seq, Hash: journal.Hash(r.Hash), Data: r.Data}
	}
	return out
}

// HeldMessage is the retained held message of archive archiveID for table, as status st says
// how far it holds the table: its last record in order, under the table's head of it
// (none while it holds nothing), and its latest alarm.
func (st Status) HeldMessage(table, archiveID string) api.ArchiveHeld {
	h := api.ArchiveHeld{Schema: api.Schema, Table: table, Archive: archiveID, Seq: st.Signed.Seq, Hash: api.Hash(st.Signed.Hash),
		Written: max(st.Written, st.Signed.Seq), At: st.At, Alarms: st.Alarms}
	if st.Signed.Seq > 0 {
		signed := messages.WireHead(st.Signed)
		h.Signed = &signed
	}
	if st.Latest != nil {
		h.Alarm = &api.ArchiveAlarm{At: st.Latest.At, Item: st.Latest.Item, Seq: st.Latest.Seq,
			Kind: string(st.Latest.Kind), Reason: st.Latest.Reason}
	}
	return h
}
