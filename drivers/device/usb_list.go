//go:build !darwin || cgo

package device

import "go.bug.st/serial/enumerator"

// ListPorts lists the machine's serial ports with their USB ids. On macOS it needs a
// build with cgo (the IOKit calls that read the ids are C); a build without cgo says so
// when called.
func ListPorts() ([]*PortDetails, error) {
	list, err := enumerator.GetDetailedPortsList()
	if err != nil {
		return nil, err
	}
	ports := make([]*PortDetails, 0, len(list))
	for _, p := range list {
		if p == nil {
			continue
		}
		ports = append(ports, &PortDetails{Name: p.Name, IsUSB: p.IsUSB, VID: p.VID, PID: p.PID, SerialNumber: p.SerialNumber})
	}
	return ports, nil
}
