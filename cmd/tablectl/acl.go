package main

import (
	"context"
	"fmt"
	"os"

	"github.com/tablectl/tablectl/api"
)

// runMosquittoACL prints the Mosquitto ACL of tablectl's topics and broker users, or
// writes it to the file -o names. deploy/mosquitto/acl is its output (go generate).
func runMosquittoACL(_ context.Context, args []string, io stdio) error {
	fs := newFlagSet("mosquitto-acl", io)
	out := fs.String("o", "", "write the ACL to this file instead of standard output")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("mosquitto-acl: unexpected argument %q", fs.Arg(0))
	}
	if *out == "" {
		_, err := io.out.Write(api.MosquittoACL())
		return err
	}
	if err := os.WriteFile(*out, api.MosquittoACL(), 0o644); err != nil {
		return fmt.Errorf("mosquitto-acl: %w", err)
	}
	return nil
}
