// Command tablectl-floor is the binary of the floor's server: the archive, which keeps
// every table's journal in PostgreSQL or SQLite, the console, and the reports and
// exports read from the archive. Its commands live in internal/floorcmd. The table's
// own binary is tablectl.
package main

import "github.com/tablectl/tablectl/internal/floorcmd"

func main() { floorcmd.Main() }
