package table

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/internal/everyfield"
	"github.com/tablectl/tablectl/journal"
)

// entryHooks give the journal's values whose fields alone do not make a valid one.
var entryHooks = map[reflect.Type]func(n int) any{
	// A rule set is written as its name (baccarat.RuleSet.MarshalJSON).
	reflect.TypeFor[*baccarat.RuleSet](): func(int) any { return baccarat.MustLookup("rws", baccarat.Options{}) },
	reflect.TypeFor[baccarat.InsuranceOffer](): func(n int) any {
		return baccarat.InsuranceOffer{Row: n % len(baccarat.InsuranceTable)}
	},
	// A signed head's signature is Ed25519's 64 bytes (journal.Checkpoint).
	reflect.TypeFor[journal.Checkpoint](): func(n int) any {
		c := journal.Checkpoint{Table: "t" + strconv.Itoa(n), Seq: uint64(n), Sig: bytes.Repeat([]byte{byte(n)}, 64)}
		c.Hash[0] = byte(n)
		return c
	},
	// A key is named by its kind and the key (table.KeyRecord, `tablectl key show`).
	reflect.TypeFor[KeyRecord](): func(n int) any {
		return KeyRecord{Public: "ed25519:" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{byte(n)}, ed25519.PublicKeySize))}
	},
}

// TestEntryJSONWritesEveryField: the journal record's writer gives json.Marshal's bytes
// with every field of an entry set, by reflection, alone and together: a field added to
// round.Event, or to any struct of the entry, and not to the writer fails here. The
// fields it leaves to encoding/json are named: setting any of them sends the whole entry
// there.
func TestEntryJSONWritesEveryField(t *testing.T) {
	everyfield.CheckWriter(t, func(e *Entry) ([]byte, bool) { return appendEntryJSON(nil, e) }, entryHooks,
		"Settings", "Command", "Key", "Recovery",
		"Event.Order", "Event.Wagers", "Event.Irregularity", "Event.Choice", "Event.Role", "Event.Option", "Event.Bet")
}

// TestEntryReadAsWritten: a record of each kind the table writes (settings, an event
// and the command it came from, a key, a recovery) with any one field set, or all, is
// read back (DecodeEntry, with its own reader for most events) as it was written.
func TestEntryReadAsWritten(t *testing.T) {
	leaves := (&everyfield.Filler{Hooks: entryHooks}).Leaves(reflect.TypeFor[Entry]())
	under := func(names ...string) []everyfield.Leaf {
		var out []everyfield.Leaf
		for _, l := range leaves {
			for _, n := range names {
				if l.Name == n || strings.HasPrefix(l.Name, n+".") {
					out = append(out, l)
				}
			}
		}
		return out
	}
	named := func(name string) everyfield.Leaf {
		for _, l := range leaves {
			if l.Name == name {
				return l
			}
		}
		t.Fatalf("an entry has no field %s", name)
		return everyfield.Leaf{}
	}
	var sets [][]everyfield.Leaf
	// Each kind of record with what it cannot be without: settings their rule set, an
	// event its kind, a command its event, its role and its id.
	for _, k := range []struct {
		under []string
		base  []everyfield.Leaf
	}{
		{[]string{"Settings"}, []everyfield.Leaf{named("Settings.Round.Rules")}},
		{[]string{"Event"}, []everyfield.Leaf{named("Event.Kind")}},
		{[]string{"Event", "Command"}, []everyfield.Leaf{named("Event.Kind"), named("Command.Role"), named("Command.ID")}},
		{[]string{"Key"}, nil},
		{[]string{"Recovery"}, nil},
	} {
		all := under(k.under...)
		sets = append(sets, append(slices.Clone(k.base), all...))
		for _, l := range all {
			sets = append(sets, append(slices.Clone(k.base), l))
		}
	}
	for _, set := range sets {
		f := everyfield.Filler{Hooks: entryHooks}
		var e Entry
		for _, l := range set {
			f.SetLeaf(reflect.ValueOf(&e).Elem(), l)
		}
		what := fmt.Sprintf("%s (%d fields set)", set[len(set)-1].Name, len(set))
		b, err := entryJSON(&e)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		read, err := DecodeEntry(1, b)
		if err != nil {
			t.Fatalf("%s: %s: %v", what, b, err)
		}
		again, err := entryJSON(&read)
		if err != nil || !bytes.Equal(again, b) {
			t.Errorf("%s: written\n%s\nread back and written again\n%s (%v)", what, b, again, err)
		}
	}
}
