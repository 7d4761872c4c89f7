package gpio

import (
	"context"
	"errors"
	"strings"
	"testing"

	"periph.io/x/conn/v3/driver/driverreg"
	"periph.io/x/conn/v3/gpio/gpioreg"
)

func TestCheckPresent(t *testing.T) {
	skipped := []driverreg.DriverFailure{
		{D: fakeImpl("ioctl-gpio"), Err: errors.New("no GPIO chips found")},
		{D: fakeImpl("sysfs-gpio"), Err: errors.New(`dependency not loaded: "ioctl-gpio"`)},
		{D: fakeImpl("sysfs-i2c"), Err: errors.New("no I²C bus found")},
	}
	t.Run("a host with pins has GPIO", func(t *testing.T) {
		if err := checkPresent(&driverreg.State{Skipped: skipped}, 28); err != nil {
			t.Errorf("checkPresent = %v", err)
		}
	})
	t.Run("no pins, GPIO drivers skipped", func(t *testing.T) {
		err := checkPresent(&driverreg.State{Skipped: skipped}, 0)
		want := `GPIO absent: no GPIO driver loaded (skipped: ioctl-gpio: no GPIO chips found; sysfs-gpio: dependency not loaded: "ioctl-gpio")`
		if !errors.Is(err, ErrAbsent) || err.Error() != want {
			t.Errorf("checkPresent = %v\nwant %s", err, want)
		}
	})
	t.Run("no pins and no driver state", func(t *testing.T) {
		if err := checkPresent(nil, 0); !errors.Is(err, ErrAbsent) {
			t.Errorf("checkPresent = %v, want ErrAbsent", err)
		}
	})
	t.Run("a GPIO driver that failed is an error, not absence", func(t *testing.T) {
		st := &driverreg.State{Failed: []driverreg.DriverFailure{{D: fakeImpl("ioctl-gpio"), Err: errors.New("open /dev/gpiochip0: permission denied")}}}
		err := checkPresent(st, 0)
		if err == nil || errors.Is(err, ErrAbsent) || !strings.Contains(err.Error(), "ioctl-gpio: open /dev/gpiochip0: permission denied") {
			t.Errorf("checkPresent = %v, want a failure naming the driver and not ErrAbsent", err)
		}
	})
}

// TestOpenOnThisHost runs the real Open. On a host without GPIO (a build machine) it must
// report ErrAbsent with periph's reasons; on a host with GPIO it must open an empty
// configuration and close it.
func TestOpenOnThisHost(t *testing.T) {
	if _, err := Open(context.Background(), Config{Pins: []PinConfig{{Role: Confirm}}}); !errors.Is(err, ErrConfig) {
		t.Errorf("Open with a bad config = %v, want a config error whatever the host", err)
	}
	d, err := Open(context.Background(), Config{})
	if len(gpioreg.All()) == 0 {
		if !errors.Is(err, ErrAbsent) && (err == nil || !strings.Contains(err.Error(), "failed to load")) {
			t.Fatalf("Open on a host with no GPIO pins = %v, want ErrAbsent or a driver failure", err)
		}
		t.Logf("this host: %v", err)
		return
	}
	if err != nil {
		t.Fatalf("Open on a host with %d GPIO pins: %v", len(gpioreg.All()), err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
