//go:build !unix

package pgtest

import (
	"os"
	"syscall"
)

// ids are a user's uid and gid.
type ids struct{ uid, gid int }

// credential is who a process runs as: always as the tests run here.
type credential = *struct{}

// runAs: a system without root runs PostgreSQL as the tests run.
func runAs() (credential, *ids, error) { return nil, nil, nil }

func procAttr(credential, bool) *syscall.SysProcAttr { return nil }

func interrupt(p *os.Process) { _ = p.Kill() }

func kill(p *os.Process) { _ = p.Kill() }
