package gpio_test

import (
	"context"
	"fmt"

	"github.com/tablectl/tablectl/drivers/gpio"
	pgpio "periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
)

// A tower light's green lamp, wired active-high, and the dealer's confirm button, wired to
// ground with a pull-up (active-low), on simulated pins.
func ExampleOpenPins() {
	green := &gpiotest.Pin{N: "GPIO20"}
	confirm := &gpiotest.Pin{N: "GPIO17", EdgesChan: make(chan pgpio.Level)}
	pins := gpio.PinMap{"GPIO20": green, "GPIO17": confirm}
	d, err := gpio.OpenPins(context.Background(), gpio.Config{Pins: []gpio.PinConfig{
		{Role: gpio.LightGreen, Pin: "GPIO20"},
		{Role: gpio.Confirm, Pin: "GPIO17", ActiveLow: true, Pull: gpio.PullUp},
	}}, pins.ByName)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()

	if err := d.Set(context.Background(), gpio.Command{Role: gpio.LightGreen, Mode: gpio.ModeOn}); err != nil {
		fmt.Println(err)
	}
	fmt.Println("green pin:", green.Read())

	confirm.EdgesChan <- pgpio.Low // the dealer presses
	ev := <-d.Events()
	fmt.Println(ev.Role, ev.Kind)
	// Output:
	// green pin: High
	// confirm pressed
}

// A pin name the host does not have is a configuration error naming the role and the pin.
func ExampleOpenPins_unknownPin() {
	_, err := gpio.OpenPins(context.Background(), gpio.Config{Pins: []gpio.PinConfig{
		{Role: gpio.Buzzer, Pin: "GPIO99"},
	}}, gpio.PinMap{}.ByName)
	fmt.Println(err)
	// Output:
	// gpio config: role buzzer: pin "GPIO99": unknown pin name
}
