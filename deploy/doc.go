// Package deploy holds what installs tablectl on a table-side Raspberry Pi: the systemd
// unit, the udev rules, install.sh and the example settings, with the broker's
// configuration in deploy/mosquitto. It holds what sets up the floor's server too:
// floor-setup.sh and floor-add-table.sh, whose steps go generate writes into docs/
// (internal/shdoc), and the archive's and the console's units and examples. Its tests
// check them (docs/deploy.md).
package deploy

//go:generate go run ../cmd/tablectl mosquitto-acl -o mosquitto/acl
//go:generate go run gendocs.go
