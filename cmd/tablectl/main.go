// Command tablectl is the baccarat table controller, the binary of a table's Raspberry
// Pi: it runs the table, and holds the table's tools (its journal, its key, its reports,
// its configuration's check). Its commands live in internal/tablecmd. The floor's
// services (the archive, the console) are the other binary, tablectl-floor: this one
// links no database driver.
package main

import "github.com/tablectl/tablectl/internal/tablecmd"

func main() { tablecmd.Main() }
