package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// The TLS row: both servers take TLS clients beside their plain port, with
// a certificate for 127.0.0.1 from a CA benchcmp makes for the run, and
// redis-benchmark --tls --cacert measures them there. The plain port is
// still what the readiness PING uses.

// tlsFiles are the PEM files of one run's certificates.
type tlsFiles struct {
	CA, Cert, Key string
}

// certValidity is how long the run's certificates are valid: long enough
// for any run, short enough that a stray copy is worthless soon.
const certValidity = 24 * time.Hour

// generateCerts writes a CA certificate, and a server certificate and key
// for 127.0.0.1 signed by it, into dir.
func generateCerts(dir string, now time.Time) (tlsFiles, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tlsFiles{}, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "benchcmp CA"},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(certValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return tlsFiles{}, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return tlsFiles{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tlsFiles{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(certValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return tlsFiles{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return tlsFiles{}, err
	}
	f := tlsFiles{CA: filepath.Join(dir, "ca.pem"), Cert: filepath.Join(dir, "server.pem"), Key: filepath.Join(dir, "server-key.pem")}
	for _, w := range []struct {
		path, typ string
		der       []byte
		mode      os.FileMode
	}{
		{f.CA, "CERTIFICATE", caDER, 0o644},
		{f.Cert, "CERTIFICATE", der, 0o644},
		{f.Key, "EC PRIVATE KEY", keyDER, 0o600},
	} {
		if err := os.WriteFile(w.path, pem.EncodeToMemory(&pem.Block{Type: w.typ, Bytes: w.der}), w.mode); err != nil {
			return tlsFiles{}, err
		}
	}
	return f, nil
}

// ruvioTLS makes kind take TLS clients on tlsPort (RUVIO_TLS_*), asking
// for no client certificate.
func ruvioTLS(kind serverKind, f tlsFiles, tlsPort int) serverKind {
	kind.Env = append(append([]string(nil), kind.Env...),
		"RUVIO_TLS_PORT="+strconv.Itoa(tlsPort), "RUVIO_TLS_CERT="+f.Cert, "RUVIO_TLS_KEY="+f.Key, "RUVIO_TLS_CLIENT_AUTH=no")
	return benchOverTLS(kind, f, tlsPort)
}

// redisTLS makes kind take TLS clients on tlsPort, asking for no client
// certificate.
func redisTLS(kind serverKind, f tlsFiles, tlsPort int) serverKind {
	kind.ExtraArgs = append(append([]string(nil), kind.ExtraArgs...),
		"--tls-port", strconv.Itoa(tlsPort), "--tls-cert-file", f.Cert, "--tls-key-file", f.Key,
		"--tls-ca-cert-file", f.CA, "--tls-auth-clients", "no")
	return benchOverTLS(kind, f, tlsPort)
}

// benchOverTLS points redis-benchmark at the TLS port, verifying the
// server against the run's CA.
func benchOverTLS(kind serverKind, f tlsFiles, tlsPort int) serverKind {
	kind.BenchPort = tlsPort
	kind.BenchExtra = []string{"--tls", "--cacert", f.CA}
	return kind
}

// errNoTLS marks a redis-server that cannot take TLS clients.
var errNoTLS = errors.New("redis-server did not start with --tls-port")

// runTLS measures the TLS row: the memory profile, one shard, the --tls
// tests at every --pipelines depth. When redis-server does not start with
// TLS the row is skipped and the reason returned.
func runTLS(ctx context.Context, cfg config, ruvio, redis serverKind, alloc *portAllocator, log *slog.Logger) (runs []runResult, skipped string, err error) {
	log = log.With("part", "tls")
	root, err := os.MkdirTemp("", "benchcmp-tls-")
	if err != nil {
		return nil, "", err
	}
	defer removeAll(root, log)
	f, err := generateCerts(root, time.Now())
	if err != nil {
		return nil, "", fmt.Errorf("tls: certificates: %w", err)
	}
	ports := make([]int, 2)
	for i := range ports {
		if ports[i], err = alloc.take(1); err != nil {
			return nil, "", err
		}
	}
	ruvio.Cluster, redis.Cluster = false, false
	a, b := ruvioTLS(ruvio, f, ports[0]), redisTLS(redis, f, ports[1])

	// Probe first: a redis-server built without TLS refuses the flags and
	// exits, which only means the row cannot run here.
	probe, err := launch(ctx, b, 1, durabilityMemory, root, alloc, log)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", err
		}
		reason := fmt.Sprintf("%v: %s", errNoTLS, firstLine(lastLines(err.Error())))
		log.Warn("TLS row skipped", "reason", reason)
		return nil, reason, nil
	}
	stopServer(probe, log)
	tcfg := cfg
	tcfg.Tests = cfg.TLS
	runs, err = runGroup(ctx, tcfg, a, b, durabilityMemory, 1, alloc, log)
	if err != nil {
		err = fmt.Errorf("tls: %w", err)
	}
	return runs, "", err
}

// lastLines is the end of an error that quotes a log tail: the server's
// last words say best why it would not start.
func lastLines(s string) string {
	for i := len(s) - 1; i > 0; i-- {
		if s[i] == '\n' && i < len(s)-1 {
			return s[i+1:]
		}
	}
	return s
}
