// Package tlsconf builds the TLS settings of a data node's listeners and
// dials from PEM files: a certificate with its key, and a CA bundle. The
// files are watched by modification time and size: the next handshake after
// either changes reads them again, so a certificate renewed on disk is
// served without a restart. A replacement that does not load (half written,
// a key that does not match) leaves the previous certificate in force and is
// logged once per change, and at most once per WarnEvery: failures inside
// it are logged together by the first handshake after it.
package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"
)

// Client authentication modes, the values of tls_client_auth. They are
// Redis's tls-auth-clients values.
const (
	// AuthNo asks clients for no certificate.
	AuthNo = "no"
	// AuthOptional verifies a certificate a client shows against the CA and
	// accepts clients that show none.
	AuthOptional = "optional"
	// AuthYes refuses clients without a certificate the CA vouches for.
	AuthYes = "yes"
)

// AuthModes lists the client authentication modes in the order errors name
// them.
var AuthModes = []string{AuthNo, AuthOptional, AuthYes}

// ClientAuth maps a mode onto crypto/tls. An unknown mode (which
// configuration validation rejects) is taken as the strictest.
func ClientAuth(mode string) tls.ClientAuthType {
	switch mode {
	case AuthNo, "":
		return tls.NoClientCert
	case AuthOptional:
		return tls.VerifyClientCertIfGiven
	default:
		return tls.RequireAndVerifyClientCert
	}
}

// Files names the PEM files. Cert and Key go together; either may be
// empty when the side has no certificate (a client that shows none). CA
// may be empty when nothing is verified against it.
type Files struct {
	Cert, Key, CA string
}

// stamp identifies one version of a file on disk.
type stamp struct {
	mod  time.Time
	size int64
}

func stat(path string) stamp {
	fi, err := os.Stat(path)
	if err != nil {
		return stamp{}
	}
	return stamp{mod: fi.ModTime(), size: fi.Size()}
}

// Store holds the loaded certificate and CA pool and reloads them when
// their files change. It is safe for concurrent use by handshakes.
type Store struct {
	files Files
	log   *slog.Logger

	mu   sync.Mutex
	cert *tls.Certificate
	pool *x509.CertPool
	// tried are the stamps last loaded or attempted, so a file that fails
	// is neither retried nor logged again until it changes once more.
	triedCert [2]stamp
	triedCA   stamp
	warn      warner
}

// WarnEvery is the least time between two warnings of one store about
// files that do not load. A failure inside it is held back and logged by
// the first handshake after it, with how many were held back.
const WarnEvery = time.Minute

// warner logs failed reloads once per change of the files and at most once
// per WarnEvery. Its fields are guarded by the Store's mutex.
type warner struct {
	now      func() time.Time // time.Now outside tests
	last     time.Time        // when the last warning was logged
	pending  []any            // the held-back warning's attributes, nil if none
	heldBack int              // failures held back since the last warning
}

// failed records a reload that did not load; it logs now or holds it back.
func (s *Store) failed(attrs ...any) {
	w := &s.warn
	w.pending, w.heldBack = attrs, w.heldBack+1
	s.flushWarning()
}

// flushWarning logs the held-back warning once WarnEvery has passed.
func (s *Store) flushWarning() {
	w := &s.warn
	if w.pending == nil {
		return
	}
	now := w.now()
	if !w.last.IsZero() && now.Sub(w.last) < WarnEvery {
		return
	}
	attrs := w.pending
	if w.heldBack > 1 {
		attrs = append(attrs, "failed_reloads_since_last_warning", w.heldBack)
	}
	s.log.Warn("TLS files changed on disk but do not load; keeping the previous ones", attrs...)
	w.last, w.pending, w.heldBack = now, nil, 0
}

// Load reads the files for the first time. Unlike later reloads, a file
// that does not load here is an error: there is no previous one to keep.
func Load(files Files, log *slog.Logger) (*Store, error) {
	if log == nil {
		log = slog.Default()
	}
	s := &Store{files: files, log: log, warn: warner{now: time.Now}}
	if (files.Cert == "") != (files.Key == "") {
		return nil, errors.New("tls: a certificate needs its key and a key its certificate")
	}
	if files.Cert != "" {
		s.triedCert = [2]stamp{stat(files.Cert), stat(files.Key)}
		c, err := loadPair(files.Cert, files.Key)
		if err != nil {
			return nil, err
		}
		s.cert = c
	}
	if files.CA != "" {
		s.triedCA = stat(files.CA)
		p, err := loadPool(files.CA)
		if err != nil {
			return nil, err
		}
		s.pool = p
	}
	return s, nil
}

// Check reads the files once, reporting why they do not load; it is what
// configuration validation calls. Empty names are not checked.
func Check(files Files) error {
	var errs []error
	if files.Cert != "" && files.Key != "" {
		if _, err := loadPair(files.Cert, files.Key); err != nil {
			errs = append(errs, err)
		}
	}
	if files.CA != "" {
		if _, err := loadPool(files.CA); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func loadPair(certPath, keyPath string) (*tls.Certificate, error) {
	c, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		return nil, fmt.Errorf("tls: certificate %s with key %s: %w", certPath, keyPath, err)
	}
	return &c, nil
}

func loadPool(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tls: CA %w", err)
	}
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("tls: CA %s holds no PEM certificate", path)
	}
	return p, nil
}

// Certificate returns the certificate in force, reading the files again
// first if they changed since the last attempt. It is nil when the store has
// no certificate files.
func (s *Store) Certificate() *tls.Certificate {
	if s.files.Cert == "" {
		return nil
	}
	now := [2]stamp{stat(s.files.Cert), stat(s.files.Key)}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.flushWarning()
	if now != s.triedCert {
		s.triedCert = now
		if c, err := loadPair(s.files.Cert, s.files.Key); err != nil {
			s.failed("cert", s.files.Cert, "key", s.files.Key, "err", err)
		} else {
			s.cert = c
			s.log.Info("TLS certificate reloaded", "cert", s.files.Cert)
		}
	}
	return s.cert
}

// Pool returns the CA pool in force, reloaded like Certificate; nil when
// the store has no CA file.
func (s *Store) Pool() *x509.CertPool {
	if s.files.CA == "" {
		return nil
	}
	now := stat(s.files.CA)
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.flushWarning()
	if now != s.triedCA {
		s.triedCA = now
		if p, err := loadPool(s.files.CA); err != nil {
			s.failed("ca", s.files.CA, "err", err)
		} else {
			s.pool = p
			s.log.Info("TLS CA bundle reloaded", "ca", s.files.CA)
		}
	}
	return s.pool
}

// ServerConfig is the configuration of a listener that shows the store's
// certificate and treats client certificates as mode says, verifying them
// against the CA. Each handshake takes the files as they are then.
func (s *Store) ServerConfig(mode string) *tls.Config {
	getCert := func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
		if c := s.Certificate(); c != nil {
			return c, nil
		}
		return nil, errors.New("tls: no server certificate configured")
	}
	auth := ClientAuth(mode)
	return &tls.Config{
		MinVersion:     tls.VersionTLS12,
		GetCertificate: getCert,
		// A fresh configuration per handshake carries the CA pool as it
		// is now: ClientCAs is otherwise fixed for the listener's life.
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			cfg := &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: getCert, ClientAuth: auth}
			if auth != tls.NoClientCert {
				cfg.ClientCAs = s.Pool()
			}
			return cfg, nil
		},
	}
}

// ClientConfig is the configuration of a dial to serverName (a host name
// or IP address the server's certificate must name), verifying the server
// against the CA and showing the store's certificate when the server asks
// for one. Build one per dial: the CA pool is the one in force now.
func (s *Store) ClientConfig(serverName string) *tls.Config {
	cfg := &tls.Config{
		MinVersion: tls.VersionTLS12,
		ServerName: strings.Trim(serverName, "[]"),
		RootCAs:    s.Pool(),
	}
	if s.files.Cert != "" {
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			if c := s.Certificate(); c != nil {
				return c, nil
			}
			return &tls.Certificate{}, nil
		}
	}
	return cfg
}
