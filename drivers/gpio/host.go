package gpio

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"periph.io/x/conn/v3/driver/driverreg"
	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/host/v3"
)

// ErrAbsent is wrapped by Open's error on a host where no GPIO driver loaded, such as a
// desktop machine or a container. The table then runs without buttons, sensors, tower
// light or buzzer; the message lists the GPIO drivers that were skipped and why.
var ErrAbsent = errors.New("GPIO absent: no GPIO driver loaded")

// Open loads the host's drivers (periph's host.Init), checks that the host has GPIO pins,
// and opens cfg's pins by their host names (periph's gpioreg.ByName); see OpenPins. The
// configuration is checked first, so a configuration error is reported on any host. On a
// host with no GPIO, Open returns an error wrapping ErrAbsent; when a GPIO driver was
// found but failed to load (for example for want of permission on /dev/gpiochip0), the
// error names it and does not wrap ErrAbsent, since the table has GPIO it cannot use.
func Open(ctx context.Context, cfg Config) (*Driver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	state, err := host.Init()
	if err != nil {
		return nil, fmt.Errorf("gpio: load host drivers: %w", err)
	}
	if err := checkPresent(state, len(gpioreg.All())); err != nil {
		return nil, err
	}
	return OpenPins(ctx, cfg, gpioreg.ByName)
}

// checkPresent says whether a host whose driver loading ended in state, and which
// registered pins GPIO pins, has usable GPIO.
func checkPresent(state *driverreg.State, pins int) error {
	if pins > 0 {
		return nil
	}
	if state == nil {
		state = &driverreg.State{}
	}
	if failed := gpioDrivers(state.Failed); len(failed) > 0 {
		return fmt.Errorf("gpio: no GPIO pins: GPIO driver failed to load: %s", strings.Join(failed, "; "))
	}
	skipped := gpioDrivers(state.Skipped)
	if len(skipped) == 0 {
		return ErrAbsent
	}
	return fmt.Errorf("%w (skipped: %s)", ErrAbsent, strings.Join(skipped, "; "))
}

// gpioDrivers describes the drivers in fs whose name says they drive GPIO
// ("ioctl-gpio", "sysfs-gpio", "bcm2835-gpio", ...).
func gpioDrivers(fs []driverreg.DriverFailure) []string {
	var out []string
	for _, f := range fs {
		if f.D != nil && strings.Contains(strings.ToLower(f.D.String()), "gpio") {
			out = append(out, f.String())
		}
	}
	return out
}
