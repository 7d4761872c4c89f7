package config

import (
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tablectl/tablectl/api"
)

// Console is the console's section, console: in the file (tablectl-floor console,
// docs/console.md): the floor's broker it reads the tables from and publishes the
// commands to, where it serves its pages, and the people who may log in.
type Console struct {
	// MQTT is the floor's broker, with the console's own user (deploy/mosquitto/acl's
	// "console"): url, username, password_file, ca, cert and key, as the table's mqtt.
	MQTT MQTT `yaml:"mqtt"`
	// Central: the broker is a central one; the console also reads the casino-wide
	// layout casino/<site>/<pit>/tablectl/v1/... (docs/mqtt.md).
	Central bool `yaml:"central"`
	// HTTP is where the pages and the API are served, host:port.
	HTTP string `yaml:"http"`
	// Users is the users file (tablectl-floor console user add).
	Users string `yaml:"users"`
	// TLSCert and TLSKey, both or neither, serve HTTPS (PEM files).
	TLSCert string `yaml:"tls_cert"`
	TLSKey  string `yaml:"tls_key"`
	// Idle: a session unused this long expires.
	Idle time.Duration `yaml:"idle"`
	// CommandTimeout bounds the wait for a table's answer to a command.
	CommandTimeout time.Duration `yaml:"command_timeout"`
	// Lock is how long a name is refused after too many failed logins.
	Lock time.Duration `yaml:"lock"`
	// StreamsPerSession and Streams bound the event streams open at once, for one
	// session and in all (a page holds one or two).
	StreamsPerSession int `yaml:"streams_per_session"`
	Streams           int `yaml:"streams"`
	// Hosts are the names browsers reach the console by; a request naming another host
	// (but an IP address or localhost) is refused.
	Hosts []string `yaml:"hosts"`
	// Archive is the floor's archive the History page searches, read-only: a SQLite
	// file's path or a postgres:// URL (docs/archive.md). Empty: no History page.
	Archive string `yaml:"archive"`
	// ArchiveLate: a table whose status says the archive lacks a record written longer
	// ago than this shows "not archived for N min".
	ArchiveLate time.Duration `yaml:"archive_late"`
	// Alerts are the site's alert rules (docs/pit.md, "Alerts").
	Alerts ConsoleAlerts `yaml:"alerts"`
}

// ConsoleAlerts are the site's alert rules, console.alerts: in the file. An alert stays
// on the console until a supervisor acknowledges it with a note; the console records
// both with the archive of id Archive.
type ConsoleAlerts struct {
	// HeldAfter: a table held for a decision this long raises an alert; 0s: never.
	HeldAfter time.Duration `yaml:"held_after"`
	// NoDealer: a table dealing with no dealer on raises an alert.
	NoDealer bool `yaml:"no_dealer"`
	// ArchiveLate: a table not archived for console.archive_late raises an alert.
	ArchiveLate bool `yaml:"archive_late"`
	// PaceMin and PaceMax bound the rounds of a clock hour a table dealt in (0: no
	// bound), in the time zone TZ (the machine's when empty).
	PaceMin int    `yaml:"pace_min"`
	PaceMax int    `yaml:"pace_max"`
	TZ      string `yaml:"tz"`
	// DeviceFailures: a device of a table failing this many times within an hour
	// raises an alert (0: never).
	DeviceFailures int `yaml:"device_failures"`
	// Archive is the id of the archive the alerts are recorded with.
	Archive string `yaml:"archive"`
}

// DefaultConsole is the console's settings that the file and the flags leave out.
func DefaultConsole() Console {
	return Console{MQTT: MQTT{Username: "console"}, HTTP: "127.0.0.1:8090",
		Idle: 15 * time.Minute, CommandTimeout: 10 * time.Second, Lock: 5 * time.Minute,
		StreamsPerSession: 8, Streams: 2000, ArchiveLate: 10 * time.Minute,
		Alerts: ConsoleAlerts{HeldAfter: 5 * time.Minute, NoDealer: true, ArchiveLate: true, PaceMin: 30, DeviceFailures: 5, Archive: "floor"}}
}

// ConsoleFlags are the settings of tablectl-floor console's command line. Only the flags
// named in Given override the file's console section (or the defaults).
type ConsoleFlags struct {
	// Given names the flags given, by their names on the command line.
	Given map[string]bool

	MQTT, MQTTUser, MQTTPassword   string
	MQTTCA, MQTTCert, MQTTKey      string
	Central                        bool
	HTTP, Users, TLSCert, TLSKey   string
	Idle, CommandTimeout, LockTime time.Duration
	LogJSON                        bool
}

// ConsoleRun is what a console runs with: its section with the flags applied and
// checked, how it logs, and the MQTT password.
type ConsoleRun struct {
	Console
	// LogJSON logs as JSON lines (the file's log.json, or --log-json).
	LogJSON bool
	// Password is the MQTT password (ConsolePassword).
	Password string
}

// consoleFlagKeys names the key each of the console's flags overrides.
var consoleFlagKeys = map[string]string{
	"mqtt": "console.mqtt.url", "mqtt-user": "console.mqtt.username", "mqtt-ca": "console.mqtt.ca",
	"mqtt-cert": "console.mqtt.cert", "mqtt-key": "console.mqtt.key", "central": "console.central",
	"http": "console.http", "users": "console.users", "tls-cert": "console.tls_cert",
	"tls-key": "console.tls_key", "idle": "console.idle", "command-timeout": "console.command_timeout",
	"lock": "console.lock", "log-json": "log.json",
}

// LoadConsole reads and checks the configuration file at path for tablectl-floor console:
// strictly, as Load does, but for the table's shoe and shuffler ports, which need not
// be on the console's machine.
func LoadConsole(path string) (Config, error) { return load(path, false) }

// ResolveConsole reads the configuration file at path ("" for none: the defaults) with
// LoadConsole, applies the console's flags over its console section
// (ApplyConsoleFlags), and looks up the MQTT password (ConsolePassword).
func ResolveConsole(path string, f ConsoleFlags) (ConsoleRun, error) {
	base := Default()
	if path != "" {
		var err error
		if base, err = LoadConsole(path); err != nil {
			return ConsoleRun{}, err
		}
	}
	r, err := ApplyConsoleFlags(base, f)
	if err != nil {
		return ConsoleRun{}, err
	}
	if r.Password, err = r.ConsolePassword(f.MQTTPassword); err != nil {
		return ConsoleRun{}, err
	}
	return r, nil
}

// ApplyConsoleFlags applies the flags given over base's console section and log
// settings (base is the file's configuration, or Default), checks the result as a
// file's console section is checked, with a fault of a flag given named by the flag
// (--http: ...), and checks that the broker and the users file are known.
func ApplyConsoleFlags(base Config, f ConsoleFlags) (ConsoleRun, error) {
	r := ConsoleRun{Console: base.Console, LogJSON: base.Log.JSON}
	c := &r.Console
	overrides := map[string]func(){
		"mqtt":            func() { c.MQTT.URL = f.MQTT },
		"mqtt-user":       func() { c.MQTT.Username = f.MQTTUser },
		"mqtt-ca":         func() { c.MQTT.CA = f.MQTTCA },
		"mqtt-cert":       func() { c.MQTT.Cert = f.MQTTCert },
		"mqtt-key":        func() { c.MQTT.Key = f.MQTTKey },
		"central":         func() { c.Central = f.Central },
		"http":            func() { c.HTTP = f.HTTP },
		"users":           func() { c.Users = f.Users },
		"tls-cert":        func() { c.TLSCert = f.TLSCert },
		"tls-key":         func() { c.TLSKey = f.TLSKey },
		"idle":            func() { c.Idle = f.Idle },
		"command-timeout": func() { c.CommandTimeout = f.CommandTimeout },
		"lock":            func() { c.Lock = f.LockTime },
		"log-json":        func() { r.LogJSON = f.LogJSON },
	}
	for _, name := range slices.Sorted(maps.Keys(f.Given)) {
		if apply, ok := overrides[name]; ok && f.Given[name] {
			apply()
		}
	}
	chk := &file{lines: map[string]int{}}
	chk.checkConsole(*c)
	if c.MQTT.URL == "" {
		chk.at("console.mqtt.url", "no broker: give --mqtt, or console.mqtt.url in the configuration file")
	}
	if c.Users == "" {
		chk.at("console.users", "no users file: give --users, or console.users in the configuration file (create it with 'tablectl-floor console user add')")
	}
	if len(chk.errs) == 0 {
		return r, nil
	}
	byFlag := map[string]string{}
	for flag, key := range consoleFlagKeys {
		if f.Given[flag] {
			byFlag[key] = "--" + flag
		}
	}
	for _, e := range chk.errs {
		if flag, ok := byFlag[e.Key]; ok {
			e.Key = flag
		}
	}
	return ConsoleRun{}, chk.errs
}

// ConsolePassword is the console's MQTT password: flagValue when given, else the first
// line of console.mqtt.password_file, else the environment's TABLECTL_MQTT_PASSWORD.
func (c *Console) ConsolePassword(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if c.MQTT.PasswordFile != "" {
		b, err := os.ReadFile(c.MQTT.PasswordFile)
		if err != nil {
			return "", fmt.Errorf("console.mqtt.password_file: %w", err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		return strings.TrimRight(line, "\r"), nil
	}
	return os.Getenv("TABLECTL_MQTT_PASSWORD"), nil
}

// checkConsole checks the console's section. A file that leaves the section out is
// not faulted: only tablectl-floor console needs its broker and users file
// (ApplyConsoleFlags).
func (f *file) checkConsole(c Console) {
	m := c.MQTT
	secure := false
	if m.URL == "" {
		for _, k := range []string{"password_file", "ca", "cert", "key"} {
			if f.set("console.mqtt." + k) {
				f.at("console.mqtt."+k, "set without console.mqtt.url")
			}
		}
	} else {
		u, err := url.Parse(m.URL)
		if err != nil || u.Host == "" || !slices.Contains([]string{"tcp", "ssl", "tls", "mqtt", "mqtts", "tcps", "ws", "wss"}, u.Scheme) {
			f.at("console.mqtt.url", "%q: want tcp://host:1883, ssl://host:8883, ws:// or wss://", m.URL)
		} else {
			secure = slices.Contains([]string{"ssl", "tls", "mqtts", "tcps", "wss"}, u.Scheme)
		}
		if !secure && err == nil && (m.CA != "" || m.Cert != "" || m.Key != "") {
			f.at("console.mqtt.url", "%q is not a TLS URL, but ca, cert or key is set: use ssl:// or wss://", m.URL)
		}
	}
	for _, k := range []struct{ key, path string }{{"console.mqtt.password_file", m.PasswordFile},
		{"console.mqtt.ca", m.CA}, {"console.mqtt.cert", m.Cert}, {"console.mqtt.key", m.Key},
		{"console.users", c.Users}, {"console.tls_cert", c.TLSCert}, {"console.tls_key", c.TLSKey}} {
		if k.path == "" {
			continue
		}
		if _, err := stat(k.path); err != nil {
			f.at(k.key, "%s does not exist", k.path)
		}
	}
	if m.PasswordFile != "" && m.Username == "" {
		f.at("console.mqtt.password_file", "set with no console.mqtt.username")
	}
	f.consolePair("console.mqtt.cert", m.Cert, "console.mqtt.key", m.Key, "a client certificate takes both cert and key")
	f.consolePair("console.tls_cert", c.TLSCert, "console.tls_key", c.TLSKey, "HTTPS takes both tls_cert and tls_key")
	if c.HTTP == "" {
		f.at("console.http", "no address: the console's pages must be served somewhere (host:port)")
	}
	f.checkAddr("console.http", c.HTTP)
	for _, d := range []struct {
		key string
		v   time.Duration
	}{{"console.idle", c.Idle}, {"console.command_timeout", c.CommandTimeout}, {"console.lock", c.Lock}, {"console.archive_late", c.ArchiveLate}} {
		if d.v <= 0 {
			f.at(d.key, "%s: want a duration above 0, such as 15m", d.v)
		}
	}
	a := c.Alerts
	if a.HeldAfter < 0 {
		f.at("console.alerts.held_after", "%s: want 0s (never) or a duration, such as 5m", a.HeldAfter)
	}
	if a.PaceMin < 0 {
		f.at("console.alerts.pace_min", "%d: want 0 (no bound) or more rounds an hour", a.PaceMin)
	}
	if a.PaceMax < 0 || a.PaceMax > 0 && a.PaceMax < a.PaceMin {
		f.at("console.alerts.pace_max", "%d: want 0 (no bound) or at least pace_min (%d)", a.PaceMax, a.PaceMin)
	}
	if a.DeviceFailures < 0 {
		f.at("console.alerts.device_failures", "%d: want 0 (never) or more failures an hour", a.DeviceFailures)
	}
	if a.TZ != "" {
		if _, err := time.LoadLocation(a.TZ); err != nil {
			f.at("console.alerts.tz", "%q: want a time zone, such as Asia/Macau (%v)", a.TZ, err)
		}
	}
	if err := api.CheckArchiveID(a.Archive); err != nil {
		f.at("console.alerts.archive", "%v", err)
	}
	if c.StreamsPerSession < 1 {
		f.at("console.streams_per_session", "%d: want 1 or more event streams for a session", c.StreamsPerSession)
	}
	if c.Streams < c.StreamsPerSession {
		f.at("console.streams", "%d: want at least console.streams_per_session (%d)", c.Streams, c.StreamsPerSession)
	}
	if c.Archive != "" && !strings.HasPrefix(c.Archive, "postgres://") && !strings.HasPrefix(c.Archive, "postgresql://") {
		if _, err := stat(c.Archive); err != nil {
			f.at("console.archive", "%s does not exist (want the archive's SQLite file, or a postgres:// URL)", c.Archive)
		}
	}
	for _, h := range c.Hosts {
		if h == "" || strings.ContainsAny(h, ":/ ") {
			f.at("console.hosts", "%q: want a host name, such as pit-console.casino.lan (no port, no scheme)", h)
		}
	}
}

// consolePair faults the one of two settings that is set without the other.
func (f *file) consolePair(key1, v1, key2, v2, msg string) {
	switch {
	case v1 != "" && v2 == "":
		f.at(key1, "set without %s: %s", key2, msg)
	case v1 == "" && v2 != "":
		f.at(key2, "set without %s: %s", key1, msg)
	}
}
