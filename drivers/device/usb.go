package device

// PortDetails describes one of the machine's serial ports as ListPorts finds it.
type PortDetails struct {
	Name         string // the path to open, such as /dev/ttyUSB0, /dev/cu.usbserial-A1B2 or COM3
	IsUSB        bool   // whether the port is a USB serial adapter (only then are the ids set)
	VID, PID     string // the USB vendor and product ids, in hex
	SerialNumber string // the USB serial number, when the device has one
}
