// Package workloads drives a running cluster with go-redis clients and
// records every operation, its outcome and times in the run's history.
package workloads

// This package drives a running ruvio cluster with go-redis v9
// clients and records what happened in a history (reports/history): every
// operation with its outcome (ok, fail, or info when it is indeterminate),
// its invocation and completion times, and the node it went to.
//
// Two workloads exist. "set" adds globally unique values to a few sets
// (SADD), so that a final read after the faults shows which acknowledged
// values survived. "register" runs GET, SET and compare-and-set on a few
// keys with unique values, for a linearizability check.

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/ruvio/ruvio/reports/history"
)

// Workload kinds.
const (
	KindSet      = "set"
	KindRegister = "register"
	// KindTTL writes keys with a time to live and watches when they
	// vanish: what a skewed clock does to expiry.
	KindTTL = "ttl"
)

// Defaults for a zero Spec field.
const (
	DefaultClients = 4
	DefaultKeys    = 1
	DefaultTimeout = 500 * time.Millisecond
)

// failBackoff is how long a client waits after an operation that did not
// succeed before the next one. A refused dial returns in microseconds;
// without a pause an unlimited-rate client would fill the history with
// hundreds of thousands of identical failures while a node is down. 20 ms
// still resolves an unavailability window finely enough for the reports.
const failBackoff = 20 * time.Millisecond

// Spec describes one workload.
type Spec struct {
	// Kind is KindSet or KindRegister.
	Kind string
	// Clients is the number of concurrent clients (default 4). Each owns
	// one connection.
	Clients int
	// Keys is the number of keys the clients spread over (default 1).
	Keys int
	// KeyPrefix starts every key name, so that several workloads can share
	// a cluster; default Kind + ":". Keys are KeyPrefix + "0", "1", ...
	KeyPrefix string
	// Slots, "first-last", puts every key in that range of hash slots
	// with a hash tag (placement.go): KeyPrefix + "0{t7}", ... The set
	// and register workloads only.
	Slots string
	// Rate is operations per second per client; 0 is as fast as possible.
	Rate float64
	// Durable is k in CLIENT DURABILITY REPLICAS k, sent on every
	// connection a client opens (0: off): no reply then shows a write
	// until k replicas hold it on disk. A write whose wait runs out is
	// answered NOREPLICAS and stays applied on the primary, so it is
	// recorded as indeterminate (not acknowledged, perhaps applied).
	Durable int
	// Wait is k in a WAIT k sent after every write that succeeded (0:
	// off), the protection Redis has: a write is acknowledged only when
	// WAIT answers at least k replicas within 3/4 of the client's
	// timeout; otherwise it stays applied and is recorded as
	// indeterminate.
	Wait int
	// Batch is how many adds a set client pipelines in one round trip
	// (0 or 1: one at a time). Each add is its own operation in the
	// history, with the batch's invocation and completion times.
	Batch int
	// Via is how a client finds its node: "" dials targets()[i mod n];
	// ViaSentinel makes each client a go-redis FailoverClient whose
	// sentinels are targets() (the coordinators), asking them for
	// Master's primary as Sentinel clients do; ViaCluster a go-redis
	// ClusterClient seeded with targets() (see cluster.go).
	Via string
	// Master is the Sentinel service name (ViaSentinel).
	Master string
	// SentinelPassword is what a ViaSentinel client AUTHs with on the
	// sentinels; the runner fills it in.
	SentinelPassword string
	// TLS, when set, puts every connection of the workload on TLS (the
	// sentinels' too), verifying each server's certificate for the host
	// dialled; the runner fills it in from the cluster.
	TLS *tls.Config
	// Node pins every client to one data node, by name, whatever the
	// scenario's target list says (e.g. the old primary, to see it refuse
	// writes after a failover). The runner reads it; Run only sees the
	// targets it is given.
	Node string
	// Timeout bounds each network step of an operation: dial, write and
	// read (default 500ms). An operation whose reply does not arrive in
	// time is indeterminate.
	Timeout time.Duration
	// Preload is a number of keys of Slots written before the load
	// starts, each a string of PreloadBytes bytes (default
	// DefaultPreloadBytes), outside the history (preload.go). Cluster
	// clients only.
	Preload      int
	PreloadBytes int
	// Moved, when set (the runner sets it from the coordinators for the
	// clients that dial targets() themselves), returns a context that is
	// cancelled when targets() next names another primary: the operation
	// under way then is abandoned (a dial not yet answered fails, a
	// request sent is indeterminate) and the client reconnects, as
	// Sentinel clients that follow +switch-master do, rather than wait
	// out its timeout on a primary that is gone.
	Moved func() context.Context
}

// ViaSentinel is Spec.Via for clients that ask sentinels (the
// coordinators) where the primary is.
const ViaSentinel = "sentinel"

// withDefaults fills the zero fields and rejects what cannot run.
func (s Spec) withDefaults() (Spec, error) {
	if s.Kind != KindSet && s.Kind != KindRegister && s.Kind != KindTTL && s.Kind != KindAppend && s.Kind != KindLock {
		return s, fmt.Errorf("workloads: unknown kind %q (want %q, %q, %q, %q or %q)", s.Kind, KindSet, KindRegister, KindTTL, KindAppend, KindLock)
	}
	if s.Clients <= 0 {
		s.Clients = DefaultClients
	}
	if s.Keys <= 0 {
		s.Keys = DefaultKeys
	}
	if s.KeyPrefix == "" {
		s.KeyPrefix = s.Kind + ":"
	}
	if s.Timeout <= 0 {
		s.Timeout = DefaultTimeout
	}
	if s.Rate < 0 {
		return s, fmt.Errorf("workloads: negative rate %v", s.Rate)
	}
	if s.Slots != "" {
		if s.Kind != KindSet && s.Kind != KindRegister {
			return s, fmt.Errorf("workloads: slots are for the %q and %q workloads, not %q", KindSet, KindRegister, s.Kind)
		}
		if _, _, err := parseSlotRange(s.Slots); err != nil {
			return s, err
		}
	}
	if s.Preload < 0 || s.PreloadBytes < 0 {
		return s, fmt.Errorf("workloads: negative preload (%d keys of %d bytes)", s.Preload, s.PreloadBytes)
	}
	if s.Preload > 0 && (s.Slots == "" || s.Via != ViaCluster) {
		return s, errors.New("workloads: a preload needs slots and cluster clients")
	}
	if s.PreloadBytes == 0 {
		s.PreloadBytes = DefaultPreloadBytes
	}
	if s.Durable < 0 || s.Batch < 0 {
		return s, fmt.Errorf("workloads: negative durable (%d) or batch (%d)", s.Durable, s.Batch)
	}
	if s.Batch > 1 && s.Kind != KindSet {
		return s, fmt.Errorf("workloads: batches are for the %q workload, not %q", KindSet, s.Kind)
	}
	switch s.Via {
	case "":
	case ViaCluster:
		if s.Batch > 1 || s.Wait > 0 {
			return s, errors.New("workloads: a cluster client sends neither batches nor WAIT (no single node answers for them)")
		}
	case ViaSentinel:
		if s.Master == "" {
			return s, errors.New("workloads: a sentinel client needs the Master name")
		}
	default:
		return s, fmt.Errorf("workloads: unknown Via %q (want \"\", %q or %q)", s.Via, ViaSentinel, ViaCluster)
	}
	return s, nil
}

// KeyNames lists the keys a workload uses (after defaults).
func (s Spec) KeyNames() []string {
	s, _ = s.withDefaults()
	if first, last, err := parseSlotRange(s.Slots); s.Slots != "" && err == nil {
		return placedKeys(s.KeyPrefix, s.Keys, first, last)
	}
	keys := make([]string, s.Keys)
	for i := range keys {
		keys[i] = s.KeyPrefix + strconv.Itoa(i)
	}
	return keys
}

// Run drives spec's clients until ctx is done, recording every operation
// in rec. targets lists the addresses of the data nodes; client i talks to
// targets()[i mod n], asked again whenever the client reconnects after a
// failed dial (so a node that came back on a new address is found) and
// after every operation that did not succeed, moving the client when its
// entry changed (so clients follow a primary that an operator moved: the
// old one refuses or does not answer, then they go where the list says). rng
// seeds the clients' choices: Run draws one generator per client from it
// before the clients start, so rng is only used from the caller's
// goroutine.
//
// Operations already in flight when ctx ends are completed (each is
// bounded by Timeout) and recorded, so that the history ends with no
// pending operation. Run returns nil then; it returns an error only for a
// spec it cannot run or an empty target list.
func Run(ctx context.Context, spec Spec, targets func() []string, rec *Recorder, rng *rand.Rand) error {
	spec, err := spec.withDefaults()
	if err != nil {
		return err
	}
	if len(targets()) == 0 {
		return errors.New("workloads: no target to dial")
	}
	shared := &registerState{last: map[string]string{}}
	keys := spec.KeyNames()
	var wg sync.WaitGroup
	for i := 0; i < spec.Clients; i++ {
		w := &worker{
			spec:    spec,
			slot:    i,
			keys:    keys,
			targets: targets,
			rec:     rec,
			rng:     rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64())),
			proc:    rec.NewProcess(),
			shared:  shared,
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.loop(ctx)
		}()
	}
	wg.Wait()
	return nil
}

// worker is one client: its own process number, value counter, random
// generator and connection.
type worker struct {
	spec    Spec
	slot    int
	keys    []string
	targets func() []string
	rec     *Recorder
	rng     *rand.Rand
	shared  *registerState

	proc int // current process number; renewed after an info op
	seq  int // values written by this process so far
	c    *conn
	// contended is set by an op that failed only because of the other
	// clients (a compare-and-set that found another value or whose EXEC
	// was aborted): the cluster is fine, so no back-off follows.
	contended bool
}

// registerState is what the register clients share: the last value seen
// at each key, which a compare-and-set uses as its expected value so that
// it has a fair chance to apply.
type registerState struct {
	mu   sync.Mutex
	last map[string]string
}

func (r *registerState) get(key string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.last[key]
	return v, ok
}

func (r *registerState) set(key, v string) {
	r.mu.Lock()
	r.last[key] = v
	r.mu.Unlock()
}

func (w *worker) loop(ctx context.Context) {
	defer func() {
		if w.c != nil {
			w.c.close()
		}
	}()
	var interval time.Duration
	if w.spec.Rate > 0 {
		interval = time.Duration(float64(time.Second) / w.spec.Rate)
	}
	// Start clients at random points of the first interval so that a
	// rate-limited workload does not send in bursts of Clients ops.
	next := time.Now()
	if interval > 0 {
		next = next.Add(time.Duration(w.rng.Int64N(int64(interval))))
	}
	// Operations must finish once started, even when ctx ends meanwhile:
	// a cancelled operation would be recorded as indeterminate for no
	// reason of the cluster's. Each is bounded by the client's timeouts.
	opCtx := context.WithoutCancel(ctx)
	for {
		if interval > 0 {
			if !sleepUntil(ctx, next) {
				return
			}
			next = next.Add(interval)
			if now := time.Now(); next.Before(now) {
				// Behind schedule (a slow op): skip, do not burst.
				next = now
			}
		}
		if ctx.Err() != nil {
			return
		}
		c := w.connect()
		if c == nil {
			// The target list is momentarily empty.
			if !sleepUntil(ctx, time.Now().Add(failBackoff)) {
				return
			}
			continue
		}
		var typ string
		w.contended = false
		octx, endOp := w.opContext(opCtx)
		switch {
		case w.spec.Kind == KindSet && w.spec.Batch > 1:
			typ = w.setBatch(octx, c)
		case w.spec.Kind == KindSet:
			typ = w.setOp(octx, c)
		case w.spec.Kind == KindTTL:
			typ = w.ttlOp(octx, c)
		case w.spec.Kind == KindAppend:
			typ = w.appendOp(octx, c)
		case w.spec.Kind == KindLock:
			typ = w.lockOp(octx, c)
		default:
			typ = w.registerOp(octx, c)
		}
		// Abandoned because the primary moved: the next operation goes
		// to the new one at once, without the back-off of a failure.
		retarget := octx.Err() != nil && opCtx.Err() == nil
		endOp()
		if c.replaceable() && (c.dialFailed.Load() || typ != history.OK && !w.contended && w.moved()) {
			c.close()
			w.c = nil
		}
		if typ == history.Info {
			// The op may still take effect later; Jepsen-style, this
			// client continues as a new process.
			w.proc, w.seq = w.rec.NewProcess(), 0
		}
		if typ != history.OK && !w.contended && !retarget && !sleepUntil(ctx, time.Now().Add(failBackoff)) {
			return
		}
	}
}

// opContext is the context of one operation: base, cancelled too when
// Spec.Moved's context is (only for clients dialling targets() directly);
// end releases it.
func (w *worker) opContext(base context.Context) (ctx context.Context, end func()) {
	if w.spec.Moved == nil || w.spec.Via != "" {
		return base, func() {}
	}
	ctx, cancel := context.WithCancel(base)
	stop := context.AfterFunc(w.spec.Moved(), cancel)
	return ctx, func() { stop(); cancel() }
}

// connect returns the worker's connection, making one to its target if
// it has none.
func (w *worker) connect() *conn {
	if w.c != nil {
		return w.c
	}
	addrs := w.targets()
	if len(addrs) == 0 {
		return nil
	}
	switch w.spec.Via {
	case ViaSentinel:
		w.c = newSentinelConn(addrs, w.spec)
		return w.c
	case ViaCluster:
		w.c = newClusterConn(addrs, w.spec)
		return w.c
	}
	w.c = newConn(addrs[w.slot%len(addrs)], w.spec)
	return w.c
}

// moved reports whether the worker's entry of the target list is no
// longer the address it is connected to.
func (w *worker) moved() bool {
	addrs := w.targets()
	return w.c != nil && len(addrs) > 0 && addrs[w.slot%len(addrs)] != w.c.addr
}

// nextValue returns a value no other operation of the run writes.
func (w *worker) nextValue() string {
	v := "p" + strconv.Itoa(w.proc) + "-" + strconv.Itoa(w.seq)
	w.seq++
	return v
}

func (w *worker) key() string { return w.keys[w.rng.IntN(len(w.keys))] }

// sleepUntil waits until t or ctx's end; it reports whether t came first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
