package daemon

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/drivers/display"
)

// shippers is a table's shippers, one for each archive it ships its journal to
// (Config.ShipTo), run side by side: each sends from what its own archive holds, so an
// archive that is behind never makes the table send again to another.
type shippers struct {
	ships    []*Shipper
	byID     map[string]*Shipper
	changed  chan struct{} // any shipper's lag changed, or Announce
	announce atomic.Bool
}

// newShipping makes a shipper for each archive of ids, from opt.
func newShippers(opt ShipOptions, ids []string) *shippers {
	if len(ids) == 0 {
		ids = []string{api.DefaultArchiveID}
	}
	s := &shippers{byID: map[string]*Shipper{}, changed: make(chan struct{}, 1)}
	for _, id := range ids {
		o := opt
		o.Archive, o.Changed = id, s.changed
		sh := NewShipper(o)
		s.ships = append(s.ships, sh)
		s.byID[id] = sh
	}
	return s
}

// run runs every shipper through pub until ctx is done, and returns once they all ended.
func (s *shippers) run(ctx context.Context, pub display.Publisher) {
	var wg sync.WaitGroup
	for _, sh := range s.ships {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sh.Run(ctx, pub)
		}()
	}
	wg.Wait()
}

func (s *shippers) written(seq uint64) {
	for _, sh := range s.ships {
		sh.Written(seq)
	}
}

func (s *shippers) signed() {
	for _, sh := range s.ships {
		sh.Signed()
	}
}

func (s *shippers) connected() {
	for _, sh := range s.ships {
		sh.Connected()
	}
}

// held hands a held message to the shipper of its archive; an archive the table does
// not ship to is not listened to.
func (s *shippers) held(archiveID string, payload []byte) {
	if sh, ok := s.byID[archiveID]; ok {
		sh.Held(payload)
	}
}

// lag is the lag of the archive furthest behind (the first named, when none is), and
// whether any archive is late.
func (s *shippers) lag() (api.ArchiveLag, bool) {
	var worst api.ArchiveLag
	late := false
	for i, sh := range s.ships {
		l := sh.Lag()
		l.Archive = sh.opt.Archive
		if i == 0 || l.Behind > worst.Behind || l.Behind == worst.Behind && l.Behind > 0 && l.Since.Before(worst.Since) {
			worst = l
		}
		late = late || sh.Late()
	}
	if len(s.ships) == 1 {
		worst.Archive = "" // one archive: the status need not name it
	}
	return worst, late
}

// caughtUp waits until every archive holds every record written, or ctx is done.
func (s *shippers) caughtUp(ctx context.Context) error {
	for _, sh := range s.ships {
		if err := sh.CaughtUp(ctx); err != nil {
			return err
		}
	}
	return nil
}

// announceNext asks for the lag in a status now (announced then reports true once).
func (s *shippers) announceNext() {
	s.announce.Store(true)
	signal(s.changed)
}

func (s *shippers) announced() bool { return s.announce.Swap(false) }
