package deploy

import (
	"os"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/internal/shdoc"
)

// TestFloorDocsAreTheScripts: docs/deploy.md, docs/archive.md and docs/console.md hold
// the steps of deploy/floor-setup.sh and deploy/floor-add-table.sh as go generate
// ./deploy writes them: the commands a person types are the ones the script runs
// (TestFloorSetUpFromTheDocs runs it), and every step is on a page.
func TestFloorDocsAreTheScripts(t *testing.T) {
	t.Parallel()
	var stale []string
	err := shdoc.Generate("..", func(path string, _ []byte, _ os.FileMode) error {
		stale = append(stale, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) > 0 {
		t.Errorf("%s: not the scripts' steps: run go generate ./deploy", strings.Join(stale, ", "))
	}
}
