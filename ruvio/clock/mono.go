package clock

import "time"

// Monoer is a clock that also gives a skewable monotonic reading.
type Monoer interface {
	MonoNow() time.Duration
}

// MonoNow reads the monotonic clock of Default (Go's monotonic clock:
// CLOCK_MONOTONIC on Linux, which stops while the machine is suspended),
// scaled by the rate of a skew spec when one is installed. Offsets do not
// move it. Coordinators measure lease ages on it; data nodes hold leases
// on LeaseNow (CLOCK_BOOTTIME).
func MonoNow() time.Duration {
	if m, ok := Default.(Monoer); ok {
		return m.MonoNow()
	}
	return monoTime()
}

func monoTime() time.Duration { return time.Since(processStart) }

// Stopwatch is the real monotonic time since the process started, for
// measuring how long work took (the slow log, latency histograms): one
// cheap clock read (no wall time), never skewed by the chaos clock.
func Stopwatch() time.Duration { return time.Since(processStart) }

// setMono anchors the skewed monotonic clock for spec k as it takes
// effect: it runs on from the previous spec's value, so a change of rate
// never makes it jump.
func (s *Skewed) setMono(k *skew) {
	if s.mono == nil {
		s.mono = monoTime
	}
	s.monoMu.Lock()
	defer s.monoMu.Unlock()
	raw := s.mono()
	val := raw
	if old := s.cur.Load(); old != nil {
		if a, ok := s.monoOf[old]; ok {
			val = a[1] + time.Duration(float64(raw-a[0])*old.spec.Rate)
		}
	}
	s.monoOf = map[*skew][2]time.Duration{k: {raw, val}}
}

// MonoNow is the monotonic clock at the spec's rate (see clock.MonoNow).
func (s *Skewed) MonoNow() time.Duration {
	k := s.cur.Load()
	s.monoMu.Lock()
	a, ok := s.monoOf[k]
	s.monoMu.Unlock()
	if !ok {
		// Set is storing a newer spec right now: read at this one's rate
		// from the raw clock.
		return s.mono()
	}
	return a[1] + time.Duration(float64(s.mono()-a[0])*k.spec.Rate)
}
