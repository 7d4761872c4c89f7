package archive

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
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
// # are skipped. A bad line is an error naming the file and the line.
func ReadKeys(path string) (Keys, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	return ParseKeys(bytes.NewReader(b), path)
}

// ParseKeys reads a keys file's text from r; name names it in errors.
//
// A key stands for one table: the same key given to two tables (a cloned SD card, say)
// is refused, so that no table's signature can pass for another's.
func ParseKeys(r io.Reader, name string) (Keys, error) {
	keys := Keys{}
	owner := map[string]string{} // table of each key, by its text
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("%s:%d: want TABLE-ID PUBLIC-KEY, got %d fields", name, n, len(f))
		}
		if !tableID.MatchString(f[0]) {
			return nil, fmt.Errorf("%s:%d: table id %q: want letters, digits, '.', '_' or '-' (at most 64)", name, n, f[0])
		}
		if err := api.CheckTableUser(f[0]); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		pub, err := journal.ParsePublicKey(f[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: table %s: %w", name, n, f[0], err)
		}
		id := journal.PublicKeyString(pub)
		switch other, ok := owner[id]; {
		case ok && other == f[0]:
			return nil, fmt.Errorf("%s:%d: table %s: key %s given twice", name, n, f[0], f[1])
		case ok:
			return nil, fmt.Errorf("%s:%d: table %s: key %s is table %s's too: each table has a key of its own (make one with tablectl key new)", name, n, f[0], f[1], other)
		}
		owner[id] = f[0]
		keys[f[0]] = append(keys[f[0]], pub)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
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
