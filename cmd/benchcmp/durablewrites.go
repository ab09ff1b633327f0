package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Durable writes: a client that must not lose a write waits until k
// replicas hold it. ruvio says so once per connection (CLIENT DURABILITY
// REPLICAS k) and every reply waits; Redis's client follows its SETs with
// WAIT k 0 in the same round trip. This file is the load that measures
// both: C connections writing random keys back to back for a fixed time,
// each round trip timed from its send to its last reply.

// durableMode is how a client of one side makes its writes durable.
type durableMode int

const (
	// durableWait follows every batch of SETs with WAIT k 0 in the same
	// round trip; the batch is durable when WAIT counts at least k
	// (Redis). The zero value, so that a test's redis-server kinds use
	// it.
	durableWait durableMode = iota
	// durableClient sends CLIENT DURABILITY REPLICAS k once per
	// connection; every reply then waits for k replicas itself (ruvio).
	durableClient
)

const (
	// durableValue is every SET's value: redis-benchmark's default
	// 3 bytes (-d 3), as in the other tables.
	durableValue = "xxx"
	// durableKeyspace is how many keys the SETs pick from at random,
	// like redis-benchmark -r 100000.
	durableKeyspace = 100000
	// durableReplyTimeout bounds one round trip. It is above ruvio's
	// 5000 ms durability timeout, so that a write no replica took comes
	// back as NOREPLICAS and is counted, rather than failing the run.
	durableReplyTimeout = 15 * time.Second
)

// describe is how a round trip of mode looks, for the plan line and the
// JSON.
func (m durableMode) describe(k, pipeline int) string {
	sets := "SET"
	if pipeline > 1 {
		sets = fmt.Sprintf("%d x SET", pipeline)
	}
	if m == durableClient {
		return fmt.Sprintf("CLIENT DURABILITY REPLICAS %d once, then %s", k, sets)
	}
	return fmt.Sprintf("%s + WAIT %d 0", sets, k)
}

// howDurable says in a sentence what a client of mode does, for the
// durable-writes table's notes.
func (m durableMode) howDurable() string {
	if m == durableClient {
		return "each connection sends CLIENT DURABILITY REPLICAS k once, then its SETs, every reply held until k replicas hold the write on disk"
	}
	// Redis 7.2 added WAITAOF for the fsync; 7.0 has only WAIT.
	return "each round trip is the SETs and WAIT k 0, sent together (WAIT counts replicas that acknowledged the replication offset, which Redis does not tie to their fsync)"
}

// notDurable says which SETs of mode count as not durable.
func (m durableMode) notDurable() string {
	if m == durableClient {
		return "answered NOREPLICAS"
	}
	return "covered by a WAIT that counted fewer than k"
}

// setupCommand is what a connection sends once before its first batch;
// nil when the mode needs nothing.
func (m durableMode) setupCommand(k int) []string {
	if m == durableClient {
		return []string{"CLIENT", "DURABILITY", "REPLICAS", strconv.Itoa(k)}
	}
	return nil
}

// replies is how many replies a batch of pipeline SETs gets.
func (m durableMode) replies(pipeline int) int {
	if m == durableWait {
		return pipeline + 1
	}
	return pipeline
}

// appendBatch appends one round trip to b: a SET of each key (numbered
// in the keyspace) and, for durableWait, WAIT k 0. It encodes by hand:
// the load runs on the same two cores as the servers, so the client
// should spend as little as it can.
func appendBatch(b []byte, m durableMode, k int, keys []int) []byte {
	for _, n := range keys {
		b = append(b, "*3\r\n$3\r\nSET\r\n"...)
		b = appendKey(b, n)
		b = appendBulk(b, durableValue)
	}
	if m == durableWait {
		b = append(b, "*3\r\n$4\r\nWAIT\r\n"...)
		b = appendBulk(b, strconv.Itoa(k))
		b = appendBulk(b, "0")
	}
	return b
}

// appendKey appends key n as a bulk string, "key:" and 12 digits, the
// shape of redis-benchmark's keys.
func appendKey(b []byte, n int) []byte {
	b = append(b, "$16\r\nkey:"...)
	var d [12]byte
	for i := len(d) - 1; i >= 0; i-- {
		d[i] = byte('0' + n%10)
		n /= 10
	}
	b = append(b, d[:]...)
	return append(b, "\r\n"...)
}

// appendBulk appends s as a RESP bulk string.
func appendBulk(b []byte, s string) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, "\r\n"...)
	b = append(b, s...)
	return append(b, "\r\n"...)
}

// batchReply is one reply of a batch: a reply, or an error reply's words.
type batchReply struct {
	reply
	Err string
}

// readBatch reads len(rs) replies into rs. Error replies are replies;
// only a broken or stuck connection is an error.
func readBatch(r *bufio.Reader, rs []batchReply) error {
	for i := range rs {
		v, err := readReply(r)
		var se *serverError
		switch {
		case errors.As(err, &se):
			rs[i] = batchReply{Err: se.Msg}
		case err != nil:
			return err
		default:
			rs[i] = batchReply{reply: v}
		}
	}
	return nil
}

// tallyBatch counts the SETs of one batch that were acknowledged durable
// and those that were not: ruvio answered NOREPLICAS, or Redis's WAIT
// counted fewer than k replicas. Any other error reply, or a reply of the
// wrong kind, is an error: the run would be measuring something else.
func tallyBatch(m durableMode, k, pipeline int, rs []batchReply) (acked, failed int, err error) {
	if len(rs) != m.replies(pipeline) {
		return 0, 0, fmt.Errorf("%d replies to a batch of %d SETs, want %d", len(rs), pipeline, m.replies(pipeline))
	}
	for _, r := range rs[:pipeline] {
		switch {
		case strings.HasPrefix(r.Err, "NOREPLICAS"):
			failed++
		case r.Err != "":
			return 0, 0, fmt.Errorf("SET: %s", r.Err)
		case r.Str == "OK":
			acked++
		default:
			return 0, 0, fmt.Errorf("SET answered %+v, want OK", r.reply)
		}
	}
	if m == durableWait {
		w := rs[pipeline]
		if w.Err != "" {
			return 0, 0, fmt.Errorf("WAIT: %s", w.Err)
		}
		if w.Int < int64(k) {
			failed += acked
			acked = 0
		}
	}
	return acked, failed, nil
}

// durableCell is one measurement of the durable-writes table: a group of
// one primary and Replicas replicas, writes made durable on K of them by
// Clients connections sending Pipeline SETs per round trip.
type durableCell struct {
	Durability string `json:"durability"`
	Replicas   int    `json:"replicas"`
	K          int    `json:"k"`
	Clients    int    `json:"clients"`
	Pipeline   int    `json:"pipeline"`
}

// durableCells lists the cells of the group of one profile with n
// replicas: every k from 1 to n, at every client count and pipeline
// depth, in that order.
func durableCells(durability string, n int, clients, pipelines []int) []durableCell {
	var out []durableCell
	for k := 1; k <= n; k++ {
		for _, c := range clients {
			for _, p := range pipelines {
				out = append(out, durableCell{Durability: durability, Replicas: n, K: k, Clients: c, Pipeline: p})
			}
		}
	}
	return out
}

// durableResult is one side's measurement of one cell.
type durableResult struct {
	durableCell
	Role   string `json:"role"`
	Server string `json:"server"`
	Port   int    `json:"port"`
	// Method is the round trip, e.g. "SET + WAIT 1 0".
	Method string `json:"method"`
	// Duration is how long the clients kept sending; Elapsed runs from
	// their start to the last reply.
	Duration time.Duration `json:"duration_ns"`
	Elapsed  time.Duration `json:"elapsed_ns"`
	// Acked counts the SETs acknowledged durable, Failed those that
	// were not (NOREPLICAS, or a WAIT short of k).
	Acked  int64 `json:"acked"`
	Failed int64 `json:"failed"`
	// OpsPerSec is Acked over Elapsed.
	OpsPerSec float64 `json:"ops_per_sec"`
	// Latency is per round trip (Pipeline SETs), send to last reply, ms.
	Latency summary `json:"latency_ms"`
	Error   string  `json:"error,omitempty"`
}

// clientTally is what one connection of a run measured.
type clientTally struct {
	acked, failed int64
	latencies     []float64
	err           error
}

// driveConn sends batches on c until stop or ctx ends and times each.
func driveConn(ctx context.Context, c *respConn, m durableMode, k, pipeline int, stop time.Time) clientTally {
	var (
		t    clientTally
		buf  []byte
		keys = make([]int, pipeline)
		rs   = make([]batchReply, m.replies(pipeline))
	)
	for ctx.Err() == nil && time.Now().Before(stop) {
		for i := range keys {
			keys[i] = rand.IntN(durableKeyspace)
		}
		buf = appendBatch(buf[:0], m, k, keys)
		start := time.Now()
		if err := c.conn.SetDeadline(start.Add(durableReplyTimeout)); err != nil {
			t.err = err
			return t
		}
		if _, err := c.conn.Write(buf); err != nil {
			t.err = err
			return t
		}
		if err := readBatch(c.r, rs); err != nil {
			t.err = fmt.Errorf("reading a batch's replies: %w", err)
			return t
		}
		t.latencies = append(t.latencies, float64(time.Since(start))/float64(time.Millisecond))
		a, f, err := tallyBatch(m, k, pipeline, rs)
		if err != nil {
			t.err = err
			return t
		}
		t.acked += int64(a)
		t.failed += int64(f)
	}
	return t
}

// measureDurable runs one side of cell against primary p for d:
// cell.Clients connections, set up first, then all sending at once.
func measureDurable(ctx context.Context, role string, p *server, cell durableCell, d time.Duration) durableResult {
	m := p.kind.Durable
	res := durableResult{
		durableCell: cell, Role: role, Server: p.kind.Name, Port: p.port,
		Method: m.describe(cell.K, cell.Pipeline), Duration: d,
	}
	conns := make([]*respConn, 0, cell.Clients)
	defer func() {
		for _, c := range conns {
			c.close()
		}
	}()
	for range cell.Clients {
		c, err := dialRESP(ctx, p.addr())
		if err != nil {
			res.Error = err.Error()
			return res
		}
		conns = append(conns, c)
		if setup := m.setupCommand(cell.K); setup != nil {
			if _, err := c.do(setup...); err != nil {
				res.Error = fmt.Sprintf("%s: %v", strings.Join(setup, " "), err)
				return res
			}
		}
	}
	// An interruption closes the connections, which ends any read that
	// is waiting for a held reply.
	unhook := context.AfterFunc(ctx, func() {
		for _, c := range conns {
			c.close()
		}
	})
	defer unhook()

	tallies := make([]clientTally, len(conns))
	var wg sync.WaitGroup
	start := time.Now()
	stop := start.Add(d)
	for i, c := range conns {
		wg.Go(func() { tallies[i] = driveConn(ctx, c, m, cell.K, cell.Pipeline, stop) })
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	if err := ctx.Err(); err != nil {
		res.Error = "interrupted: " + err.Error()
		return res
	}
	return tallyRun(res, tallies)
}

// tallyRun adds up the connections' tallies into res. One failed
// connection fails the run: the others were measured under a load that
// changed midway.
func tallyRun(res durableResult, tallies []clientTally) durableResult {
	var lat []float64
	for _, t := range tallies {
		if t.err != nil {
			res.Error = t.err.Error()
			return res
		}
		res.Acked += t.acked
		res.Failed += t.failed
		lat = append(lat, t.latencies...)
	}
	if res.Elapsed > 0 {
		res.OpsPerSec = float64(res.Acked) / res.Elapsed.Seconds()
	}
	res.Latency = summarize(lat)
	return res
}

// runDurable measures durable writes for every --durable profile and
// --durable-replicas count, each a group of its own with fresh servers
// and directories, like the replication groups.
func runDurable(ctx context.Context, cfg config, ruvio, redis serverKind, alloc *portAllocator, log *slog.Logger) ([]durableResult, error) {
	var (
		out  []durableResult
		errs []error
	)
	for _, d := range cfg.Durable {
		for _, n := range cfg.DurableReplicas {
			glog := log.With("part", "durable", "durability", d, "replicas", n)
			res, err := runDurableGroup(ctx, cfg, ruvio, redis, d, n, alloc, glog)
			out = append(out, res...)
			if err != nil {
				errs = append(errs, fmt.Errorf("durable writes durability=%s replicas=%d: %w", d, n, err))
			}
			if ctx.Err() != nil {
				return out, errors.Join(errs...)
			}
		}
	}
	return out, errors.Join(errs...)
}

// runDurableGroup starts a ruvio and a Redis group of one primary and n
// replicas with the durability profile and measures every cell on both
// primaries, the sides interleaved and the first swapped at every cell as
// in runGroup. Everything is stopped and removed before it returns.
func runDurableGroup(ctx context.Context, cfg config, ruvio, redis serverKind, durability string, n int, alloc *portAllocator, log *slog.Logger) ([]durableResult, error) {
	root, err := os.MkdirTemp("", fmt.Sprintf("benchcmp-durable-%s-r%d-", durability, n))
	if err != nil {
		return nil, err
	}
	defer removeAll(root, log)

	a, err := startReplGroup(ctx, ruvio, durability, n, root, alloc, log)
	defer a.stop(log)
	if err != nil {
		return nil, err
	}
	b, err := startReplGroup(ctx, redis, durability, n, root, alloc, log)
	defer b.stop(log)
	if err != nil {
		return nil, err
	}

	type target struct {
		role string
		g    *replGroup
	}
	var (
		out  []durableResult
		errs []error
	)
	for i, cell := range durableCells(durability, n, cfg.DurableClients, cfg.DurablePipelines) {
		order := []target{{roleRuvio, a}, {roleRedis, b}}
		if i%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, t := range order {
			p := t.g.primary
			log.Info("durable writes", "server", p.kind.Name, "port", p.port, "k", cell.K, "clients", cell.Clients, "pipeline", cell.Pipeline)
			res := measureDurable(ctx, t.role, p, cell, cfg.DurableDuration)
			// A node that died during the run changed what was
			// measured, so the numbers do not stand.
			if err := t.g.check(); err != nil && res.Error == "" {
				res.Error = err.Error()
			}
			out = append(out, res)
			if ctx.Err() != nil {
				return out, errors.Join(errs...)
			}
			if res.Error != "" {
				log.Error("durable writes failed", "server", p.kind.Name, "k", cell.K, "clients", cell.Clients, "pipeline", cell.Pipeline, "err", res.Error)
				errs = append(errs, fmt.Errorf("%s k=%d clients=%d pipeline=%d: %s", p.kind.Name, cell.K, cell.Clients, cell.Pipeline, res.Error))
				continue
			}
			log.Info("durable writes measured", "server", p.kind.Name, "ops_per_sec", int(res.OpsPerSec),
				"p50_ms", res.Latency.P50, "p99_ms", res.Latency.P99, "failed", res.Failed)
		}
	}
	return out, errors.Join(errs...)
}
