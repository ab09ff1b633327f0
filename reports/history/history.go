// Package history is the record of a chaos run, one JSON object a line:
// client operations, injected faults and what the harness observed.
package history

// This package is the record of a chaos run: every client operation
// with its outcome and times, every fault the nemesis injected, and what
// the harness observed on the nodes themselves (a replica's catch-up, a
// promotion, the final convergence check), one JSON object per line
// (history.jsonl). Checkers and reports read it;
// `chaos analyze` re-checks a saved one.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Outcome of an operation, as Jepsen names them.
const (
	// OK: the server acknowledged the operation.
	OK = "ok"
	// Fail: the operation certainly did not happen (an error reply such
	// as NOREPLICAS, READONLY, or a refused connection).
	Fail = "fail"
	// Info: indeterminate — a timeout or a connection lost after sending.
	// It may or may not have happened; checkers never count it as lost
	// nor as acknowledged.
	Info = "info"
)

// Operation functions recorded by the workloads.
const (
	FAdd   = "add"   // add Value to the set at Key (SADD/RPUSH)
	FRead  = "read"  // read the whole set at Key (final or intermediate): Values
	FWrite = "write" // register: SET Key Value
	FGet   = "get"   // register: GET Key -> Value ("" and Nil=true for none)
	FCAS   = "cas"   // register: compare-and-set Key from Expect to Value
	// FChanges is what a change stream consumer holds at the end of the
	// run for the set at Key (Values), having applied the adds its
	// stream sent and undone those a rewind took back (Final).
	FChanges = "changes"
	// The lock workload (LEASE and a fenced resource): FLeaseAcquire is
	// LEASE ACQUIRE Key (Value the token granted, Nil when another holder
	// had it); FLeaseMark the SADD of the token to Key's grants set right
	// after; FFencedWrite a write of the holder to the resource the lock
	// guards, carrying the token in Value (OK: accepted; Fail: refused,
	// the resource had seen a larger token); FLeaseRelease is LEASE
	// RELEASE (Value "1" or "0"); FLeaseGrants the final read of Key's
	// grants set (Values, Final): the grants that survived.
	FLeaseAcquire = "lease-acquire"
	FLeaseMark    = "lease-mark"
	FFencedWrite  = "fenced-write"
	FLeaseRelease = "lease-release"
	FLeaseGrants  = "lease-grants"
)

// Op is one client operation: invoked at T0, completed at T1 (both in
// nanoseconds since the run started, monotonic).
type Op struct {
	Process int      `json:"process"`
	Type    string   `json:"type"` // OK, Fail or Info
	F       string   `json:"f"`
	Key     string   `json:"key,omitempty"`
	Value   string   `json:"value,omitempty"`
	Nil     bool     `json:"nil,omitempty"` // a get that found no value
	Expect  string   `json:"expect,omitempty"`
	Values  []string `json:"values,omitempty"`
	T0      int64    `json:"t0"`
	T1      int64    `json:"t1"`
	Node    string   `json:"node,omitempty"` // the node the client talked to
	Err     string   `json:"err,omitempty"`
	// Final marks the reads made after heal and settle, which decide
	// what survived.
	Final bool `json:"final,omitempty"`
}

// Fault is one injected fault: a kind (partition, kill, pause, clock, ...),
// its target (a node, or a partition shape's description) and its window
// in milliseconds since the run started (EndMs is 0 while it lasts).
type Fault struct {
	Kind    string `json:"kind"`
	Target  string `json:"target"`
	StartMs int64  `json:"start_ms"`
	EndMs   int64  `json:"end_ms"`
	// Note says what the fault is and is not, e.g. "SIGSTOP: the kernel
	// still accepts connections; not a partition".
	Note string `json:"note,omitempty"`
}

// Kinds of observation.
const (
	// ObsPromotion: an operator promoted Node by hand (REPLICAOF NO ONE)
	// and repointed the other replicas at it; the window is the operator's
	// work, Detail says whom it chose and why.
	ObsPromotion = "promotion"
	// ObsRejoin: an operator made Node a replica of the current primary
	// again (REPLICAOF host port) after it restarted.
	ObsRejoin = "rejoin"
	// ObsCatchUp: from a replica's restart or resume (StartMs) until its
	// last log sequence reached, on every shard, the primary's at that
	// moment (EndMs).
	ObsCatchUp = "catch-up"
	// ObsConvergence: after the final heal and settle, whether every node
	// came to hold the same data (RUVIO DIGEST) and the same last log
	// sequence on every shard, and when.
	ObsConvergence = "convergence"
	// ObsRecord: what the coordinators record for the group, polled by
	// the harness: Node is the primary they name, Epoch its epoch (the
	// highest any coordinator answered). The first is the run's start,
	// each later one with another primary or epoch a failover, and the
	// last (Type Info) the end of the watch.
	ObsRecord = "record"
	// ObsLeaseHeld and ObsLeaseEnded: a data node's primary lease as the
	// harness polls it (INFO replication every 50 ms). Held: the first
	// poll that found it primary with primary_lease_remaining_ms above
	// the node's 300 ms margin (StartMs = EndMs). Ended: the first poll
	// after that which did not (EndMs); StartMs is when the last holding
	// poll said the lease would stop writes (its time plus the remaining
	// ms less the margin, as if the node's lease clock ran at the real
	// rate).
	ObsLeaseHeld  = "lease-held"
	ObsLeaseEnded = "lease-ended"
	// ObsEvent: an event coordinator Node published on its Sentinel
	// channels (Detail is the channel, a space and the payload, such as
	// "+odown master main 10.0.0.2 6379 #quorum 2/2"), as the harness
	// received it (StartMs = EndMs).
	ObsEvent = "event"
	// ObsChangeResume: a change stream consumer subscribed again, on
	// Node, after its stream ended (Detail: the cursor it resumed from).
	ObsChangeResume = "change-resume"
	// ObsChangeRewound: the stream told the consumer on Node to undo what
	// it applied after a cursor (Detail: the cursor and how many adds it
	// undid).
	ObsChangeRewound = "change-rewound"
	// ObsChangeOrder: a change came again or out of order (Type Fail, a
	// violation; Detail says which).
	ObsChangeOrder = "change-order"
)

// Observation is something the harness measured on the nodes rather than
// through the workload's clients. Type is OK (it happened, at EndMs), Fail
// (it did not: a violation) or Info (undecided: cut short by the next
// fault or by the end of the run).
type Observation struct {
	Kind    string `json:"kind"`
	Node    string `json:"node,omitempty"`
	Type    string `json:"type"`
	StartMs int64  `json:"start_ms"`
	EndMs   int64  `json:"end_ms"`
	Detail  string `json:"detail,omitempty"`
	// Epoch is the recorded epoch of an ObsRecord.
	Epoch uint64 `json:"epoch,omitempty"`
}

// Observer is where the harness's watchers (the manual operator, the
// coordinators' and the lease's watches) write what they observed: the
// run's workload recorder.
type Observer interface {
	Observe(o Observation)
	SinceStartMs() int64
}

// Sample is one reading of a node's metric, scraped from its metrics
// listener during the run: Metric names what was read (e.g. "lag_records",
// the largest ruvio_replication_lag_records of the node's replicas).
type Sample struct {
	Node   string  `json:"node"`
	Metric string  `json:"metric"`
	TMs    int64   `json:"t_ms"`
	Value  float64 `json:"value"`
}

// Event is one line of history.jsonl: exactly one of its fields is set.
type Event struct {
	Op          *Op          `json:"op,omitempty"`
	Fault       *Fault       `json:"fault,omitempty"`
	Observation *Observation `json:"observation,omitempty"`
	Sample      *Sample      `json:"sample,omitempty"`
}

// History is a whole run's record.
type History struct {
	Ops          []Op
	Faults       []Fault
	Observations []Observation
	// Samples are the nodes' metrics read during the run, in time order
	// per node; none when the backend offers no metrics listener.
	Samples []Sample
}

// Write encodes h as JSON lines, ops in completion order, then faults,
// then observations, then samples.
func (h *History) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range h.Ops {
		if err := enc.Encode(Event{Op: &h.Ops[i]}); err != nil {
			return err
		}
	}
	for i := range h.Faults {
		if err := enc.Encode(Event{Fault: &h.Faults[i]}); err != nil {
			return err
		}
	}
	for i := range h.Observations {
		if err := enc.Encode(Event{Observation: &h.Observations[i]}); err != nil {
			return err
		}
	}
	for i := range h.Samples {
		if err := enc.Encode(Event{Sample: &h.Samples[i]}); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// File names of a run's history: the runner writes FileName, zstd
// compressed (a 20 s crash run's history is about 100 MB as plain JSON
// lines, a tenth of that or less compressed); PlainFileName is the form
// older runs wrote. ReadFile reads both.
const (
	FileName      = "history.jsonl.zst"
	PlainFileName = "history.jsonl"
)

// Find is the history file of a run folder: FileName, else
// PlainFileName; "" when it has neither.
func Find(dir string) string {
	for _, name := range []string{FileName, PlainFileName} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// WriteFile writes h to path, zstd compressed when path ends in .zst.
func (h *History) WriteFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	var w io.Writer = f
	var zw *zstd.Encoder
	if strings.HasSuffix(path, ".zst") {
		if zw, err = zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedBetterCompression)); err != nil {
			f.Close()
			return err
		}
		w = zw
	}
	if err := h.Write(w); err != nil {
		f.Close()
		return err
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// zstdMagic starts every zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// Read decodes a history written by Write.
func Read(r io.Reader) (*History, error) {
	h := &History{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("history line %d: %w", line, err)
		}
		switch {
		case e.Op != nil:
			h.Ops = append(h.Ops, *e.Op)
		case e.Fault != nil:
			h.Faults = append(h.Faults, *e.Fault)
		case e.Observation != nil:
			h.Observations = append(h.Observations, *e.Observation)
		case e.Sample != nil:
			h.Samples = append(h.Samples, *e.Sample)
		default:
			return nil, fmt.Errorf("history line %d: neither an op, a fault, an observation nor a sample", line)
		}
	}
	return h, sc.Err()
}

// ReadFile reads a history from path, plain or zstd compressed (told
// apart by the content, not the name).
func ReadFile(path string) (*History, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	if magic, err := br.Peek(len(zstdMagic)); err == nil && bytes.Equal(magic, zstdMagic) {
		zr, err := zstd.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer zr.Close()
		return Read(zr)
	}
	return Read(br)
}

// SortByInvoke orders ops by invocation time.
func (h *History) SortByInvoke() {
	sort.SliceStable(h.Ops, func(i, j int) bool { return h.Ops[i].T0 < h.Ops[j].T0 })
}
