// Package deploy holds what installs tablectl on a table-side Raspberry Pi: the systemd
// unit, the udev rules, install.sh and the example settings, with the broker's
// configuration in deploy/mosquitto. Its tests check them (docs/deploy.md).
package deploy

//go:generate go run ../cmd/tablectl mosquitto-acl -o mosquitto/acl
