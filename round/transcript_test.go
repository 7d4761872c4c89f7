package round

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected effects in testdata/*.txt from the controller's output")

// TestTranscripts runs every testdata/*.txt transcript: lines starting with "> " are
// events, the lines after each are the effects it must produce, one Effect.String() each
// (settlement lines indented). A "config" line sets the table; "#" lines are comments.
//
// Event lines:
//
//	> new-shoe set=S1 decks=8
//	> bets-closed [box:bet:stake[:standing] ...]
//	> card 9H [burned] [resent] [seq=N] [shoe=DURATION]
//	                             (seq counts up by itself when not given; burned: read in
//	                             the shoe's burn mode; resent: sent again after a restart;
//	                             shoe: the time the shoe stamped on the card)
//	> cards 9H 8D ...            (one card event each; their effects follow together)
//	> insurance-bet box:bet:stake
//	> insurance-closed | squeeze | confirm | cut-card | shoe-end | power-restored
//	> report kind=wrong_hand role=dealer [actor=A] [detail=words_with_underscores] [round=N] [card=KD]
//	> decide [id=N] choice=as-read role=supervisor [actor=A]
//	> device-lost detail=shoe | device-back detail=shoe
//	> card unreadable=damaged_index [seq=N]   (a card the shoe could not name)
//	> card 9H renumbered=true seq=1           (the shoe's numbering started again)
//	> box-option box=1 option=bet-returned role=dealer [bet=banker_insurance]
//	> options-closed [role=supervisor] [actor=A]  (no role: the table's stand-in)
//
// Cards are a second apart unless an event gives at=DURATION from the transcript's start.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) { runTranscript(t, f) })
	}
}

func runTranscript(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder // the transcript as the controller writes it
	var ctl *Controller
	var seq uint64
	var want, got []string
	var lastEvent string
	check := func() {
		if !*rewrite && strings.Join(want, "\n") != strings.Join(got, "\n") {
			t.Errorf("%s: after %q\n--- want\n%s\n--- got\n%s", path, lastEvent, strings.Join(want, "\n"), strings.Join(got, "\n"))
		}
		for _, g := range got {
			out.WriteString(g + "\n")
		}
		want, got = nil, nil
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		switch {
		case strings.HasPrefix(text, "> "):
			check()
			out.WriteString(text + "\n")
			lastEvent = text
			if ctl == nil {
				t.Fatalf("%s:%d: event before the config line", path, line)
			}
			evs, err := parseEvents(strings.TrimPrefix(text, "> "), &seq)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, line, err)
			}
			for _, ev := range evs {
				for _, e := range ctl.Step(ev) {
					got = append(got, strings.Split(e.String(), "\n")...)
				}
			}
		case strings.HasPrefix(text, "config"):
			check()
			out.WriteString(text + "\n")
			cfg, err := parseConfig(strings.Fields(text)[1:])
			if err != nil {
				t.Fatalf("%s:%d: %v", path, line, err)
			}
			if ctl, err = New(cfg); err != nil {
				t.Fatalf("%s:%d: %v", path, line, err)
			}
			seq = 0
		case strings.HasPrefix(text, "#") || strings.TrimSpace(text) == "":
			check()
			out.WriteString(text + "\n")
		default:
			want = append(want, text)
		}
	}
	check()
	if *rewrite {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func parseConfig(fields []string) (Config, error) {
	var opt baccarat.Options
	kv := map[string]string{}
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return Config{}, fmt.Errorf("config: %q is not key=value", f)
		}
		kv[k] = v
	}
	var err error
	atoi := func(k string) int {
		n, e := strconv.Atoi(kv[k])
		if e != nil && err == nil {
			err = fmt.Errorf("config %s: %v", k, e)
		}
		return n
	}
	if _, ok := kv["royal-paytable"]; ok {
		opt.RoyalPaytable = atoi("royal-paytable")
	}
	if _, ok := kv["royal-tiers"]; ok {
		opt.RoyalTiers = atoi("royal-tiers")
	}
	rs, e := baccarat.Lookup(kv["rules"], opt)
	if e != nil {
		return Config{}, e
	}
	cfg := DefaultConfig(rs)
	for k, v := range kv {
		switch k {
		case "rules", "royal-paytable", "royal-tiers":
		case "burn":
			switch {
			case v == "first-card":
				cfg.Burn = BurnByFirstCard
			case v == "none":
				cfg.Burn = BurnNone
			case v == "shoe":
				cfg.Burn = BurnShoe
			case strings.HasPrefix(v, "fixed:"):
				cfg.Burn = BurnFixed
				cfg.BurnCount, err = strconv.Atoi(strings.TrimPrefix(v, "fixed:"))
			default:
				return Config{}, fmt.Errorf("config burn=%q", v)
			}
		case "after-cut":
			cfg.RoundsAfterCut = atoi(k)
		case "rounding":
			cfg.Rounding, err = baccarat.ParseRounding(v)
		case "close-on-card":
			cfg.CloseBetsOnFirstCard = v == "true"
		case "burn-excess":
			cfg.BurnExcessCards = v == "true"
		case "window":
			cfg.SimultaneousWindow, err = time.ParseDuration(v)
		case "decks":
			cfg.Decks = atoi(k)
		case "shoe-on-first-card":
			cfg.ShoeOnFirstCard = v == "true"
		case "pay-rounded":
			cfg.PayRounded = v == "true"
		case "no-insurance":
			cfg.NoInsurance = v == "true"
		case "reshuffle":
			cfg.SetPerRound = v == "true"
		case "limits":
			// limits={"min":{"banker":100},...}: the JSON of baccarat.Limits, no spaces.
			cfg.Limits = new(baccarat.Limits)
			err = json.Unmarshal([]byte(v), cfg.Limits)
		default:
			return Config{}, fmt.Errorf("config: unknown key %q", k)
		}
	}
	return cfg, err
}

func parseWager(s string) (baccarat.Wager, error) {
	parts := strings.Split(s, ":")
	var seat baccarat.Seat
	if len(parts) == 4 {
		if err := seat.UnmarshalText([]byte(parts[3])); err != nil {
			return baccarat.Wager{}, fmt.Errorf("wager %q: %w", s, err)
		}
		parts = parts[:3]
	}
	if len(parts) != 3 {
		return baccarat.Wager{}, fmt.Errorf("wager %q: want box:bet:stake[:standing]", s)
	}
	b, err := baccarat.ParseBet(parts[1])
	if err != nil {
		return baccarat.Wager{}, fmt.Errorf("wager %q: %w", s, err)
	}
	stake, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil {
		return baccarat.Wager{}, fmt.Errorf("wager %q: %w", s, err)
	}
	return baccarat.Wager{Box: parts[0], Seat: seat, Bet: b, Stake: baccarat.Money(stake)}, nil
}

func parseEvents(s string, seq *uint64) ([]Event, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return nil, fmt.Errorf("empty event")
	}
	if f[0] == "cards" {
		var evs []Event
		for _, c := range f[1:] {
			card, err := baccarat.ParseCard(c)
			if err != nil {
				return nil, err
			}
			*seq++
			evs = append(evs, Event{Kind: CardDrawn, Card: card, Seq: *seq, At: transcriptEpoch.Add(time.Duration(*seq) * time.Second)})
		}
		return evs, nil
	}
	var ev Event
	if err := ev.Kind.UnmarshalText([]byte(f[0])); err != nil {
		return nil, err
	}
	for _, a := range f[1:] {
		k, v, isKV := strings.Cut(a, "=")
		switch {
		case isKV && k == "set":
			ev.Set = v
		case isKV && k == "decks":
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, fmt.Errorf("decks: %w", err)
			}
			ev.Decks = n
		case isKV && k == "kind":
			if err := ev.Irregularity.UnmarshalText([]byte(v)); err != nil {
				return nil, err
			}
		case isKV && k == "role":
			if err := ev.Role.UnmarshalText([]byte(v)); err != nil {
				return nil, err
			}
		case isKV && k == "choice":
			if err := ev.Choice.UnmarshalText([]byte(v)); err != nil {
				return nil, err
			}
		case isKV && k == "actor":
			ev.Actor = v
		case isKV && k == "dealer":
			ev.Dealer = strings.ReplaceAll(v, "_", " ")
		case isKV && k == "detail":
			ev.Detail = strings.ReplaceAll(v, "_", " ")
		case isKV && k == "id":
			n, err := strconv.ParseUint(v, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("id: %w", err)
			}
			ev.ID = uint32(n)
		case isKV && k == "round":
			n, err := strconv.ParseUint(v, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("round: %w", err)
			}
			ev.Round = uint32(n)
		case isKV && k == "at":
			d, err := time.ParseDuration(v)
			if err != nil {
				return nil, fmt.Errorf("at: %w", err)
			}
			ev.At = transcriptEpoch.Add(d)
		case isKV && k == "shoe":
			d, err := time.ParseDuration(v)
			if err != nil {
				return nil, fmt.Errorf("shoe: %w", err)
			}
			ev.ShoeTime, ev.ShoeTimed = uint32(d/time.Millisecond), true
		case isKV && k == "order":
			order, err := expandOrder(v)
			if err != nil {
				return nil, err
			}
			ev.Order = order
		case isKV && k == "cards":
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, fmt.Errorf("cards: %w", err)
			}
			ev.Cards = n
		case isKV && k == "box":
			ev.Box = v
		case isKV && k == "option":
			if err := ev.Option.UnmarshalText([]byte(v)); err != nil {
				return nil, err
			}
		case isKV && k == "bet":
			b, err := baccarat.ParseBet(v)
			if err != nil {
				return nil, err
			}
			ev.Bet = b
		case isKV && k == "card":
			card, err := baccarat.ParseCard(v)
			if err != nil {
				return nil, err
			}
			ev.Card = card
		case isKV && k == "unreadable":
			ev.Card, ev.Detail = baccarat.Card{}, strings.ReplaceAll(v, "_", " ")
		case isKV && k == "renumbered":
			ev.Renumbered = v == "true"
		case isKV && k == "empty":
			ev.Empty = v == "true"
		case isKV && k == "seq":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("seq: %w", err)
			}
			*seq = n - 1
		case ev.Kind == CardDrawn && a == "burned":
			ev.Burned = true
		case ev.Kind == CardDrawn && a == "resent":
			ev.Resent = true
		case ev.Kind == CardDrawn:
			card, err := baccarat.ParseCard(a)
			if err != nil {
				return nil, err
			}
			ev.Card = card
		case strings.Count(a, ":") == 2 || strings.Count(a, ":") == 3:
			w, err := parseWager(a)
			if err != nil {
				return nil, err
			}
			ev.Wagers = append(ev.Wagers, w)
		default:
			return nil, fmt.Errorf("event %s: unexpected %q", f[0], a)
		}
	}
	if ev.Kind == CardDrawn {
		*seq++
		ev.Seq = *seq
		if ev.At.IsZero() {
			ev.At = transcriptEpoch.Add(time.Duration(*seq) * time.Second)
		}
	}
	return []Event{ev}, nil
}

// transcriptEpoch is time zero of a transcript; cards are a second apart unless an
// event says at=DURATION.
var transcriptEpoch = time.Date(2026, 11, 22, 20, 0, 0, 0, time.UTC)

// expandOrder reads order=new-deck:N (N decks in new-deck order, spades to clubs, ace to
// king) or order=new-deck:N,rev (the same reversed).
func expandOrder(v string) ([]baccarat.Card, error) {
	spec, rev := strings.CutSuffix(v, ",rev")
	n, err := strconv.Atoi(strings.TrimPrefix(spec, "new-deck:"))
	if err != nil || !strings.HasPrefix(spec, "new-deck:") {
		return nil, fmt.Errorf("order=%q: want new-deck:N[,rev]", v)
	}
	var cards []baccarat.Card
	for d := 0; d < n; d++ {
		for s := baccarat.Spades; s <= baccarat.Clubs; s++ {
			for r := baccarat.Ace; r <= baccarat.King; r++ {
				cards = append(cards, baccarat.Card{Rank: r, Suit: s})
			}
		}
	}
	if rev {
		for i, j := 0, len(cards)-1; i < j; i, j = i+1, j-1 {
			cards[i], cards[j] = cards[j], cards[i]
		}
	}
	return cards, nil
}
