package config

import (
	"errors"
	"fmt"
	"github.com/tablectl/tablectl/drivers/shoe"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/round"
)

// Flags are the settings of tablectl run's (and watch's) command line. Only the flags
// named in Given override the configuration file; the others keep the file's value (or
// the default).
type Flags struct {
	// Given names the flags given, by their names on the command line ("table", "mqtt",
	// "simultaneous-window"...).
	Given map[string]bool

	Table, Rules                  string
	Decks                         int
	Journal                       string
	MQTT, MQTTUser, MQTTPassword  string
	MQTTCA, MQTTCert, MQTTKey     string
	BrokerListen, BrokerWebSocket string
	Shoe, ShoeFormat, Shuffler    string
	Baud                          int
	Auto                          bool
	SimultaneousWindow            time.Duration
	InsurancePause                time.Duration
	OptionsPause                  time.Duration
	HTTP, Metrics                 string
	LogJSON                       bool
	ArchiveShip                   bool
	ArchiveTo                     []string
	Simulate                      bool
	Pace                          time.Duration
	Scenario                      string
	// TempJournal: with no journal given, run on a new temporary one (tablectl watch;
	// a simulated table does so too).
	TempJournal bool
}

// SimulatorDecks is how many decks the simulator deals in a set when the table's deck
// count leaves it free.
const SimulatorDecks = 8

// Run is what a table runs with: the configuration with the flags applied and checked,
// the round controller's settings made from it, and the simulation's part.
type Run struct {
	Config
	// Round is the controller's settings (the simulation's window rule applied).
	Round round.Config
	// Simulate: the simulator's shoe and shuffler stand in for the devices, which the
	// configuration then has none of; SimDecks is how many decks its sets hold.
	Simulate bool
	SimDecks int
	// TempJournal: run on a new temporary journal, with its own key: a simulation
	// without --journal, or watch with none.
	TempJournal bool
	// Password is the MQTT password (Password).
	Password string
}

// Resolve reads the configuration file at path ("" for none: the defaults), applies the
// flags over it (ApplyFlags), and looks up the MQTT password. A simulated table reads
// the file without its devices (LoadForSimulation): they need not be on this machine.
func Resolve(path string, f Flags) (Run, error) {
	if f.Simulate && (f.Given["shoe"] || f.Given["shuffler"]) {
		return Run{}, errors.New("--simulate brings its own devices: leave out --shoe and --shuffler")
	}
	base := Default()
	base.Journal = ""
	if path != "" {
		load := Load
		if f.Simulate {
			load = LoadForSimulation // the file's devices are not used
		}
		var err error
		if base, err = load(path); err != nil {
			return Run{}, err
		}
	}
	r, err := ApplyFlags(base, path != "", f)
	if err != nil {
		return Run{}, err
	}
	if r.Password, err = r.MQTTPassword(f.MQTTPassword); err != nil {
		return Run{}, err
	}
	return r, nil
}

// ApplyFlags applies the flags given over base (the file's configuration when fromFile,
// else the defaults), then the simulation's rules: a simulated table has no devices of
// its own, stands in for the dealer unless --auto says otherwise, runs on a new
// temporary journal unless --journal is given (never on the file's), and turns off the check of cards drawn together
// (RWS Baccarat 5.10) when it deals faster than the window, unless the window is given.
// The result is checked as a file is (Check), unless it is the file's, unchanged.
func ApplyFlags(base Config, fromFile bool, f Flags) (Run, error) {
	if f.Simulate && (f.Given["shoe"] || f.Given["shuffler"]) {
		return Run{}, errors.New("--simulate brings its own devices: leave out --shoe and --shuffler")
	}
	if f.Scenario != "" && !f.Simulate {
		return Run{}, errors.New("--scenario plays on the simulator: give --simulate too")
	}
	c := base
	overrides := map[string]func(){
		"table": func() { c.Table = f.Table },
		"rules": func() {
			c.Rules = f.Rules
			if rb, ok := baccarat.Standard.Get(f.Rules); !ok || !rb.TakesOptions() {
				c.Royal = nil // the file's Royal Baccarat variant goes with royal only
			}
		},
		"decks":         func() { c.Decks = f.Decks },
		"journal":       func() { c.Journal = f.Journal },
		"mqtt":          func() { c.MQTT.URL = f.MQTT },
		"mqtt-user":     func() { c.MQTT.Username = f.MQTTUser },
		"mqtt-ca":       func() { c.MQTT.CA = f.MQTTCA },
		"mqtt-cert":     func() { c.MQTT.Cert = f.MQTTCert },
		"mqtt-key":      func() { c.MQTT.Key = f.MQTTKey },
		"broker-listen": func() { c.Broker.Listen = f.BrokerListen },
		"broker-websocket": func() {
			c.Broker.WebSocket = f.BrokerWebSocket
		},
		"shoe": func() {
			format := f.ShoeFormat
			if c.Shoe != nil && !f.Given["shoe-format"] {
				format = c.Shoe.Format
			}
			if format == "" {
				format = "tablectl"
			}
			c.Shoe = &Shoe{Serial: Serial{Port: f.Shoe}, Format: format}
		},
		"shoe-format": func() {
			if c.Shoe != nil {
				c.Shoe.Format = f.ShoeFormat
			}
		},
		"shuffler":            func() { c.Shuffler = &Serial{Port: f.Shuffler} },
		"auto":                func() { c.Dealer.Auto = f.Auto },
		"insurance-pause":     func() { c.Dealer.InsurancePause = f.InsurancePause },
		"options-pause":       func() { c.Dealer.OptionsPause = f.OptionsPause },
		"simultaneous-window": func() { c.Dealer.SimultaneousWindow = f.SimultaneousWindow },
		"http":                func() { c.HTTP = f.HTTP },
		"log-json":            func() { c.Log.JSON = f.LogJSON },
		"metrics":             func() { c.Metrics = f.Metrics },
		"archive-ship":        func() { c.Archive.Ship = f.ArchiveShip },
		"archive-to":          func() { c.Archive.To = f.ArchiveTo },
	}
	overridden := false
	for _, name := range slices.Sorted(maps.Keys(f.Given)) {
		if apply, ok := overrides[name]; ok && f.Given[name] {
			apply()
			overridden = true
		}
	}
	if f.Given["baud"] { // after --shoe and --shuffler, which make new lines
		if c.Shoe != nil {
			c.Shoe.Baud = f.Baud
		}
		if c.Shuffler != nil {
			c.Shuffler.Baud = f.Baud
		}
		overridden = true
	}
	if f.Given["broker-listen"] && c.MQTT.URL != "" {
		return Run{}, errors.New("--broker-listen is for the embedded broker; it contradicts --mqtt (or the file's mqtt.url)")
	}
	r := Run{Simulate: f.Simulate}
	if f.Simulate {
		c.Shoe, c.Shuffler = nil, nil // the simulator's
		if !f.Given["auto"] {
			c.Dealer.Auto = true
		}
	}
	switch {
	case f.Simulate && !f.Given["journal"]:
		// A simulation never writes into the file's journal, the table's audited record,
		// nor signs with its key: a new temporary journal, with its own key.
		c.Journal, c.JournalKey, r.TempJournal = "tablectl-journal", "", true
	case c.Journal == "":
		c.Journal = "tablectl-journal"
		r.TempJournal = f.TempJournal
	}
	if overridden || !fromFile {
		if err := Check(&c); err != nil {
			return Run{}, byFlag(err, f.Given)
		}
	}
	rc, err := c.Round()
	if err != nil {
		return Run{}, err
	}
	if f.Simulate {
		r.SimDecks = c.Decks
		if r.SimDecks == 0 {
			r.SimDecks = SimulatorDecks
		}
		if err := rc.Rules.CheckDecks(r.SimDecks); err != nil {
			return Run{}, fmt.Errorf("--decks: %w", err)
		}
		rc.SimultaneousWindow = SimulatedWindow(rc.SimultaneousWindow, f.Pace, f.Given["simultaneous-window"])
		if c.Dealer.Burn == "" && shoe.Format(f.ShoeFormat).BurnMode() {
			rc.Burn = round.BurnShoe // the simulated shoe's burn mode, as for a real one of the format
		}
	}
	r.Config, r.Round = c, rc
	return r, nil
}

// runFlagKeys names the keys each of run's (and watch's) flags sets.
var runFlagKeys = map[string][]string{
	"table": {"table"}, "rules": {"rules", "royal"}, "decks": {"decks"}, "journal": {"journal"},
	"mqtt": {"mqtt.url"}, "mqtt-user": {"mqtt.username"}, "mqtt-ca": {"mqtt.ca"}, "mqtt-cert": {"mqtt.cert"},
	"mqtt-key": {"mqtt.key"}, "broker-listen": {"broker.listen"}, "broker-websocket": {"broker.websocket"},
	"shoe": {"shoe", "shoe.port"}, "shoe-format": {"shoe.format"}, "shuffler": {"shuffler", "shuffler.port"},
	"baud": {"shoe.baud", "shuffler.baud"}, "auto": {"dealer.auto"}, "insurance-pause": {"dealer.insurance_pause"},
	"options-pause": {"dealer.options_pause"}, "simultaneous-window": {"dealer.simultaneous_window"},
	"http": {"http"}, "metrics": {"metrics"}, "log-json": {"log.json"}, "archive-ship": {"archive.ship"},
	"archive-to": {"archive.to"},
}

// byFlag names each fault of err (an Errors of Check) on a key a flag given set by the
// flag (--shoe), not the key: the value at fault came from the command line.
func byFlag(err error, given map[string]bool) error {
	var es Errors
	if !errors.As(err, &es) {
		return err
	}
	for _, e := range es {
		for flag, keys := range runFlagKeys {
			if given[flag] && slices.Contains(keys, e.Key) {
				e.Key = "--" + flag
			}
		}
	}
	return es
}

// SimulatedWindow is the simultaneous-draw window (RWS Baccarat 5.10) of a simulated
// table dealing a card every pace: the simulator deals faster than any dealer could, so
// a window wider than its pace is turned off, unless it was given explicitly.
func SimulatedWindow(window, pace time.Duration, given bool) time.Duration {
	if !given && pace < window {
		return 0
	}
	return window
}

// MQTTPassword is the MQTT password: flagValue when given, else the first line of the
// configuration's password_file, else the environment's TABLECTL_MQTT_PASSWORD.
func (c *Config) MQTTPassword(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if c.MQTT.PasswordFile != "" {
		b, err := os.ReadFile(c.MQTT.PasswordFile)
		if err != nil {
			return "", fmt.Errorf("mqtt.password_file: %w", err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		return strings.TrimRight(line, "\r"), nil
	}
	return os.Getenv("TABLECTL_MQTT_PASSWORD"), nil
}
