package workloads

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ruvio/ruvio/reports/history"
	"github.com/ruvio/ruvio/ruvio/tlsconf/tlstest"
)

// pool is a certificate pool holding the CA certificate at path.
func pool(t *testing.T, path string) *x509.CertPool {
	t.Helper()
	pem, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(pem) {
		t.Fatalf("no certificate in %s", path)
	}
	return p
}

// A workload given a TLS configuration runs over a node's TLS port, its
// final read too; one that trusts another CA has every operation refused
// (the handshake fails before a command is sent), none indeterminate.
func TestRegisterOverTLS(t *testing.T) {
	ca := tlstest.NewCA(t, "workloads CA")
	cert, key := ca.Issue("node", "127.0.0.1").Write(t, t.TempDir())
	tlsPort := freePort(t)
	startServer(t, freePort(t), t.TempDir(),
		"RUVIO_TLS_PORT="+strconv.Itoa(tlsPort), "RUVIO_TLS_CERT="+cert, "RUVIO_TLS_KEY="+key)
	addr := "127.0.0.1:" + strconv.Itoa(tlsPort)

	rec := NewRecorder()
	spec := Spec{Kind: KindRegister, Clients: 2, Keys: 2, Rate: 200, TLS: &tls.Config{RootCAs: pool(t, ca.File)}}
	runFor(t, 500*time.Millisecond, spec, addr, rec, 1)
	if err := FinalRead(context.Background(), spec, []string{addr}, rec, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	h := rec.History()
	if n := count(h, history.FWrite, history.OK, false); n == 0 {
		t.Fatal("no write acknowledged over TLS")
	}
	if n := count(h, history.FGet, history.OK, true); n != len(spec.KeyNames()) {
		t.Errorf("%d final reads succeeded over TLS, want %d", n, len(spec.KeyNames()))
	}
	if st := rec.Stats(); st.Info != 0 {
		t.Errorf("stats %+v: operations indeterminate against a healthy TLS port", st)
	}

	other := tlstest.NewCA(t, "another CA")
	rec = NewRecorder()
	spec.TLS = &tls.Config{RootCAs: pool(t, other.File)}
	runFor(t, 300*time.Millisecond, spec, addr, rec, 2)
	st := rec.Stats()
	if st.Ops == 0 || st.OK != 0 || st.Info != 0 {
		t.Errorf("stats %+v: a client trusting another CA must have every operation refused", st)
	}
}
