package shoe

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/tablectl/tablectl/drivers/device"
)

// Format is a shoe's wire format, named as configuration and flags name it (docs/protocol.md).
// It is the one place that says what a format can carry: the rest of tablectl asks it
// (Numbered, Acknowledged, BurnMode...) and never compares a format's name. Its zero value
// is not a format; ParseFormat reads one.
type Format string

// The wire formats.
const (
	// Tablectl is tablectl's framed binary protocol: numbered frames, cards and signals,
	// the hello exchange, acknowledgement and resend.
	Tablectl Format = "tablectl"
	// ASCII is the line format of common smart shoes: one card a line.
	ASCII Format = "ascii"
	// Scanner is the five-character code format of card scanners.
	Scanner Format = "scanner"
	// BeeTek is the Bee-Tek electronic shoe's ASCII stream: angle-bracket frames with the
	// shoe's mode, cards read in play or in its burn mode, failed reads, alarms and
	// warnings.
	BeeTek Format = "beetek"
)

// Formats lists every wire format, the default first.
var Formats = []Format{Tablectl, ASCII, Scanner, BeeTek}

// traits is what a format can carry.
type traits struct {
	numbered bool // cards and signals carry the shoe's numbers
	acked    bool // the host acknowledges; the shoe resends what is not acknowledged
	hello    bool // the host says hello when the port opens, the shoe answers
	burnMode bool // the shoe marks the cards it reads in its burn mode
	faults   bool // the shoe reports its faults (alarms, warnings)
	signals  bool // the shoe reports the cut card, an empty shoe, its lid, a double card
	misreads bool // the shoe says when a card passed unread
}

var formatTraits = map[Format]traits{
	Tablectl: {numbered: true, acked: true, hello: true, faults: true, signals: true},
	ASCII:    {},
	Scanner:  {},
	BeeTek:   {burnMode: true, faults: true, misreads: true},
}

// FormatNames is the list of the formats' names for help texts and errors:
// "tablectl, ascii, scanner or beetek".
func FormatNames() string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ParseFormat reads a format's name; an unknown name is an error that lists the formats.
func ParseFormat(name string) (Format, error) {
	f := Format(name)
	if err := f.Check(); err != nil {
		return "", err
	}
	return f, nil
}

// Check says whether f is a wire format tablectl knows.
func (f Format) Check() error {
	if _, ok := formatTraits[f]; !ok {
		return fmt.Errorf("shoe wire format %q: want %s", string(f), FormatNames())
	}
	return nil
}

// String is the format's name.
func (f Format) String() string { return string(f) }

// Set reads a format's name: a Format is a flag.Value.
func (f *Format) Set(name string) error {
	v, err := ParseFormat(name)
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// Numbered says whether the shoe numbers its cards and signals on this format
// (docs/protocol.md, "Card numbers"): a card that passed unread shows as a gap, a card
// sent again is told from a new one, and a shoe powered off and on is seen. Without
// numbers an unreadable card can only be caught as it happens.
func (f Format) Numbered() bool { return formatTraits[f].numbered }

// Acknowledged says whether the host acknowledges each card and signal it has recorded on
// this format, the shoe sending again after its hello those it has no acknowledgement for
// (docs/protocol.md, "Acknowledgement and resend").
func (f Format) Acknowledged() bool { return formatTraits[f].acked }

// Hello says whether the host speaks first on this format each time the port opens, and
// the shoe answers with its own hello.
func (f Format) Hello() bool { return formatTraits[f].hello }

// TellsMisreads says whether the format tells a card that passed the reader unread from
// noise on the line: it numbers its cards (an unreadable card keeps its number, a lost
// one leaves a gap) or the shoe reports its failed reads. On a format that does not,
// any unreadable input may have been a card (device.Event.Misread).
func (f Format) TellsMisreads() bool { t := formatTraits[f]; return t.numbered || t.misreads }

// BurnMode says whether the shoe marks the cards it reads in its burn mode on this format
// (device.Event.Burn), so the shoe's burn mode can be the table's burn procedure.
func (f Format) BurnMode() bool { return formatTraits[f].burnMode }

// Faults says whether the shoe reports its own faults on this format (device.Fault).
func (f Format) Faults() bool { return formatTraits[f].faults }

// Signals says whether the shoe reports the cut card, an empty shoe, its lid and a double
// card on this format; without them the table's GPIO sensors stand in (docs/gpio.md).
func (f Format) Signals() bool { return formatTraits[f].signals }

// NewDecoder returns a fresh decoder of the format.
func (f Format) NewDecoder() (device.Decoder, error) {
	switch f {
	case Tablectl:
		return NewFramedDecoder(), nil
	case ASCII:
		return &ASCIIDecoder{}, nil
	case Scanner:
		return &ScannerDecoder{}, nil
	case BeeTek:
		return &BeeTekDecoder{}, nil
	}
	return nil, f.Check()
}

// NewEncoder returns an encoder writing the format to w: the shoe's side, for the
// simulator and the tests.
func (f Format) NewEncoder(w io.Writer) (Encoder, error) {
	switch f {
	case Tablectl:
		return NewFramedEncoder(w), nil
	case ASCII:
		return &ASCIIEncoder{W: w, cardsOnly: cardsOnly{"ascii"}}, nil
	case Scanner:
		return &ScannerEncoder{W: w, cardsOnly: cardsOnly{"scanner"}}, nil
	case BeeTek:
		return &BeeTekEncoder{W: w}, nil
	}
	return nil, f.Check()
}

// Damage returns msg, one message an encoder of the format wrote, damaged as a line fault
// would damage it so that the decoder cannot read the card in it: the simulator's
// "corrupt" fault. msg is changed in place.
func (f Format) Damage(msg []byte) []byte {
	switch f {
	case Tablectl: // flip a bit of the first payload byte: the checksum fails
		if len(msg) > 5 {
			msg[5] ^= 0x40
		}
	case Scanner: // no such suit digit
		if len(msg) > 1 {
			msg[1] = '9'
		}
	case BeeTek: // no such rank or suit
		if i := bytes.Index(msg, []byte("Card:")); i >= 0 && i+5 < len(msg) {
			msg[i+5] = '?'
		}
	default: // an ASCII line: no such suit letter
		if len(msg) > 0 {
			msg[0] = '?'
		}
	}
	return msg
}
