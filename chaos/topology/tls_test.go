package topology

import (
	"crypto/tls"
	"net"
	"testing"
	"time"
)

// handshake runs a TLS handshake over loopback between a server showing f's
// certificate and a client of f's ClientConfig that dials host.
func handshake(t *testing.T, f TLSFiles, host string) error {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := f.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg.ServerName = host
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(5 * time.Second))
		_ = tls.Server(nc, &tls.Config{Certificates: []tls.Certificate{cert}}).Handshake()
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	err = tls.Client(nc, cfg).Handshake()
	nc.Close()
	<-done
	return err
}

// The run's certificate verifies for every host it was made for, IP
// addresses and names, and for no other.
func TestTLSFilesNameTheirHosts(t *testing.T) {
	f, err := WriteTLSFiles(t.TempDir(), []string{"127.0.0.1", "127.0.0.3", "localhost"})
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"127.0.0.1", "127.0.0.3", "localhost"} {
		if err := handshake(t, f, host); err != nil {
			t.Errorf("host %s: %v", host, err)
		}
	}
	for _, host := range []string{"127.0.0.2", "example.com"} {
		if err := handshake(t, f, host); err == nil {
			t.Errorf("host %s verified, but the certificate does not name it", host)
		}
	}
	if _, err := WriteTLSFiles(t.TempDir(), nil); err == nil {
		t.Error("a certificate naming no host was made")
	}
}
