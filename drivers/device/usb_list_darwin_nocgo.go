//go:build darwin && !cgo

package device

import "errors"

// ErrNoUSBList is the error of ListPorts on macOS in a build without cgo: the USB ids of
// the serial ports are read through IOKit, which only a cgo build can call.
var ErrNoUSBList = errors.New("finding a serial port by USB ids on macOS needs a build with cgo (CGO_ENABLED=1 go build on the Mac); give the port's path instead, such as /dev/cu.usbserial-XXXX")

// ListPorts lists the machine's serial ports with their USB ids. This build (macOS
// without cgo) cannot read them: it returns ErrNoUSBList.
func ListPorts() ([]*PortDetails, error) {
	return nil, ErrNoUSBList
}
