package display_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/display"
)

func TestDialRefusesBadOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.txt")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.crt")
	base := display.Options{Broker: "tcp://127.0.0.1:1883", Table: "t1", Logger: quietLogger()}
	with := func(f func(*display.Options)) display.Options {
		o := base
		f(&o)
		return o
	}
	for _, tc := range []struct {
		name string
		opts display.Options
		want string
	}{
		{"no broker", with(func(o *display.Options) { o.Broker = "" }), "broker URL is empty"},
		{"bad scheme", with(func(o *display.Options) { o.Broker = "http://h:1" }), `unknown scheme "http"`},
		{"no host", with(func(o *display.Options) { o.Broker = "tcp://" }), "has no host"},
		{"bad URL", with(func(o *display.Options) { o.Broker = "tcp://h:1\x7f" }), "broker URL"},
		{"bad table", with(func(o *display.Options) { o.Table = "a/b" }), "table id"},
		{"TLS files on tcp", with(func(o *display.Options) { o.TLS.CAFile = notPEM }), "not a TLS URL"},
		{"missing CA", with(func(o *display.Options) { o.Broker = "ssl://h:8883"; o.TLS.CAFile = missing }), missing},
		{"CA not PEM", with(func(o *display.Options) { o.Broker = "ssl://h:8883"; o.TLS.CAFile = notPEM }), notPEM + " holds no PEM certificate"},
		{"cert without key", with(func(o *display.Options) { o.Broker = "ssl://h:8883"; o.TLS.CertFile = notPEM }), "without its key file"},
		{"key without cert", with(func(o *display.Options) { o.Broker = "ssl://h:8883"; o.TLS.KeyFile = notPEM }), "without its certificate file"},
		{"bad key pair", with(func(o *display.Options) {
			o.Broker = "wss://h:8884/mqtt"
			o.TLS.CertFile = notPEM
			o.TLS.KeyFile = missing
		}), notPEM},
		{"password alone", with(func(o *display.Options) { o.Password = "x" }), "without a username"},
		{"negative timeout", with(func(o *display.Options) { o.ConnectTimeout = -time.Second }), "connect timeout -1s is negative"},
		{"short keepalive", with(func(o *display.Options) { o.KeepAlive = time.Millisecond }), "keepalive"},
		{"negative queue", with(func(o *display.Options) { o.CommandQueue = -1 }), "command queue"},
	} {
		c, err := display.Dial(tc.opts)
		if err == nil {
			c.Close()
			t.Errorf("%s: Dial succeeded", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want it to mention %q", tc.name, err, tc.want)
		}
	}
}
