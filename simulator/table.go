package simulator

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
)

// Table carries out a scenario's table actions: the commands of the dealer, the
// supervisor and the pit manager that the shoe and the shuffler do not give (closing
// betting with the wagers on the layout, decisions, players' options, confirmations).
// Act gives the table one command, as it takes them over MQTT (docs/mqtt.md): role is
// the last level of the command's topic ("dealer", "supervisor", "pit_manager"...), and
// command its JSON. It returns once the table has carried the command out; a command the
// table refuses is no error (the table says so in its effects).
type Table interface {
	Act(ctx context.Context, role string, command []byte) error
}

// tableActions are the scenario directives carried out by the table (Config.Table), not
// by the simulated devices.
var tableActions = map[string]bool{"bets": true, "insurance-bet": true, "insurance-closed": true, "confirm": true,
	"end-shoe": true, "report": true, "decide": true, "option": true, "options-closed": true}

// IsTableAction reports whether a step is one of the table's actions: a command the
// table is given (Step.Role, Step.Command), not something the devices do.
func (st Step) IsTableAction() bool { return tableActions[st.Op] }

// HasTableActions reports whether the scenario gives the table commands: it plays only
// beside a table (tablectl run or watch --simulate --scenario), not on its own.
func (sc *Scenario) HasTableActions() bool {
	for _, st := range sc.Steps {
		if st.IsTableAction() {
			return true
		}
	}
	return false
}

// parseTable reads the table's settings and actions (and the dealer's wait); handled is
// false for any other directive.
func (sc *Scenario) parseTable(st *Step, args []string) (handled bool, err error) {
	setting := func() error {
		if len(sc.Steps) > 0 {
			return fmt.Errorf("a setting must come before the first action")
		}
		return nil
	}
	cmd := map[string]any{}
	role := "dealer"
	switch st.Op {
	case "rules":
		if err := setting(); err != nil {
			return true, err
		}
		if len(args) != 1 {
			return true, fmt.Errorf("want one rule set: %s", strings.Join(baccarat.Names, ", "))
		}
		if _, err := baccarat.Lookup(args[0], baccarat.Options{}); err != nil {
			return true, err
		}
		sc.Rules = args[0]
		return true, nil
	case "insurance-pause":
		if err := setting(); err != nil {
			return true, err
		}
		d, err := duration(args, time.Minute)
		if err != nil {
			return true, err
		}
		sc.InsurancePause = &d
		return true, nil
	case "options-pause":
		if err := setting(); err != nil {
			return true, err
		}
		d, err := duration(args, 5*time.Minute)
		if err != nil {
			return true, err
		}
		sc.OptionsPause = &d
		return true, nil
	case "dealer-confirms":
		if err := setting(); err != nil {
			return true, err
		}
		if len(args) != 0 {
			return true, fmt.Errorf("takes nothing, got %q", strings.Join(args, " "))
		}
		sc.DealerConfirms = true
		return true, nil
	case "wait":
		d, err := duration(args, time.Minute)
		if err != nil {
			return true, err
		}
		st.Wait = d
		return true, nil
	case "swap":
		if len(args) != 2 {
			return true, fmt.Errorf("want two places in the shoe, 1 the next card: swap 1 3")
		}
		if st.N, err = number(args[:1], 1, 65535); err != nil {
			return true, err
		}
		if st.M, err = number(args[1:], 1, 65535); err != nil {
			return true, err
		}
		if st.N == st.M {
			return true, fmt.Errorf("a card cannot change places with itself")
		}
		return true, nil
	case "bets":
		ws := make([]baccarat.Wager, 0, len(args))
		for _, a := range args {
			w, err := wager(a)
			if err != nil {
				return true, err
			}
			ws = append(ws, w)
		}
		cmd["cmd"] = api.CmdBetsClosed
		if len(ws) > 0 {
			cmd["wagers"] = ws
		}
	case "insurance-bet":
		if len(args) != 1 {
			return true, fmt.Errorf("want one wager, box:bet:stake, such as 1:banker_insurance:50")
		}
		w, err := wager(args[0])
		if err != nil {
			return true, err
		}
		cmd["cmd"], cmd["wager"] = api.CmdInsuranceBet, w
	case "insurance-closed", "confirm", "end-shoe":
		if len(args) != 0 {
			return true, fmt.Errorf("takes nothing, got %q", strings.Join(args, " "))
		}
		cmd["cmd"] = map[string]string{"insurance-closed": api.CmdInsuranceClosed, "confirm": api.CmdConfirm, "end-shoe": api.CmdEndShoe}[st.Op]
	case "report":
		if len(args) < 2 {
			return true, fmt.Errorf("want the irregularity's kind and who reports it, then any words: report wrong_hand dealer")
		}
		if _, err := irregularities.ParseKind(args[0]); err != nil {
			return true, err
		}
		if role, err = roleName(args[1]); err != nil {
			return true, err
		}
		cmd["cmd"], cmd["kind"] = api.CmdReport, args[0]
		if len(args) > 2 {
			cmd["detail"] = strings.Join(args[2:], " ")
		}
	case "decide":
		if len(args) != 3 {
			return true, fmt.Errorf("want the irregularity's number, the decision and who decides: decide 1 continue supervisor")
		}
		n, err := number(args[:1], 1, math.MaxInt32)
		if err != nil {
			return true, err
		}
		if _, err := irregularities.ParseChoice(args[1]); err != nil {
			return true, err
		}
		if role, err = roleName(args[2]); err != nil {
			return true, err
		}
		cmd["cmd"], cmd["irregularity"], cmd["choice"] = api.CmdDecide, n, args[1]
	case "option":
		if len(args) != 3 && len(args) != 4 {
			return true, fmt.Errorf("want the box, its option, who records it and, for insurance-intended, the Insurance bet: option 2 bet-returned dealer")
		}
		if _, err := irregularities.ParseOption(args[1]); err != nil {
			return true, err
		}
		if role, err = roleName(args[2]); err != nil {
			return true, err
		}
		cmd["cmd"], cmd["box"], cmd["option"] = api.CmdBoxOption, args[0], args[1]
		if len(args) == 4 {
			if _, err := baccarat.ParseBet(args[3]); err != nil {
				return true, err
			}
			cmd["bet"] = args[3]
		}
	case "options-closed":
		if len(args) != 1 {
			return true, fmt.Errorf("want who closes the players' options: options-closed supervisor")
		}
		if role, err = roleName(args[0]); err != nil {
			return true, err
		}
		cmd["cmd"] = api.CmdOptionsClosed
	default:
		return false, nil
	}
	if sc.Protocol != "" && !sc.Protocol.Hello() {
		// Only a shoe that hears what the table recorded (the tablectl protocol's
		// acknowledgements) tells the scenario the table has every card it sent before
		// the action: on another format the action could overtake them.
		return true, fmt.Errorf("the table's actions need the tablectl protocol, whose shoe hears what the table recorded")
	}
	b, err := json.Marshal(cmd)
	if err != nil {
		return true, err
	}
	st.Role, st.Command = role, b
	return true, nil
}

// roleName checks a role's name.
func roleName(s string) (string, error) {
	if _, err := irregularities.ParseRole(s); err != nil {
		return "", err
	}
	return s, nil
}

// wager reads box:bet:stake.
func wager(s string) (baccarat.Wager, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 || parts[0] == "" {
		return baccarat.Wager{}, fmt.Errorf("wager %q: want box:bet:stake, such as 1:banker:100", s)
	}
	b, err := baccarat.ParseBet(parts[1])
	if err != nil {
		return baccarat.Wager{}, fmt.Errorf("wager %q: %w", s, err)
	}
	stake, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || stake < 1 || stake > 1_000_000_000 {
		return baccarat.Wager{}, fmt.Errorf("wager %q: the stake must be a whole number from 1 to 1000000000", s)
	}
	return baccarat.Wager{Box: parts[0], Bet: b, Stake: baccarat.Money(stake)}, nil
}

// duration reads the one duration in args, from 0 to most.
func duration(args []string, most time.Duration) (time.Duration, error) {
	if len(args) != 1 {
		return 0, fmt.Errorf("want one duration, such as 500ms or 2s")
	}
	d, err := time.ParseDuration(args[0])
	if err != nil || d < 0 || d > most {
		return 0, fmt.Errorf("%q is not a duration from 0s to %s", args[0], most)
	}
	return d, nil
}

// act has the table carry out a table action, once it has taken everything the devices
// sent before it. The table is tablectl's, which acknowledges every card and signal it
// records: on the tablectl protocol the action waits for them all to be acknowledged,
// even before the first acknowledgement (the table keeps a card drawn before its set's
// report unacknowledged until the report comes).
func (s *Simulator) act(ctx context.Context, st Step) error {
	if s.cfg.Table == nil {
		return fmt.Errorf("this is the table's action: play the scenario beside a table (tablectl run --simulate or watch --simulate --scenario)")
	}
	if err := s.Shoe.Drain(ctx); err != nil {
		return err
	}
	if err := waitUntil(ctx, "the table acknowledges the shoe's cards and signals", func() bool {
		return len(s.Unacknowledged()) == 0
	}); err != nil {
		return err
	}
	if err := s.Shuffler.Drain(ctx); err != nil {
		return err
	}
	return s.cfg.Table.Act(ctx, st.Role, st.Command)
}

// swap makes the cards at places n and m of the shoe (1: the next card to draw) change
// places, after the shuffler has reported the set's order.
func (s *Simulator) swap(n, m int) error {
	i, j := s.next+n-1, s.next+m-1
	if max(i, j) >= len(s.cards) {
		return fmt.Errorf("the shoe holds %d cards more", len(s.cards)-s.next)
	}
	s.cards[i], s.cards[j] = s.cards[j], s.cards[i]
	return nil
}
