// Package everyfield sets the fields of a value by reflection, each to a value of its own
// that is not zero, for the tests that hold a hand-written JSON writer to encoding/json.
// CheckWriter tries a writer on every field of its type, alone and with all the others:
// a field added to a struct and not to its writer fails it, where a test that names the
// fields it sets would pass.
package everyfield

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// Leaf is one field a value is set by: an exported field of a struct, reached through
// structs (embedded or not) and pointers to them, that is no struct to go into itself. A
// struct that writes itself (json.Marshaler, encoding.TextMarshaler) or has a hook
// (Filler.Hooks), time.Time, a slice, a map or a pointer to anything but a struct to go
// into is a leaf.
type Leaf struct {
	// Name is the field's Go path, for example "Event.Card".
	Name  string
	index []int // the field's index at each struct on the way
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	stringer      = reflect.TypeFor[fmt.Stringer]()
	timeType      = reflect.TypeFor[time.Time]()
	durationType  = reflect.TypeFor[time.Duration]()
)

// writesItself reports whether encoding/json writes t through t's own method.
func writesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonMarshaler) || t.Implements(textMarshaler) || p.Implements(jsonMarshaler) || p.Implements(textMarshaler)
}

// goesInto reports whether Leaves goes into the fields of t: a struct, or a pointer to
// one, that does not write itself and has no hook.
func (f *Filler) goesInto(t reflect.Type) (reflect.Type, bool) {
	if _, ok := f.Hooks[t]; ok {
		return t, false
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	_, hooked := f.Hooks[t]
	return t, t.Kind() == reflect.Struct && t != timeType && !writesItself(t) && !hooked
}

// Leaves lists the leaves of struct type t, in the order of its fields. It panics on a
// struct that embeds an unexported one: encoding/json writes the fields of that, and
// reflection cannot set them.
func (f *Filler) Leaves(t reflect.Type) []Leaf {
	var out []Leaf
	var walk func(t reflect.Type, name string, index []int, on map[reflect.Type]bool)
	walk = func(t reflect.Type, name string, index []int, on map[reflect.Type]bool) {
		on[t] = true
		defer delete(on, t)
		for i := range t.NumField() {
			sf := t.Field(i)
			if sf.Anonymous && !sf.IsExported() {
				if st, ok := f.goesInto(sf.Type); ok {
					panic(fmt.Sprintf("everyfield: %s embeds %s, whose fields it cannot set", t, st))
				}
			}
			if !sf.IsExported() {
				continue
			}
			fname := sf.Name
			if name != "" {
				fname = name + "." + sf.Name
			}
			idx := append(append([]int(nil), index...), i)
			if st, ok := f.goesInto(sf.Type); ok && !on[st] {
				walk(st, fname, idx, on)
				continue
			}
			out = append(out, Leaf{Name: fname, index: idx})
		}
	}
	walk(t, "", nil, map[reflect.Type]bool{})
	return out
}

// Filler fills values, each with numbers, text and names of its own: it counts the
// values it has given. The zero Filler is ready to use.
type Filler struct {
	// Hooks give the values of the types whose exported fields do not make a valid one,
	// from a count of the values given so far.
	Hooks map[reflect.Type]func(n int) any
	n     int
	enums map[reflect.Type][]reflect.Value
}

// enum returns the values of an integer type with a String method that name something
// (not "?", not "bet(17)"), from 1 up, and that its MarshalText writes and its
// UnmarshalText reads back, where it has them; nil for a type that names every number it
// is given (it is a number).
func (f *Filler) enum(t reflect.Type) []reflect.Value {
	if vs, ok := f.enums[t]; ok {
		return vs
	}
	var vs []reflect.Value
	const probe = 255
	for i := 1; i <= probe; i++ {
		p := reflect.New(t)
		if t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64 {
			p.Elem().SetInt(int64(i))
		} else {
			p.Elem().SetUint(uint64(i))
		}
		s := p.Interface().(fmt.Stringer).String()
		if s == "" || strings.ContainsAny(s, "?(") {
			continue
		}
		if m, ok := p.Interface().(encoding.TextMarshaler); ok {
			b, err := m.MarshalText()
			if err != nil {
				continue
			}
			if u, ok := reflect.New(t).Interface().(encoding.TextUnmarshaler); ok {
				if u.UnmarshalText(b) != nil || reflect.ValueOf(u).Elem().Interface() != p.Elem().Interface() {
					continue
				}
			}
		}
		vs = append(vs, p.Elem())
	}
	if len(vs) == probe {
		vs = nil
	}
	if f.enums == nil {
		f.enums = map[reflect.Type][]reflect.Value{}
	}
	f.enums[t] = vs
	return vs
}

// Fill sets v, which must be settable, and every exported field, element and entry under
// it: each number to a count of its own, each name of an enumeration to one it has, each
// text to one of its own in plain ASCII, each bool true, each slice and map to two
// entries, each pointer to a value. A type met again inside itself is left zero there;
// so are interfaces, functions and channels.
func (f *Filler) Fill(v reflect.Value) { f.fill(v, map[reflect.Type]bool{}) }

func (f *Filler) fill(v reflect.Value, on map[reflect.Type]bool) {
	f.n++
	n := f.n
	t := v.Type()
	if h, ok := f.Hooks[t]; ok {
		v.Set(reflect.ValueOf(h(n)).Convert(t))
		return
	}
	switch t {
	case timeType:
		v.Set(reflect.ValueOf(time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC).Add(time.Duration(n) * (time.Second + time.Millisecond + time.Nanosecond))))
		return
	case durationType:
		v.SetInt(int64(n) * int64(time.Millisecond))
		return
	}
	if t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64 && (t.Implements(stringer) || reflect.PointerTo(t).Implements(stringer)) {
		if vs := f.enum(t); len(vs) > 0 {
			v.Set(vs[n%len(vs)])
			return
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(n))
	case reflect.Int8:
		v.SetInt(int64(1 + n%100))
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(uint64(n))
	case reflect.Uint8:
		v.SetUint(uint64(1 + n%200))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(n) + 0.5)
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", n))
	case reflect.Array:
		for i := range v.Len() {
			f.fill(v.Index(i), on)
		}
	case reflect.Slice:
		if again(t.Elem(), on) {
			return
		}
		s := reflect.MakeSlice(t, 2, 2)
		for i := range 2 {
			f.fill(s.Index(i), on)
		}
		v.Set(s)
	case reflect.Map:
		if again(t.Key(), on) || again(t.Elem(), on) {
			return
		}
		m := reflect.MakeMap(t)
		for range 2 {
			k, e := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
			f.fill(k, on)
			f.fill(e, on)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Pointer:
		if again(t.Elem(), on) {
			return
		}
		p := reflect.New(t.Elem())
		f.fill(p.Elem(), on)
		v.Set(p)
	case reflect.Struct:
		on[t] = true
		defer delete(on, t)
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				f.fill(v.Field(i), on)
			}
		}
	}
}

// again reports whether a value of t would hold a struct being filled.
func again(t reflect.Type, on map[reflect.Type]bool) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	return on[t]
}

// SetLeaf fills leaf l of root, a settable struct, making the structs on the way.
func (f *Filler) SetLeaf(root reflect.Value, l Leaf) {
	v := root
	for _, i := range l.index {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	f.Fill(v)
}

// CheckWriter holds write, a hand-written JSON writer for T, to json.Marshal: where it
// writes a value itself (ok), it must write json.Marshal's bytes, byte for byte. It is
// tried on values of T with each leaf set alone; with every leaf set but those named in
// leftToJSON (by a leaf's name, or a struct's for all its leaves), which must be one it
// writes itself; with that less each leaf in turn; with that and each leaf of
// leftToJSON, which it must leave to encoding/json; and with everything set. Each leaf not
// left to encoding/json must be written by write itself in one of them at least. hooks
// give the values of the types whose fields do not make a valid one (Filler.Hooks).
func CheckWriter[T any](t testing.TB, write func(*T) ([]byte, bool), hooks map[reflect.Type]func(n int) any, leftToJSON ...string) {
	t.Helper()
	typ := reflect.TypeFor[T]()
	leaves := (&Filler{Hooks: hooks}).Leaves(typ)
	left := func(l Leaf) bool {
		for _, s := range leftToJSON {
			if l.Name == s || strings.HasPrefix(l.Name, s+".") {
				return true
			}
		}
		return false
	}
	for _, s := range leftToJSON {
		if !slices.ContainsFunc(leaves, func(l Leaf) bool { return l.Name == s || strings.HasPrefix(l.Name, s+".") }) {
			t.Errorf("%s has no field %s", typ, s)
		}
	}
	written := map[string]bool{}
	// try builds the value with the leaves set and checks write on it; it returns
	// whether write wrote it itself.
	try := func(what string, set []Leaf) bool {
		t.Helper()
		f := &Filler{Hooks: hooks}
		v := new(T)
		root := reflect.ValueOf(v).Elem()
		for _, l := range set {
			f.SetLeaf(root, l)
		}
		want, werr := json.Marshal(v)
		got, ok := write(v)
		switch {
		case !ok:
			return false
		case werr != nil:
			t.Errorf("%s, %s: written as %s, which json.Marshal refuses: %v", typ, what, got, werr)
		case !bytes.Equal(got, want):
			t.Errorf("%s, %s: written as\n%s\njson.Marshal writes\n%s", typ, what, got, want)
		default:
			for _, l := range set {
				written[l.Name] = true
			}
		}
		return true
	}
	var own []Leaf // the leaves not left to encoding/json
	for _, l := range leaves {
		if left(l) {
			if try(l.Name+" alone", []Leaf{l}) {
				t.Errorf("%s, %s alone: written by the writer, which should leave it to encoding/json", typ, l.Name)
			}
			continue
		}
		try(l.Name+" alone", []Leaf{l})
		own = append(own, l)
	}
	if !try("every field it writes", own) {
		t.Errorf("%s, every field it writes (%d): left to encoding/json, so none is tried together", typ, len(own))
	}
	for i, l := range own {
		try("every field it writes but "+l.Name, append(append([]Leaf(nil), own[:i]...), own[i+1:]...))
	}
	for _, l := range leaves {
		if left(l) && try("every field it writes and "+l.Name, append(append([]Leaf(nil), own...), l)) {
			t.Errorf("%s, every field it writes and %s: written by the writer, which should leave it to encoding/json", typ, l.Name)
		}
	}
	try("every field", leaves)
	for _, l := range own {
		if !written[l.Name] {
			t.Errorf("%s.%s is never written by the writer itself: write it, or leave it to encoding/json (and name it so)", typ, l.Name)
		}
	}
}
