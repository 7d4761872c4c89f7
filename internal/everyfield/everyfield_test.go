package everyfield

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

type colour uint8

func (c colour) String() string {
	switch c {
	case 1:
		return "red"
	case 2:
		return "black"
	}
	return "?"
}

type inner struct {
	N    int
	Tags []string
}

type sample struct {
	Name   string
	Colour colour
	At     time.Time
	Wait   time.Duration
	In     inner
	Ptr    *inner
	Self   *sample
	Cards  map[string]int
	hidden int
}

// TestLeaves: the leaves go into structs, pointers to them and embedded ones, in the
// order of the fields, and stop at a type met again inside itself.
func TestLeaves(t *testing.T) {
	var names []string
	for _, l := range (&Filler{}).Leaves(reflect.TypeFor[sample]()) {
		names = append(names, l.Name)
	}
	want := "Name Colour At Wait In.N In.Tags Ptr.N Ptr.Tags Self Cards"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("leaves %q, want %q", got, want)
	}
}

// TestFillGivesEachItsOwn: every field is set, none to its zero value, numbers and
// texts each to one of their own, an enumeration to a value it names; but a type met
// again inside itself. Set as a leaf, that is filled, but for itself inside it.
func TestFillGivesEachItsOwn(t *testing.T) {
	var s sample
	(&Filler{}).Fill(reflect.ValueOf(&s).Elem())
	if s.Name == "" || s.Colour.String() == "?" || s.At.IsZero() || s.Wait == 0 || s.In.N == 0 || len(s.In.Tags) != 2 ||
		s.Ptr == nil || s.Ptr.N == 0 || s.Self != nil || len(s.Cards) != 2 || s.hidden != 0 {
		t.Fatalf("filled %+v", s)
	}
	if s.In.N == s.Ptr.N || s.In.Tags[0] == s.In.Tags[1] || s.Name == s.In.Tags[0] {
		t.Errorf("values given twice: %+v", s)
	}
	for _, l := range (&Filler{}).Leaves(reflect.TypeFor[sample]()) {
		if l.Name == "Self" {
			(&Filler{}).SetLeaf(reflect.ValueOf(&s).Elem(), l)
		}
	}
	if s.Self == nil || s.Self.Name == "" || s.Self.Self != nil {
		t.Errorf("Self set as a leaf: %+v", s.Self)
	}
}

// TestCheckWriterFailsAFieldLeftOut: a writer that leaves a field out fails CheckWriter,
// and one that writes every field as encoding/json does passes it.
func TestCheckWriterFailsAFieldLeftOut(t *testing.T) {
	type msg struct {
		A string `json:"a"`
		B int    `json:"b,omitempty"`
	}
	full := func(m *msg) ([]byte, bool) { b, err := json.Marshal(m); return b, err == nil }
	CheckWriter(t, full, nil)
	rec := &recorder{TB: t}
	short := func(m *msg) ([]byte, bool) {
		b, err := json.Marshal(struct {
			A string `json:"a"`
		}{m.A})
		return b, err == nil
	}
	CheckWriter(rec, short, nil)
	if !strings.Contains(rec.errs, "msg, B alone: written as") {
		t.Errorf("a writer that leaves out B: %q", rec.errs)
	}
}

// recorder is a testing.TB that keeps the errors.
type recorder struct {
	testing.TB
	errs string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) { r.errs += fmt.Sprintf(format, args...) + "\n" }
