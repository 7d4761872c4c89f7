//go:build unix

package pgtest

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// ids are a user's uid and gid.
type ids struct{ uid, gid int }

// credential is who a process runs as (nil: as the tests run).
type credential = *syscall.Credential

// runAs returns the credentials to run PostgreSQL with, and the ids to give the
// cluster's directory: none when the tests do not run as root.
func runAs() (credential, *ids, error) {
	if os.Geteuid() != 0 {
		return nil, nil, nil
	}
	names := []string{"postgres", "nobody"}
	if n := os.Getenv(UserEnv); n != "" {
		names = []string{n}
	}
	for _, n := range names {
		u, err := user.Lookup(n)
		if err != nil {
			continue
		}
		uid, err1 := strconv.Atoi(u.Uid)
		gid, err2 := strconv.Atoi(u.Gid)
		if err1 != nil || err2 != nil || uid == 0 {
			continue
		}
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, &ids{uid, gid}, nil
	}
	return nil, nil, fmt.Errorf("the tests run as root, which PostgreSQL refuses, and none of the users %v exists to run it as (set %s)", names, UserEnv)
}

// procAttr runs a process with cred (nil: as the tests run), in a process group of its
// own when group is set.
func procAttr(cred credential, group bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Setpgid: group}
}

// interrupt asks postgres for a fast shutdown.
func interrupt(p *os.Process) { _ = p.Signal(syscall.SIGINT) }

// kill ends postgres and the processes of its group.
func kill(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
