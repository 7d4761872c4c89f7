package floorcmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/internal/cli"
)

const exportUsage = `usage: tablectl-floor export --archive DB --table ID DIR

Writes table ID's journal, as the floor's archive holds it, into a new journal in DIR
(which must not exist or be empty): its records and signed heads, which
'tablectl journal verify --key' checks; a replaced table starts from it. DB is a SQLite
file's path or a postgres:// URL. The archive is opened for reading only: a role that
may only SELECT will do.`

// runExport writes a table's journal from the archive into a new directory.
func runExport(ctx context.Context, args []string, io cli.Stdio) error {
	fs := newFlagSet("export", io)
	fs.Usage = func() { fmt.Fprintln(io.Err, exportUsage) }
	db := fs.String("archive", "", "the archive's database: a SQLite file's path or a postgres:// URL")
	id := fs.String("table", "", "the table's id")
	dirs, err := cli.ParseInterspersed(fs, args)
	switch {
	case err != nil:
		return err
	case len(dirs) != 1:
		return fmt.Errorf("export: want one journal directory, got %d", len(dirs))
	case *db == "" || *id == "":
		return errors.New("export: --archive DB and --table ID are required")
	}
	ex, err := exportJournal(ctx, *db, *id, dirs[0])
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	fmt.Fprintf(io.Out, "exported table %s: %d records (to %d) and %d signed heads, to %s\n", *id, ex.Records, ex.LastSeq, ex.Heads, dirs[0])
	if ex.Signed < ex.LastSeq {
		fmt.Fprintf(io.Out, "records %d to %d are not covered by the table's signature: the archive stored them before it asked for signed batches\n",
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
