package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDeployConsoleExample reads deploy/tablectl-console.yaml, the console's example,
// with its files present: it is valid, and says what its comments say.
func TestDeployConsoleExample(t *testing.T) {
	present(t, "/etc/tablectl/console/mqtt-password", "/etc/tablectl/console/ca.crt", "/etc/tablectl/console/users.json",
		"/etc/tablectl/console/https.crt", "/etc/tablectl/console/https.key")
	cfg, err := LoadConsole("../deploy/tablectl-console.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Console
	if c.MQTT.URL != "ssl://127.0.0.1:8883" || c.MQTT.Username != "console" || c.MQTT.CA != "/etc/tablectl/console/ca.crt" ||
		c.Users != "/etc/tablectl/console/users.json" || c.HTTP != ":8443" || c.TLSCert == "" || c.TLSKey == "" ||
		c.Idle != 15*time.Minute || c.CommandTimeout != 10*time.Second || c.Lock != 5*time.Minute || c.Central || !cfg.Log.JSON ||
		c.StreamsPerSession != 8 || c.Streams != 2000 {
		t.Errorf("read %+v, log %+v", c, cfg.Log)
	}
	// The same file with its files missing names each, with its line.
	present(t)
	_, err = LoadConsole("../deploy/tablectl-console.yaml")
	for _, want := range []string{"tablectl-console.yaml:16: console.mqtt.password_file: /etc/tablectl/console/mqtt-password does not exist",
		"tablectl-console.yaml:21: console.users: /etc/tablectl/console/users.json does not exist"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}

// TestConsoleSectionFaults: the console section is read as strictly as the rest of the
// file: each fault names the file, the line and the key.
func TestConsoleSectionFaults(t *testing.T) {
	present(t, "/etc/c/users.json", "/etc/c/ca.crt", "/etc/c/https.crt")
	for _, c := range []struct{ name, yaml, want string }{
		{"unknown key", "console:\n  users: /etc/c/users.json\n  idel: 5m\n",
			"t.yaml:3: console.idel: unknown key (console has alerts, archive, archive_late, central, command_timeout, hosts, http, idle, lock, mqtt, streams, streams_per_session, tls_cert, tls_key, users)"},
		{"unknown mqtt key", "console:\n  mqtt:\n    url: tcp://b:1883\n    user: console\n",
			"t.yaml:4: console.mqtt.user: unknown key (console.mqtt has ca, cert, key, password_file, url, username)"},
		{"bad duration", "console:\n  idle: soon\n", `t.yaml:2: console.idle: want a duration such as 150ms or 2s, not "soon"`},
		{"zero duration", "console:\n  command_timeout: 0s\n", "t.yaml:2: console.command_timeout: 0s: want a duration above 0"},
		{"negative lock", "console:\n  lock: -1m\n", "t.yaml:2: console.lock: -1m0s: want a duration above 0"},
		{"bad broker url", "console:\n  mqtt:\n    url: http://b\n", `t.yaml:3: console.mqtt.url: "http://b": want tcp://host:1883`},
		{"TLS files on a plain url", "console:\n  mqtt:\n    url: tcp://b:1883\n    ca: /etc/c/ca.crt\n",
			`t.yaml:3: console.mqtt.url: "tcp://b:1883" is not a TLS URL, but ca, cert or key is set`},
		{"credentials without a url", "console:\n  mqtt:\n    ca: /etc/c/ca.crt\n", "t.yaml:3: console.mqtt.ca: set without console.mqtt.url"},
		{"missing users file", "console:\n  users: /etc/c/nobody.json\n", "t.yaml:2: console.users: /etc/c/nobody.json does not exist"},
		{"certificate without its key", "console:\n  tls_cert: /etc/c/https.crt\n", "t.yaml:2: console.tls_cert: set without console.tls_key: HTTPS takes both tls_cert and tls_key"},
		{"no address", "console:\n  http: \"\"\n", "t.yaml:2: console.http: no address"},
		{"bad address", "console:\n  http: 8443\n", `t.yaml:2: console.http: "8443": want host:port`},
		{"section as a list", "console:\n  - users\n", "t.yaml:1: console: want a section of keys, not a list"},
		{"no streams", "console:\n  streams_per_session: 0\n", "t.yaml:2: console.streams_per_session: 0: want 1 or more"},
		{"fewer streams in all", "console:\n  streams_per_session: 8\n  streams: 4\n", "t.yaml:3: console.streams: 4: want at least console.streams_per_session (8)"},
		{"missing archive file", "console:\n  archive: /etc/c/archive.db\n", "t.yaml:2: console.archive: /etc/c/archive.db does not exist"},
		{"archive never late", "console:\n  archive_late: 0s\n", "t.yaml:2: console.archive_late: 0s: want a duration above 0"},
		{"host with a port", "console:\n  hosts: [pit-console.casino.lan:8443]\n", `t.yaml:2: console.hosts: "pit-console.casino.lan:8443": want a host name`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(c.yaml))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error\n%v\nwant it to contain\n%s", err, c.want)
			}
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("error %T is not Errors", err)
			}
		})
	}
	// A file without a console section, or with a good one, is not faulted for it.
	for _, y := range []string{"table: t1\n", "console:\n  mqtt:\n    url: ssl://b:8883\n    ca: /etc/c/ca.crt\n  users: /etc/c/users.json\n  central: true\n"} {
		if _, err := Parse("t.yaml", []byte(y)); err != nil {
			t.Errorf("%q: %v", y, err)
		}
	}
}

// consoleFlags returns ConsoleFlags with the command line's defaults and the named
// flags given.
func consoleFlags(given ...string) ConsoleFlags {
	d := DefaultConsole()
	f := ConsoleFlags{Given: map[string]bool{}, MQTTUser: d.MQTT.Username, HTTP: d.HTTP, Idle: d.Idle,
		CommandTimeout: d.CommandTimeout, LockTime: d.Lock}
	for _, g := range given {
		f.Given[g] = true
	}
	return f
}

// TestApplyConsoleFlags: the flags given, and only those, override the file's console
// section; the result is checked, a fault of a flag named by the flag; the broker and
// the users file must come from one or the other.
func TestApplyConsoleFlags(t *testing.T) {
	present(t, "/etc/c/users.json", "/etc/c/other.json", "/etc/c/ca.crt", "/etc/c/https.crt", "/etc/c/https.key")
	file := Default()
	file.Console.MQTT = MQTT{URL: "ssl://floor:8883", Username: "console-2", CA: "/etc/c/ca.crt"}
	file.Console.Users, file.Console.HTTP, file.Console.Idle = "/etc/c/users.json", ":8443", 30*time.Minute
	file.Console.TLSCert, file.Console.TLSKey = "/etc/c/https.crt", "/etc/c/https.key"
	file.Log.JSON = true

	for _, tc := range []struct {
		name  string
		base  Config
		f     func() ConsoleFlags
		err   string
		check func(t *testing.T, r ConsoleRun)
	}{
		{"the file alone", file, func() ConsoleFlags { return consoleFlags() }, "", func(t *testing.T, r ConsoleRun) {
			if r.MQTT.URL != "ssl://floor:8883" || r.MQTT.Username != "console-2" || r.HTTP != ":8443" || r.Idle != 30*time.Minute ||
				r.CommandTimeout != 10*time.Second || !r.LogJSON || r.TLSCert != "/etc/c/https.crt" {
				t.Errorf("%+v", r)
			}
		}},
		{"flags not given keep the file's", file, func() ConsoleFlags {
			f := consoleFlags()
			f.MQTT, f.HTTP, f.Idle, f.Users = "tcp://x:1883", ":9", time.Second, "/etc/c/other.json"
			return f
		}, "", func(t *testing.T, r ConsoleRun) {
			if r.MQTT.URL != "ssl://floor:8883" || r.HTTP != ":8443" || r.Idle != 30*time.Minute || r.Users != "/etc/c/users.json" {
				t.Errorf("%+v", r)
			}
		}},
		{"flags given win", file, func() ConsoleFlags {
			f := consoleFlags("mqtt", "mqtt-user", "users", "idle", "command-timeout", "lock", "central", "log-json", "http")
			f.MQTT, f.MQTTUser, f.Users, f.Idle, f.CommandTimeout, f.LockTime, f.Central, f.LogJSON, f.HTTP =
				"wss://floor:8884/mqtt", "c3", "/etc/c/other.json", time.Minute, 3*time.Second, time.Hour, true, false, "127.0.0.1:0"
			return f
		}, "", func(t *testing.T, r ConsoleRun) {
			if r.MQTT.URL != "wss://floor:8884/mqtt" || r.MQTT.Username != "c3" || r.Users != "/etc/c/other.json" || r.Idle != time.Minute ||
				r.CommandTimeout != 3*time.Second || r.Lock != time.Hour || !r.Central || r.LogJSON || r.HTTP != "127.0.0.1:0" ||
				r.MQTT.CA != "/etc/c/ca.crt" {
				t.Errorf("%+v", r)
			}
		}},
		{"TLS files given over a plain url from the file", func() Config { c := file; c.Console.MQTT.CA = ""; c.Console.MQTT.URL = "tcp://floor:1883"; return c }(),
			func() ConsoleFlags { f := consoleFlags("mqtt-ca"); f.MQTTCA = "/etc/c/ca.crt"; return f },
			`console.mqtt.url: "tcp://floor:1883" is not a TLS URL`, nil},
		{"a flag's fault names the flag", file, func() ConsoleFlags { f := consoleFlags("http"); f.HTTP = "8443"; return f },
			`--http: "8443": want host:port`, nil},
		{"a missing file given by flag", file, func() ConsoleFlags { f := consoleFlags("users"); f.Users = "/etc/c/none.json"; return f },
			"--users: /etc/c/none.json does not exist", nil},
		{"tls-cert without tls-key", Default(), func() ConsoleFlags {
			f := consoleFlags("mqtt", "users", "tls-cert")
			f.MQTT, f.Users, f.TLSCert = "tcp://b:1883", "/etc/c/users.json", "/etc/c/https.crt"
			return f
		}, "--tls-cert: set without console.tls_key: HTTPS takes both", nil},
		{"no broker", Default(), func() ConsoleFlags { f := consoleFlags("users"); f.Users = "/etc/c/users.json"; return f },
			"console.mqtt.url: no broker: give --mqtt, or console.mqtt.url", nil},
		{"no users file", Default(), func() ConsoleFlags { f := consoleFlags("mqtt"); f.MQTT = "tcp://b:1883"; return f },
			"console.users: no users file: give --users", nil},
		{"flags alone", Default(), func() ConsoleFlags {
			f := consoleFlags("mqtt", "users")
			f.MQTT, f.Users = "tcp://b:1883", "/etc/c/users.json"
			return f
		}, "", func(t *testing.T, r ConsoleRun) {
			if r.Console.MQTT.Username != "console" || r.HTTP != "127.0.0.1:8090" || r.Idle != 15*time.Minute || r.Lock != 5*time.Minute || r.LogJSON {
				t.Errorf("%+v", r)
			}
		}},
		{"a zero idle given", file, func() ConsoleFlags { f := consoleFlags("idle"); f.Idle = 0; return f }, "--idle: 0s: want a duration above 0", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ApplyConsoleFlags(tc.base, tc.f())
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, r)
		})
	}
}

// TestResolveConsole reads a file, applies the flags over it and finds the password:
// the flag's, else the file's password_file, else TABLECTL_MQTT_PASSWORD.
func TestResolveConsole(t *testing.T) {
	dir := t.TempDir()
	users := filepath.Join(dir, "users.json")
	pw := filepath.Join(dir, "pw")
	for _, p := range []struct{ path, content string }{{users, "{}"}, {pw, "from-the-file\nsecond line\n"}} {
		if err := os.WriteFile(p.path, []byte(p.content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	conf := filepath.Join(dir, "console.yaml")
	write := func(s string) {
		if err := os.WriteFile(conf, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A table's devices need not be on the console's machine.
	write("shoe:\n  port: /dev/no-such-shoe\n  format: tablectl\nconsole:\n  mqtt:\n    url: tcp://b:1883\n    password_file: " + pw + "\n  users: " + users + "\n")
	t.Setenv("TABLECTL_MQTT_PASSWORD", "from-the-environment")
	r, err := ResolveConsole(conf, consoleFlags())
	if err != nil {
		t.Fatal(err)
	}
	if r.Password != "from-the-file" || r.MQTT.URL != "tcp://b:1883" || r.Users != users {
		t.Errorf("%+v", r)
	}
	f := consoleFlags("mqtt-password")
	f.MQTTPassword = "from-the-flag"
	if r, err = ResolveConsole(conf, f); err != nil || r.Password != "from-the-flag" {
		t.Errorf("password %q, %v", r.Password, err)
	}
	write("console:\n  mqtt:\n    url: tcp://b:1883\n  users: " + users + "\n")
	if r, err = ResolveConsole(conf, consoleFlags()); err != nil || r.Password != "from-the-environment" {
		t.Errorf("password %q, %v", r.Password, err)
	}
	// Strict: an unknown key stops the console, with its line.
	write("console:\n  mqtt:\n    url: tcp://b:1883\n  users: " + users + "\n  tls_crt: x\n")
	if _, err = ResolveConsole(conf, consoleFlags()); err == nil || !strings.Contains(err.Error(), "console.yaml:5: console.tls_crt: unknown key") {
		t.Errorf("error %v", err)
	}
	if _, err = ResolveConsole(filepath.Join(dir, "nowhere.yaml"), consoleFlags()); err == nil || !strings.Contains(err.Error(), "nowhere.yaml") {
		t.Errorf("missing file: %v", err)
	}
}

// TestConsoleAlertsSettings: console.alerts gives the site's rules, with defaults, and
// each fault names its key.
func TestConsoleAlertsSettings(t *testing.T) {
	for _, c := range []struct{ name, yaml, want string }{
		{"a negative hold", "console:\n  alerts:\n    held_after: -1m\n", "console.alerts.held_after: -1m0s: want 0s (never)"},
		{"a band upside down", "console:\n  alerts:\n    pace_min: 50\n    pace_max: 40\n", "console.alerts.pace_max: 40: want 0 (no bound) or at least pace_min (50)"},
		{"negative failures", "console:\n  alerts:\n    device_failures: -2\n", "console.alerts.device_failures: -2: want 0 (never)"},
		{"a zone that is none", "console:\n  alerts:\n    tz: Mars/Olympus\n", "console.alerts.tz: \"Mars/Olympus\": want a time zone"},
		{"an archive id that is none", "console:\n  alerts:\n    archive: Floor\n", "console.alerts.archive: archive id \"Floor\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(c.yaml))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v, want %q", err, c.want)
			}
		})
	}
	d := DefaultConsole().Alerts
	if d.HeldAfter != 5*time.Minute || !d.NoDealer || !d.ArchiveLate || d.PaceMin != 30 || d.PaceMax != 0 || d.DeviceFailures != 5 || d.Archive != "floor" {
		t.Fatalf("the defaults: %+v", d)
	}
}
