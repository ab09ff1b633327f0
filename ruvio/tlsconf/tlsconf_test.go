package tlsconf_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/ruvio/tlsconf"
	"github.com/ruvio/ruvio/ruvio/tlsconf/tlstest"
)

// handshake runs one TLS handshake over a loopback connection and returns
// the serial number of the certificate the server showed, or the first
// error.
func handshake(t *testing.T, server, client *tls.Config) (*big.Int, error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	b, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	a, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := tls.Server(a, server)
	errc := make(chan error, 1)
	go func() {
		err := srv.HandshakeContext(ctx)
		if err == nil {
			// TLS 1.3 checks the client's certificate after the client
			// considers the handshake done: read so a refusal reaches it.
			_, err = srv.Write([]byte{1})
		}
		if err != nil {
			a.Close()
		}
		errc <- err
	}()
	cl := tls.Client(b, client)
	err = cl.HandshakeContext(ctx)
	if err == nil {
		var one [1]byte
		_, err = cl.Read(one[:])
	}
	if err != nil {
		b.Close()
	}
	serr := <-errc
	if err == nil {
		err = serr
	}
	if err != nil {
		return nil, err
	}
	return cl.ConnectionState().PeerCertificates[0].SerialNumber, nil
}

func store(t *testing.T, files tlsconf.Files, log *slog.Logger) *tlsconf.Store {
	t.Helper()
	s, err := tlsconf.Load(files, log)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestClientAuthModes(t *testing.T) {
	ca := tlstest.NewCA(t, "test CA")
	other := tlstest.NewCA(t, "other CA")
	sc, sk := ca.Issue("server", "127.0.0.1").Write(t, t.TempDir())
	cc, ck := ca.Issue("client").Write(t, t.TempDir())
	oc, ok := other.Issue("stranger").Write(t, t.TempDir())
	server := store(t, tlsconf.Files{Cert: sc, Key: sk, CA: ca.File}, nil)

	clients := map[string]tlsconf.Files{
		"none":    {CA: ca.File},
		"trusted": {Cert: cc, Key: ck, CA: ca.File},
		"foreign": {Cert: oc, Key: ok, CA: ca.File},
	}
	tests := []struct {
		mode, client string
		ok           bool
	}{
		{tlsconf.AuthNo, "none", true},
		{tlsconf.AuthNo, "trusted", true},
		{tlsconf.AuthNo, "foreign", true},
		{tlsconf.AuthOptional, "none", true},
		{tlsconf.AuthOptional, "trusted", true},
		{tlsconf.AuthOptional, "foreign", false},
		{tlsconf.AuthYes, "none", false},
		{tlsconf.AuthYes, "trusted", true},
		{tlsconf.AuthYes, "foreign", false},
	}
	for _, tc := range tests {
		t.Run(tc.mode+"/"+tc.client, func(t *testing.T) {
			cl := store(t, clients[tc.client], nil)
			_, err := handshake(t, server.ServerConfig(tc.mode), cl.ClientConfig("127.0.0.1"))
			if (err == nil) != tc.ok {
				t.Fatalf("handshake error %v, want success %v", err, tc.ok)
			}
		})
	}
}

func TestClientVerifiesServer(t *testing.T) {
	ca := tlstest.NewCA(t, "test CA")
	other := tlstest.NewCA(t, "other CA")
	sc, sk := ca.Issue("server", "127.0.0.1", "node-1").Write(t, t.TempDir())
	server := store(t, tlsconf.Files{Cert: sc, Key: sk}, nil).ServerConfig(tlsconf.AuthNo)
	tests := []struct {
		name, ca, host string
		ok             bool
	}{
		{"ip named", ca.File, "127.0.0.1", true},
		{"dns named", ca.File, "node-1", true},
		{"bracketed ip", ca.File, "[127.0.0.1]", true},
		{"host not named", ca.File, "node-2", false},
		{"other CA", other.File, "127.0.0.1", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cl := store(t, tlsconf.Files{CA: tc.ca}, nil)
			if _, err := handshake(t, server, cl.ClientConfig(tc.host)); (err == nil) != tc.ok {
				t.Fatalf("handshake error %v, want success %v", err, tc.ok)
			}
		})
	}
}

// countingHandler counts warnings, to check a broken file is logged once.
type countingHandler struct {
	slog.Handler
	warns *int
}

func (h countingHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelWarn {
		*h.warns++
	}
	return h.Handler.Handle(ctx, r)
}

func TestRotation(t *testing.T) {
	ca := tlstest.NewCA(t, "test CA")
	dir := t.TempDir()
	first := ca.Issue("server", "127.0.0.1")
	sc, sk := first.Write(t, dir)
	var logged bytes.Buffer
	warns := 0
	log := slog.New(countingHandler{slog.NewTextHandler(&logged, nil), &warns})
	st := store(t, tlsconf.Files{Cert: sc, Key: sk}, log)
	// Each step comes after the warnings' rate limit, so every failed
	// change is logged.
	clock := time.Now()
	tlsconf.SetClock(st, func() time.Time { return clock })
	server := st.ServerConfig(tlsconf.AuthNo)
	client := store(t, tlsconf.Files{CA: ca.File}, nil)

	second := ca.Issue("server", "127.0.0.1")
	steps := []struct {
		name   string
		write  func()
		serial *big.Int
		warns  int
	}{
		{"initial", func() {}, first.Serial, 0},
		{"rotated", func() { second.Write(t, dir) }, second.Serial, 0},
		{"broken certificate", func() { tlstest.WriteFile(t, sc, []byte("not a certificate")) }, second.Serial, 1},
		{"still broken, not logged again", func() {}, second.Serial, 1},
		{"key of another certificate", func() {
			third := ca.Issue("server", "127.0.0.1")
			tlstest.WriteFile(t, sc, first.CertPEM)
			tlstest.WriteFile(t, sk, third.KeyPEM)
		}, second.Serial, 2},
		{"repaired", func() { tlstest.WriteFile(t, sk, first.KeyPEM) }, first.Serial, 2},
	}
	for _, st := range steps {
		clock = clock.Add(tlsconf.WarnEvery)
		st.write()
		got, err := handshake(t, server, client.ClientConfig("127.0.0.1"))
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got.Cmp(st.serial) != 0 {
			t.Errorf("%s: served serial %v, want %v", st.name, got, st.serial)
		}
		if warns != st.warns {
			t.Errorf("%s: %d warnings logged, want %d:\n%s", st.name, warns, st.warns, logged.String())
		}
	}
}

func TestCARotation(t *testing.T) {
	oldCA := tlstest.NewCA(t, "old CA")
	newCA := tlstest.NewCA(t, "new CA")
	sc, sk := oldCA.Issue("server", "127.0.0.1").Write(t, t.TempDir())
	server := store(t, tlsconf.Files{Cert: sc, Key: sk}, nil).ServerConfig(tlsconf.AuthNo)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	tlstest.WriteFile(t, caFile, readPEM(t, newCA.File))
	client := store(t, tlsconf.Files{CA: caFile}, nil)
	if _, err := handshake(t, server, client.ClientConfig("127.0.0.1")); err == nil {
		t.Fatal("server of the old CA accepted by a client trusting only the new one")
	}
	tlstest.WriteFile(t, caFile, append(readPEM(t, newCA.File), readPEM(t, oldCA.File)...))
	if _, err := handshake(t, server, client.ClientConfig("127.0.0.1")); err != nil {
		t.Fatalf("after adding the old CA to the bundle: %v", err)
	}
}

func TestLoadRefusesBrokenFiles(t *testing.T) {
	ca := tlstest.NewCA(t, "test CA")
	dir := t.TempDir()
	sc, sk := ca.Issue("server").Write(t, dir)
	garbage := filepath.Join(dir, "garbage.pem")
	tlstest.WriteFile(t, garbage, []byte("garbage"))
	tests := []struct {
		name  string
		files tlsconf.Files
		want  string
	}{
		{"cert without key", tlsconf.Files{Cert: sc}, "needs its key"},
		{"missing cert", tlsconf.Files{Cert: filepath.Join(dir, "nope.pem"), Key: sk}, "nope.pem"},
		{"garbage cert", tlsconf.Files{Cert: garbage, Key: sk}, "garbage.pem"},
		{"garbage CA", tlsconf.Files{CA: garbage}, "holds no PEM certificate"},
		{"missing CA", tlsconf.Files{CA: filepath.Join(dir, "none.pem")}, "none.pem"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tlsconf.Load(tc.files, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func readPEM(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Failed reloads within WarnEvery of a warning are held back, and the
// first handshake after it logs them once, with their count.
func TestWarningsRateLimited(t *testing.T) {
	ca := tlstest.NewCA(t, "test CA")
	good := ca.Issue("server", "127.0.0.1")
	sc, sk := good.Write(t, t.TempDir())
	var logged bytes.Buffer
	warns := 0
	st := store(t, tlsconf.Files{Cert: sc, Key: sk}, slog.New(countingHandler{slog.NewTextHandler(&logged, nil), &warns}))
	clock := time.Now()
	tlsconf.SetClock(st, func() time.Time { return clock })
	server := st.ServerConfig(tlsconf.AuthNo)
	client := store(t, tlsconf.Files{CA: ca.File}, nil)
	steps := []struct {
		name    string
		advance time.Duration
		broken  bool
		warns   int
	}{
		{"first broken change: logged", 0, true, 1},
		{"second within the limit: held back", time.Second, true, 1},
		{"third within the limit: held back", time.Second, true, 1},
		{"no change, limit not passed", time.Second, false, 1},
		{"no change, limit passed: the held-back warning", tlsconf.WarnEvery, false, 2},
		{"nothing held back", tlsconf.WarnEvery, false, 2},
	}
	for i, step := range steps {
		clock = clock.Add(step.advance)
		if step.broken {
			tlstest.WriteFile(t, sc, []byte("broken "+strconv.Itoa(i)))
		}
		got, err := handshake(t, server, client.ClientConfig("127.0.0.1"))
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if got.Cmp(good.Serial) != 0 {
			t.Errorf("%s: served serial %v, want the good %v", step.name, got, good.Serial)
		}
		if warns != step.warns {
			t.Errorf("%s: %d warnings, want %d:\n%s", step.name, warns, step.warns, logged.String())
		}
	}
	if !strings.Contains(logged.String(), "failed_reloads_since_last_warning=2") {
		t.Errorf("the held-back warning does not count two failures:\n%s", logged.String())
	}
}
