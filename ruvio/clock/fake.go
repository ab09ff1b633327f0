package clock

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Go programs read the time without libc, so libfaketime cannot skew
// them. The node's clock therefore honours a FAKETIME-style spec itself,
// from the environment:
//
//	RUVIO_FAKETIME="+5s x1.1"          fixed for the process's life
//	RUVIO_FAKETIME_FILE=/path/spec     re-read every 100 ms: the chaos
//	                                   nemesis rewrites it at run time
//
// A spec is an offset ("+0", "-2s", "+1h", "+500ms") optionally followed
// by a rate ("x1.1" runs 10% fast, "x0.9" 10% slow); an empty spec means no
// skew. With a rate r taking effect at real time b, the clock reads
// b + offset + (t - b) * r.

// Spec is a parsed skew.
type Spec struct {
	Offset time.Duration
	Rate   float64
}

// ParseSpec reads a FAKETIME-style spec.
func ParseSpec(s string) (Spec, error) {
	sp := Spec{Rate: 1}
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return sp, nil
	}
	if len(fields) > 2 {
		return sp, fmt.Errorf("clock spec %q: want an offset and an optional rate", s)
	}
	off := fields[0]
	if off == "+0" || off == "0" || off == "-0" {
		sp.Offset = 0
	} else {
		d, err := time.ParseDuration(strings.TrimPrefix(off, "+"))
		if err != nil {
			return sp, fmt.Errorf("clock spec %q: offset: %w", s, err)
		}
		sp.Offset = d
	}
	if len(fields) == 2 {
		r := fields[1]
		if !strings.HasPrefix(r, "x") {
			return sp, fmt.Errorf("clock spec %q: rate must look like x1.1", s)
		}
		f, err := strconv.ParseFloat(r[1:], 64)
		if err != nil || f <= 0 || f > 100 {
			return sp, fmt.Errorf("clock spec %q: rate must be a positive number", s)
		}
		sp.Rate = f
	}
	return sp, nil
}

// skew is a Spec anchored at the real instant it took effect.
type skew struct {
	spec Spec
	base time.Time // real time (with monotonic reading) the spec took effect
	// bootBase is the raw boot-clock reading when the spec took effect
	// and leaseBase the lease clock's value then, so the lease clock runs
	// on continuously at the new rate.
	bootBase, leaseBase time.Duration
}

func (k *skew) at(real time.Time) time.Time {
	elapsed := real.Sub(k.base)
	scaled := time.Duration(float64(elapsed) * k.spec.Rate)
	// Built from the wall reading so the result carries no monotonic
	// reading: Sub on two skewed times then uses the skewed wall values.
	return time.Unix(0, k.base.UnixNano()).Add(k.spec.Offset + scaled)
}

// Skewed is a clock running at an offset and rate from the system's.
type Skewed struct {
	cur atomic.Pointer[skew]
	// real reads the system clock and boot the boot clock; tests
	// replace them.
	real func() time.Time
	boot func() time.Duration
	// mono is the monotonic reading (mono.go) and monoOf the state of
	// the skewed monotonic clock for each spec.
	mono   func() time.Duration
	monoMu sync.Mutex
	monoOf map[*skew][2]time.Duration // raw reading and clock value when the spec took effect
}

// NewSkewed returns a clock applying spec from now on.
func NewSkewed(spec Spec) *Skewed {
	s := &Skewed{real: time.Now, boot: bootTime}
	s.Set(spec)
	return s
}

// Set changes the skew from now on.
func (s *Skewed) Set(spec Spec) {
	k := &skew{spec: spec, base: s.real(), bootBase: s.boot()}
	k.leaseBase = k.bootBase
	if old := s.cur.Load(); old != nil {
		k.leaseBase = old.lease(k.bootBase)
	}
	s.setMono(k)
	s.cur.Store(k)
}

func (k *skew) lease(boot time.Duration) time.Duration {
	return k.leaseBase + time.Duration(float64(boot-k.bootBase)*k.spec.Rate)
}

// LeaseNow is the lease clock at the spec's rate (see clock.LeaseNow).
func (s *Skewed) LeaseNow() time.Duration { return s.cur.Load().lease(s.boot()) }

// Now returns the skewed wall time.
func (s *Skewed) Now() time.Time { return s.cur.Load().at(s.real()) }

// Since is the skewed time elapsed since t (a time this clock returned).
func (s *Skewed) Since(t time.Time) time.Duration { return s.Now().Sub(t) }

// watchFile re-reads path every interval and applies its spec when the
// content changes. A spec that does not parse is logged and ignored.
func (s *Skewed) watchFile(path string, interval time.Duration, log *slog.Logger) {
	last := ""
	apply := func() {
		b, err := os.ReadFile(path)
		if err != nil {
			return
		}
		text := strings.TrimSpace(string(b))
		if text == last {
			return
		}
		spec, err := ParseSpec(text)
		if err != nil {
			log.Warn("clock spec ignored", "file", path, "err", err)
			last = text
			return
		}
		last = text
		s.Set(spec)
		log.Info("clock skew set", "file", path, "spec", text)
	}
	apply()
	go func() {
		for range time.Tick(interval) {
			apply()
		}
	}()
}

// FromEnvironment installs a skewed Default clock when RUVIO_FAKETIME or
// RUVIO_FAKETIME_FILE asks for one, and reports what it did. Without
// either variable the system clock stays in place.
func FromEnvironment(log *slog.Logger) error {
	if spec := os.Getenv("RUVIO_FAKETIME"); spec != "" {
		sp, err := ParseSpec(spec)
		if err != nil {
			return err
		}
		Default = NewSkewed(sp)
		log.Info("clock skewed from RUVIO_FAKETIME", "spec", spec)
		return nil
	}
	if path := os.Getenv("RUVIO_FAKETIME_FILE"); path != "" {
		sk := NewSkewed(Spec{Rate: 1})
		sk.watchFile(path, 100*time.Millisecond, log)
		Default = sk
	}
	return nil
}
