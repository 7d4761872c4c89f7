package tablecmd

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/journal"
)

const keyUsage = `usage: tablectl key show [--key FILE | --journal DIR]
       tablectl key new [--key FILE | --journal DIR]

show prints the public key of the table's signing key, "ed25519:" and the key in base64,
for the pit, the archive's keys file and 'tablectl journal verify --key'. The table signs
its journal's chain head with the private key at each round's end. The key file is --key,
or the journal directory's name with .key, beside it (/var/lib/tablectl/journal.key for
--journal /var/lib/tablectl/journal); the table creates it (mode 0600) on its first start.
A key of an earlier version, table.key beside the directory, is shown with a word on
where to move it.

new makes the key (mode 0600) before the table's first start and prints its public key,
so that the archive's keys file can name the table from the start. It never replaces a
key: a file already there is refused. 'tablectl enroll' makes the key too, with the
table's broker password.`

// runKey runs the key subcommands.
func runKey(_ context.Context, args []string, io cli.Stdio) error {
	if len(args) == 0 || args[0] != "show" && args[0] != "new" {
		fmt.Fprintln(io.Err, keyUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return nil
		}
		return errors.New("key: want the subcommand show or new")
	}
	sub := args[0]
	fs := newFlagSet("key "+sub, io)
	fs.Usage = func() { fmt.Fprintln(io.Err, keyUsage) }
	keyFile := fs.String("key", "", "the table's private key file")
	journalDir := fs.String("journal", "", "the journal directory; the key is beside it, DIR.key")
	if err := cli.ParseFlags(fs, args[1:]); err != nil {
		return err
	}
	path := *keyFile
	switch {
	case fs.NArg() != 0:
		return fmt.Errorf("key %s: unexpected argument %q", sub, fs.Arg(0))
	case (path == "") == (*journalDir == ""):
		return fmt.Errorf("key %s: give one of --key FILE or --journal DIR", sub)
	case path == "" && sub == "new":
		if old, ok := oldKeyOnly(*journalDir); ok {
			return fmt.Errorf("key new: the key of an earlier version is at %s: if it is this journal's, move it (mv %s %s); a journal's key is never replaced",
				old, old, journal.DefaultKeyPath(*journalDir))
		}
		path = journal.DefaultKeyPath(*journalDir)
	case path == "":
		path = journal.DefaultKeyPath(*journalDir)
		if old, ok := oldKeyOnly(*journalDir); ok {
			fmt.Fprintf(io.Err, "the key is at the old place %s, which every journal of that directory shares: move it to %s\n", old, path)
			path = old
		}
	}
	var key ed25519.PrivateKey
	var err error
	if sub == "new" {
		key, err = newKey(path)
	} else {
		key, err = journal.LoadKey(path)
	}
	if err != nil {
		return fmt.Errorf("key %s: %w", sub, err)
	}
	fmt.Fprintln(io.Out, journal.PublicKeyString(key.Public().(ed25519.PublicKey)))
	return nil
}

// oldKeyOnly reports whether the journal in dir has no key of its own
// (journal.DefaultKeyPath) but a key of an earlier version is at the old place
// (journal.OldKeyPath), which it returns.
func oldKeyOnly(dir string) (string, bool) {
	if _, err := os.Stat(journal.DefaultKeyPath(dir)); !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	old := journal.OldKeyPath(dir)
	_, err := os.Stat(old)
	return old, err == nil
}

// newKey makes the table's key at path, refusing a file already there.
func newKey(path string) (ed25519.PrivateKey, error) {
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s exists: a table's key is never replaced ('tablectl key show' prints its public key)", path)
	}
	key, created, err := journal.LoadOrCreateKey(path)
	switch {
	case err != nil:
		return nil, err
	case !created:
		return nil, fmt.Errorf("%s was made meanwhile by another program: a table's key is never replaced", path)
	}
	if err := ownLikeDir(path); err != nil {
		return nil, fmt.Errorf("table key %s: %w", path, err)
	}
	return key, nil
}
