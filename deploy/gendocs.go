//go:build ignore

// gendocs writes the steps of deploy/floor-setup.sh and deploy/floor-add-table.sh into
// the pages of docs/ that hold their regions (internal/shdoc): go generate ./deploy.
package main

import (
	"fmt"
	"os"

	"github.com/tablectl/tablectl/internal/shdoc"
)

func main() {
	if err := shdoc.Generate("..", os.WriteFile); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}
