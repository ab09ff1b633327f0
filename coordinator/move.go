package coordinator

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/coordinator/rules"
	"github.com/ruvio/ruvio/ruvio/topology"
)

// Slot moves, the leader's side: COORDINATOR MOVE records a move in Raft,
// and the leader's move task drives it with the data nodes' RUVIO MIGRATE
// commands, one step at a time, as rules.Next decides. Every coordinator
// runs the task; only the leader acts, confirming its majority before
// every command, so a new leader takes over a move its predecessor began
// (the move is in the record; the step it reached is not, so it starts
// the recorded start from its first step, which the nodes answer the
// same way again).

// mover is the leader-local state of the move task.
type mover struct {
	wake chan struct{}
	// hold is set while the new map goes out in order after a commit:
	// the map task sends nothing meanwhile, so the source never gets the
	// new map before the target.
	hold atomic.Bool

	mu      sync.Mutex
	prog    rules.MoveProgress
	refused time.Time // since when the current step is refused
	// cancelTried is when each start given up was last cancelled on the
	// nodes without both answering (tried again a second later).
	cancelTried map[uint64]time.Time
	newMaps     int // tries of sending the new map to the target primary
	source      map[string]string
	lastErr     string
	drove       *rules.Move // the last move this coordinator drove
	droveTo     string
	told        map[uint64]bool // starts this coordinator cancelled on the nodes
	leading     bool
	observed    uint64 // the move id the progress belongs to
	// rebalance is the last rebalance this coordinator ran (nil: none).
	rebalance *rebalance
}

func newMover() *mover {
	return &mover{wake: make(chan struct{}, 1), told: map[uint64]bool{}, cancelTried: map[uint64]time.Time{}}
}

func (m *mover) poke() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// driveMoves is every coordinator's move task; it acts on the leader.
func (c *Coordinator) driveMoves() {
	if !c.cfg.clustered() {
		return
	}
	for {
		wait := c.pingInterval()
		if c.isLeader() && c.ready() {
			wait = c.moveTick()
		} else {
			c.moves.mu.Lock()
			if c.moves.leading {
				// A leader that stops leading forgets its progress and
				// what it told the nodes: the next time it leads it
				// reads the record again.
				c.moves.leading, c.moves.prog = false, rules.MoveProgress{}
				c.moves.told, c.moves.cancelTried = map[uint64]bool{}, map[uint64]time.Time{}
				if rb := c.moves.rebalance; rb != nil && rb.state == rebalanceRunning {
					rb.state = rebalanceStopped
					c.log.Warn("no longer leading: the rebalance stops here; run COORDINATOR REBALANCE on the new leader to go on", "moves_done", rb.moves)
				}
			}
			c.moves.mu.Unlock()
			c.moves.hold.Store(false)
		}
		select {
		case <-c.stop:
			return
		case <-c.moves.wake:
		case <-time.After(wait):
		}
	}
}

// moveTick performs one step of the newest move and returns how long to
// wait before the next one.
func (c *Coordinator) moveTick() time.Duration {
	st := c.fsm.all()
	to, mv, ok := st.LastMove()
	if !ok {
		c.rebalanceTick(rules.Move{}, false)
		return c.pingInterval()
	}
	c.moves.mu.Lock()
	c.moves.leading = true
	if c.moves.observed != mv.ID {
		c.moves.observed, c.moves.prog, c.moves.source, c.moves.lastErr = mv.ID, rules.MoveProgress{}, nil, ""
	}
	prog := c.moves.prog
	c.moves.mu.Unlock()
	// Starts given up (and a move that ended) are cancelled on the nodes
	// once by each leader: its predecessor may have recorded the end and
	// died before telling them.
	ended := mv.Starts
	if mv.State == rules.MoveRunning || mv.State == rules.MoveCommitted {
		ended = mv.Starts[:len(mv.Starts)-1]
	}
	c.tellCancel(st, to, mv, ended)
	if mv.State != rules.MoveRunning && mv.State != rules.MoveCommitted {
		c.rebalanceTick(mv, true)
		return c.pingInterval()
	}
	c.noteDriven(to, mv)
	from, toEpoch := st[mv.From].GroupEpoch, st[to].GroupEpoch
	now := time.Now()
	p, v, why := rules.Next(mv, from, toEpoch, prog, rules.StepOutcome{}, now)
	before := p
	var out rules.StepOutcome
	if v == rules.DoStep {
		if p.Step == rules.StepDone {
			c.setProgress(p)
			c.rebalanceTick(mv, true)
			return c.pingInterval()
		}
		if !c.confirmLeader() {
			return c.pingInterval()
		}
		out = c.performStep(st, to, mv, p)
		if out.Refused != "" {
			out.Silent = c.silent(st[mv.From].Primary) || c.silent(st[to].Primary)
			c.moves.mu.Lock()
			if c.moves.refused.IsZero() {
				c.moves.refused = time.Now()
				c.log.Warn("a step of the slot move is refused", "move", mv.ID, "step", p.Step.String(), "why", out.Refused)
			}
			out.RefusedSince = c.moves.refused
			c.moves.mu.Unlock()
		} else {
			c.moves.mu.Lock()
			c.moves.refused = time.Time{}
			c.moves.mu.Unlock()
		}
		p, v, why = rules.Next(mv, from, toEpoch, p, out, time.Now())
	}
	c.setProgress(p)
	switch v {
	case rules.DoRestart:
		c.restartMove(to, mv, why)
	case rules.DoFail:
		c.endMove(to, mv, rules.MoveFailed, why)
	case rules.DoCommit:
		if c.commitMove(to, mv) {
			p = p.Committed()
		}
	}
	return rules.TickWait(before, p, v, out, c.pingInterval())
}

func (c *Coordinator) setProgress(p rules.MoveProgress) {
	c.moves.mu.Lock()
	defer c.moves.mu.Unlock()
	if p.Step != c.moves.prog.Step || p.Start != c.moves.prog.Start {
		c.moves.refused = time.Time{}
	}
	c.moves.prog = p
}

func (c *Coordinator) noteDriven(to string, mv rules.Move) {
	c.moves.mu.Lock()
	defer c.moves.mu.Unlock()
	c.moves.drove, c.moves.droveTo = &mv, to
}

// primaryShard is the client address of shard of group's primary ("" if
// none is recorded) and its pool.
func (c *Coordinator) primaryShard(st rules.State, group string, shard int) (string, *prober) {
	rec := st[group]
	if rec.Primary == "" {
		return "", nil
	}
	return shardAddr(rec.Primary, shard), c.prober(rec.Primary)
}

// nodeDo sends one command to shard of the member p pings.
func (c *Coordinator) nodeDo(p *prober, shard int, args ...any) (any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.commandTimeout())
	defer cancel()
	v, err := p.client(shard).Do(ctx, args...).Result()
	return v, nodeError(err)
}

// performStep sends the step's commands and reads what they gave.
func (c *Coordinator) performStep(st rules.State, to string, mv rules.Move, p rules.MoveProgress) rules.StepOutcome {
	start := strconv.FormatUint(mv.Start(), 10)
	srcAddr, src := c.primaryShard(st, mv.From, mv.FromShard)
	dstAddr, dst := c.primaryShard(st, to, mv.Shard)
	if src == nil || dst == nil {
		return rules.StepOutcome{}
	}
	switch p.Step {
	case rules.StepTargetMaps:
		if m, ok := c.clusterMap(); ok {
			for _, mb := range st[to].Members {
				if mb.Address == st[to].Primary || !c.confirmLeader() {
					continue
				}
				if err := c.sendMapWithin(mb.Address, m, true, time.Second); err != nil {
					c.log.Info("sending the map to a replica of the move's target failed", "member", mb.Address, "err", err)
				}
			}
		}
		return rules.StepOutcome{Done: true}
	case rules.StepImport:
		_, err := c.nodeDo(dst, mv.Shard, "RUVIO", "MIGRATE", "IMPORT", start, mv.First, mv.Last, srcAddr)
		var re *replyError
		if errors.As(err, &re) && re.prefix == "TRYAGAIN" {
			// The target still hands the range over from an earlier
			// move: the next tick asks again.
			c.moves.mu.Lock()
			c.moves.lastErr = "import: " + err.Error()
			c.moves.mu.Unlock()
			return rules.StepOutcome{}
		}
		return c.stepAnswer("import", err)
	case rules.StepExport:
		state, _, known, err := c.migrateStatus(src, mv.FromShard, start)
		if err != nil {
			return c.stepAnswer("status", err)
		}
		if rules.Exporting(state, known) {
			return rules.StepOutcome{Done: true}
		}
		if !c.confirmLeader() {
			return rules.StepOutcome{}
		}
		_, err = c.nodeDo(src, mv.FromShard, "RUVIO", "MIGRATE", "EXPORT", start, mv.First, mv.Last, dstAddr)
		return c.stepAnswer("export", err)
	case rules.StepPrepare:
		state, why, known, err := c.migrateStatus(src, mv.FromShard, start)
		if err != nil {
			return c.stepAnswer("status", err)
		}
		return rules.SourceOutcome(state, why, known)
	case rules.StepReplicas:
		_, err := c.nodeDo(dst, mv.Shard, "RUVIO", "MIGRATE", "REPLICAS", start, int(rules.ReplicasPoll/time.Millisecond))
		var re *replyError
		if errors.As(err, &re) && re.prefix == "TRYAGAIN" {
			return rules.StepOutcome{}
		}
		return c.stepAnswer("replicas", err)
	case rules.StepNewMaps:
		return c.sendNewMaps(st, to, mv)
	}
	return rules.StepOutcome{}
}

// stepAnswer reads a node's answer to a step's command: nil is done, no
// answer is tried again, and an error reply is a refusal (which
// rules.Next weighs).
func (c *Coordinator) stepAnswer(what string, err error) rules.StepOutcome {
	if err == nil {
		return rules.StepOutcome{Done: true}
	}
	c.moves.mu.Lock()
	c.moves.lastErr = what + ": " + err.Error()
	c.moves.mu.Unlock()
	if isUnreachable(err) {
		return rules.StepOutcome{}
	}
	return rules.StepOutcome{Refused: what + ": " + replyText(err)}
}

// migrateStatus asks RUVIO MIGRATE STATUS; known is false when the node
// does not know the id.
func (c *Coordinator) migrateStatus(p *prober, shard int, id string) (state, why string, known bool, err error) {
	v, err := c.nodeDo(p, shard, "RUVIO", "MIGRATE", "STATUS", id)
	var re *replyError
	if errors.As(err, &re) && re.prefix == "ERR" && re.text == "no such move" {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, err
	}
	f := fieldMap(v)
	c.moves.mu.Lock()
	c.moves.source = f
	c.moves.mu.Unlock()
	return f["state"], f["error"], true, nil
}

// fieldMap reads a flat field/value array (or a RESP3 map) as strings.
func fieldMap(v any) map[string]string {
	out := map[string]string{}
	switch x := v.(type) {
	case []any:
		for i := 0; i+1 < len(x); i += 2 {
			out[fmt.Sprint(x[i])] = fmt.Sprint(x[i+1])
		}
	case map[any]any:
		for k, val := range x {
			out[fmt.Sprint(k)] = fmt.Sprint(val)
		}
	}
	return out
}

// sendNewMaps sends the committed map to the target primary, then the
// source primary, then every other member. The target must have it
// first (until then it sends the range's clients back to the source), so
// the map task waits meanwhile; a target primary that does not take it
// within three tries holds the others up no longer. The two primaries
// get it without first being asked their version (a round trip the
// frozen range's clients would wait out): a node takes a map it has
// already as a no-op.
func (c *Coordinator) sendNewMaps(st rules.State, to string, mv rules.Move) rules.StepOutcome {
	m, ok := c.clusterMap()
	if !ok {
		c.moves.hold.Store(false)
		return rules.StepOutcome{}
	}
	c.moves.hold.Store(true)
	first := st[to].Primary
	if err := c.sendMap(first, m, false); err != nil {
		c.moves.mu.Lock()
		c.moves.newMaps++
		tries := c.moves.newMaps
		c.moves.lastErr = "new map to the target: " + err.Error()
		c.moves.mu.Unlock()
		c.log.Warn("the target primary did not take the new map", "member", first, "version", m.Version, "err", err)
		if tries < 3 {
			return rules.StepOutcome{} // still held: the next tick tries again
		}
	}
	c.moves.hold.Store(false)
	order := []string{st[mv.From].Primary}
	for _, g := range m.Groups {
		for _, a := range g.Members {
			if a != first && a != order[0] {
				order = append(order, a)
			}
		}
	}
	for _, a := range order {
		if !c.confirmLeader() {
			return rules.StepOutcome{}
		}
		if err := c.sendMap(a, m, a != order[0]); err != nil {
			c.log.Info("sending the new map failed; the map task tries again", "member", a, "version", m.Version, "err", err)
		}
	}
	c.log.Info("slot move done", "move", mv.ID, "range", mv.Range(to), "version", m.Version)
	return rules.StepOutcome{Done: true}
}

// commitMove records the commit, after checking that the new map can be
// made (the range still on one shard of the source group), and reports
// whether it did.
func (c *Coordinator) commitMove(to string, mv rules.Move) bool {
	m, ok := c.clusterMap()
	if !ok || !c.confirmLeader() {
		return false
	}
	if _, err := m.Move(mv.First, mv.Last, to, mv.Shard); err != nil {
		c.endMove(to, mv, rules.MoveFailed, "the new map cannot be made: "+err.Error())
		return false
	}
	c.moves.hold.Store(true)
	err := c.propose(rules.Entry{Op: rules.OpMoveCommit, Group: to, Move: &rules.Move{ID: mv.ID, Starts: []uint64{mv.Start()}}})
	if err != nil {
		c.moves.hold.Store(false)
		c.log.Warn("recording the slot move's commit failed", "move", mv.ID, "err", err)
		return false
	}
	c.moves.mu.Lock()
	c.moves.prog = c.moves.prog.Committed()
	c.moves.newMaps = 0
	c.moves.mu.Unlock()
	c.log.Info("slot move committed", "move", mv.ID, "range", mv.Range(to), "start", len(mv.Starts))
	return true
}

// restartMove records a new start (at the groups' epochs as it applies),
// then cancels the start given up on the nodes.
func (c *Coordinator) restartMove(to string, mv rules.Move, why string) {
	if !c.confirmLeader() {
		return
	}
	err := c.propose(rules.Entry{Op: rules.OpMoveRestart, Group: to, Move: &rules.Move{ID: mv.ID, Error: why}})
	if err != nil {
		c.log.Warn("recording the slot move's new start failed", "move", mv.ID, "err", err)
		return
	}
	c.log.Warn("slot move starts again", "move", mv.ID, "range", mv.Range(to), "start", len(mv.Starts)+1, "why", why)
	c.tellCancel(c.fsm.all(), to, mv, []uint64{mv.Start()})
}

// endMove records the move's end (cancelled or failed), then cancels it
// on the nodes. It returns what recording it answered.
func (c *Coordinator) endMove(to string, mv rules.Move, state, why string) error {
	if !c.confirmLeader() {
		return errNoMajority
	}
	err := c.propose(rules.Entry{Op: rules.OpMoveEnd, Group: to, Move: &rules.Move{ID: mv.ID, State: state, Error: why}})
	if err != nil {
		c.log.Warn("recording the slot move's end failed", "move", mv.ID, "state", state, "err", err)
		return err
	}
	c.log.Warn("slot move ended", "move", mv.ID, "range", mv.Range(to), "state", state, "why", why)
	c.tellCancel(c.fsm.all(), to, mv, mv.Starts)
	return nil
}

// tellCancel sends RUVIO MIGRATE CANCEL for each start to the source and
// target primaries, once per leadership for each start both answered; a
// start some node did not answer is tried again a second later (and
// logged once), so a dead node never slows the move task down.
func (c *Coordinator) tellCancel(st rules.State, to string, mv rules.Move, starts []uint64) {
	for _, id := range starts {
		c.moves.mu.Lock()
		done := c.moves.told[id]
		tried, retry := c.moves.cancelTried[id]
		c.moves.mu.Unlock()
		if done || retry && time.Since(tried) < time.Second {
			continue
		}
		var failed []string
		for _, side := range []struct {
			group string
			shard int
		}{{mv.From, mv.FromShard}, {to, mv.Shard}} {
			_, p := c.primaryShard(st, side.group, side.shard)
			if p == nil || !c.confirmLeader() {
				failed = append(failed, side.group+": no primary or no majority")
				continue
			}
			if _, err := c.nodeDo(p, side.shard, "RUVIO", "MIGRATE", "CANCEL", strconv.FormatUint(id, 10)); err != nil {
				failed = append(failed, side.group+": "+err.Error())
			}
		}
		c.moves.mu.Lock()
		if len(failed) == 0 {
			c.moves.told[id] = true
			delete(c.moves.cancelTried, id)
		} else {
			c.moves.cancelTried[id] = time.Now()
		}
		c.moves.mu.Unlock()
		if len(failed) > 0 && !retry {
			c.log.Info("cancelling a slot move's start on the nodes failed; trying again every second", "move", mv.ID, "start", id, "err", strings.Join(failed, "; "))
		}
	}
}

// startMove is COORDINATOR MOVE first last group shard: checked against
// the map the record describes, recorded, and handed to the move task.
// It answers the move's id.
func (c *Coordinator) startMove(first, last int, group string, shard int) (uint64, error) {
	if !c.cfg.clustered() {
		return 0, errReply("the groups do not share the hash slots (no shards in the configuration): nothing to move")
	}
	if err := c.leaderCheck(); err != nil {
		return 0, err
	}
	st := c.fsm.all()
	if _, mv, running := st.RunningMove(); running {
		return 0, errReply("move %d is running; wait for it or end it with COORDINATOR CANCEL", mv.ID)
	}
	if c.rebalancing() {
		return 0, errReply("a rebalance is running; COORDINATOR CANCEL ends it")
	}
	m, ok := c.clusterMap()
	if !ok {
		return 0, errReply("no cluster map yet: a group has no agreed primary")
	}
	return c.beginMove(m, first, last, group, shard)
}

// beginMove records a move the map allows.
func (c *Coordinator) beginMove(m *topology.Map, first, last int, group string, shard int) (uint64, error) {
	if _, ok := m.Group(group); !ok {
		return 0, errNoSuchMaster
	}
	if _, err := m.Move(first, last, group, shard); err != nil {
		return 0, errReply("%v", err)
	}
	from, fromShard := m.Table().Owner(first)
	src := m.Groups[from].Name
	mv := &rules.Move{First: first, Last: last, From: src, FromShard: fromShard, Shard: shard}
	if !c.confirmLeader() {
		return 0, errNoMajority
	}
	f := c.raft.Apply(rules.EncodeEntry(rules.Entry{Op: rules.OpMoveBegin, Group: group, Move: mv}), 5*time.Second)
	if err := f.Error(); err != nil {
		return 0, err
	}
	if err, ok := f.Response().(error); ok && err != nil {
		if errors.Is(err, rules.ErrMoveRunning) {
			return 0, errReply("another move is running")
		}
		return 0, err
	}
	c.log.Info("slot move recorded", "move", f.Index(), "range", fmt.Sprintf("%d-%d %s/%d -> %s/%d", first, last, src, fromShard, group, shard))
	c.moves.poke()
	return f.Index(), nil
}

// cancelMove is COORDINATOR CANCEL: the running move ends before its
// commit, recorded first, then cancelled on the nodes (endMove). A move
// that committed meanwhile stays committed. A running rebalance ends too.
func (c *Coordinator) cancelMove() error {
	if err := c.leaderCheck(); err != nil {
		return err
	}
	stopped := c.stopRebalance("cancelled")
	to, mv, running := c.fsm.all().RunningMove()
	if !running {
		if stopped {
			return nil
		}
		return errReply("no move is running")
	}
	err := c.endMove(to, mv, rules.MoveCancelled, "cancelled by COORDINATOR CANCEL")
	if errors.Is(err, rules.ErrMoveCommitted) {
		return errReply("move %d committed already: nothing is undone (move the range back with COORDINATOR MOVE)", mv.ID)
	}
	return err
}

// moveStatus renders the move fields of COORDINATOR STATUS: the running
// move, or else the last one this coordinator drove; the step and the
// source's state only on the leader driving it.
func (c *Coordinator) moveStatus(b *strings.Builder) {
	st := c.fsm.all()
	fmt.Fprintf(b, "moved_ranges:%d\r\n", st.MovedRanges())
	to, mv, ok := st.RunningMove()
	c.moves.mu.Lock()
	defer c.moves.mu.Unlock()
	if !ok && c.moves.drove != nil {
		// The record has how the driven move ended.
		to, ok = c.moves.droveTo, true
		mv = *c.moves.drove
		if r, found := st[to]; found && r.Move != nil && r.Move.ID == mv.ID {
			mv = *r.Move
		}
	}
	if !ok {
		b.WriteString("move:none\r\n")
		return
	}
	fmt.Fprintf(b, "move:%s\r\nmove_id:%d\r\nmove_range:%s\r\nmove_starts:%d\r\n", mv.State, mv.ID, mv.Range(to), len(mv.Starts))
	if c.moves.leading && c.moves.observed == mv.ID {
		fmt.Fprintf(b, "move_step:%s\r\n", c.moves.prog.Step)
		if s := c.moves.source["state"]; s != "" {
			fmt.Fprintf(b, "move_source_state:%s\r\nmove_keys:%s\r\nmove_bytes:%s\r\n", s, c.moves.source["keys"], c.moves.source["bytes"])
		}
		if c.moves.lastErr != "" && mv.State == rules.MoveRunning {
			fmt.Fprintf(b, "move_last_node_error:%s\r\n", oneLine(c.moves.lastErr))
		}
	}
	if mv.Error != "" {
		fmt.Fprintf(b, "move_error:%s\r\n", oneLine(mv.Error))
	}
}
