// Package archive keeps every table's journal off the table, record for record, in a
// database: PostgreSQL (through pgx) for a floor, or a SQLite file (pure Go) for one
// table or a trial, with the same schema on both, created and migrated by the archive.
//
// Each record is checked as it arrives against what the archive holds of its table:
// its chain hash (journal.ChainHash) must follow the record before it, and each signed
// head must verify with the table's public key (from the keys file) and agree with the
// records held. A record already held is taken once. A record that does not chain, a
// rollback (a number or hash that disagrees with what is held) and a head with a bad
// signature are never stored over what is held: each is kept apart, in the quarantine
// table, and returned as an Alarm naming the table and the place.
//
// Beside the records as received, the archive keeps rows a person can search: rounds,
// irregularities with their decisions, and commands with the person who gave them. It
// derives them by replaying each table's records through the round controller.
//
// The archive reads nothing itself: its caller hands it each table's records and
// signed heads (Ingest, IngestHead) and tells each table how far the archive holds it
// (Held). docs/archive.md describes what it keeps and how to set it up.
package archive
