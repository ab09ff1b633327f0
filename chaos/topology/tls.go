package topology

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// TLSFiles are the PEM files of a topology on TLS (Topology.TLS): one CA,
// and one certificate with its key that every node and coordinator
// serves and shows as a client, naming every host the links dial.
type TLSFiles struct {
	CA, Cert, Key string
}

// WriteTLSFiles makes a fresh CA and a certificate it signs for hosts (IP
// addresses or DNS names), valid for a day, and writes them into dir as
// ca.pem, node.pem and node-key.pem. A backend calls it once per run.
func WriteTLSFiles(dir string, hosts []string) (TLSFiles, error) {
	if len(hosts) == 0 {
		return TLSFiles{}, errors.New("tls files: no host to name")
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return TLSFiles{}, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ruvio chaos CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return TLSFiles{}, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return TLSFiles{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return TLSFiles{}, err
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "ruvio chaos node"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			leaf.IPAddresses = append(leaf.IPAddresses, ip)
		} else {
			leaf.DNSNames = append(leaf.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		return TLSFiles{}, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return TLSFiles{}, err
	}
	f := TLSFiles{CA: filepath.Join(dir, "ca.pem"), Cert: filepath.Join(dir, "node.pem"), Key: filepath.Join(dir, "node-key.pem")}
	for path, block := range map[string]*pem.Block{
		f.CA:   {Type: "CERTIFICATE", Bytes: caDER},
		f.Cert: {Type: "CERTIFICATE", Bytes: der},
		f.Key:  {Type: "PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			return TLSFiles{}, fmt.Errorf("tls files: %w", err)
		}
	}
	return f, nil
}

// ClientConfig is what the harness and the workloads dial the topology
// with: servers verified against the CA (for the host dialled), the
// certificate shown to any that asks for one.
func (f TLSFiles) ClientConfig() (*tls.Config, error) {
	pemCA, err := os.ReadFile(f.CA)
	if err != nil {
		return nil, fmt.Errorf("tls files: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemCA) {
		return nil, fmt.Errorf("tls files: no certificate in %s", f.CA)
	}
	cert, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		return nil, fmt.Errorf("tls files: %w", err)
	}
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// TLSEnv is a data node's environment for TLS on tlsPort (shard i on
// tlsPort + i) and on its replication links, with no plain client port
// (port = 0): it takes TLS clients only.
func (f TLSFiles) TLSEnv(tlsPort int) map[string]string {
	return map[string]string{
		"RUVIO_PORT":     "0",
		"RUVIO_TLS_PORT": fmt.Sprint(tlsPort), "RUVIO_TLS_CERT": f.Cert, "RUVIO_TLS_KEY": f.Key,
		"RUVIO_TLS_CLIENT_CA": f.CA, "RUVIO_REPLICATION_TLS": "true",
	}
}
