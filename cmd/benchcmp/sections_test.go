package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSettled(t *testing.T) {
	tests := []struct {
		prev, cur int64
		want      bool
	}{
		{-1, 100, false},
		{100, 100, true},
		{1000, 1010, true},
		{1000, 990, true},
		{1000, 1011, false},
		{1000, 2000, false},
		{0, 0, true},
	}
	for _, tt := range tests {
		if got := settled(tt.prev, tt.cur); got != tt.want {
			t.Errorf("settled(%d, %d) = %v, want %v", tt.prev, tt.cur, got, tt.want)
		}
	}
}

func TestShapeKeys(t *testing.T) {
	if shapeKeys(shapeStrings, 1000000) != 1000000 || shapeKeys(shapeHashes, 1000000) != 100000 || shapeKeys(shapeZsets, 100000) != 10000 {
		t.Error("want strings at --memory-keys and a tenth of it for hashes and sorted sets")
	}
}

func TestMemoryRows(t *testing.T) {
	results := []memoryResult{
		{Role: roleRuvio, Shape: shapeStrings, Keys: 1000, UsedBefore: 1000, UsedAfter: 101000, RSSBefore: 4096, RSSAfter: 204096},
		{Role: roleRedis, Shape: shapeStrings, Keys: 1000, UsedBefore: 500, UsedAfter: 50500, RSSBefore: 0, RSSAfter: 100000},
		{Role: roleRuvio, Shape: shapeHashes, Keys: 100, Error: "boom"},
		{Role: roleRedis, Shape: shapeHashes, Keys: 100, UsedBefore: 0, UsedAfter: 100000, RSSBefore: 0, RSSAfter: 80000},
	}
	got := memoryTableData(buildMemoryRows(results))
	want := [][]string{
		{"string of 16 bytes", "1000", "100", "50", "2.00", "200", "100", "2.00"},
		{"hash of 10 fields", "100", "n/a", "1000", "n/a", "n/a", "800", "n/a"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got:\n%v\nwant:\n%v", got, want)
	}
}

func TestRecoveryRows(t *testing.T) {
	results := []recoveryResult{
		{Role: roleRuvio, Keys: 1000, Times: map[string]time.Duration{caseLog: 2 * time.Second, caseSnapshot: time.Second, caseCopy: 3 * time.Second}},
		{Role: roleRedis, Keys: 1000, Times: map[string]time.Duration{caseLog: 4 * time.Second, caseSnapshot: 500 * time.Millisecond, caseCopy: 3 * time.Second}},
		// The second count has no replica copy; redis failed after the
		// log restart.
		{Role: roleRuvio, Keys: 4000, Times: map[string]time.Duration{caseLog: 8 * time.Second, caseSnapshot: 4 * time.Second}},
		{Role: roleRedis, Keys: 4000, Times: map[string]time.Duration{caseLog: 16 * time.Second}, Error: "boom"},
	}
	got := recoveryTableData(buildRecoveryRows(results), "ruvio", "redis")
	want := [][]string{
		{"1000", "restart, log only (ruvio WAL, redis AOF)", "2.000", "4.000", "0.50"},
		{"1000", "restart after SAVE (ruvio snapshot, redis RDB)", "1.000", "0.500", "2.00"},
		{"1000", "fresh replica, full copy", "3.000", "3.000", "1.00"},
		{"4000", "restart, log only (ruvio WAL, redis AOF)", "8.000", "16.000", "0.50"},
		{"4000", "restart after SAVE (ruvio snapshot, redis RDB)", "4.000", "n/a", "n/a"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got:\n%v\nwant:\n%v", got, want)
	}
}

// TestGenerateCerts checks that the server certificate verifies against
// the CA for 127.0.0.1, and that a TLS handshake with them succeeds.
func TestGenerateCerts(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	f, err := generateCerts(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	readCert := func(path string) *x509.Certificate {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		blk, _ := pem.Decode(b)
		if blk == nil || blk.Type != "CERTIFICATE" {
			t.Fatalf("%s holds no certificate", path)
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ca, leaf := readCert(f.CA), readCert(f.Cert)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	chains, err := leaf.Verify(x509.VerifyOptions{DNSName: "127.0.0.1", Roots: pool, CurrentTime: now,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	if err != nil || len(chains) != 1 || len(chains[0]) != 2 {
		t.Fatalf("chain %v, %v", chains, err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "localhost", Roots: pool, CurrentTime: now}); err == nil {
		t.Error("the certificate verifies for localhost, want 127.0.0.1 only")
	}
	if st, err := os.Stat(f.Key); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, %v; want 0600", st.Mode(), err)
	}

	// A handshake over loopback with the files as a server loads them.
	pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	c.Close()
}

func TestTLSKinds(t *testing.T) {
	f := tlsFiles{CA: "/t/ca.pem", Cert: "/t/s.pem", Key: "/t/k.pem"}
	r := ruvioTLS(ruvioKind("/bin/ruvio"), f, 7400)
	for _, want := range []string{"RUVIO_TLS_PORT=7400", "RUVIO_TLS_CERT=/t/s.pem", "RUVIO_TLS_KEY=/t/k.pem"} {
		if !strings.Contains(strings.Join(r.Env, " "), want) {
			t.Errorf("ruvio env %q lacks %q", r.Env, want)
		}
	}
	d := redisTLS(redisKind("/bin/redis-server"), f, 7401)
	if got, want := strings.Join(d.ExtraArgs, " "), "--tls-port 7401 --tls-cert-file /t/s.pem --tls-key-file /t/k.pem --tls-ca-cert-file /t/ca.pem --tls-auth-clients no"; got != want {
		t.Errorf("redis args %q, want %q", got, want)
	}
	for _, k := range []serverKind{r, d} {
		if k.BenchPort == 0 || strings.Join(k.BenchExtra, " ") != "--tls --cacert /t/ca.pem" {
			t.Errorf("%s: benchmark at %d with %q", k.Name, k.BenchPort, k.BenchExtra)
		}
	}
}

// TestRenderExtra checks the new sections' notes, headers and skip lines
// in both renderings.
func TestRenderExtra(t *testing.T) {
	rep := sampleReport()
	rep.Pinned = []string{"set", "get"}
	rep.PinnedRuns = sampleRuns()[:4]
	rep.PinnedRows = buildRows(rep.PinnedRuns)
	rep.TLSSkipped = "redis-server did not start with --tls-port: no TLS"
	rep.Keyspace, rep.KeyspaceKeys = []string{"set", "get"}, 1000
	rep.KeyspaceRuns = sampleRuns()[:4]
	rep.KeyspaceRows = buildRows(rep.KeyspaceRuns)
	rep.MemoryRuns = []memoryResult{{Role: roleRuvio, Shape: shapeStrings, Keys: 10, UsedAfter: 100}, {Role: roleRedis, Shape: shapeStrings, Keys: 10, UsedAfter: 50}}
	rep.MemoryRows = buildMemoryRows(rep.MemoryRuns)
	rep.RecoveryDurability = durabilityAlways
	rep.RecoveryRuns = []recoveryResult{{Role: roleRuvio, Keys: 10, Times: map[string]time.Duration{caseLog: time.Second}}}
	rep.RecoveryRows = buildRecoveryRows(rep.RecoveryRuns)
	for _, markdown := range []bool{false, true} {
		var buf bytes.Buffer
		if err := renderExtra(&buf, rep, markdown); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, want := range []string{
			"the server on CPU 0 and redis-benchmark on CPU 1",
			"ruvio CPU s/1M",
			"TLS row skipped: redis-server did not start with --tls-port: no TLS",
			"ruvio used B/key", "string of 16 bytes",
			"redis-benchmark -r 1000 (every request names one of 1000 random keys",
			"RUVIO_WAL_SNAPSHOT_BYTES=0", "--aof-use-rdb-preamble no", "restart, log only (ruvio WAL, redis AOF)",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("markdown=%v: output lacks %q:\n%s", markdown, want, out)
			}
		}
		if markdown {
			for _, h := range []string{"## Pinned", "## TLS", "## Keyspace", "## Memory", "## Recovery"} {
				if !strings.Contains(out, h) {
					t.Errorf("markdown lacks %q", h)
				}
			}
		}
	}
	// Nothing measured, nothing written.
	var buf bytes.Buffer
	if err := renderExtra(&buf, sampleReport(), false); err != nil || buf.Len() != 0 {
		t.Errorf("empty report rendered %q, %v", buf.String(), err)
	}
}
