package mosquittotest

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

func TestStartStopRestartSamePort(t *testing.T) {
	b := Start(t, Config{Persistence: true})
	addr := b.Addr()
	dial(t, addr)
	b.Stop()
	if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		conn.Close()
		t.Fatalf("%s still accepts connections after Stop", addr)
	}
	b.Restart()
	if b.Addr() != addr {
		t.Fatalf("restarted on %s, want the same address %s", b.Addr(), addr)
	}
	dial(t, addr)
}

func TestConfigHasUsersACLAndTLS(t *testing.T) {
	b := Start(t, Config{
		Users:             map[string]string{"dealer": "d-secret"},
		ACL:               "user dealer\ntopic write x/#\n",
		TLS:               true,
		RequireClientCert: true,
	})
	conf, err := os.ReadFile(b.conf)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"allow_anonymous false", "password_file ", "acl_file ", "require_certificate true", "cafile "} {
		if !strings.Contains(string(conf), want) {
			t.Errorf("config lacks %q:\n%s", want, conf)
		}
	}
	passwd, err := os.ReadFile(b.dir + "/passwd")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(passwd), "dealer:$") || strings.Contains(string(passwd), "d-secret") {
		t.Errorf("password file is not a hashed entry for dealer: %q", passwd)
	}

	pool := x509.NewCertPool()
	pem, err := os.ReadFile(b.CAFile())
	if err != nil {
		t.Fatal(err)
	}
	pool.AppendCertsFromPEM(pem)
	tlsAddr := strings.TrimPrefix(b.TLSURL(), "ssl://")

	// Without a client certificate the broker ends the handshake.
	conn, err := tls.Dial("tcp", tlsAddr, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	if err == nil {
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err = conn.Read(make([]byte, 1))
		conn.Close()
	}
	var ne net.Error
	if err == nil || errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("TLS listener did not refuse a client without a certificate (err %v)", err)
	}

	crt, key := b.ClientCert("dealer")
	cert, err := tls.LoadX509KeyPair(crt, key)
	if err != nil {
		t.Fatal(err)
	}
	conn, err = tls.Dial("tcp", tlsAddr, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatalf("TLS with the CA and a client certificate: %v", err)
	}
	conn.Close()
}

func dial(t *testing.T, addr string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	conn.Close()
}
