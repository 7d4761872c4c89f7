package api

import (
	"time"

	"github.com/tablectl/tablectl/journal"
)

// The archive's topics (docs/archive.md, "Shipping"). A table that ships its journal
// publishes batches of records on tablectl/v1/<table>/archive/records, QoS 1, never
// retained; the archive (tablectl archive) stores them and publishes, retained, how far
// it holds the table on tablectl/v1/<table>/archive/held. The table reads that message
// and sends again from the record after it. Neither topic is one of TableTopics: the
// display boards and the pit system's "+" filters do not see the records.

// ArchiveLevel is the level under a table's topics where the archive's topics are.
const ArchiveLevel = "archive"

// ArchiveRecordsTopic and ArchiveHeldTopic are the archive's topics' parts under
// tablectl/v1/<table>/.
const (
	ArchiveRecordsTopic = ArchiveLevel + "/records"
	ArchiveHeldTopic    = ArchiveLevel + "/held"
)

// ArchiveRecordsFilter is the filter the archive subscribes to for every table's records.
const ArchiveRecordsFilter = Prefix + "/+/" + ArchiveRecordsTopic

// ArchiveHeldFilter is the filter for every table's archive/held message (the console's).
const ArchiveHeldFilter = Prefix + "/+/" + ArchiveHeldTopic

// ArchiveRecords is tablectl/v1/<table>/archive/records: the table's journal records
// for the archive, QoS 1, not retained.
func (t Topics) ArchiveRecords() string { return t.Base() + ArchiveRecordsTopic }

// ArchiveHeld is tablectl/v1/<table>/archive/held (retained, the archive's): how far the
// archive holds the table.
func (t Topics) ArchiveHeld() string { return t.Base() + ArchiveHeldTopic }

// TableOfArchiveTopic returns the table id of an archive topic,
// tablectl/v1/<table>/archive/records or .../archive/held, and which of the two parts it
// is (ArchiveRecordsTopic or ArchiveHeldTopic). ok is false for any other topic or a
// table id NewTopics would refuse.
func TableOfArchiveTopic(topic string) (table, part string, ok bool) {
	for _, p := range []string{ArchiveRecordsTopic, ArchiveHeldTopic} {
		rest, found := cutAffixes(topic, Prefix+"/", "/"+p)
		if found && checkLevel("table id", rest, MaxTableIDLen) == nil {
			return rest, p, true
		}
	}
	return "", "", false
}

func cutAffixes(s, prefix, suffix string) (string, bool) {
	if len(s) < len(prefix)+len(suffix) || s[:len(prefix)] != prefix || s[len(s)-len(suffix):] != suffix {
		return "", false
	}
	return s[len(prefix) : len(s)-len(suffix)], true
}

// MaxArchiveBatch is the most records one ArchiveBatch carries.
const MaxArchiveBatch = 256

// ArchiveBatch is one message on archive/records: journal records of the table in
// order, with no gap, and the signed heads of the table's journal that cover records up
// to the batch's last (each head at most once over the batches, in order of Seq).
type ArchiveBatch struct {
	Schema  int             `json:"schema"`
	Table   string          `json:"table"`
	Records []ArchiveRecord `json:"records"`
	// Heads are signed journal heads (docs/journal.md, "Tamper evidence") whose Seq is
	// at most the last record's of this batch.
	Heads []journal.Checkpoint `json:"heads,omitempty"`
	// Written is the number of the last record the table had written when it sent
	// the batch: how far the archive has to go.
	Written uint64 `json:"written"`
}

// ArchiveRecord is one journal record as the table wrote it: its sequence number, its
// chain hash (hex) and its payload (base64 in JSON).
type ArchiveRecord struct {
	Seq  uint64       `json:"seq"`
	Hash journal.Hash `json:"hash"`
	Data []byte       `json:"data"`
}

// ArchiveHeld is the retained message on archive/held: how far the archive holds the
// table, and what it refused of it.
type ArchiveHeld struct {
	Schema int    `json:"schema"`
	Table  string `json:"table"`
	// Seq is the last record held in order (0: none); Hash its chain hash. The table
	// sends again from Seq+1.
	Seq  uint64       `json:"seq"`
	Hash journal.Hash `json:"hash"`
	// Written is the last record number the table said it had written (ArchiveBatch).
	Written uint64 `json:"written"`
	// At is when the archive last stored a record of the table (zero: never).
	At time.Time `json:"at"`
	// Alarms counts the items of the table kept in quarantine; Alarm is the latest.
	Alarms int           `json:"alarms"`
	Alarm  *ArchiveAlarm `json:"alarm,omitempty"`
}

// ArchiveAlarm is an item the archive refused and kept apart (docs/archive.md, "What
// the archive checks"): what (a "record" or a "head") at which sequence number, the
// alarm's kind (not-chained, rollback, bad-signature, unknown-table) and the reason, in
// words naming the table and the place.
type ArchiveAlarm struct {
	At     time.Time `json:"at"`
	Item   string    `json:"item"`
	Seq    uint64    `json:"seq"`
	Kind   string    `json:"kind"`
	Reason string    `json:"reason"`
}

// ArchiveLag is, in a table's status, how far the archive is behind the table's
// journal. Absent from the status of a table that does not ship its journal.
type ArchiveLag struct {
	// Held is the last record the archive holds, as its archive/held message said (0:
	// none, or no message yet).
	Held uint64 `json:"held"`
	// Behind is the number of records the table has written and the archive does not
	// hold.
	Behind uint64 `json:"behind"`
	// Since is when the oldest record the archive does not hold was written (zero when
	// Behind is 0). The console shows a table whose Since is older than its setting
	// (console.archive_late, 10 minutes by default) as not archived.
	Since time.Time `json:"since,omitzero"`
}
