// Package device holds what the serial card devices (the electronic shoe and the
// automatic shuffler) share: the driver event, the port abstraction with its test double,
// and the read loop that reports a lost port, reopens it with backoff and reports it back.
// It knows no baccarat rules: it moves bytes and typed events.
package device

import (
	"fmt"
	"strings"
	"time"

	"github.com/tablectl/tablectl/baccarat"
)

// Kind is what an Event reports.
type Kind uint8

// The kinds of event a shoe or shuffler driver reports.
const (
	KindNone        Kind = iota
	CardDrawn            // a card left the shoe: Card, Flags, CardNo
	CutCard              // the cut card was reached
	ShoeEmpty            // the shoe has no card left
	LidOpened            // the shoe's lid was opened
	LidClosed            // the shoe's lid was closed
	DoubleCard           // two cards were sensed at once
	Heartbeat            // the device is alive
	Fault                // a device fault: Code, Text
	Hello                // the device said who it is: Version, Text
	Unreadable           // input that is not a message: Reason (and CardNo for an unreadable card)
	SeqGap               // sequence numbers were skipped: Seq, Expected
	Disconnected         // the port went away: Reason
	Reconnected          // the port is back
	ShuffleComplete      // a set was shuffled: SetID, Decks, Cards, Order
	ShufflerJam          // the shuffler jammed: SetID
	CountError           // the shuffler counted a wrong number of cards: SetID, Expected, Cards
	NotShuffled          // the set left the shuffler unshuffled: SetID
)

var kindNames = [...]string{
	KindNone: "none", CardDrawn: "card", CutCard: "cut-card", ShoeEmpty: "shoe-empty",
	LidOpened: "lid-opened", LidClosed: "lid-closed", DoubleCard: "double-card",
	Heartbeat: "heartbeat", Fault: "fault", Hello: "hello", Unreadable: "unreadable",
	SeqGap: "seq-gap", Disconnected: "disconnected", Reconnected: "reconnected",
	ShuffleComplete: "shuffle-complete", ShufflerJam: "jam", CountError: "count-error",
	NotShuffled: "not-shuffled",
}

// String names the kind, for example "card" or "seq-gap".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Event is one thing a driver read from its device, or a change of its connection.
// Fields that do not apply to the Kind are zero.
type Event struct {
	Kind Kind
	Time time.Time // when the driver read it, from the driver's clock

	// Seq is the device's sequence number, valid when HasSeq; for SeqGap it is the number
	// received and Expected the number that was due.
	Seq    uint16
	HasSeq bool

	Card  baccarat.Card // CardDrawn
	Flags uint8         // CardDrawn and the shoe's signals: the frame's flag bits (docs/protocol.md)
	// CardNo is the shoe's count of the cards it has read since it powered up and said
	// Hello, this card included: 1 for the first, wrapping from 65535 to 0
	// (docs/protocol.md, "Card numbers"). It is valid when HasCardNo: for CardDrawn, and
	// for Unreadable when a Card drawn message's card code is not a card. Only the
	// tablectl protocol carries it, not the ASCII and scanner formats.
	CardNo    uint16
	HasCardNo bool
	// SignalNo is the shoe's count of its signals (cut card, shoe empty, lid opened or
	// closed, double card), counted like CardNo (docs/protocol.md, "Signal numbers"). It
	// is valid when HasSignalNo: for those kinds on the tablectl protocol.
	SignalNo    uint16
	HasSignalNo bool
	// ShoeTime is when the shoe read the card by its own clock (CardDrawn), in
	// milliseconds from an origin of the shoe's own, wrapping from 2^32-1 to 0
	// (docs/protocol.md, "Shoe time"). It is valid when HasShoeTime: only a shoe that
	// stamps its cards on the tablectl protocol carries it. Unlike Time it does not
	// depend on when the host read the card.
	ShoeTime    uint32
	HasShoeTime bool

	// Resent: the shoe sends this numbered card or signal again, because the host had not
	// acknowledged it when it said hello: the host may have it already (docs/protocol.md,
	// "Acknowledgement and resend").
	Resent bool
	// Burn: the card was read in the shoe's burn mode (CardDrawn), or the failed read was
	// (Unreadable): a burned card, never one for a hand (docs/protocol.md, "The Bee-Tek
	// stream").
	Burn bool
	// Misread, for Unreadable: a card left the shoe and could not be named. The shoe said
	// so (a failed read), or the damage was in a card's own message. Without it, damage
	// is known to hold no card only where the format numbers its cards (HasCardNo) or
	// tells a failed read (see shoe.Format.TellsMisreads).
	Misread bool

	SetID    uint32          // the card-set identity, where the protocol carries one
	Decks    int             // ShuffleComplete
	Cards    int             // ShuffleComplete, CountError: cards in (or counted in) the set
	Expected int             // SeqGap: the sequence number due; CountError: cards due
	Order    []baccarat.Card // ShuffleComplete: the shuffled order, when the shuffler sent it

	Code    uint8  // Fault: the device's fault code
	Text    string // Fault, Hello: the device's text
	Reason  string // Unreadable, Disconnected: what was wrong, and where
	Version uint8  // Hello: protocol version
}

// Numbered says whether e is a card or signal the device numbers and sends again until
// the host acknowledges it (docs/protocol.md, "Acknowledgement and resend").
func (e Event) Numbered() bool { return e.HasCardNo || e.HasSignalNo }

// String prints the event on one line without its time, as the scenario transcripts do,
// for example "card KS no=12 seq=13" or "unreadable: line 3: unknown suit 'x'".
func (e Event) String() string {
	var b strings.Builder
	b.WriteString(e.Kind.String())
	switch e.Kind {
	case CardDrawn:
		fmt.Fprintf(&b, " %s", e.Card)
		if e.Burn {
			b.WriteString(" burn")
		}
		if e.Flags != 0 {
			fmt.Fprintf(&b, " flags=0x%02X", e.Flags)
		}
		if e.HasCardNo {
			fmt.Fprintf(&b, " no=%d", e.CardNo)
		}
		if e.HasShoeTime {
			fmt.Fprintf(&b, " shoe=%dms", e.ShoeTime)
		}
	case SeqGap:
		fmt.Fprintf(&b, " expected=%d", e.Expected)
	case ShuffleComplete:
		fmt.Fprintf(&b, " set=%d decks=%d cards=%d", e.SetID, e.Decks, e.Cards)
		if e.Order != nil {
			fmt.Fprintf(&b, " order=%d", len(e.Order))
		}
	case ShufflerJam, NotShuffled:
		fmt.Fprintf(&b, " set=%d", e.SetID)
	case CountError:
		fmt.Fprintf(&b, " set=%d expected=%d counted=%d", e.SetID, e.Expected, e.Cards)
	case CutCard, ShoeEmpty, LidOpened, LidClosed, DoubleCard:
		if e.Flags != 0 {
			fmt.Fprintf(&b, " flags=0x%02X", e.Flags)
		}
		if e.HasSignalNo {
			fmt.Fprintf(&b, " no=%d", e.SignalNo)
		}
	case Fault:
		fmt.Fprintf(&b, " code=%d %q", e.Code, e.Text)
	case Unreadable:
		if e.Misread {
			b.WriteString(" misread")
		}
		if e.Burn {
			b.WriteString(" burn")
		}
	case Hello:
		fmt.Fprintf(&b, " version=%d %q", e.Version, e.Text)
	}
	if e.HasSeq {
		fmt.Fprintf(&b, " seq=%d", e.Seq)
	}
	if e.Reason != "" {
		fmt.Fprintf(&b, ": %s", e.Reason)
	}
	return b.String()
}
