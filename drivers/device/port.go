package device

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"go.bug.st/serial"
)

// Port is an open serial line. Read may return (0, nil) when a read timeout expires with
// no byte received; callers read again. Close makes a blocked Read return; calling Close
// more than once is harmless. Write must be safe while a Read is under way: the Driver
// reads from its own goroutine and writes (the host's hello when the port opens, an
// acknowledgement when its owner asks) from any, one write at a time, never after Close.
type Port interface {
	io.Reader
	io.Writer
	io.Closer
}

// Opener opens the device's port, waiting at most until ctx is done.
type Opener interface {
	Open(ctx context.Context) (Port, error)
}

// Parity is a serial line's parity setting: "none", "odd", "even", "mark" or "space".
type Parity string

// Config names a serial port and sets its line. The port is Path, or, when Path is empty,
// the USB device with VID, PID and (when not empty) SerialNumber; the ids are compared
// without regard to case, so "0403" and "0403", "6a01" and "6A01" match.
type Config struct {
	Path         string
	VID, PID     string
	SerialNumber string

	Baud     int    // bits per second; 0 means 9600
	DataBits int    // 5 to 8; 0 means 8
	Parity   Parity // "" means none
	StopBits int    // 1 or 2; 0 means 1

	// ReadTimeout bounds one Read; 0 means 500 ms. A Read that times out returns (0, nil).
	ReadTimeout time.Duration

	// DTR and RTS, when not nil, set those modem lines after opening. A pseudo-terminal
	// has no modem lines, so leave them nil there.
	DTR, RTS *bool
}

// mode turns the line settings into go.bug.st/serial's.
func (c Config) mode() (*serial.Mode, error) {
	m := &serial.Mode{BaudRate: c.Baud, DataBits: c.DataBits}
	if m.BaudRate == 0 {
		m.BaudRate = 9600
	}
	if m.DataBits == 0 {
		m.DataBits = 8
	}
	if m.DataBits < 5 || m.DataBits > 8 {
		return nil, fmt.Errorf("data bits %d: want 5 to 8", c.DataBits)
	}
	switch strings.ToLower(string(c.Parity)) {
	case "", "none":
		m.Parity = serial.NoParity
	case "odd":
		m.Parity = serial.OddParity
	case "even":
		m.Parity = serial.EvenParity
	case "mark":
		m.Parity = serial.MarkParity
	case "space":
		m.Parity = serial.SpaceParity
	default:
		return nil, fmt.Errorf("parity %q: want none, odd, even, mark or space", c.Parity)
	}
	switch c.StopBits {
	case 0, 1:
		m.StopBits = serial.OneStopBit
	case 2:
		m.StopBits = serial.TwoStopBits
	default:
		return nil, fmt.Errorf("stop bits %d: want 1 or 2", c.StopBits)
	}
	return m, nil
}

// SerialOpener opens a real serial port (or a pseudo-terminal's slave side) with
// go.bug.st/serial.
type SerialOpener struct {
	Config Config
	// List lists the machine's serial ports when the port is found by USB ids; nil means
	// ListPorts.
	List func() ([]*PortDetails, error)
}

// Open finds and opens the port and sets its line.
func (o SerialOpener) Open(ctx context.Context) (Port, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	mode, err := o.Config.mode()
	if err != nil {
		return nil, fmt.Errorf("serial config: %w", err)
	}
	path, err := o.path()
	if err != nil {
		return nil, err
	}
	p, err := serial.Open(path, mode)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	timeout := o.Config.ReadTimeout
	if timeout == 0 {
		timeout = 500 * time.Millisecond
	}
	if err := p.SetReadTimeout(timeout); err != nil {
		return nil, errors.Join(fmt.Errorf("set read timeout on %s: %w", path, err), p.Close())
	}
	if v := o.Config.DTR; v != nil {
		if err := p.SetDTR(*v); err != nil {
			return nil, errors.Join(fmt.Errorf("set DTR on %s: %w", path, err), p.Close())
		}
	}
	if v := o.Config.RTS; v != nil {
		if err := p.SetRTS(*v); err != nil {
			return nil, errors.Join(fmt.Errorf("set RTS on %s: %w", path, err), p.Close())
		}
	}
	return p, nil
}

// path is the configured path, or the path of the USB device with the configured ids.
func (o SerialOpener) path() (string, error) {
	c := o.Config
	if c.Path != "" {
		return c.Path, nil
	}
	if c.VID == "" || c.PID == "" {
		return "", errors.New("serial config: neither a path nor a USB vendor and product id")
	}
	list := o.List
	if list == nil {
		list = ListPorts
	}
	ports, err := list()
	if err != nil {
		return "", fmt.Errorf("list serial ports: %w", err)
	}
	return FindUSB(ports, c.VID, c.PID, c.SerialNumber)
}

// FindUSB returns the name of the USB port with the vendor id, product id and, when
// serial is not empty, serial number given, comparing without regard to case. It is an
// error when none or more than one port matches.
func FindUSB(ports []*PortDetails, vid, pid, serialNumber string) (string, error) {
	var found []string
	for _, p := range ports {
		if p == nil || !p.IsUSB {
			continue
		}
		if strings.EqualFold(p.VID, vid) && strings.EqualFold(p.PID, pid) &&
			(serialNumber == "" || strings.EqualFold(p.SerialNumber, serialNumber)) {
			found = append(found, p.Name)
		}
	}
	want := fmt.Sprintf("USB %s:%s", vid, pid)
	if serialNumber != "" {
		want += " serial " + serialNumber
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("no serial port is %s", want)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%d serial ports are %s (%s): give a serial number or a path", len(found), want, strings.Join(found, ", "))
}

// Validate reports a configuration that can never open: no port named, or a bad line
// setting.
func (c Config) Validate() error {
	if c.Path == "" && (c.VID == "" || c.PID == "") {
		return errors.New("neither a path nor a USB vendor and product id")
	}
	_, err := c.mode()
	return err
}
