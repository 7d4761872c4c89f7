package config

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/broker"
	"github.com/tablectl/tablectl/drivers/gpio"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/round"
)

// stat looks for a file: a serial port, a key. Tests stand in for it.
var stat = os.Stat

// MaxSimultaneousWindow is the longest simultaneous-draw window a table may set: two
// cards further apart than this were not drawn together by any hand.
const MaxSimultaneousWindow = 2 * time.Second

// Check checks settings that came from elsewhere than a file (flags over a file, say):
// the same checks Parse makes, with the faults named by key alone.
func Check(cfg *Config) error { return (&file{lines: map[string]int{}, ports: true}).check(cfg) }

var (
	tableID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	usbID   = regexp.MustCompile(`^[0-9A-Fa-f]{4}$`)
)

// CheckTableID checks a table's id as the file's table key takes it: 1 to 64 letters,
// digits, '-', '_' or '.', the first a letter or digit (it is a level of every MQTT
// topic), and not the name of a service user of the broker (api.CheckTableUser), since
// the table logs in as its id.
func CheckTableID(id string) error {
	if !tableID.MatchString(id) {
		return fmt.Errorf("%q: want 1 to 64 letters, digits, '-', '_' or '.', the first a letter or digit (it is a level of every MQTT topic)", id)
	}
	return api.CheckTableUser(id)
}

// check makes every check of a decoded configuration and returns Errors, or nil.
func (f *file) check(c *Config) error {
	if err := CheckTableID(c.Table); err != nil {
		f.at("table", "%v", err)
	}
	f.checkRules(c)
	if c.Journal == "" {
		f.at("journal", "no directory given")
	}
	f.checkDealer(c)
	f.checkLimits(c)
	if c.Shoe != nil {
		if _, err := shoe.ParseFormat(c.Shoe.Format); err != nil {
			f.at("shoe.format", "%q: want %s", c.Shoe.Format, shoe.FormatNames())
		}
		f.checkSerial("shoe", c.Shoe.Serial)
	}
	if c.Shuffler != nil {
		f.checkSerial("shuffler", *c.Shuffler)
	}
	if c.Shoe != nil && c.Shuffler != nil && c.Shoe.Port != "" && c.Shoe.Port == c.Shuffler.Port {
		f.at("shuffler.port", "%s is the shoe's port too", c.Shuffler.Port)
	}
	f.checkMQTT(c)
	f.checkAddr("http", c.HTTP)
	f.checkAddr("metrics", c.Metrics)
	if c.HTTP != "" && c.HTTP == c.Metrics {
		f.at("metrics", "%s is the display board's address (http) too", c.Metrics)
	}
	f.checkBoard(c.Board)
	f.checkGPIO(c.GPIO)
	f.checkConsole(c.Console)
	f.checkArchiveService(c.Archive.ArchiveService)
	f.checkArchiveTo(c.Archive.To)
	if len(f.errs) > 0 {
		return f.errs
	}
	return nil
}

func (f *file) checkRules(c *Config) {
	if c.Royal != nil {
		if rb, ok := baccarat.Standard.Get(c.Rules); !ok || !rb.TakesOptions() {
			f.at("royal", "set for rule set %s: the royal section is for rules: %s", c.Rules, strings.Join(baccarat.Standard.OptionNames(), " or "))
		}
		f.checkEndOfRound(c)
	}
	rs, err := baccarat.Lookup(c.Rules, c.royalOptions())
	if err != nil {
		key := "rules"
		if _, ok := baccarat.Standard.Get(c.Rules); ok {
			key = "royal" // the name is right: the variant is not
		}
		f.at(key, "%v", err)
		return
	}
	if c.Decks != 0 {
		if err := rs.CheckDecks(c.Decks); err != nil {
			f.at("decks", "%v", err)
		}
	}
}

func (f *file) checkDealer(c *Config) {
	d := c.Dealer
	if d.SimultaneousWindow < 0 || d.SimultaneousWindow > MaxSimultaneousWindow {
		f.at("dealer.simultaneous_window", "%s: want 0 (off) to %s", d.SimultaneousWindow, MaxSimultaneousWindow)
	}
	var burn round.BurnRule
	name := c.burnName()
	if err := burn.UnmarshalText([]byte(name)); err != nil {
		f.at("dealer.burn", "%v", err)
	}
	switch {
	case burn == round.BurnFixed && !f.set("dealer.burn_count") && f.set("dealer.burn"):
		f.at("dealer.burn", "fixed takes burn_count, the cards burned: 1 to 52")
	case burn == round.BurnFixed && (d.BurnCount < 1 || d.BurnCount > 52):
		f.at("dealer.burn_count", "%d: a fixed burn takes 1 to 52 cards", d.BurnCount)
	case burn != round.BurnFixed && f.set("dealer.burn_count"):
		f.at("dealer.burn_count", "set, but the burn is %s: burn_count is for burn: fixed", name)
	case burn == round.BurnShoe && c.Shoe != nil && !shoe.Format(c.Shoe.Format).BurnMode():
		f.at("dealer.burn", "shoe: the shoe's format %s has no burn mode (beetek has)", c.Shoe.Format)
	}
	switch {
	case d.ShoeStart != "" && d.ShoeStart != "first-card" && d.ShoeStart != "dealer":
		f.at("dealer.shoe_start", "%q: want first-card or dealer", d.ShoeStart)
	case d.ShoeStart != "" && c.Shuffler != nil:
		f.at("dealer.shoe_start", "set with a shuffler: the shuffler's report of a set starts each shoe")
	}
	if d.RoundsAfterCut != 0 && d.RoundsAfterCut != 1 {
		f.at("dealer.rounds_after_cut", "%d: want 0 or 1", d.RoundsAfterCut)
	}
	if _, err := baccarat.ParseRounding(d.Rounding); err != nil {
		f.at("dealer.rounding", "%v", err)
	}
	if d.InsurancePause < 0 || d.InsurancePause > time.Minute {
		f.at("dealer.insurance_pause", "%s: want 0s to 1m", d.InsurancePause)
	}
	if d.OptionsPause < 0 || d.OptionsPause > 5*time.Minute {
		f.at("dealer.options_pause", "%s: want 0s to 5m", d.OptionsPause)
	}
	if d.NoInsurance {
		if rs, err := baccarat.Lookup(c.Rules, c.royalOptions()); err == nil && !rs.Insurance {
			f.at("dealer.no_insurance", "set, but rule set %s has no Insurance to withhold: no_insurance is for a rule set with Insurance (nc-insurance, NC Insurance 4.2.2)", c.Rules)
		}
	}
}

// royalOptions are the rule set's options the royal section gives; none without it.
func (c *Config) royalOptions() baccarat.Options {
	if c.Royal == nil {
		return baccarat.Options{}
	}
	return baccarat.Options{RoyalPaytable: c.Royal.Paytable, RoyalTiers: c.Royal.Tiers}
}

func (f *file) checkSerial(dev string, s Serial) {
	switch {
	case s.Port != "" && s.USB != nil:
		f.at(dev+".usb", "both port and usb are set: give one")
	case s.Port == "" && s.USB == nil:
		f.at(dev, "give its port, or its usb ids")
	case s.Port != "":
		if _, err := stat(s.Port); err != nil && f.ports {
			f.at(dev+".port", "%s does not exist (is the %s plugged in, and its udev rule installed?)", s.Port, dev)
		}
	default:
		if !usbID.MatchString(s.USB.VID) {
			f.at(dev+".usb.vid", "%q: want four hex digits, such as 0403", s.USB.VID)
		}
		if !usbID.MatchString(s.USB.PID) {
			f.at(dev+".usb.pid", "%q: want four hex digits, such as 6001", s.USB.PID)
		}
	}
	if s.Baud < 0 || s.Baud > 4_000_000 {
		f.at(dev+".baud", "%d: want a speed up to 4000000 bits per second", s.Baud)
	}
	if s.DataBits != 0 && (s.DataBits < 5 || s.DataBits > 8) {
		f.at(dev+".data_bits", "%d: want 5 to 8", s.DataBits)
	}
	if !slices.Contains([]string{"", "none", "odd", "even", "mark", "space"}, s.Parity) {
		f.at(dev+".parity", "%q: want none, odd, even, mark or space", s.Parity)
	}
	if s.StopBits != 0 && s.StopBits != 1 && s.StopBits != 2 {
		f.at(dev+".stop_bits", "%d: want 1 or 2", s.StopBits)
	}
}

func (f *file) checkMQTT(c *Config) {
	m := c.MQTT
	if m.URL == "" {
		for _, k := range []string{"username", "password_file", "ca", "cert", "key"} {
			if f.set("mqtt." + k) {
				f.at("mqtt."+k, "set without mqtt.url: the embedded broker takes no credentials")
			}
		}
		f.checkAddr("broker.listen", c.Broker.Listen)
		f.checkAddr("broker.websocket", c.Broker.WebSocket)
		for _, k := range []struct{ key, addr string }{{"broker.listen", c.Broker.Listen}, {"broker.websocket", c.Broker.WebSocket}} {
			if k.addr == "" || f.lastKey(k.key) {
				continue
			}
			if err := broker.CheckLoopback(k.key, k.addr); err != nil {
				f.at(k.key, "%s", strings.TrimPrefix(err.Error(), "broker: "))
			}
		}
		if c.Broker.Listen == "" {
			f.at("broker.listen", "no address: the embedded broker needs one (or set mqtt.url)")
		}
		f.checkBrokerAccess(c.Broker)
		return
	}
	if f.set("broker") {
		f.at("broker", "set with mqtt.url: the broker section is for the embedded broker, which does not run with an external one")
	}
	u, err := url.Parse(m.URL)
	if err != nil || u.Host == "" || !slices.Contains([]string{"tcp", "ssl", "tls", "mqtt", "mqtts", "ws", "wss"}, u.Scheme) {
		f.at("mqtt.url", "%q: want tcp://host:1883 or ssl://host:8883", m.URL)
	}
	for _, k := range []struct{ key, path string }{{"mqtt.password_file", m.PasswordFile}, {"mqtt.ca", m.CA},
		{"mqtt.cert", m.Cert}, {"mqtt.key", m.Key}} {
		if k.path == "" {
			continue
		}
		if _, err := stat(k.path); err != nil {
			f.at(k.key, "%s does not exist", k.path)
		}
	}
	if (m.Cert == "") != (m.Key == "") {
		f.at("mqtt.cert", "a client certificate takes both cert and key")
	}
	if _, err := api.NewTopics(m.Username); err == nil && api.CheckTableUser(m.Username) != nil {
		f.at("mqtt.username", "%q is a service user of the broker, not a table: each table logs in as its own table id (%s), the default when username is left out (deploy/mosquitto/acl)", m.Username, c.Table)
	}
}

// MQTTUsername is the user the table logs in to an external broker as: mqtt.username,
// or, when the file and the flags give none, the table's id. Each table is its own user
// of the broker (deploy/mosquitto/acl). It is "" with the embedded broker, which
// takes no credentials.
func (c *Config) MQTTUsername() string {
	switch {
	case c.MQTT.URL == "":
		return ""
	case c.MQTT.Username != "":
		return c.MQTT.Username
	}
	return c.Table
}

// checkBoard checks the display board's settings.
func (f *file) checkBoard(b Board) {
	if !slices.Contains([]string{"en", "zh", "en+zh", "zh+en"}, b.Lang) {
		f.at("board.lang", "%q: want en, zh, en+zh or zh+en", b.Lang)
	}
	if !slices.Contains([]string{"simplified", "traditional"}, b.Script) {
		f.at("board.script", "%q: want simplified or traditional", b.Script)
	}
	if len(b.Game) > 80 || strings.ContainsAny(b.Game, "\r\n") {
		f.at("board.game", "%q: want one line of at most 80 bytes", b.Game)
	}
	if b.ResultHold < 0 || b.ResultHold > MaxResultHold {
		f.at("board.result_hold", "%s: want 0s (off) to %s", b.ResultHold, MaxResultHold)
	}
	if b.Logo != "" {
		if ext := strings.ToLower(filepath.Ext(b.Logo)); !slices.Contains([]string{".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg"}, ext) {
			f.at("board.logo", "%s: want a .png, .jpg, .gif, .webp or .svg file", b.Logo)
		} else if _, err := stat(b.Logo); err != nil {
			f.at("board.logo", "%s does not exist", b.Logo)
		}
	}
}

// checkAddr checks a host:port to listen on; "" is none.
func (f *file) checkAddr(key, addr string) {
	if addr == "" {
		return
	}
	if _, port, err := net.SplitHostPort(addr); err != nil || port == "" {
		f.at(key, "%q: want host:port, such as 127.0.0.1:8080 or :8080", addr)
	}
}

func (f *file) checkGPIO(g GPIO) {
	if g.Debounce < 0 || g.Debounce > gpio.MaxDebounce {
		f.at("gpio.debounce", "%s: want 0 to %s", g.Debounce, gpio.MaxDebounce)
	}
	roles := map[gpio.Role]string{}
	pins := map[int]string{}
	dealers := map[string]string{}
	for i, p := range g.Pins {
		key := "gpio.pins[" + itoa(i+1) + "]"
		role, err := gpio.ParseRole(p.Role)
		if err != nil {
			f.at(key+".role", "%q: want one of %s", p.Role, strings.Join(gpioRoles(), ", "))
		} else if role.IsDealer() {
			f.checkBadge(key, p.Dealer, dealers)
		} else if p.Dealer != "" {
			f.at(key+".dealer", "%q named on role %s: only role dealer names a dealer", p.Dealer, p.Role)
		} else if other, dup := roles[role]; dup {
			f.at(key+".role", "%s is given twice (%s and %s)", p.Role, other, key)
		} else {
			roles[role] = key
		}
		n, ok := piPin(p.Pin)
		switch {
		case p.Pin == "":
			f.at(key+".pin", "no pin name")
		case !ok:
			f.at(key+".pin", "unknown pin name %q: want GPIO0 to GPIO27, a header position P1_3 to P1_40 that carries one, or its number", p.Pin)
		default:
			if other, dup := pins[n]; dup {
				f.at(key+".pin", "%s is GPIO%d, already given at %s", p.Pin, n, other)
			} else {
				pins[n] = key
			}
		}
		var pull gpio.Pull
		if err := pull.UnmarshalText([]byte(p.Pull)); err != nil {
			f.at(key+".pull", "%q: want up, down, float or none given", p.Pull)
		} else if pull != gpio.PullAsIs && role.Valid() && role.IsOutput() {
			f.at(key+".pull", "pull %s set on an output (%s)", p.Pull, p.Role)
		}
	}
}

// checkBadge checks the dealer a dealer's badge at key names: one is named, the name is
// one a command could carry (gpio.CheckDealerName), and no other badge, of those in
// dealers, names it.
func (f *file) checkBadge(key, dealer string, dealers map[string]string) {
	if dealer == "" {
		f.at(key, "role dealer: no dealer named (give the badge's dealer)")
		return
	}
	if err := gpio.CheckDealerName(dealer); err != nil {
		f.at(key+".dealer", "%s", err)
		return
	}
	if other, dup := dealers[dealer]; dup {
		f.at(key+".dealer", "%q is given twice (%s and %s)", dealer, other, key)
		return
	}
	dealers[dealer] = key
}

func gpioRoles() []string {
	var names []string
	for r := gpio.Role(1); r.Valid(); r++ {
		names = append(names, r.String())
	}
	return names
}

// Round returns the round controller's settings and the rule set.
func (c *Config) Round() (round.Config, error) {
	rs, err := baccarat.Lookup(c.Rules, c.royalOptions())
	if err != nil {
		return round.Config{}, err
	}
	rc := round.DefaultConfig(rs)
	rc.Decks = c.Decks
	rc.CloseBetsOnFirstCard = c.Dealer.Auto
	rc.SimultaneousWindow = c.Dealer.SimultaneousWindow
	if err := rc.Burn.UnmarshalText([]byte(c.burnName())); err != nil {
		return round.Config{}, err
	}
	if c.NoShuffler() {
		// No shuffler reports a set: the table knows its deck count, and a shoe starts
		// at its first card unless the dealer starts it.
		if rc.Decks == 0 {
			rc.Decks = NoShufflerDecks
		}
		rc.ShoeOnFirstCard = c.Dealer.ShoeStart != "dealer"
	}
	if rc.Burn == round.BurnFixed {
		rc.BurnCount = c.Dealer.BurnCount
	}
	rc.RoundsAfterCut = c.Dealer.RoundsAfterCut
	rc.BurnExcessCards = c.Dealer.BurnExcessCards
	if rc.Rounding, err = baccarat.ParseRounding(c.Dealer.Rounding); err != nil {
		return round.Config{}, err
	}
	rc.PayRounded, rc.NoInsurance = c.Dealer.PayRounded, c.Dealer.NoInsurance
	rc.SetPerRound = c.Royal != nil && c.Royal.EndOfRound == "reshuffle"
	if rc.Limits, err = c.Limits.Round(rs); err != nil {
		return round.Config{}, err
	}
	return rc, nil
}

// NoShuffler says whether the table has a shoe and no shuffler on a serial line.
func (c *Config) NoShuffler() bool { return c.Shoe != nil && c.Shuffler == nil }

// burnName is the burn rule's name: the one set, or the shoe's own when none is
// (docs/config.md, dealer.burn).
func (c *Config) burnName() string {
	if c.Dealer.Burn != "" {
		return c.Dealer.Burn
	}
	if c.Shoe != nil && shoe.Format(c.Shoe.Format).BurnMode() {
		return round.BurnShoe.String()
	}
	return round.BurnByFirstCard.String()
}

// ShoeConfig returns the shoe driver's settings; nil when the table has no shoe.
func (c *Config) ShoeConfig() *shoe.Config {
	if c.Shoe == nil {
		return nil
	}
	return &shoe.Config{Format: shoe.Format(c.Shoe.Format), Port: c.Shoe.Serial.device()}
}

// GPIOConfig returns the GPIO driver's settings. The pins are checked already.
func (c *Config) GPIOConfig() gpio.Config {
	g := gpio.Config{Debounce: c.GPIO.Debounce}
	for _, p := range c.GPIO.Pins {
		role, _ := gpio.ParseRole(p.Role)
		var pull gpio.Pull
		_ = pull.UnmarshalText([]byte(p.Pull))
		g.Pins = append(g.Pins, gpio.PinConfig{Role: role, Pin: p.Pin, ActiveLow: p.ActiveLow, Pull: pull, Dealer: p.Dealer})
	}
	return g
}

// lastKey says whether the last fault found is on key: one fault a key is enough.
func (f *file) lastKey(key string) bool {
	return len(f.errs) > 0 && f.errs[len(f.errs)-1].Key == key
}
