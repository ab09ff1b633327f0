// Package coordinators is the harness's client of a cluster's coordinators:
// the primary and epoch they record, their leader, and FORCE failovers.
package coordinators

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/nemesis"
	"github.com/ruvio/ruvio/reports/history"
	"github.com/ruvio/ruvio/ruvio/infotext"
)

const (
	// askTimeout bounds one coordinator's answer.
	askTimeout = 300 * time.Millisecond
	// askGrace is how long an Ask waits for the last coordinators once a
	// majority answered: a killed or paused one must not hold up every
	// client's look-up for askTimeout.
	askGrace = 30 * time.Millisecond
	// fresh is how old a view Targets may hand out without asking again.
	fresh = 25 * time.Millisecond
	// WatchInterval is how often Watch polls the coordinators.
	WatchInterval = 100 * time.Millisecond
	// forceTimeout bounds COORDINATOR FAILOVER FORCE, which the leader
	// answers once the promotion is recorded and sent.
	forceTimeout = 10 * time.Second
)

// Answer is what one coordinator said when asked.
type Answer struct {
	Coordinator string
	Err         error
	// Addr is the primary's address as it records it ("" none yet),
	// Epoch its epoch (SENTINEL MASTER's config-epoch).
	Addr  string
	Epoch uint64
	// Leader says it is the Raft leader, in Term.
	Leader bool
	Term   uint64
}

// View is what the coordinators record, as Decide reads their answers.
type View struct {
	// Primary names the data node they record as primary ("" when none
	// answered one, or its address is no member's); Addr is the address
	// they answer for it.
	Primary, Addr string
	Epoch         uint64
	// Leader is the coordinator that leads, "" when none says so.
	Leader string
	// Agree are the coordinators that answered this record, Others what
	// the rest answered ("c1: epoch 1 n1", "c3: timeout").
	Agree  []string
	Others []string
}

// Decide folds the answers into a View: the record with the highest epoch
// any coordinator answered (one cut off from the others may still answer
// an older one), and as leader the coordinator that says so in the
// highest term. nodeOf names the data node of a member address.
func Decide(answers []Answer, nodeOf func(addr string) string) View {
	var v View
	var leaderTerm uint64
	// Among answers of the highest epoch, the address most of them
	// give (then the first): Sentinels mid-failover answer one epoch
	// with two addresses for a moment.
	votes := map[string]int{}
	for _, a := range answers {
		if a.Err == nil && a.Addr != "" {
			votes[fmt.Sprint(a.Epoch, " ", a.Addr)]++
		}
	}
	for _, a := range answers {
		if a.Err != nil {
			continue
		}
		if a.Addr != "" && (v.Addr == "" || a.Epoch > v.Epoch ||
			a.Epoch == v.Epoch && votes[fmt.Sprint(a.Epoch, " ", a.Addr)] > votes[fmt.Sprint(v.Epoch, " ", v.Addr)]) {
			v.Addr, v.Epoch = a.Addr, a.Epoch
		}
		if a.Leader && (v.Leader == "" || a.Term > leaderTerm) {
			v.Leader, leaderTerm = a.Coordinator, a.Term
		}
	}
	if v.Addr != "" {
		v.Primary = nodeOf(v.Addr)
	}
	for _, a := range answers {
		switch {
		case a.Err == nil && a.Addr == v.Addr && a.Epoch == v.Epoch:
			v.Agree = append(v.Agree, a.Coordinator)
		case a.Err != nil:
			v.Others = append(v.Others, a.Coordinator+": "+shortErr(a.Err))
		default:
			v.Others = append(v.Others, fmt.Sprintf("%s: epoch %d %s", a.Coordinator, a.Epoch, orNone(nodeOf(a.Addr), a.Addr)))
		}
	}
	sort.Strings(v.Agree)
	sort.Strings(v.Others)
	return v
}

func shortErr(err error) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return "no answer"
	}
	return err.Error()
}

func orNone(name, addr string) string {
	if name != "" {
		return name
	}
	if addr == "" {
		return "no primary"
	}
	return addr
}

// String says the view in a sentence for the report.
func (v View) String() string {
	s := fmt.Sprintf("epoch %d, primary %s (answered by %s)", v.Epoch, orNone(v.Primary, v.Addr), strings.Join(v.Agree, ", "))
	if len(v.Others) > 0 {
		s += "; " + strings.Join(v.Others, "; ")
	}
	if v.Leader != "" {
		s += "; leader " + v.Leader
	}
	return s
}

// Set is the harness's client of a cluster's coordinators. It is a
// nemesis operator too: it names the leader (Resolver) and sends FORCE
// (Actor); it reacts to no fault.
type Set struct {
	c topology.Coordinated
	// group is the service name the Set asks about.
	group  string
	names  []string
	nodeOf map[string]string
	log    *slog.Logger

	clients map[string]*redis.Client
	force   map[string]*redis.Client
	// sentinels says the coordinators are Redis Sentinels, which answer
	// SENTINEL MASTER but have no COORDINATOR commands and no leader.
	sentinels bool

	// askMu makes concurrent Targets share one Ask.
	askMu  sync.Mutex
	mu     sync.Mutex
	view   View
	viewAt time.Time
	// moved is cancelled, and replaced, when an Ask finds the recorded
	// primary changed (Moved).
	moved       context.Context
	cancelMoved context.CancelFunc
	// rec is the watch's recorder, where the moves are recorded too.
	rec history.Observer
	// moving counts the moves (and rebalances) being followed; closed
	// ends the following when the Set is closed.
	moving    sync.WaitGroup
	closed    chan struct{}
	closeOnce sync.Once
}

var (
	_ nemesis.Operator = (*Set)(nil)
	_ nemesis.Resolver = (*Set)(nil)
	_ nemesis.Actor    = (*Set)(nil)
)

// New returns the client of topo's coordinators on c, which must offer
// topology.Coordinated.
func New(c topology.Cluster, topo topology.Topology, log *slog.Logger) (*Set, error) {
	return ForGroup(c, topo, topology.GroupName, log)
}

// ForGroup returns the client of topo's coordinators that asks them about
// group: one of a clustered topology's groups (topology.ClusterGroup).
// What it records, Targets and PrimaryNode are that group's.
func ForGroup(c topology.Cluster, topo topology.Topology, group string, log *slog.Logger) (*Set, error) {
	if !slices.Contains(topo.GroupNames(), group) {
		return nil, fmt.Errorf("coordinators: the topology has no group %q (have %v)", group, topo.GroupNames())
	}
	cc, ok := c.(topology.Coordinated)
	if !ok {
		return nil, fmt.Errorf("coordinators: the %s backend does not run coordinators", c.Backend())
	}
	if log == nil {
		log = slog.Default()
	}
	s := &Set{c: cc, group: group, names: topo.Coordinators(), nodeOf: map[string]string{},
		log: log.With("component", "coordinators", "group", group), clients: map[string]*redis.Client{}, force: map[string]*redis.Client{},
		closed:    make(chan struct{}),
		sentinels: topo.System == topology.SystemRedis}
	if len(s.names) == 0 {
		return nil, errors.New("coordinators: the topology has none")
	}
	s.moved, s.cancelMoved = context.WithCancel(context.Background())
	for _, n := range topo.GroupMembers(group) {
		s.nodeOf[cc.MemberAddr(n)] = n
	}
	for _, name := range s.names {
		s.clients[name] = s.client(name, askTimeout)
		s.force[name] = s.client(name, forceTimeout)
	}
	return s, nil
}

func (s *Set) client(name string, timeout time.Duration) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: s.c.Addr(name), Password: s.c.CoordinatorSecret(), Protocol: 2,
		DisableIdentity: true, MaxRetries: -1, DialerRetries: 1, PoolSize: 4,
		DialTimeout: askTimeout, ReadTimeout: timeout, WriteTimeout: askTimeout, PoolTimeout: timeout,
		TLSConfig: topology.ClientTLS(s.c)})
}

// Close stops following moves and closes the connections to the
// coordinators.
func (s *Set) Close() {
	s.closeOnce.Do(func() { close(s.closed) })
	s.mu.Lock()
	s.cancelMoved()
	s.mu.Unlock()
	for _, m := range []map[string]*redis.Client{s.clients, s.force} {
		for _, cl := range m {
			cl.Close()
		}
	}
}

// node names the data node of a member address ("" for none).
func (s *Set) node(addr string) string { return s.nodeOf[addr] }

// ask asks one coordinator for the record and whether it leads.
func (s *Set) ask(ctx context.Context, name string) Answer {
	a := Answer{Coordinator: name}
	pipe := s.clients[name].Pipeline()
	master := pipe.Do(ctx, "SENTINEL", "MASTER", s.group)
	var status *redis.Cmd
	if !s.sentinels {
		status = pipe.Do(ctx, "COORDINATOR", "STATUS")
	}
	if _, err := pipe.Exec(ctx); err != nil {
		a.Err = err
		return a
	}
	fields, err := master.StringSlice()
	if err != nil {
		a.Err = err
		return a
	}
	kv := map[string]string{}
	for i := 0; i+1 < len(fields); i += 2 {
		kv[fields[i]] = fields[i+1]
	}
	if kv["ip"] != "" {
		a.Addr = net.JoinHostPort(kv["ip"], kv["port"])
	}
	if s.sentinels && strings.Contains(kv["flags"], "failover_in_progress") {
		// The Sentinel leading a failover raises the epoch at the
		// promotion and names the new primary only at its end: no record
		// until then.
		a.Addr = ""
	}
	a.Epoch, _ = strconv.ParseUint(kv["config-epoch"], 10, 64)
	if status == nil {
		return a
	}
	text, _ := status.Text()
	st := infotext.Parse(text)
	a.Leader = st["state"] == "leader"
	a.Term = infotext.Uint(st, "term")
	return a
}

// Ask asks every coordinator at once and folds what they answer. It
// returns when all answered, or a majority did and the others had
// askGrace more, or askTimeout passed.
func (s *Set) Ask(ctx context.Context) View {
	ctx, cancel := context.WithTimeout(ctx, askTimeout)
	defer cancel()
	results := make(chan Answer, len(s.names))
	for _, name := range s.names {
		go func() { results <- s.ask(ctx, name) }()
	}
	var answers []Answer
	var grace <-chan time.Time
	replied := 0
	for len(answers) < len(s.names) {
		select {
		case a := <-results:
			answers = append(answers, a)
			if a.Err == nil {
				replied++
			}
			if grace == nil && replied >= len(s.names)/2+1 {
				grace = time.After(askGrace)
			}
			continue
		case <-grace:
		case <-ctx.Done():
		}
		break
	}
	answered := map[string]bool{}
	for _, a := range answers {
		answered[a.Coordinator] = true
	}
	for _, name := range s.names {
		if !answered[name] {
			answers = append(answers, Answer{Coordinator: name, Err: context.DeadlineExceeded})
		}
	}
	v := Decide(answers, s.node)
	s.mu.Lock()
	s.viewAt = time.Now()
	if v.Primary != "" {
		if s.view.Primary != "" && v.Primary != s.view.Primary {
			s.cancelMoved()
			s.moved, s.cancelMoved = context.WithCancel(context.Background())
		}
		s.view = v
	}
	s.mu.Unlock()
	return v
}

// Moved is a context cancelled when the harness next learns that the
// coordinators record another primary (an Ask, at the latest WatchInterval
// after the change, or at once on a +switch-master Listen receives): a
// workload client abandons what it is sending to the old primary then, as
// a Sentinel client that follows +switch-master does.
func (s *Set) Moved() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.moved
}

// Current is the last view that named a primary.
func (s *Set) Current() View {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.view
}

// PrimaryNode is the data node the coordinators last recorded as
// primary ("" before any).
func (s *Set) PrimaryNode() string { return s.Current().Primary }

// Targets is the workloads' target list: the address the harness dials
// for the primary the coordinators record, asked again unless the last
// answer is younger than fresh. While no coordinator answers, the last
// known primary.
func (s *Set) Targets() []string {
	s.askMu.Lock()
	s.mu.Lock()
	stale := time.Since(s.viewAt) >= fresh
	s.mu.Unlock()
	if stale {
		s.Ask(context.Background())
	}
	s.askMu.Unlock()
	if p := s.PrimaryNode(); p != "" {
		return []string{s.c.Addr(p)}
	}
	return nil
}

// WaitAgreed waits until every coordinator answers one record naming a
// primary, so that faults start from a settled group.
func (s *Set) WaitAgreed(ctx context.Context, limit time.Duration) (View, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		v := s.Ask(ctx)
		if v.Primary != "" && len(v.Agree) == len(s.names) {
			return v, nil
		}
		select {
		case <-ctx.Done():
			return v, fmt.Errorf("coordinators did not agree on a primary within %s: %s", limit, v)
		case <-time.After(WatchInterval):
		}
	}
}

// Watch polls the coordinators every WatchInterval until ctx ends and
// records in rec the record they answer: once at the start, again at
// every change of primary or epoch, and a last time (Type Info) when it
// stops.
func (s *Set) Watch(ctx context.Context, rec history.Observer) {
	s.mu.Lock()
	s.rec = rec
	s.mu.Unlock()
	t := time.NewTicker(WatchInterval)
	defer t.Stop()
	var last *View
	poll := func() View {
		v := s.Ask(context.WithoutCancel(ctx))
		if v.Primary != "" && (last == nil || v.Primary != last.Primary || v.Epoch != last.Epoch) {
			now := rec.SinceStartMs()
			rec.Observe(history.Observation{Kind: history.ObsRecord, Node: v.Primary, Epoch: v.Epoch, Type: history.OK,
				StartMs: now, EndMs: now, Detail: s.says(v.String())})
			if last != nil {
				s.log.Info("coordinators recorded a new primary", "primary", v.Primary, "epoch", v.Epoch)
			}
			last = &v
		}
		return v
	}
	for {
		poll()
		select {
		case <-ctx.Done():
			v := poll()
			if last != nil {
				now := rec.SinceStartMs()
				rec.Observe(history.Observation{Kind: history.ObsRecord, Node: last.Primary, Epoch: last.Epoch, Type: history.Info,
					StartMs: now, EndMs: now, Detail: s.says("end of the watch: " + v.String())})
			}
			return
		case <-t.C:
		}
	}
}

// says puts the group's name before a record's detail when the
// topology has several groups.
func (s *Set) says(detail string) string {
	if s.group == topology.GroupName {
		return detail
	}
	return "group " + s.group + ": " + detail
}

// Resolve names the coordinator behind nemesis.Leader or
// nemesis.Follower, waiting up to 10 s for a leader.
func (s *Set) Resolve(ctx context.Context, target string) (string, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		v := s.Ask(ctx)
		if v.Leader != "" {
			switch target {
			case nemesis.Leader:
				return v.Leader, nil
			case nemesis.Follower:
				for _, name := range v.Agree {
					if name != v.Leader {
						return name, nil
					}
				}
			default:
				return "", fmt.Errorf("coordinators: no such target %q", target)
			}
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("coordinators: no %s within 10 s: %s", strings.TrimPrefix(target, "@"), v)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(WatchInterval):
		}
	}
}

// Act carries out a Move or Rebalance step (move.go), or sends
// COORDINATOR FAILOVER <group> FORCE to the leader (asked
// again when one answers that it no longer leads). What it answers, the
// promoted address or a refusal, is the note: a refusal is a finding of
// the run, not a failure of the harness.
func (s *Set) Act(ctx context.Context, st nemesis.Step) (string, error) {
	if st.Kind == nemesis.Move || st.Kind == nemesis.Rebalance {
		return s.actMove(ctx, st)
	}
	if st.Kind == nemesis.Switchover {
		return s.switchover(ctx)
	}
	if st.Kind != nemesis.Force {
		return "", fmt.Errorf("coordinators: cannot carry out %s", st.Kind)
	}
	var last string
	for attempt := 0; attempt < 10; attempt++ {
		leader, err := s.Resolve(ctx, nemesis.Leader)
		if err != nil {
			return "", err
		}
		addr, err := s.force[leader].Do(ctx, "COORDINATOR", "FAILOVER", st.Target, "FORCE").Text()
		if err == nil {
			return fmt.Sprintf("sent to the leader %s, which promoted %s (answered %s)", leader, orNone(s.node(addr), addr), addr), nil
		}
		last = fmt.Sprintf("sent to %s: %v", leader, err)
		if !strings.Contains(err.Error(), "not the leader") {
			break
		}
	}
	s.log.Warn("COORDINATOR FAILOVER FORCE refused", "detail", last)
	return "refused: " + last, nil
}

// switchover sends SENTINEL FAILOVER to a coordinator that is not the
// leader, as an operator who picks any of them would (it asks the leader);
// to the leader when no other answers. What it answers is the note: a
// refusal is a finding of the run, not a failure of the harness.
func (s *Set) switchover(ctx context.Context) (string, error) {
	leader, err := s.Resolve(ctx, nemesis.Leader)
	if err != nil {
		return "", err
	}
	var tried []string
	for _, name := range append(s.others(leader), leader) {
		err := s.force[name].Do(ctx, "SENTINEL", "FAILOVER", s.group).Err()
		if err == nil {
			return fmt.Sprintf("SENTINEL FAILOVER %s sent to %s (the leader: %s), answered OK", s.group, name, leader), nil
		}
		tried = append(tried, fmt.Sprintf("%s: %v", name, err))
		if strings.HasPrefix(err.Error(), "NOGOODSLAVE") || strings.HasPrefix(err.Error(), "INPROG") {
			break
		}
	}
	s.log.Warn("SENTINEL FAILOVER refused", "detail", strings.Join(tried, "; "))
	return "SENTINEL FAILOVER " + s.group + " refused: " + strings.Join(tried, "; "), nil
}

// others lists the coordinators but name, in a fixed order.
func (s *Set) others(name string) []string {
	var out []string
	for n := range s.force {
		if n != name {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// FaultStarted does nothing: the coordinators react to faults themselves.
func (s *Set) FaultStarted(ctx context.Context, st nemesis.Step) error { return nil }

// FaultEnded waits, after a Move or Rebalance step, until what it
// started has ended and is recorded; after a fault it does nothing.
func (s *Set) FaultEnded(ctx context.Context, st nemesis.Step) error {
	if st.Kind == nemesis.Move || st.Kind == nemesis.Rebalance {
		return s.waitMoves(ctx)
	}
	return nil
}
