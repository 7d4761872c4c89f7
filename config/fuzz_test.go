package config

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"testing"
)

// FuzzParse reads arbitrary bytes as a configuration file. Whatever the bytes, the reader
// must not panic, and must either accept the file or return Errors: at least one fault,
// each naming the file, saying what is wrong, on a line of the file (or on none), in the
// file's order. A file it accepts gives a configuration that passes the checks again and
// turns into the round controller's settings and GPIO settings the driver takes, as
// tablectl run does next.
func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("../deploy/tablectl.yaml"); err == nil {
		f.Add(b)
	}
	for _, s := range []string{
		"", "table: t1\n", "table: [bac\n", "table: a\ntable: b\n",
		"rules: royal\ndecks: 4\nroyal:\n  paytable: 2\n",
		"dealer:\n  burn: fixed\n  burn_count: 3\n  simultaneous_window: 150ms\n",
		"gpio:\n  pins:\n    - {role: confirm, pin: GPIO17}\n    - {role: buzzer, pin: P1_40}\n",
		"gpio:\n  pins:\n    - {role: dealer, pin: GPIO24, dealer: D-ANA}\n    - {role: dealer, pin: GPIO25, dealer: D-BEN}\n",
		"shoe:\n  format: tablectl\n  usb:\n    vid: \"0403\"\n    pid: \"6001\"\n",
		"a: &a [*a, *a]\nb: &b [*a, *a, *a]\n",
		"mqtt:\n  url: ssl://b:8883\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := parse("f.yaml", data, false)
		if err == nil {
			again := &file{lines: map[string]int{}}
			if err := again.check(&cfg); err != nil {
				t.Fatalf("accepted file fails the checks again: %v\n%q", err, data)
			}
			if _, err := cfg.Round(); err != nil {
				t.Fatalf("accepted file gives no round settings: %v\n%q", err, data)
			}
			if err := cfg.GPIOConfig().Validate(); err != nil {
				t.Fatalf("accepted file gives GPIO settings the driver refuses: %v\n%q", err, data)
			}
			return
		}
		var es Errors
		if !errors.As(err, &es) || len(es) == 0 {
			t.Fatalf("error %T %v is not a list of faults", err, err)
		}
		// YAML breaks lines at LF, CR LF and a lone CR.
		lines := bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) - bytes.Count(data, []byte("\r\n")) + 1
		for _, e := range es {
			if e.File != "f.yaml" || e.Msg == "" || e.Line < 0 || e.Line > lines+1 {
				t.Fatalf("fault %+v: want the file's name, a message and a line of its %d", e, lines)
			}
		}
		if !slices.IsSortedFunc(es, func(a, b *Error) int {
			switch {
			case a.Line == b.Line:
				return 0
			case a.Line == 0:
				return 1
			case b.Line == 0:
				return -1
			}
			return a.Line - b.Line
		}) {
			t.Fatalf("faults not in file order: %v", err)
		}
	})
}
