package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeployArchiveExample reads deploy/tablectl-archive.yaml, the archive's example,
// with its files present: it is valid, and says what its comments say: the database on
// this server, with no password in its URL.
func TestDeployArchiveExample(t *testing.T) {
	present(t, "/etc/tablectl/archive/mqtt-password", "/etc/tablectl/archive/ca.crt", "/etc/tablectl/archive/keys")
	cfg, err := LoadConsole("../deploy/tablectl-archive.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Archive.ArchiveService
	if a.MQTT.URL != "ssl://127.0.0.1:8883" || a.MQTT.Username != "archive-floor" || a.MQTT.CA != "/etc/tablectl/archive/ca.crt" ||
		a.Keys != "/etc/tablectl/archive/keys" || a.ClientID != "tablectl-archive-floor" || a.ID != "floor" || a.Central || !cfg.Log.JSON ||
		a.DB != "postgres://tablectl_archive@127.0.0.1/tablectl_archive" {
		t.Errorf("read %+v, log %+v", a, cfg.Log)
	}
	present(t)
	_, err = LoadConsole("../deploy/tablectl-archive.yaml")
	for _, want := range []string{"tablectl-archive.yaml:22: archive.mqtt.password_file: /etc/tablectl/archive/mqtt-password does not exist",
		"tablectl-archive.yaml:37: archive.keys: /etc/tablectl/archive/keys does not exist"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}

// TestArchiveSectionFaults: the archive section is read as strictly as the rest of the
// file: each fault names the file, the line and the key.
func TestArchiveSectionFaults(t *testing.T) {
	present(t, "/etc/a/keys", "/etc/a/ca.crt", "/etc/a/client.crt")
	for _, c := range []struct{ name, yaml, want string }{
		{"unknown key", "archive:\n  keys: /etc/a/keys\n  database: x.db\n",
			"t.yaml:3: archive.database: unknown key (archive has central, client_id, db, id, integrity, keys, mqtt, ship, to)"},
		{"bad broker url", "archive:\n  mqtt:\n    url: http://b\n", `t.yaml:3: archive.mqtt.url: "http://b": want tcp://host:1883`},
		{"TLS files on a plain url", "archive:\n  mqtt:\n    url: tcp://b:1883\n    ca: /etc/a/ca.crt\n",
			`t.yaml:3: archive.mqtt.url: "tcp://b:1883" is not a TLS URL, but ca, cert or key is set`},
		{"credentials without a url", "archive:\n  mqtt:\n    ca: /etc/a/ca.crt\n", "t.yaml:3: archive.mqtt.ca: set without archive.mqtt.url"},
		{"certificate without its key", "archive:\n  mqtt:\n    url: ssl://b:8883\n    cert: /etc/a/client.crt\n",
			"t.yaml:4: archive.mqtt.cert: set without archive.mqtt.key"},
		{"missing keys file", "archive:\n  keys: /etc/a/nothing\n", "t.yaml:2: archive.keys: /etc/a/nothing does not exist"},
		{"password in the database url", "archive:\n  db: postgres://arch:secret@db/archive\n",
			"t.yaml:2: archive.db: the URL holds a password: keep it out of the file"},
		{"bad database url", "archive:\n  db: postgres:db/archive\n", "t.yaml:2: archive.db: want postgres://USER@HOST/DATABASE"},
		{"bad client id", "archive:\n  client_id: \"archive #2\"\n", `t.yaml:2: archive.client_id: "archive #2": want 1 to 64 letters`},
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
	// A file without an archive section, or with a good one, is not faulted for it.
	for _, y := range []string{"table: t1\n", "archive:\n  mqtt:\n    url: ssl://b:8883\n    ca: /etc/a/ca.crt\n  db: /var/lib/a/archive.db\n  keys: /etc/a/keys\n  central: true\n"} {
		if _, err := Parse("t.yaml", []byte(y)); err != nil {
			t.Errorf("%q: %v", y, err)
		}
	}
}

// TestApplyArchiveFlags: the flags given, and only those, override the file's archive
// section; a fault of a flag is named by the flag; the broker, the database and the
// keys must come from one or the other; the password comes from the flag, the file or
// the environment.
func TestApplyArchiveFlags(t *testing.T) {
	present(t, "/etc/a/keys", "/etc/a/other-keys", "/etc/a/ca.crt")
	file := Default()
	file.Archive.MQTT = MQTT{URL: "ssl://floor:8883", Username: "archive-2", CA: "/etc/a/ca.crt"}
	file.Archive.DB, file.Archive.Keys = "postgres://arch@db/archive", "/etc/a/keys"
	file.Log.JSON = true
	flags := func(given ...string) ArchiveFlags {
		f := ArchiveFlags{Given: map[string]bool{}, MQTTUser: "archive", ClientID: "tablectl-archive",
			MQTT: "tcp://ignored:1883", DB: "ignored.db", Keys: "/etc/a/other-keys"}
		for _, g := range given {
			f.Given[g] = true
		}
		return f
	}
	r, err := ApplyArchiveFlags(file, flags())
	if err != nil || r.MQTT.URL != "ssl://floor:8883" || r.MQTT.Username != "archive-2" || r.DB != "postgres://arch@db/archive" ||
		r.Keys != "/etc/a/keys" || !r.LogJSON || r.ClientID != "tablectl-archive-floor" || r.ID != "floor" {
		t.Fatalf("the file alone: %+v %v", r, err)
	}
	// An archive of another id: its user and client id follow from it.
	f0 := flags("id", "mqtt-user")
	f0.ID, f0.MQTTUser = "standby", ""
	if r, err := ApplyArchiveFlags(file, f0); err != nil || r.ID != "standby" || r.MQTT.Username != "archive-standby" || r.ClientID != "tablectl-archive-standby" {
		t.Fatalf("--id standby: %+v %v", r, err)
	}
	f0.ID = "Standby!"
	if _, err := ApplyArchiveFlags(file, f0); err == nil || !strings.Contains(err.Error(), "--id") {
		t.Fatalf("a bad --id: %v", err)
	}
	f := flags("db", "keys", "central", "client-id")
	f.Central, f.ClientID = true, "archive-b"
	r, err = ApplyArchiveFlags(file, f)
	if err != nil || r.DB != "ignored.db" || r.Keys != "/etc/a/other-keys" || !r.Central || r.ClientID != "archive-b" || r.MQTT.URL != "ssl://floor:8883" {
		t.Fatalf("flags given win: %+v %v", r, err)
	}
	// A password in a --db URL is the operator's choice; the file's is refused (above).
	f = flags("db")
	f.DB = "postgres://arch:pw@db/archive"
	if _, err := ApplyArchiveFlags(file, f); err != nil {
		t.Fatalf("--db with a password: %v", err)
	}
	f = flags("keys")
	f.Keys = "/etc/a/nothing"
	if _, err := ApplyArchiveFlags(file, f); err == nil || !strings.Contains(err.Error(), "--keys: /etc/a/nothing does not exist") {
		t.Fatalf("a missing --keys: %v", err)
	}
	_, err = ApplyArchiveFlags(Default(), ArchiveFlags{Given: map[string]bool{}, ClientID: "x"})
	for _, want := range []string{"archive.mqtt.url: no broker", "archive.db: no database", "archive.keys: no keys file"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("nothing given: %v, want %q", err, want)
		}
	}

	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte("from-the-file\nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TABLECTL_MQTT_PASSWORD", "from-the-environment")
	s := ArchiveService{MQTT: MQTT{Username: "archive", PasswordFile: pw}}
	for _, c := range []struct {
		s    ArchiveService
		flag string
		want string
	}{{s, "from-the-flag", "from-the-flag"}, {s, "", "from-the-file"}, {ArchiveService{}, "", "from-the-environment"}} {
		if got, err := c.s.ArchivePassword(c.flag); err != nil || got != c.want {
			t.Errorf("password %q %v, want %q", got, err, c.want)
		}
	}
}
