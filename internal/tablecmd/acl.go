package tablecmd

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/internal/cli"
)

// runMosquittoACL prints the Mosquitto ACL of tablectl's topics and broker users, or
// writes it to the file -o names. deploy/mosquitto/acl is its output (go generate).
func runMosquittoACL(_ context.Context, args []string, io cli.Stdio) error {
	fs := newFlagSet("mosquitto-acl", io)
	out := fs.String("o", "", "write the ACL to this file instead of standard output")
	var o api.ACLOptions
	fs.Func("archive", fmt.Sprintf("the id of a floor's archive, with its user archive-ID (again for each; %s when none)", api.DefaultArchiveID), func(s string) error {
		for _, id := range strings.Split(s, ",") {
			if err := api.CheckArchiveID(id); err != nil {
				return err
			}
			o.Archives = append(o.Archives, id)
		}
		return nil
	})
	fs.BoolVar(&o.Central, "central", false, "for a central broker: every line also under casino/<site>/<pit>/, where each table's bridge logs in as the table id")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("mosquitto-acl: unexpected argument %q", fs.Arg(0))
	}
	acl, err := api.MosquittoACL(o)
	if err != nil {
		return err
	}
	if *out == "" {
		_, err := io.Out.Write(acl)
		return err
	}
	if err := os.WriteFile(*out, acl, 0o644); err != nil {
		return fmt.Errorf("mosquitto-acl: %w", err)
	}
	return nil
}
