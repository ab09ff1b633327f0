package nemesis

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ruvio/ruvio/chaos"
	"github.com/ruvio/ruvio/reports/history"
)

// calls records what the schedule asked of a cluster. It stands in for a
// backend (not for a ruvio server), so the order of actions can be checked
// without processes.
type calls struct {
	mu  sync.Mutex
	log []string
}

func (c *calls) add(s string) { c.mu.Lock(); c.log = append(c.log, s); c.mu.Unlock() }

func (c *calls) Backend() string                             { return "test" }
func (c *calls) Addr(string) string                          { return "" }
func (c *calls) Kill(_ context.Context, n string) error      { c.add("kill " + n); return nil }
func (c *calls) Restart(_ context.Context, n string) error   { c.add("restart " + n); return nil }
func (c *calls) Pause(_ context.Context, n string) error     { c.add("pause " + n); return nil }
func (c *calls) Resume(_ context.Context, n string) error    { c.add("resume " + n); return nil }
func (c *calls) Cut(_ context.Context, l []chaos.Link) error { c.add("cut"); return nil }
func (c *calls) Heal(context.Context) error                  { c.add("heal"); return nil }
func (c *calls) SetClock(_ context.Context, n, spec string) error {
	c.add("clock " + n + " " + spec)
	return nil
}
func (c *calls) CollectLogs(context.Context, string) error { return nil }
func (c *calls) Close(context.Context) error               { return nil }

type rec struct {
	mu     sync.Mutex
	start  time.Time
	faults []history.Fault
}

func (r *rec) Fault(f history.Fault) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults = append(r.faults, f)
	return len(r.faults) - 1
}
func (r *rec) EndFault(i int, end int64) { r.mu.Lock(); r.faults[i].EndMs = end; r.mu.Unlock() }
func (r *rec) SinceStartMs() int64       { return time.Since(r.start).Milliseconds() }

func TestRunStartsAndEndsEveryFaultInOrder(t *testing.T) {
	c := &calls{}
	r := &rec{start: time.Now()}
	steps := []Step{
		{Kind: Pause, Target: "n1", At: 30 * time.Millisecond, For: 20 * time.Millisecond},
		{Kind: Kill, Target: "n1", At: 0, For: 10 * time.Millisecond},
		{Kind: Clock, Target: "n1", Clock: "+1s", At: 60 * time.Millisecond, For: 10 * time.Millisecond},
	}
	if err := Run(context.Background(), c, steps, r, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	want := "kill n1,restart n1,pause n1,resume n1,clock n1 +1s,clock n1 "
	if got := strings.Join(c.log, ","); got != want {
		t.Fatalf("actions = %q, want %q", got, want)
	}
	for _, f := range r.faults {
		if f.EndMs < f.StartMs || f.EndMs == 0 && f.StartMs > 0 {
			t.Fatalf("fault not closed: %+v", f)
		}
	}
	if !strings.Contains(r.faults[1].Note, "not a partition") {
		t.Fatalf("pause note = %q", r.faults[1].Note)
	}
}

// A cancelled run still ends the faults it began, so the final reads see
// a whole cluster.
func TestCancelledRunHealsWhatItBroke(t *testing.T) {
	c := &calls{}
	r := &rec{start: time.Now()}
	ctx, cancel := context.WithCancel(context.Background())
	steps := []Step{{Kind: Partition, Target: "isolate n1", Links: []chaos.Link{{From: chaos.Client, To: "n1"}}, At: 0, For: time.Hour}}
	done := make(chan error)
	go func() { done <- Run(ctx, c, steps, r, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	for {
		c.mu.Lock()
		n := len(c.log)
		c.mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	if got := strings.Join(c.log, ","); got != "cut,heal" {
		t.Fatalf("actions = %q", got)
	}
}

func TestPeriodicFitsTheRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	steps := Periodic(rng, Kill, "n1", time.Second, 2*time.Second, time.Second, 500*time.Millisecond, 20*time.Second, 2*time.Second)
	if len(steps) < 4 {
		t.Fatalf("only %d steps", len(steps))
	}
	for i, s := range steps {
		if s.At+s.For > 18*time.Second {
			t.Fatalf("step %d ends after the settle point: %+v", i, s)
		}
		if i > 0 && s.At < steps[i-1].At+steps[i-1].For {
			t.Fatalf("steps overlap: %+v %+v", steps[i-1], s)
		}
	}
	again := Periodic(rand.New(rand.NewPCG(1, 2)), Kill, "n1", time.Second, 2*time.Second, time.Second, 500*time.Millisecond, 20*time.Second, 2*time.Second)
	for i := range steps {
		if steps[i].At != again[i].At || steps[i].For != again[i].For {
			t.Fatal("the same seed gave a different schedule")
		}
	}
}
