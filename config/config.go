// Package config reads tablectl's configuration file: one YAML file that says which
// table this is, its rules, its devices, its GPIO pins and where its messages go
// (docs/config.md). Reading is strict: an unknown key, a value of the wrong kind, a deck
// count the rule set does not allow, an unknown pin name, a serial port that does not
// exist or two settings that contradict each other is an error naming the file, the line
// and the key. Every error in a file is reported, not just the first.
package config

import (
	"strings"
	"time"
)

// Config is the configuration of one table. The zero value is not usable; Default
// returns the settings a key left out of the file takes.
type Config struct {
	// Table is the table's id, the third level of every MQTT topic, and the user the
	// table logs in to an external broker as. It is never a service user's name
	// (api.CheckTableUser).
	Table string `yaml:"table"`
	// Rules names the rule set: classic, rws, nc-tournament, nc-insurance or royal.
	Rules string `yaml:"rules"`
	// Royal chooses Royal Baccarat's pay table and tiers; only with rules: royal.
	Royal *Royal `yaml:"royal"`
	// Decks is how many decks a set holds at this table; 0 takes whatever the shuffler
	// reports, within the rule set's range.
	Decks int `yaml:"decks"`
	// Journal is the journal's directory.
	Journal string `yaml:"journal"`
	// JournalKey is the table's signing key, which signs the journal's chain head at each
	// round's end; "" is the journal directory's name with .key, beside it (journal.key for
	// the journal /var/lib/tablectl/journal). It is made on the first
	// start (docs/journal.md, "Tamper evidence").
	JournalKey string `yaml:"journal_key"`
	// Dealer holds how the round is run.
	Dealer Dealer `yaml:"dealer"`
	// Limits are the table's betting limits (limits.go); nil: none.
	Limits *Limits `yaml:"limits"`
	// Shoe and Shuffler are the devices' serial lines; nil when the table has none.
	Shoe     *Shoe   `yaml:"shoe"`
	Shuffler *Serial `yaml:"shuffler"`
	// MQTT is the external broker; with no URL the embedded broker (Broker) runs.
	MQTT MQTT `yaml:"mqtt"`
	// Broker is the embedded broker's listeners.
	Broker Broker `yaml:"broker"`
	// HTTP is where the display board is served; "" serves none.
	HTTP string `yaml:"http"`
	// Board is what the display board shows besides the table's messages.
	Board Board `yaml:"board"`
	// Metrics is where Prometheus metrics are served; "" serves none.
	Metrics string `yaml:"metrics"`
	// Log says how tablectl logs.
	Log Log `yaml:"log"`
	// GPIO is the dealer's buttons, the shoe's sensors, the tower light and the buzzer.
	GPIO GPIO `yaml:"gpio"`
	// Console is tablectl-floor console's section (console.go); tablectl run ignores it.
	Console Console `yaml:"console"`
	// Archive is the archive section (archiveservice.go): the table's side of the floor's
	// archive (Ship, docs/archive.md, "Shipping") and tablectl-floor archive's settings.
	Archive Archive `yaml:"archive"`

	// parts is what the file's keys configure (Parts); the zero value for a
	// configuration no file gave.
	parts Parts
}

// Parts says what a configuration file configures: a table, a console, an archive, or
// more than one of them.
type Parts struct {
	// Table: the file sets a key of the table's: any top-level key but console,
	// archive and log, or archive.ship or archive.to. A file that sets none of the
	// others (an empty file, say) is a table's too, all defaults.
	Table bool
	// Console: the file has a console section (tablectl-floor console).
	Console bool
	// Archive: the file's archive section sets a key but ship and to (tablectl-floor
	// archive).
	Archive bool
}

// Parts returns what the file configures (Parts's rule, docs/config.md, "What a file
// configures"). A configuration no file gave is a table's.
func (c *Config) Parts() Parts {
	p := c.parts
	if !p.Console && !p.Archive {
		p.Table = true
	}
	return p
}

// partsOf is what a file whose keys are keys (paths such as "archive.db",
// "gpio.pins[1].pin") configures.
func partsOf(keys []string) Parts {
	var p Parts
	for _, k := range keys {
		top, rest, _ := strings.Cut(k, ".")
		switch {
		case top == "console":
			p.Console = true
		case top == "archive" && rest == "":
			// the section's own line: its keys say whose it is
		case top == "archive" && (rest == "ship" || rest == "to" || strings.HasPrefix(rest, "to[")):
			p.Table = true
		case top == "archive":
			p.Archive = true
		case top == "log":
		default:
			p.Table = true
		}
	}
	return p
}

// Board is the display board's language, script, game name and logo (docs/board.md).
type Board struct {
	// Lang is the labels' language or pair of languages: en, zh, en+zh or zh+en
	// (the first in large type, the second beside it).
	Lang string `yaml:"lang"`
	// Script is the script of the board's Chinese: simplified (庄, 闲, 百家乐) or
	// traditional (莊, 閒, 百家樂).
	Script string `yaml:"script"`
	// Game is the game's name in the board's header; "" names it after the rule set.
	Game string `yaml:"game"`
	// Logo is an image file (.png, .jpg, .gif, .webp or .svg) shown in the header.
	Logo string `yaml:"logo"`
	// ResultHold is how long the board keeps a completed round on screen (its cards,
	// points, winner and the phase Result) once the next round's betting opens, unless
	// that round's first card comes first; 0 shows each state as it comes.
	ResultHold time.Duration `yaml:"result_hold"`
}

// DefaultResultHold is board.result_hold when the file leaves it out.
const DefaultResultHold = 5 * time.Second

// MaxResultHold is the longest board.result_hold.
const MaxResultHold = time.Minute

// Royal is Royal Baccarat's variant: its Tie pay table (1 to 5) and tiers (4 or 3), and
// its end of round: discard ("", the usual shoe) or reshuffle (a set per round).
type Royal struct {
	Paytable int `yaml:"paytable"`
	Tiers    int `yaml:"tiers"`
	// EndOfRound is what becomes of the cards after a round (Royal Baccarat, End of
	// round): discard (squeeze play; "" means it) or reshuffle (dealt face up).
	EndOfRound string `yaml:"end_of_round"`
}

// Dealer holds how the round is run and what tablectl does in the dealer's stead.
type Dealer struct {
	// Auto stands in for the dealer's buttons: betting closes on a round's first card,
	// Insurance closes at once, each complete round is confirmed.
	Auto bool `yaml:"auto"`
	// SimultaneousWindow: two cards of a round read closer together than this were drawn
	// together (RWS Baccarat 5.10); 0 turns the check off.
	SimultaneousWindow time.Duration `yaml:"simultaneous_window"`
	// Burn is the burn rule: first-card, fixed, none or shoe (the shoe's burn mode);
	// BurnCount the cards burned under fixed. "" takes the shoe's: shoe for a format
	// with a burn mode (beetek), first-card otherwise.
	Burn      string `yaml:"burn"`
	BurnCount int    `yaml:"burn_count"`
	// ShoeStart is when a shoe starts at a table with a shoe and no shuffler: first-card
	// (the first card read after the previous shoe ended; "" means it) or dealer (the
	// new_shoe command or button). With a shuffler, its report of a set starts a shoe.
	ShoeStart string `yaml:"shoe_start"`
	// RoundsAfterCut is how many rounds follow the one in which the cut card comes out:
	// 1 or 0.
	RoundsAfterCut int `yaml:"rounds_after_cut"`
	// BurnExcessCards burns a card drawn in excess instead of keeping it as the next
	// round's first card (RWS Baccarat 5.7).
	BurnExcessCards bool `yaml:"burn_excess_cards"`
	// Rounding is how a payout's fraction of a unit is rounded: down, half-up or up.
	// It applies only with PayRounded.
	Rounding string `yaml:"rounding"`
	// PayRounded accepts a stake whose winnings are not a whole number of units and
	// rounds its payout; otherwise such a stake is refused when bets close.
	PayRounded bool `yaml:"pay_rounded"`
	// NoInsurance: the table offers no Insurance (NC Insurance 4.2.2).
	NoInsurance bool `yaml:"no_insurance"`
	// InsurancePause: with Auto, how long an Insurance offer stays open before it is
	// closed; 0 closes it at once.
	InsurancePause time.Duration `yaml:"insurance_pause"`
	// OptionsPause: with Auto, how long the players' options window of RWS Baccarat
	// 5.12 stays open before the table closes it (the boxes that chose nothing
	// continue); 0 closes it as it opens.
	OptionsPause time.Duration `yaml:"options_pause"`
}

// Serial is a device's serial line.
type Serial struct {
	// Port is the device's path, such as /dev/tablectl-shoe; or USB finds it by its ids.
	Port string `yaml:"port"`
	USB  *USB   `yaml:"usb"`
	// Baud, DataBits, Parity (none, odd, even, mark or space) and StopBits are the line
	// settings.
	Baud     int    `yaml:"baud"`
	DataBits int    `yaml:"data_bits"`
	Parity   string `yaml:"parity"`
	StopBits int    `yaml:"stop_bits"`
}

// USB finds a USB-serial adapter by its vendor and product ids (four hex digits each)
// and, when several are alike, its serial number.
type USB struct {
	VID    string `yaml:"vid"`
	PID    string `yaml:"pid"`
	Serial string `yaml:"serial"`
}

// Shoe is the shoe's serial line and its wire format.
type Shoe struct {
	Serial `yaml:",inline"`
	// Format is the wire format: tablectl, ascii, scanner or beetek (shoe.Formats).
	Format string `yaml:"format"`
}

// MQTT is the external broker tablectl publishes to.
type MQTT struct {
	// URL is tcp://host:1883 or ssl://host:8883; "" runs the embedded broker.
	URL string `yaml:"url"`
	// Username is the user tablectl logs in as. For a table, "" is its table id
	// (Config.MQTTUsername): each table is its own user of the broker.
	Username string `yaml:"username"`
	// PasswordFile holds the password (the environment's TABLECTL_MQTT_PASSWORD is
	// used when there is none).
	PasswordFile string `yaml:"password_file"`
	// CA, Cert and Key are PEM files: the CAs that sign the broker's certificate, and
	// the client's certificate and key.
	CA   string `yaml:"ca"`
	Cert string `yaml:"cert"`
	Key  string `yaml:"key"`
}

// Broker is the embedded broker's MQTT and WebSocket addresses ("" for no WebSocket),
// the origins of the pages that may open its WebSocket (the board's own when empty),
// and the users that may give commands.
type Broker struct {
	Listen           string       `yaml:"listen"`
	WebSocket        string       `yaml:"websocket"`
	WebSocketOrigins []string     `yaml:"websocket_origins"`
	Users            []BrokerUser `yaml:"users"`
}

// BrokerUser is a user of the embedded broker: a name, the bcrypt hash of its password
// and its role (dealer, supervisor, pitsystem or board, as in deploy/mosquitto/acl).
type BrokerUser struct {
	Name         string `yaml:"name"`
	PasswordHash string `yaml:"password_hash"`
	Role         string `yaml:"role"`
}

// Log says how tablectl logs: as text lines, or JSON lines.
type Log struct {
	JSON bool `yaml:"json"`
}

// GPIO is the pins tablectl reads and drives, and the inputs' debounce time.
type GPIO struct {
	Debounce time.Duration `yaml:"debounce"`
	Pins     []Pin         `yaml:"pins"`
}

// Pin gives one pin a role (docs/gpio.md). Dealer names the dealer whose badge a pin of
// role dealer reads; no other role takes it.
type Pin struct {
	Role      string `yaml:"role"`
	Pin       string `yaml:"pin"`
	ActiveLow bool   `yaml:"active_low"`
	Pull      string `yaml:"pull"`
	Dealer    string `yaml:"dealer"`
}

// NoShufflerDecks is the deck count of a table with a shoe and no shuffler whose decks
// setting is 0: with no shuffler to report a set, the table must know it.
const NoShufflerDecks = 8

// NoShufflerChecksOff says which checks a table without a serial shuffler loses
// (docs/irregularities.md, "A table without a serial shuffler"), for its log.
const NoShufflerChecksOff = "no shuffler: the checks that need one are off (the shuffler's count and recorded order of a set, its count-error and unshuffled reports, a repeated order); a card seen more often than the decks hold, insufficient cards and unread cards are still caught"

// DefaultOptionsPause is how long a table standing in for the dealer leaves the
// players' options window open (Dealer.OptionsPause) when the file does not say.
const DefaultOptionsPause = 30 * time.Second

// Default returns the settings of a key the file leaves out.
func Default() Config {
	return Config{
		Table:   "table-1",
		Rules:   "classic",
		Journal: "/var/lib/tablectl/journal",
		Dealer: Dealer{SimultaneousWindow: 150 * time.Millisecond, RoundsAfterCut: 1,
			Rounding: "down", OptionsPause: DefaultOptionsPause},
		Broker: Broker{Listen: "127.0.0.1:1883", WebSocket: "127.0.0.1:1884"},
		HTTP:   "127.0.0.1:8080",
		Board:  Board{Lang: "en+zh", Script: "simplified", ResultHold: DefaultResultHold},
		GPIO:   GPIO{Debounce: 20 * time.Millisecond},

		Console: DefaultConsole(),
		Archive: Archive{ArchiveService: DefaultArchiveService()},
	}
}
