package api

import (
	"fmt"
	"strings"
	"time"
)

// The archive's topics (docs/archive.md, "Shipping"). Each archive of a floor has an
// id (DefaultArchiveID unless its configuration names another), and its own two topics
// under each table: a table that ships its journal to it publishes batches of records
// on tablectl/v1/<table>/archive/<archive>/records, QoS 1, never retained; the archive
// (tablectl-floor archive) stores them and publishes, retained, how far it holds the table on
// tablectl/v1/<table>/archive/<archive>/held. The table reads that message and sends
// again from the record after it. No archive's topics are among TableTopics: the
// display boards and the pit system's "+" filters do not see the records, and no
// archive reads or moves another's.

// ArchiveLevel is the level under a table's topics where the archives' topics are.
const ArchiveLevel = "archive"

// ArchiveRecordsPart and ArchiveHeldPart are the last levels of an archive's topics;
// ArchiveAlertPart that of the topic on which the console records with the archive an
// alert of the table it raised, or a person's acknowledgement of one (AlertRecord).
const (
	ArchiveRecordsPart = "records"
	ArchiveHeldPart    = "held"
	ArchiveAlertPart   = "alert"
)

// DefaultArchiveID is the id of a floor's archive whose configuration names none, and
// the archive a shipping table ships to when its configuration names none.
const DefaultArchiveID = "floor"

// MaxArchiveIDLen is the longest archive id, in bytes.
const MaxArchiveIDLen = 32

// CheckArchiveID checks an archive's id: 1 to MaxArchiveIDLen lower-case letters,
// digits, '-' or '_', beginning with a letter or a digit.
func CheckArchiveID(id string) error {
	if id == "" || len(id) > MaxArchiveIDLen {
		return fmt.Errorf("archive id %q: want 1 to %d characters", id, MaxArchiveIDLen)
	}
	for i, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		case (r == '-' || r == '_') && i > 0:
		default:
			return fmt.Errorf("archive id %q: want lower-case letters, digits, '-' or '_', beginning with a letter or a digit", id)
		}
	}
	return nil
}

// ArchiveRecordsFilter is the filter archive archiveID subscribes to for every table's
// records: tablectl/v1/+/archive/<archive>/records.
func ArchiveRecordsFilter(archiveID string) string {
	return Prefix + "/+/" + ArchiveLevel + "/" + archiveID + "/" + ArchiveRecordsPart
}

// ArchiveHeldFilter is the filter of every table's held message of archive archiveID:
// tablectl/v1/+/archive/<archive>/held.
func ArchiveHeldFilter(archiveID string) string {
	return Prefix + "/+/" + ArchiveLevel + "/" + archiveID + "/" + ArchiveHeldPart
}

// ArchivesHeldFilter is the filter of every table's held message of every archive
// (the console's): tablectl/v1/+/archive/+/held.
const ArchivesHeldFilter = Prefix + "/+/" + ArchiveLevel + "/+/" + ArchiveHeldPart

// ArchiveRecords is tablectl/v1/<table>/archive/<archive>/records: the table's journal
// records for archive archiveID, QoS 1, not retained.
func (t Topics) ArchiveRecords(archiveID string) string {
	return t.Base() + ArchiveLevel + "/" + archiveID + "/" + ArchiveRecordsPart
}

// ArchiveHeld is tablectl/v1/<table>/archive/<archive>/held (retained, archive
// archiveID's): how far that archive holds the table.
func (t Topics) ArchiveHeld(archiveID string) string {
	return t.Base() + ArchiveLevel + "/" + archiveID + "/" + ArchiveHeldPart
}

// ArchiveHeldAny is tablectl/v1/<table>/archive/+/held: the held messages of every
// archive of the table (the table's own subscription).
func (t Topics) ArchiveHeldAny() string {
	return t.Base() + ArchiveLevel + "/+/" + ArchiveHeldPart
}

// ArchiveTopic is an archive topic taken apart.
type ArchiveTopic struct {
	// Table and Archive are the ids of the table and the archive.
	Table, Archive string
	// Part is ArchiveRecordsPart, ArchiveHeldPart or ArchiveAlertPart.
	Part string
}

// ParseArchiveTopic takes apart tablectl/v1/<table>/archive/<archive>/records (or
// .../held, .../alert). ok is false for any other topic, a table id NewTopics would refuse or an
// archive id CheckArchiveID would.
func ParseArchiveTopic(topic string) (at ArchiveTopic, ok bool) {
	rest, found := strings.CutPrefix(topic, Prefix+"/")
	if !found {
		return ArchiveTopic{}, false
	}
	levels := strings.Split(rest, "/")
	if len(levels) != 4 || levels[1] != ArchiveLevel || (levels[3] != ArchiveRecordsPart && levels[3] != ArchiveHeldPart && levels[3] != ArchiveAlertPart) {
		return ArchiveTopic{}, false
	}
	if checkLevel("table id", levels[0], MaxTableIDLen) != nil || CheckArchiveID(levels[2]) != nil {
		return ArchiveTopic{}, false
	}
	return ArchiveTopic{Table: levels[0], Archive: levels[2], Part: levels[3]}, true
}

// ArchivePartOf returns the archive id and the part of rest, the part of a topic under
// tablectl/v1/<table>/, when it is an archive topic archive/<archive>/records or
// archive/<archive>/held.
func ArchivePartOf(rest string) (archiveID, part string, ok bool) {
	at, ok := ParseArchiveTopic(Prefix + "/t/" + rest)
	return at.Archive, at.Part, ok
}

// MaxArchiveBatch is the most records one ArchiveBatch carries.
const MaxArchiveBatch = 256

// ArchiveBatch is one message on archive/<archive>/records: journal records of the
// table in order, with no gap, the head of the last of them that the table signed for
// the batch, naming itself, and the signed heads of the table's journal that cover
// records up to the batch's last (each head at most once over the batches, in order of
// Seq). The archive stores the records only under Signed: a record that no signature of
// the table covers is never held.
type ArchiveBatch struct {
	Schema int    `json:"schema"`
	Table  string `json:"table"`
	// Archive is the id of the archive the batch is for, as its topic names it.
	Archive string          `json:"archive"`
	Records []ArchiveRecord `json:"records"`
	// Signed is the head of the batch's last record, naming the table
	// (journal.SignTable), signed with the table's key: it covers every record of the
	// batch, and every record before them, through the chain. A batch without it is
	// never stored: it is kept apart with an alarm.
	Signed *Checkpoint `json:"signed,omitempty"`
	// Heads are signed journal heads (docs/journal.md, "Tamper evidence") whose Seq is
	// at most the last record's of this batch.
	Heads []Checkpoint `json:"heads,omitempty"`
	// Written is the number of the last record the table had written when it sent
	// the batch: how far the archive has to go. It is at least the last record's.
	Written uint64 `json:"written"`
}

// ArchiveRecord is one journal record as the table wrote it: its sequence number, its
// chain hash (hex) and its payload (base64 in JSON).
type ArchiveRecord struct {
	Seq  uint64 `json:"seq"`
	Hash Hash   `json:"hash"`
	Data []byte `json:"data"`
}

// ArchiveHeld is the retained message on archive/<archive>/held: how far the archive
// holds the table, and what it refused of it.
type ArchiveHeld struct {
	Schema int    `json:"schema"`
	Table  string `json:"table"`
	// Archive is the id of the archive that holds the table.
	Archive string `json:"archive"`
	// Seq is the last record held in order (0: none); Hash its chain hash. The table
	// sends again from Seq+1.
	Seq  uint64 `json:"seq"`
	Hash Hash   `json:"hash"`
	// Signed is the table's own head of record Seq, naming the table, under which the
	// archive holds it (absent when Seq is 0). A table believes a held message only
	// when Signed verifies with its key: a held message someone else wrote cannot stop
	// its shipping or move it.
	Signed *Checkpoint `json:"signed,omitempty"`
	// Written is the last record number the table said it had written (ArchiveBatch).
	Written uint64 `json:"written"`
	// At is when the archive last stored a record of the table (zero: never).
	At time.Time `json:"at"`
	// Alarms counts the items of the table kept in quarantine; Alarm is the latest.
	Alarms int           `json:"alarms"`
	Alarm  *ArchiveAlarm `json:"alarm,omitempty"`
}

// ArchiveAlarm is an item the archive refused and kept apart (docs/archive.md, "What
// the archive checks"): what (a "record", a "batch" or a "head") at which sequence
// number, the alarm's kind (not-chained, rollback, bad-signature, not-signed,
// not-stored) and the reason, in words naming the table and the place.
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
	// Archive names the archive, for a table that ships to more than one: the status
	// then says the lag of the one furthest behind. Absent for a table of one archive.
	Archive string `json:"archive,omitempty"`
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

// The alerts' kinds (docs/pit.md, "Alerts").
const (
	AlertHeld        = "held"         // a table held for a decision longer than the site allows
	AlertNoDealer    = "no-dealer"    // a table dealing with no dealer on
	AlertArchiveLate = "archive-late" // a table whose archive lacks a record written long ago
	AlertPace        = "pace"         // a table's rounds in a clock hour outside the site's band
	AlertDevice      = "device"       // a device of a table failing more often than the site allows
)

// The integrity alarms' kinds: the archive raises them at a shoe's end, from the
// table's records (docs/integrity.md, "What the archive checks"), and keeps them with
// the console's alerts, acknowledged the same way.
const (
	AlertIntegrityRepeated = "integrity-repeated-order" // a run of cards an earlier shoe of the floor dealt too
	AlertIntegrityInput    = "integrity-shuffler-input" // a shoe dealt in the order its shuffler was given
	AlertIntegrityShuffle  = "integrity-weak-shuffle"   // a shuffle that left the previous set's neighbours together
	AlertIntegritySet      = "integrity-set"            // cards of the set missing, foreign or dealt too often
	AlertIntegrityDrift    = "integrity-drift"          // a result at a rate above the rule set's exact one
)

// IntegrityAlertPrefix begins the kind of every integrity alarm.
const IntegrityAlertPrefix = "integrity-"

// AlertRecord is one message on tablectl/v1/<table>/archive/<archive>/alert, QoS 1,
// never retained: the console (its broker user, alone) records with the archive an
// alert of the table it raised, and again with Ack set once a person acknowledged it.
// The archive keeps an alert once, by its ID, and its first acknowledgement; an
// acknowledgement carries the whole alert, so one whose raising was lost is kept all
// the same. The record is the console's word, not the table's: no table signs it.
type AlertRecord struct {
	Schema int    `json:"schema"`
	Table  string `json:"table"`
	// ID names the alert on the floor: its kind, table and the start of what raised it
	// ("held/pit3-t07/2026-03-02T14:03:00Z/4").
	ID   string `json:"id"`
	Kind string `json:"kind"`
	Pit  string `json:"pit,omitempty"`
	// Since is when what raised the alert began; Raised when the console raised it.
	Since  time.Time `json:"since"`
	Raised time.Time `json:"raised"`
	// Text says what was seen, for people ("held 7 minutes for #4 simultaneous draw").
	Text string    `json:"text"`
	Ack  *AlertAck `json:"ack,omitempty"`
}

// AlertAck is a person's acknowledgement of an alert: who (their name and role), when,
// and the note they wrote.
type AlertAck struct {
	By   string    `json:"by"`
	Role string    `json:"role"`
	At   time.Time `json:"at"`
	Note string    `json:"note"`
}

// MaxAlertNote bounds an acknowledgement's note, in bytes; MaxAlertText an alert's text.
const (
	MaxAlertNote = 1024
	MaxAlertText = 512
)

// Check refuses a record that is not one: no id, kind or times, a table that is not the
// topic's, a text or note over its bound, an acknowledgement with no person, role or
// note.
func (r AlertRecord) Check(table string) error {
	switch {
	case r.Table != table:
		return fmt.Errorf("alert record: table %q on the topic of table %q", r.Table, table)
	case r.ID == "" || len(r.ID) > 256:
		return fmt.Errorf("alert record: id %q: want 1 to 256 bytes", r.ID)
	case r.Kind == "" || len(r.Kind) > MaxNameLen:
		return fmt.Errorf("alert record %s: kind %q", r.ID, r.Kind)
	case r.Since.IsZero() || r.Raised.IsZero():
		return fmt.Errorf("alert record %s: no since or raised time", r.ID)
	case len(r.Text) > MaxAlertText:
		return fmt.Errorf("alert record %s: text of %d bytes, over %d", r.ID, len(r.Text), MaxAlertText)
	}
	if a := r.Ack; a != nil {
		switch {
		case a.By == "" || len(a.By) > MaxIDLen || a.Role == "":
			return fmt.Errorf("alert record %s: an acknowledgement by %q (%q)", r.ID, a.By, a.Role)
		case a.At.IsZero():
			return fmt.Errorf("alert record %s: an acknowledgement with no time", r.ID)
		case strings.TrimSpace(a.Note) == "" || len(a.Note) > MaxAlertNote:
			return fmt.Errorf("alert record %s: an acknowledgement's note of %d bytes: want 1 to %d", r.ID, len(a.Note), MaxAlertNote)
		}
	}
	return nil
}

// ArchiveAlertFilter is the filter archive archiveID subscribes to for every table's
// alert records: tablectl/v1/+/archive/<archive>/alert.
func ArchiveAlertFilter(archiveID string) string {
	return Prefix + "/+/" + ArchiveLevel + "/" + archiveID + "/" + ArchiveAlertPart
}

// ArchiveAlert is tablectl/v1/<table>/archive/<archive>/alert: the console's alert
// records of the table for archive archiveID, QoS 1, not retained.
func (t Topics) ArchiveAlert(archiveID string) string {
	return t.Base() + ArchiveLevel + "/" + archiveID + "/" + ArchiveAlertPart
}
