package display

import (
	"crypto/tls"
	"errors"
	"testing"
	"time"
)

func TestNewPahoClientSettings(t *testing.T) {
	t.Parallel()
	tc := &tls.Config{ServerName: "broker.example"}
	lost := make(chan error, 1)
	pc := NewPahoClient(PahoConfig{
		Broker: "ssl://broker.example:8883", ClientID: "tablectl-T1", Username: "bac-07", Password: "pw",
		TLS: tc, KeepAlive: 30 * time.Second, ConnectTimeout: 10 * time.Second, WriteTimeout: 5 * time.Second,
		Will: Will{Topic: "tablectl/v1/T1/status", Payload: []byte(`{"state":"offline"}`)}, Lost: lost,
	})
	r := pc.OptionsReader()
	if got := r.Servers(); len(got) != 1 || got[0].String() != "ssl://broker.example:8883" {
		t.Errorf("servers %v", got)
	}
	if r.ClientID() != "tablectl-T1" || r.Username() != "bac-07" || r.Password() != "pw" || r.TLSConfig() != tc {
		t.Errorf("id %q, user %q, password %q, TLS %p", r.ClientID(), r.Username(), r.Password(), r.TLSConfig())
	}
	// The owner's KeepConnected reconnects: paho must neither reconnect nor retry.
	if !r.CleanSession() || r.AutoReconnect() || r.ConnectRetry() || r.Order() {
		t.Errorf("clean %t, auto-reconnect %t, connect retry %t, order %t", r.CleanSession(), r.AutoReconnect(), r.ConnectRetry(), r.Order())
	}
	if r.KeepAlive() != 30*time.Second || r.PingTimeout() != 15*time.Second || r.ConnectTimeout() != 10*time.Second || r.WriteTimeout() != 5*time.Second {
		t.Errorf("keep-alive %v, ping %v, connect %v, write %v", r.KeepAlive(), r.PingTimeout(), r.ConnectTimeout(), r.WriteTimeout())
	}
	if !r.WillEnabled() || r.WillTopic() != "tablectl/v1/T1/status" || string(r.WillPayload()) != `{"state":"offline"}` || r.WillQos() != 1 || !r.WillRetained() {
		t.Errorf("will %t %q %q qos %d retained %t", r.WillEnabled(), r.WillTopic(), r.WillPayload(), r.WillQos(), r.WillRetained())
	}

	// The board's: no will, no credentials, messages in order, paho's TLS defaults.
	r = NewPahoClient(PahoConfig{Broker: "tcp://127.0.0.1:1883", ClientID: "board", OrderMatters: true, Lost: lost}).OptionsReader()
	if r.WillEnabled() || r.Username() != "" || !r.Order() || r.WriteTimeout() != 0 {
		t.Errorf("board: will %t, user %q, order %t, write timeout %v", r.WillEnabled(), r.Username(), r.Order(), r.WriteTimeout())
	}
}

func TestLostSignalNeverWaits(t *testing.T) {
	t.Parallel()
	lost := make(chan error, 1)
	h := lostSignal(lost)
	first, second := errors.New("first loss"), errors.New("second loss")
	h(nil, first)
	h(nil, second) // must not block with the first still pending
	if err := <-lost; err != first {
		t.Fatalf("signalled %v, want the first loss", err)
	}
	select {
	case err := <-lost:
		t.Fatalf("a second signal %v for a loss already signalled", err)
	default:
	}
}
