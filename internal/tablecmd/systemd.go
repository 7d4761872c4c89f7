package tablecmd

import (
	"fmt"
	"log/slog"
	"time"

	sd "github.com/coreos/go-systemd/v22/daemon"
)

// serviceManager tells systemd (a Type=notify unit) when the table is ready and that its
// loop is alive. Outside systemd (no NOTIFY_SOCKET) every call does nothing.
type serviceManager struct {
	log *slog.Logger
	// watchdog is the unit's WatchdogSec, 0 when the unit has none.
	watchdog time.Duration
}

// newServiceManager reads the watchdog interval systemd gave the process, if any.
func newServiceManager(log *slog.Logger) (*serviceManager, error) {
	wd, err := sd.SdWatchdogEnabled(false)
	if err != nil {
		return nil, fmt.Errorf("systemd watchdog (WATCHDOG_USEC): %w", err)
	}
	return &serviceManager{log: log, watchdog: wd}, nil
}

// heartbeatEvery is how often the table's loop should feed the watchdog: three times
// in each interval, so that one late beat is not a restart. 0: no watchdog.
func (m *serviceManager) heartbeatEvery() time.Duration { return m.watchdog / 3 }

// Beat feeds the watchdog (daemon.Watchdog); it is called from the table's loop.
func (m *serviceManager) Beat() { m.notify(sd.SdNotifyWatchdog) }

// ready says the table is up: the journal replayed and checked, devices and MQTT started.
func (m *serviceManager) ready(status string) {
	m.notify(sd.SdNotifyReady + "\nSTATUS=" + status)
}

// stopping says the table is shutting down.
func (m *serviceManager) stopping() { m.notify(sd.SdNotifyStopping) }

func (m *serviceManager) notify(state string) {
	if _, err := sd.SdNotify(false, state); err != nil {
		m.log.Warn("systemd notify", "state", state, "err", err)
	}
}
