package mqttpasswd

import (
	"regexp"
	"strings"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// mosquittoPasswdLine is a line Debian's mosquitto_passwd 2.0.11 wrote for user u1 with
// the password "secret" (mosquitto_passwd -c -b FILE u1 secret).
const mosquittoPasswdLine = "u1:$7$101$EOWCfo8p2gKBRTwP$3Jhj63NWOnwC9a8TluNDoXRifO/o+EVhZ4SAvbvoYt3TDzgGEvgMeXJFE+crVVj38eGfPJDQQUYmw6gvcVpZVQ=="

// TestHashAsMosquittoPasswd: a hash of mosquitto_passwd verifies with its password and
// no other, and the same salt gives the same hash; Hash's own has the same form.
func TestHashAsMosquittoPasswd(t *testing.T) {
	hash := strings.TrimPrefix(mosquittoPasswdLine, "u1:")
	for pw, want := range map[string]bool{"secret": true, "Secret": false, "secret ": false, "": false} {
		if ok, err := Verify(hash, pw); err != nil || ok != want {
			t.Errorf("Verify(mosquitto_passwd's hash, %q) = %v, %v; want %v", pw, ok, err, want)
		}
	}
	if got, err := hashWith("secret", []byte{0x10, 0xe5, 0x82, 0x7e, 0x8f, 0x29, 0xda, 0x02, 0x81, 0x45, 0x3c, 0x0f}, Iterations); err != nil || got != hash {
		t.Errorf("hash of secret with mosquitto_passwd's salt:\n%s\nwant\n%s (%v)", got, hash, err)
	}
	form := regexp.MustCompile(`^\$7\$101\$[A-Za-z0-9+/]{16}\$[A-Za-z0-9+/]{86}==$`)
	h1, err := Hash("pw")
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := Hash("pw")
	if !form.MatchString(h1) || h1 == h2 {
		t.Errorf("Hash: %q and %q: want the form of mosquitto_passwd, each with its own salt", h1, h2)
	}
	if ok, err := Verify(h1, "pw"); !ok || err != nil {
		t.Errorf("Verify(Hash(pw), pw) = %v, %v", ok, err)
	}
	for _, bad := range []string{"$6$abc$def", "$7$0$EOWCfo8p2gKBRTwP$3Jhj", "$7$101$short$3Jhj", "plain"} {
		if _, err := Verify(bad, "x"); err == nil {
			t.Errorf("Verify(%q) took a hash of another form", bad)
		}
	}
	if _, err := Hash("a\x00b"); err == nil {
		t.Error("a password with a NUL byte was hashed")
	}
}

func TestNewPassword(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		pw, err := NewPassword()
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^[A-Za-z0-9_-]{32}$`).MatchString(pw) || seen[pw] {
			t.Fatalf("password %q: want 32 printable characters, new each time", pw)
		}
		seen[pw] = true
	}
}

func TestSetLine(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
		replaced         bool
	}{
		{"empty file", "", "t1:H\n", false},
		{"added", "dealer:D\nboard:B\n", "dealer:D\nboard:B\nt1:H\n", false},
		{"no last line break", "dealer:D", "dealer:D\nt1:H\n", false},
		{"replaced in place", "dealer:D\nt1:OLD\nboard:B\n", "dealer:D\nt1:H\nboard:B\n", true},
		{"a second line of the user dropped", "t1:OLD\nboard:B\nt1:OLDER\n", "t1:H\nboard:B\n", true},
		{"a user whose name begins alike is another", "t10:X\nt1x:Y\n", "t10:X\nt1x:Y\nt1:H\n", false},
		{"other lines kept", "# note\n\ndealer:D\r\n", "# note\n\ndealer:D\r\nt1:H\n", false},
	} {
		out, replaced, err := SetLine([]byte(tc.text), "t1", "H")
		if err != nil || string(out) != tc.want || replaced != tc.replaced {
			t.Errorf("%s: %q, replaced %v, %v; want %q, replaced %v", tc.name, out, replaced, err, tc.want, tc.replaced)
		}
	}
	for _, bad := range []string{"", "a:b", "a b", "a\nb"} {
		if _, _, err := SetLine(nil, bad, "H"); err == nil {
			t.Errorf("user %q was taken", bad)
		}
	}
}

// TestMosquittoTakesTheHash starts Debian's Mosquitto with a password file of Hash's
// lines: each user logs in with its password, and not with another's.
func TestMosquittoTakesTheHash(t *testing.T) {
	pws := map[string]string{}
	var file []byte
	for _, user := range []string{"t1", "archive-floor"} {
		pw, err := NewPassword()
		if err != nil {
			t.Fatal(err)
		}
		h, err := Hash(pw)
		if err != nil {
			t.Fatal(err)
		}
		if file, _, err = SetLine(file, user, h); err != nil {
			t.Fatal(err)
		}
		pws[user] = pw
	}
	m := mosquittotest.Start(t, mosquittotest.Config{PasswordFile: string(file)})
	login := func(user, pw string) error {
		c := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(m.URL()).SetClientID("c-" + user).
			SetUsername(user).SetPassword(pw).SetAutoReconnect(false).SetConnectTimeout(10 * time.Second))
		tok := c.Connect()
		if !tok.WaitTimeout(15 * time.Second) {
			t.Fatalf("%s: no answer to the connect", user)
		}
		if tok.Error() == nil {
			c.Disconnect(50)
		}
		return tok.Error()
	}
	for user, pw := range pws {
		if err := login(user, pw); err != nil {
			t.Errorf("%s with its password: %v", user, err)
		}
	}
	if err := login("t1", pws["archive-floor"]); err == nil {
		t.Error("t1 logged in with another user's password")
	}
}
