package archive

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTick is the unit of /proc's CPU times: USER_HZ, 100 on Linux.
const clockTick = 10 * time.Millisecond

// cpuTimes returns the CPU (user and system) used so far by this process and by the
// PostgreSQL cluster serving db: its postmaster and every process it runs now (the
// backends, the WAL writer), read from /proc. pgOK is false when db is not PostgreSQL
// or the cluster's processes cannot be read.
func cpuTimes(db *DB) (self, server time.Duration, pgOK bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if db.Engine() != Postgres {
		return self, 0, false
	}
	var backend int
	if err := db.SQL().QueryRowContext(context.Background(), `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		return self, 0, false
	}
	st, ok := procStat(backend)
	if !ok {
		return self, 0, false
	}
	postmaster := st.ppid
	pm, ok := procStat(postmaster)
	if !ok {
		return self, 0, false
	}
	server = pm.cpu // its own and that of the children it has reaped
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return self, 0, false
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if c, ok := procStat(pid); ok && c.ppid == postmaster {
			server += c.cpu
		}
	}
	return self, server, true
}

type procCPU struct {
	ppid int
	cpu  time.Duration // utime+stime+cutime+cstime
}

// procStat reads /proc/PID/stat.
func procStat(pid int) (procCPU, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procCPU{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command may hold spaces
	if i < 0 {
		return procCPU{}, false
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3, the state
	if len(f) < 15 {
		return procCPU{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	var ticks int64
	for _, k := range []int{11, 12, 13, 14} { // fields 14 to 17
		n, _ := strconv.ParseInt(f[k], 10, 64)
		ticks += n
	}
	return procCPU{ppid: ppid, cpu: time.Duration(ticks) * clockTick}, true
}
