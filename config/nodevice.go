package config

// NoDeviceWarning is what `tablectl run` warns of when the table has no shoe to read
// cards from, neither configured (the file's shoe section, or --shoe) nor simulated;
// "" when it has one. Such a table starts, journals and publishes, but deals nothing:
// most often a configuration file or flag was forgotten.
func (c *Config) NoDeviceWarning(simulate bool) string {
	if simulate || c.Shoe != nil {
		return ""
	}
	if c.Shuffler == nil {
		return "no device is set: no shoe and no shuffler, so no card will be read; " +
			"give the shoe's port in the configuration file (shoe.port or shoe.usb) or with --shoe, " +
			"or try the table with --simulate"
	}
	return "no shoe is set: no card will be read; give the shoe's port in the configuration file " +
		"(shoe.port or shoe.usb) or with --shoe, or try the table with --simulate"
}
