package device

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestFindUSBComparesIdsWithoutCase(t *testing.T) {
	ports := []*PortDetails{
		{Name: "/dev/ttyS0"},
		{Name: "/dev/ttyUSB0", IsUSB: true, VID: "0403", PID: "6001", SerialNumber: "A1B2"},
		{Name: "/dev/ttyUSB1", IsUSB: true, VID: "0403", PID: "6A01", SerialNumber: "shoe-7"},
		{Name: "/dev/ttyUSB2", IsUSB: true, VID: "0403", PID: "6a01", SerialNumber: "SHUF-2"},
	}
	for _, c := range []struct{ vid, pid, serial, want, err string }{
		{"0403", "6001", "", "/dev/ttyUSB0", ""},
		{"0403", "6001", "a1b2", "/dev/ttyUSB0", ""},
		{"0403", "6a01", "SHOE-7", "/dev/ttyUSB1", ""},
		{"0403", "6A01", "shuf-2", "/dev/ttyUSB2", ""},
		{"0403", "6A01", "", "", "2 serial ports are USB 0403:6A01"},
		{"1a86", "7523", "", "", "no serial port is USB 1a86:7523"},
	} {
		got, err := FindUSB(ports, c.vid, c.pid, c.serial)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("FindUSB(%s %s %s) error %v, want %q", c.vid, c.pid, c.serial, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("FindUSB(%s %s %s) = %q, %v; want %q", c.vid, c.pid, c.serial, got, err, c.want)
		}
	}
}

func TestConfigErrorsNameTheSetting(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "neither a path nor"},
		{Config{Path: "/dev/x", Parity: "sideways"}, `parity "sideways"`},
		{Config{Path: "/dev/x", DataBits: 9}, "data bits 9"},
		{Config{Path: "/dev/x", StopBits: 3}, "stop bits 3"},
	} {
		if err := c.cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%+v) = %v, want an error with %q", c.cfg, err, c.want)
		}
	}
	if err := (Config{Path: "/dev/x", Parity: "Even", StopBits: 2, DataBits: 7}).Validate(); err != nil {
		t.Errorf("good config: %v", err)
	}
}

func TestSerialOpenerUsesList(t *testing.T) {
	o := SerialOpener{
		Config: Config{VID: "0403", PID: "6001"},
		List: func() ([]*PortDetails, error) {
			return []*PortDetails{{Name: "/nonexistent/ttyUSB9", IsUSB: true, VID: "0403", PID: "6001"}}, nil
		},
	}
	_, err := o.Open(context.Background())
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/ttyUSB9") {
		t.Fatalf("Open = %v, want an error opening the listed port", err)
	}
}

func TestSerialOpenerSaysWhyThePortListFailed(t *testing.T) {
	why := errors.New("port list unavailable in this build")
	o := SerialOpener{
		Config: Config{VID: "0403", PID: "6001"},
		List:   func() ([]*PortDetails, error) { return nil, why },
	}
	_, err := o.Open(context.Background())
	if !errors.Is(err, why) || !strings.Contains(err.Error(), "list serial ports") {
		t.Fatalf("Open = %v, want the list's error wrapped", err)
	}
}
