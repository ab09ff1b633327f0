package clock

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
)

func TestParseSpec(t *testing.T) {
	cases := []struct {
		in   string
		want Spec
		bad  bool
	}{
		{"", Spec{Rate: 1}, false},
		{"+0", Spec{Rate: 1}, false},
		{"-2s", Spec{Offset: -2 * time.Second, Rate: 1}, false},
		{"+1h", Spec{Offset: time.Hour, Rate: 1}, false},
		{"+500ms x1.1", Spec{Offset: 500 * time.Millisecond, Rate: 1.1}, false},
		{"+0 x0.9", Spec{Rate: 0.9}, false},
		{"+0 1.1", Spec{}, true},
		{"+0 x0", Spec{}, true},
		{"soon", Spec{}, true},
		{"+1s x2 extra", Spec{}, true},
	}
	for _, c := range cases {
		got, err := ParseSpec(c.in)
		if (err != nil) != c.bad || (!c.bad && got != c.want) {
			t.Errorf("ParseSpec(%q) = %+v, %v", c.in, got, err)
		}
	}
}

// fakeReal is a controllable system clock.
type fakeReal struct{ t time.Time }

func (f *fakeReal) now() time.Time { return f.t }

func (f *fakeReal) boot() time.Duration { return time.Duration(f.t.UnixNano()) }

func TestSkewedOffsetAndRate(t *testing.T) {
	r := &fakeReal{t: time.Unix(1_700_000_000, 0)}
	s := &Skewed{real: r.now, boot: r.boot}
	s.Set(Spec{Offset: time.Hour, Rate: 2})
	start := s.Now()
	if want := r.t.Add(time.Hour); !start.Equal(want) {
		t.Fatalf("offset: %v, want %v", start, want)
	}
	r.t = r.t.Add(10 * time.Second)
	if got := s.Since(start); got != 20*time.Second {
		t.Fatalf("rate x2: %v elapsed for 10s real", got)
	}
	// A new spec takes effect from its own instant; the rate no longer
	// applies to time before it.
	s.Set(Spec{Rate: 1})
	if got := s.Now(); !got.Equal(r.t) {
		t.Fatalf("after reset: %v, want %v", got, r.t)
	}
}

func TestSpecFileIsReReadAtRunTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "faketime")
	os.WriteFile(path, nil, 0o644)
	s := NewSkewed(Spec{Rate: 1})
	s.watchFile(path, 10*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.WriteFile(path, []byte("+24h\n"), 0o644)
	poll.Until(t, 5*time.Second, "the new spec to be picked up", func() bool { return time.Until(s.Now()) >= 23*time.Hour })
}

// The lease clock follows the spec's rate, never its offset, and runs on
// without a jump when the spec changes (what the chaos clock
// nemesis does to a node's lease).
func TestLeaseClockFollowsTheRate(t *testing.T) {
	r := &fakeReal{t: time.Unix(1_700_000_000, 0)}
	s := &Skewed{real: r.now, boot: r.boot}
	s.Set(Spec{Offset: time.Hour, Rate: 1.5})
	a := s.LeaseNow()
	if a != r.boot() {
		t.Fatalf("an offset moved the lease clock: %v", a-r.boot())
	}
	r.t = r.t.Add(10 * time.Second)
	b := s.LeaseNow()
	if b-a != 15*time.Second {
		t.Fatalf("x1.5: %v for 10s real", b-a)
	}
	s.Set(Spec{Rate: 0.5})
	if c := s.LeaseNow(); c != b {
		t.Fatalf("the lease clock jumped at a new spec: %v -> %v", b, c)
	}
	r.t = r.t.Add(10 * time.Second)
	if d := s.LeaseNow(); d-b != 5*time.Second {
		t.Fatalf("x0.5: %v for 10s real", d-b)
	}
}
