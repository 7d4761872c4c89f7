package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablectl/tablectl/archive"
)

const exportUsage = `  export --archive DB --table ID DIR
                      write table ID's journal, as the floor's archive holds it, into a
                      new journal in DIR (which must not exist or be empty): its records
                      and signed heads, which 'journal verify --key' checks; a replaced
                      table starts from it. DB is a SQLite file's path or a postgres://
                      URL`

// runJournalExport writes a table's journal from the archive into a new directory.
func runJournalExport(ctx context.Context, args []string, io stdio) error {
	fs := newFlagSet("journal export", io)
	fs.Usage = func() { fmt.Fprintln(io.err, journalUsage) }
	db := fs.String("archive", "", "the archive's database: a SQLite file's path or a postgres:// URL")
	id := fs.String("table", "", "the table's id")
	dirs, err := parseInterspersed(fs, args)
	switch {
	case err != nil:
		return err
	case len(dirs) != 1:
		return fmt.Errorf("journal export: want one journal directory, got %d", len(dirs))
	case *db == "" || *id == "":
		return errors.New("journal export: --archive DB and --table ID are required")
	}
	ex, err := exportJournal(ctx, *db, *id, dirs[0])
	if err != nil {
		return fmt.Errorf("journal export: %w", err)
	}
	fmt.Fprintf(io.out, "exported table %s: %d records (to %d) and %d signed heads, to %s\n", *id, ex.Records, ex.LastSeq, ex.Heads, dirs[0])
	if ex.Signed < ex.LastSeq {
		fmt.Fprintf(io.out, "records %d to %d are not covered by the table's signature: the archive stored them before it asked for signed batches\n",
			ex.Signed+1, ex.LastSeq)
	}
	return nil
}

// exportJournal opens the archive for reading only (archive.OpenReader: a role that
// may only SELECT will do, and nothing is created or migrated) and exports table id's
// journal into dir.
func exportJournal(ctx context.Context, dsn, id, dir string) (archive.Exported, error) {
	db, err := archive.OpenReader(ctx, dsn)
	if err != nil {
		return archive.Exported{}, err
	}
	defer db.Close()
	return archive.Export(ctx, db, id, dir)
}
