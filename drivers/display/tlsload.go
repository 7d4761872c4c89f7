package display

import "crypto/tls"

// Load reads the files into the TLS configuration of a connection to the broker, as a
// Client does: for another client of the broker (the console) that builds its paho
// client with NewPahoClient. An error names the file at fault.
func (f TLSFiles) Load() (*tls.Config, error) { return f.config() }
