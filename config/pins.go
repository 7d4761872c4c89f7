package config

import (
	"strconv"
	"strings"

	"github.com/tablectl/tablectl/drivers/device"
)

// header maps the Raspberry Pi's 40-pin header positions that carry a GPIO line to the
// line's number (BCM numbering), as periph names them: P1_11 is GPIO17.
var header = map[int]int{
	3: 2, 5: 3, 7: 4, 8: 14, 10: 15, 11: 17, 12: 18, 13: 27, 15: 22, 16: 23, 18: 24, 19: 10,
	21: 9, 22: 25, 23: 11, 24: 8, 26: 7, 27: 0, 28: 1, 29: 5, 31: 6, 32: 12, 33: 13, 35: 19,
	36: 16, 37: 26, 38: 20, 40: 21,
}

// piPin is the GPIO line a Raspberry Pi pin name stands for: "GPIO17", the header
// position "P1_11", or the number "17".
func piPin(name string) (int, bool) {
	switch {
	case strings.HasPrefix(name, "GPIO"):
		n, err := strconv.Atoi(name[4:])
		return n, err == nil && n >= 0 && n <= 27 && name[4:] == strconv.Itoa(n)
	case strings.HasPrefix(name, "P1_"):
		pos, err := strconv.Atoi(name[3:])
		n, ok := header[pos]
		return n, err == nil && ok && name[3:] == strconv.Itoa(pos)
	}
	n, err := strconv.Atoi(name)
	return n, err == nil && n >= 0 && n <= 27 && name == strconv.Itoa(n)
}

func itoa(n int) string { return strconv.Itoa(n) }

// device returns the driver's settings of a serial line.
func (s Serial) device() device.Config {
	d := device.Config{Path: s.Port, Baud: s.Baud, DataBits: s.DataBits, Parity: device.Parity(s.Parity), StopBits: s.StopBits}
	if s.USB != nil {
		d.VID, d.PID, d.SerialNumber = s.USB.VID, s.USB.PID, s.USB.Serial
	}
	return d
}

// ShufflerConfig returns the shuffler's serial line; nil when the table has none.
func (c *Config) ShufflerConfig() *device.Config {
	if c.Shuffler == nil {
		return nil
	}
	d := c.Shuffler.device()
	return &d
}
