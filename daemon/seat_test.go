package daemon

import (
	"strings"
	"testing"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/table"
)

// TestBetsClosedSeats: a wager names whether it is the seated player's or a standing
// player's (RWS Baccarat 1.20, 1.21); one that names none is the seated player's, as
// every bets_closed was before seats; an unknown seat refuses the command.
func TestBetsClosedSeats(t *testing.T) {
	t.Parallel()
	_, ev, err := table.ParseCommand("dealer", []byte(`{"cmd":"bets_closed","wagers":[{"box":"1","bet":"banker","stake":100},{"box":"1","seat":"standing","bet":"banker","stake":50},{"box":"2","seat":"seated","bet":"player","stake":20}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Wagers) != 3 || ev.Wagers[0].Seat != baccarat.Seated || ev.Wagers[1].Seat != baccarat.Standing || ev.Wagers[2].Seat != baccarat.Seated {
		t.Fatalf("wagers %+v", ev.Wagers)
	}
	_, _, err = table.ParseCommand("dealer", []byte(`{"cmd":"bets_closed","wagers":[{"box":"1","seat":"behind","bet":"banker","stake":100}]}`))
	if err == nil || !strings.Contains(err.Error(), `unknown seat "behind"`) {
		t.Fatalf("unknown seat: %v", err)
	}
}
