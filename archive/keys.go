package archive

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/journal"
)

// Keys are the tables' public keys: the archive takes records of these tables only, and
// checks each table's signed heads with its keys.
type Keys map[string][]ed25519.PublicKey

// tableID is what a table's id may be: the third level of its MQTT topics.
var tableID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ReadKeys reads a keys file: one line "TABLE-ID PUBLIC-KEY" per table, the key as
// `tablectl key show --journal DIR` prints it ("ed25519:" and base64). A table whose
// key a recovery replaced has a line for each key. Blank lines and lines starting with
// # are skipped. Every bad line is reported, each naming the file and the line (ParseKeys).
func ReadKeys(path string) (Keys, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	return ParseKeys(bytes.NewReader(b), path)
}

// ParseKeys reads a keys file's text from r; name names it in errors. Every bad line is
// reported, each as "name:line: what is wrong", one a line in the error, in the file's
// order; with any, no Keys are returned.
//
// A key stands for one table: the same key given to two tables (a cloned SD card, say)
// is refused, so that no table's signature can pass for another's.
func ParseKeys(r io.Reader, name string) (Keys, error) {
	keys := Keys{}
	owner := map[string]string{} // table of each key, by its text
	var bad []error
	fault := func(n int, format string, a ...any) {
		bad = append(bad, fmt.Errorf("%s:%d: %s", name, n, fmt.Sprintf(format, a...)))
	}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			fault(n, "want TABLE-ID PUBLIC-KEY, got %d fields", len(f))
			continue
		}
		if !tableID.MatchString(f[0]) {
			fault(n, "table id %q: want letters, digits, '.', '_' or '-' (at most 64)", f[0])
			continue
		}
		if err := api.CheckTableUser(f[0]); err != nil {
			fault(n, "%v", err)
			continue
		}
		pub, err := journal.ParsePublicKey(f[1])
		if err != nil {
			fault(n, "table %s: %v", f[0], err)
			continue
		}
		id := journal.PublicKeyString(pub)
		switch other, ok := owner[id]; {
		case ok && other == f[0]:
			fault(n, "table %s: key %s given twice", f[0], f[1])
			continue
		case ok:
			fault(n, "table %s: key %s is table %s's too: each table has a key of its own (make one with tablectl key new)", f[0], f[1], other)
			continue
		}
		owner[id] = f[0]
		keys[f[0]] = append(keys[f[0]], pub)
	}
	if err := sc.Err(); err != nil {
		bad = append(bad, fmt.Errorf("%s: %w", name, err))
	}
	if len(bad) > 0 {
		return nil, errors.Join(bad...)
	}
	return keys, nil
}

// verifies reports whether c's signature is one of the table's keys'.
func verifies(keys []ed25519.PublicKey, c journal.Checkpoint) bool {
	for _, k := range keys {
		if c.Verify(k) {
			return true
		}
	}
	return false
}
