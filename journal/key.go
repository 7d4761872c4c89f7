package journal

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// The table's signing key: an Ed25519 private key in a PEM file ("PRIVATE KEY", PKCS #8),
// readable by its owner only. Its public key, written "ed25519:" and the key's 32 bytes in
// base64, is what the pit and a witness check checkpoints with.

// PublicKeyPrefix starts a public key's text form.
const PublicKeyPrefix = "ed25519:"

// DefaultKeyPath is where the table keeps its key when none is configured: beside the
// journal directory, named after it (/var/lib/tablectl/journal.key for the journal
// /var/lib/tablectl/journal). Not inside it, so that archiving the journal never
// carries the key; named after it, so that two journals side by side never share one.
func DefaultKeyPath(journalDir string) string {
	return filepath.Clean(journalDir) + ".key"
}

// OldKeyPath is where a table of an earlier version kept its key: table.key beside the
// journal directory, one file for every journal of that directory. A journal that
// records that key still signs with it there; a journal that does not never takes it.
func OldKeyPath(journalDir string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(journalDir)), "table.key")
}

// LoadOrCreateKey reads the private key at path, or, when there is no file there, makes a
// new one and writes it with mode 0600. created says which. A key file that others can
// read is refused: whoever reads it can sign a rewritten journal.
func LoadOrCreateKey(path string) (key ed25519.PrivateKey, created bool, err error) {
	key, err = LoadKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, false, err
	}
	_, key, err = ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, false, fmt.Errorf("table key: generate: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, false, fmt.Errorf("table key: encode: %w", err)
	}
	// Written whole to a temporary file, then linked into place: a table starting beside
	// another on the same directory either makes the key or reads the other's, whole.
	f, err := os.CreateTemp(filepath.Dir(path), ".table-key-*")
	if err != nil {
		return nil, false, fmt.Errorf("table key: create %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	err = f.Chmod(0o600)
	if err == nil {
		err = pem.Encode(f, &pem.Block{Type: "PRIVATE KEY", Bytes: der})
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if err = os.Link(tmp, path); errors.Is(err, fs.ErrExist) {
			key, err = LoadKey(path)
			return key, false, err
		}
	}
	if err == nil {
		err = syncDir(filepath.Dir(path))
	}
	if err != nil {
		return nil, false, fmt.Errorf("table key: write %s: %w", path, err)
	}
	return key, true, nil
}

// LoadKey reads the private key at path. A missing file is an error wrapping
// fs.ErrNotExist.
func LoadKey(path string) (ed25519.PrivateKey, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("table key: %w", err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("table key %s: mode %04o lets others read it: want 0600 (chmod 600 %s)", path, st.Mode().Perm(), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("table key: %w", err)
	}
	block, _ := pem.Decode(b)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("table key %s: not a PEM \"PRIVATE KEY\" block", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("table key %s: %w", path, err)
	}
	key, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("table key %s: a %T, want an Ed25519 key", path, k)
	}
	return key, nil
}

// PublicKeyString writes pub as "ed25519:" and its 32 bytes in base64.
func PublicKeyString(pub ed25519.PublicKey) string {
	return PublicKeyPrefix + base64.StdEncoding.EncodeToString(pub)
}

// ParsePublicKey reads a public key written by PublicKeyString.
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	s = strings.TrimSpace(s)
	b64, ok := strings.CutPrefix(s, PublicKeyPrefix)
	if !ok {
		return nil, fmt.Errorf("public key %q: want %q and the key in base64 (as `tablectl key show` prints it)", s, PublicKeyPrefix)
	}
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("public key %q: want %d bytes in base64", s, ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}
