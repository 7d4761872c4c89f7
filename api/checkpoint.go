package api

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// HashSize is the size of a journal record's chain hash.
const HashSize = 32

// Hash is a journal record's chain hash, hexadecimal in JSON (docs/journal.md).
type Hash [HashSize]byte

// String returns the hash in hexadecimal.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// MarshalText writes the hash in hexadecimal, for JSON.
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText reads a hash written by MarshalText.
func (h *Hash) UnmarshalText(b []byte) error {
	v, err := hex.DecodeString(string(b))
	if err != nil || len(v) != HashSize {
		return fmt.Errorf("chain hash %q: want %d hexadecimal digits", b, 2*HashSize)
	}
	copy(h[:], v)
	return nil
}

// Checkpoint is a signed head of a table's journal as the messages carry it
// (docs/journal.md, "Tamper evidence"): the record's sequence number and chain hash,
// the table it names ("" for an unnamed head) and the Ed25519 signature. The journal
// checks the signature (journal.Checkpoint.Verify).
type Checkpoint struct {
	Table string `json:"table,omitempty"`
	Seq   uint64 `json:"seq"`
	Hash  Hash   `json:"hash"`
	Sig   []byte `json:"sig"`
}

// MarshalJSON writes the checkpoint as {"seq":N,"hash":"HEX","sig":"BASE64"}, with
// "table" first for a head that names its table.
func (c Checkpoint) MarshalJSON() ([]byte, error) {
	type plain Checkpoint
	return json.Marshal(struct {
		plain
		Sig string `json:"sig"`
	}{plain(c), base64.StdEncoding.EncodeToString(c.Sig)})
}

// UnmarshalJSON reads a checkpoint written by MarshalJSON.
func (c *Checkpoint) UnmarshalJSON(b []byte) error {
	var v struct {
		Table string  `json:"table"`
		Seq   *uint64 `json:"seq"`
		Hash  *Hash   `json:"hash"`
		Sig   *string `json:"sig"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if v.Seq == nil || v.Hash == nil || v.Sig == nil {
		return errors.New(`checkpoint: want "seq", "hash" and "sig"`)
	}
	sig, err := base64.StdEncoding.DecodeString(*v.Sig)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return fmt.Errorf("checkpoint of record %d: sig: want %d bytes in base64", *v.Seq, ed25519.SignatureSize)
	}
	if len(v.Table) > MaxTableIDLen {
		return fmt.Errorf("checkpoint of record %d: table: at most %d bytes", *v.Seq, MaxTableIDLen)
	}
	*c = Checkpoint{Table: v.Table, Seq: *v.Seq, Hash: *v.Hash, Sig: sig}
	return nil
}
