package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"

	"github.com/tablectl/tablectl/journal"
)

const keyUsage = `usage: tablectl key show [--key FILE | --journal DIR]

Prints the public key of the table's signing key, "ed25519:" and the key in base64, for the
pit and for 'tablectl journal verify --key'. The table signs its journal's chain head with
the private key at each round's end. The key file is --key, or table.key beside the journal
directory --journal; the table creates it (mode 0600) on its first start.`

// runKey runs the key subcommands.
func runKey(_ context.Context, args []string, io stdio) error {
	if len(args) == 0 || args[0] != "show" {
		fmt.Fprintln(io.err, keyUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return nil
		}
		return errors.New("key: want the subcommand show")
	}
	fs := newFlagSet("key show", io)
	fs.Usage = func() { fmt.Fprintln(io.err, keyUsage) }
	keyFile := fs.String("key", "", "the table's private key file")
	journalDir := fs.String("journal", "", "the journal directory; the key is table.key beside it")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	path := *keyFile
	switch {
	case fs.NArg() != 0:
		return fmt.Errorf("key show: unexpected argument %q", fs.Arg(0))
	case (path == "") == (*journalDir == ""):
		return errors.New("key show: give one of --key FILE or --journal DIR")
	case path == "":
		path = journal.DefaultKeyPath(*journalDir)
	}
	key, err := journal.LoadKey(path)
	if err != nil {
		return fmt.Errorf("key show: %w", err)
	}
	fmt.Fprintln(io.out, journal.PublicKeyString(key.Public().(ed25519.PublicKey)))
	return nil
}
