package floorcmd

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/internal/tablecmd"
)

const reportUsage = `usage: tablectl-floor report --archive DB --table ID [--shoe N] [--format html|csv|json] [--out FILE]
       tablectl-floor report --db DB --pit P --from T --to T [--format html|csv|json] (the shift report: report --db DB -h)

Reads table ID's journal from the floor's archive (DB, a SQLite file's path or a
postgres:// URL, opened for reading only) and writes its shoe report: the same report,
byte for byte, as 'tablectl report DIR' writes of the table's own journal.

` + tablecmd.ReportFlags + `
  --archive DB    the archive's database
  --table ID      the table's id

docs/reports.md describes every column and field.`

// runReport writes the shoe report of a table's journal held in the archive.
func runReport(ctx context.Context, args []string, sio cli.Stdio) error {
	if shiftReport(args) {
		return runShiftReport(ctx, args, sio)
	}
	fs := newFlagSet("report", sio)
	fs.Usage = func() { fmt.Fprintln(sio.Err, reportUsage) }
	o := tablecmd.ReportFlagSet(fs)
	archiveDB := fs.String("archive", "", "the archive's database: a SQLite file's path or a postgres:// URL")
	tableID := fs.String("table", "", "the table's id")
	dirs, err := cli.ParseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *archiveDB == "" || *tableID == "" || len(dirs) != 0 {
		return errors.New("report: want --archive DB and --table ID, and no journal directory ('tablectl report DIR' reports a journal directory)")
	}
	// The archive's records, written back into a journal, go through the very same
	// reading as the table's own journal: the same report, byte for byte.
	tmp, err := os.MkdirTemp("", "tablectl-report-")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer os.RemoveAll(tmp)
	if _, err := exportJournal(ctx, *archiveDB, *tableID, tmp); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return tablecmd.WriteReport(tmp, "table "+*tableID+" of the archive", *o, sio)
}
