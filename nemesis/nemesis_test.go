package nemesis

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/reports/check"
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

func (c *calls) Backend() string                                { return "test" }
func (c *calls) Addr(string) string                             { return "" }
func (c *calls) Kill(_ context.Context, n string) error         { c.add("kill " + n); return nil }
func (c *calls) Restart(_ context.Context, n string) error      { c.add("restart " + n); return nil }
func (c *calls) Pause(_ context.Context, n string) error        { c.add("pause " + n); return nil }
func (c *calls) Resume(_ context.Context, n string) error       { c.add("resume " + n); return nil }
func (c *calls) Cut(_ context.Context, l []topology.Link) error { c.add("cut"); return nil }
func (c *calls) Heal(context.Context) error                     { c.add("heal"); return nil }
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
	if err := RunWithOperator(context.Background(), c, steps, r, slog.New(slog.NewTextHandler(io.Discard, nil)), nil); err != nil {
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
	steps := []Step{{Kind: Partition, Target: "isolate n1", Links: []topology.Link{{From: topology.Client, To: "n1"}}, At: 0, For: time.Hour}}
	done := make(chan error)
	go func() { done <- RunWithOperator(ctx, c, steps, r, slog.New(slog.NewTextHandler(io.Discard, nil)), nil) }()
	poll.Until(t, 5*time.Second, "the partition to be cut", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.log) > 0
	})
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

// op records when an Operator is told of faults, into the same log as the
// cluster's actions, so the order of both can be checked.
type op struct {
	c        *calls
	failWhen string
}

func (o *op) FaultStarted(_ context.Context, st Step) error {
	o.c.add("started " + st.Kind + " " + st.Target)
	if o.failWhen == "started "+st.Target {
		return errors.New("refused")
	}
	return nil
}

func (o *op) FaultEnded(_ context.Context, st Step) error {
	o.c.add("ended " + st.Kind + " " + st.Target)
	if o.failWhen == "ended "+st.Target {
		return errors.New("refused")
	}
	return nil
}

// The operator acts once a fault is in (after the kill: a failover by
// hand) and once it is undone (after the restart: the rejoin), and its
// repair lies inside the fault's window.
func TestOperatorIsToldAfterEachFaultStartsAndEnds(t *testing.T) {
	c := &calls{}
	r := &rec{start: time.Now()}
	steps := []Step{
		{Kind: Kill, Target: "n1", At: 0, For: 10 * time.Millisecond},
		{Kind: Pause, Target: "n2", At: 20 * time.Millisecond, For: 10 * time.Millisecond},
	}
	if err := RunWithOperator(context.Background(), c, steps, r, slog.New(slog.NewTextHandler(io.Discard, nil)), &op{c: c}); err != nil {
		t.Fatal(err)
	}
	want := "kill n1,started kill n1,restart n1,ended kill n1,pause n2,started pause n2,resume n2,ended pause n2"
	if got := strings.Join(c.log, ","); got != want {
		t.Fatalf("actions = %q, want %q", got, want)
	}
	if len(r.faults) != 2 || r.faults[0].EndMs < r.faults[0].StartMs {
		t.Fatalf("faults %+v", r.faults)
	}
}

// An operator's failure fails the run, and the faults already begun are
// still ended.
func TestOperatorFailureEndsTheRun(t *testing.T) {
	for _, tc := range []struct {
		failWhen, want string
	}{
		{"started n1", "kill n1,started kill n1,restart n1,ended kill n1"},
		{"ended n1", "kill n1,started kill n1,restart n1,ended kill n1"},
	} {
		c := &calls{}
		steps := []Step{
			{Kind: Kill, Target: "n1", At: 0, For: 10 * time.Millisecond},
			{Kind: Pause, Target: "n2", At: 20 * time.Millisecond, For: 10 * time.Millisecond},
		}
		err := RunWithOperator(context.Background(), c, steps, &rec{start: time.Now()}, slog.New(slog.NewTextHandler(io.Discard, nil)),
			&op{c: c, failWhen: tc.failWhen})
		if err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%s: err = %v", tc.failWhen, err)
		}
		if got := strings.Join(c.log, ","); got != tc.want {
			t.Errorf("%s: actions = %q, want %q", tc.failWhen, got, tc.want)
		}
	}
}

// restartFails is a backend whose killed nodes do not come back.
type restartFails struct{ calls }

func (c *restartFails) Restart(_ context.Context, n string) error {
	c.add("restart " + n)
	return errors.New("node " + n + " exited before answering")
}

// A fault the harness cannot undo ends the run with the reason, before
// the operator is told it ended and before any later fault starts:
// measuring a cluster left broken would report the harness, not the
// system.
func TestAFaultThatCannotBeEndedEndsTheRun(t *testing.T) {
	c := &restartFails{}
	steps := []Step{
		{Kind: Kill, Target: "n1", At: 0, For: 10 * time.Millisecond},
		{Kind: Pause, Target: "n2", At: 20 * time.Millisecond, For: 10 * time.Millisecond},
	}
	r := &rec{start: time.Now()}
	err := RunWithOperator(context.Background(), c, steps, r, slog.New(slog.NewTextHandler(io.Discard, nil)), &op{c: &c.calls})
	if err == nil || !strings.Contains(err.Error(), "ending kill n1") || !strings.Contains(err.Error(), "exited before answering") {
		t.Fatalf("err = %v", err)
	}
	if got, want := strings.Join(c.log, ","), "kill n1,started kill n1,restart n1"; got != want {
		t.Errorf("actions = %q, want %q", got, want)
	}
	if len(r.faults) != 1 || r.faults[0].EndMs == 0 {
		t.Errorf("faults = %+v, want the kill recorded as ended", r.faults)
	}
}

func TestCycleTakesTheFaultsInTurn(t *testing.T) {
	faults := []FaultOn{{Kill, "n2"}, {Pause, "n3"}, {Kill, "n3"}}
	tests := []struct {
		name               string
		duration, settle   time.Duration
		wantKinds, targets string
	}{
		{"room for five", 10 * time.Second, 0, "kill pause kill kill pause", "n2 n3 n3 n2 n3"},
		{"settle leaves room for two", 10 * time.Second, 5 * time.Second, "kill pause", "n2 n3"},
		{"no room", time.Second, 0, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			steps := Cycle(rand.New(rand.NewPCG(1, 1)), faults, time.Second, time.Second, 0, time.Second, tc.duration, tc.settle)
			var kinds, targets []string
			for i, s := range steps {
				kinds, targets = append(kinds, s.Kind), append(targets, s.Target)
				if want := time.Second + time.Duration(i)*2*time.Second; s.At != want || s.For != time.Second {
					t.Errorf("step %d at %v for %v, want at %v for 1s", i, s.At, s.For, want)
				}
			}
			if got := strings.Join(kinds, " "); got != tc.wantKinds {
				t.Errorf("kinds %q, want %q", got, tc.wantKinds)
			}
			if got := strings.Join(targets, " "); got != tc.targets {
				t.Errorf("targets %q, want %q", got, tc.targets)
			}
		})
	}
	if Cycle(rand.New(rand.NewPCG(1, 1)), nil, 0, time.Second, 0, time.Second, time.Minute, 0) != nil {
		t.Error("a cycle of no faults has steps")
	}
}

// roles is an operator that knows who leads and carries out FORCE.
type roles struct {
	op
	leader string
	forced []string
}

func (r *roles) Resolve(_ context.Context, target string) (string, error) {
	switch target {
	case Leader:
		return r.leader, nil
	case Follower:
		return "c3", nil
	}
	return "", errors.New("unknown role " + target)
}

func (r *roles) Act(_ context.Context, st Step) (string, error) {
	r.forced = append(r.forced, st.Target)
	return "promoted n3", nil
}

// A target named by its role is the node holding it when the step starts,
// in the fault record and in the links, where the role's own link to
// itself is dropped; FORCE is carried out by the operator and recorded.
func TestRolesAreResolvedAndForceIsCarriedOut(t *testing.T) {
	c := &calls{}
	r := &rec{start: time.Now()}
	o := &roles{op: op{c: c}, leader: "c2"}
	cut := LeaderFromCoordinators(Leader, []string{"c1", "c2", "c3"})
	cut.For = 10 * time.Millisecond
	steps := []Step{
		{Kind: Kill, Target: Follower, At: 0, For: 10 * time.Millisecond},
		cut,
		{Kind: Force, Target: "main", At: 20 * time.Millisecond},
	}
	var links [][]topology.Link
	cl := &linkCalls{calls: c, cuts: &links}
	if err := RunWithOperator(context.Background(), cl, steps, r, slog.New(slog.NewTextHandler(io.Discard, nil)), o); err != nil {
		t.Fatal(err)
	}
	if len(links) != 1 || len(links[0]) != 4 {
		t.Fatalf("cuts %v", links)
	}
	for _, l := range links[0] {
		if l.From != "c2" && l.To != "c2" || l.From == l.To {
			t.Fatalf("link %v does not join the leader c2 to another coordinator", l)
		}
	}
	if len(o.forced) != 1 || o.forced[0] != "main" {
		t.Fatalf("forced %v", o.forced)
	}
	got := map[string]string{}
	for _, f := range r.faults {
		got[f.Kind] = f.Target + " / " + f.Note
	}
	if !strings.HasPrefix(got[Kill], "c3 /") || !strings.Contains(got[Partition], "leader c2 cut") ||
		got[Force] != "COORDINATOR FAILOVER main FORCE / promoted n3" {
		t.Fatalf("faults %v", got)
	}
	// Without an operator that knows roles, the step fails.
	err := RunWithOperator(context.Background(), c, steps[:1], r, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err == nil || !strings.Contains(err.Error(), "resolves") {
		t.Fatalf("err = %v", err)
	}
}

// linkCalls records the links of every cut.
type linkCalls struct {
	*calls
	cuts *[][]topology.Link
}

func (l *linkCalls) Cut(_ context.Context, links []topology.Link) error {
	*l.cuts = append(*l.cuts, links)
	return nil
}

// Several operators are each told of every fault; the first Resolver and
// Actor among them answer.
func TestOperatorsCombine(t *testing.T) {
	c := &calls{}
	both := Operators(&op{c: c}, &roles{op: op{c: &calls{}}, leader: "c1"})
	if err := both.FaultStarted(context.Background(), Step{Kind: Kill, Target: "n1"}); err != nil {
		t.Fatal(err)
	}
	if name, err := both.(Resolver).Resolve(context.Background(), Leader); err != nil || name != "c1" {
		t.Fatalf("resolve: %q %v", name, err)
	}
	if note, err := both.(Actor).Act(context.Background(), Step{Kind: Force, Target: "main"}); err != nil || note != "promoted n3" {
		t.Fatalf("act: %q %v", note, err)
	}
	if _, err := Operators(&op{c: c}).(Resolver).Resolve(context.Background(), Leader); err == nil {
		t.Fatal("an operator that knows no roles resolved one")
	}
	if got := strings.Join(c.log, ","); got != "started kill n1" {
		t.Fatalf("actions %q", got)
	}
}

// Every kind a scenario can name is one registered value, and a kind
// nobody registered fails the run before it touches the cluster.
func TestEveryKindIsRegisteredOnce(t *testing.T) {
	for _, k := range []string{Kill, Pause, Partition, Clock, Force} {
		if v, ok := kinds[k]; !ok || v.start == nil || v.stop == nil || v.describe == nil {
			t.Errorf("kind %q: registered %v, complete %v", k, ok, ok && v.start != nil && v.stop != nil && v.describe != nil)
		}
	}
	c := &calls{}
	err := RunWithOperator(context.Background(), c, []Step{{Kind: "flood", Target: "n1"}}, &rec{start: time.Now()},
		slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err == nil || !strings.Contains(err.Error(), `unknown fault kind "flood"`) || len(c.log) != 0 {
		t.Errorf("unknown kind: err %v, actions %q", err, c.log)
	}
}

// The checkers measure a failover from the fault that took the primary
// away, which they find by kind and by the node named in its recorded
// target (check.TakesPrimaryAway): each such kind's description must
// name its target as a word of its own, or the failover goes unmeasured.
func TestFaultsThatTakeAPrimaryAwayNameIt(t *testing.T) {
	for _, st := range []Step{
		{Kind: Kill, Target: "n1"}, {Kind: Pause, Target: "n1"}, {Kind: Switchover, Target: "n1"},
		{Kind: Partition, Target: "isolated", Links: []topology.Link{{From: "n1", To: "n2"}, {From: "n2", To: "n1"}}},
	} {
		f := history.Fault{Kind: st.Kind, Target: kinds[st.Kind].describe(st)}
		if !check.TakesPrimaryAway(f, "n1") {
			t.Errorf("%s recorded as %q: the checkers do not find n1 in it", st.Kind, f.Target)
		}
	}
}
