package main

import (
	"bufio"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestAppendBatchIsTheCommandsARESPClientWouldSend(t *testing.T) {
	cmds := func(args ...[]string) string {
		var b strings.Builder
		for _, a := range args {
			b.Write(encodeCommand(a))
		}
		return b.String()
	}
	tests := []struct {
		name string
		mode durableMode
		k    int
		keys []int
		want string
	}{
		{"ruvio one SET", durableClient, 1, []int{7}, cmds([]string{"SET", "key:000000000007", "xxx"})},
		{"ruvio pipeline", durableClient, 2, []int{0, 99999}, cmds(
			[]string{"SET", "key:000000000000", "xxx"}, []string{"SET", "key:000000099999", "xxx"})},
		{"redis SET + WAIT", durableWait, 1, []int{42}, cmds(
			[]string{"SET", "key:000000000042", "xxx"}, []string{"WAIT", "1", "0"})},
		{"redis pipeline, one WAIT", durableWait, 2, []int{1, 2, 3}, cmds(
			[]string{"SET", "key:000000000001", "xxx"}, []string{"SET", "key:000000000002", "xxx"},
			[]string{"SET", "key:000000000003", "xxx"}, []string{"WAIT", "2", "0"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A used buffer is reused from its start, as driveConn does.
			got := appendBatch([]byte("stale")[:0], tt.mode, tt.k, tt.keys)
			if string(got) != tt.want {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestDurableModeSetupAndReplies(t *testing.T) {
	if got := durableClient.setupCommand(2); !reflect.DeepEqual(got, []string{"CLIENT", "DURABILITY", "REPLICAS", "2"}) {
		t.Errorf("ruvio setup %q", got)
	}
	if got := durableWait.setupCommand(2); got != nil {
		t.Errorf("redis setup %q, want none", got)
	}
	if durableClient.replies(32) != 32 || durableWait.replies(32) != 33 {
		t.Errorf("replies to 32 SETs: ruvio %d, redis %d; want 32, 33", durableClient.replies(32), durableWait.replies(32))
	}
	for _, tt := range []struct {
		mode        durableMode
		k, pipeline int
		want        string
	}{
		{durableClient, 1, 1, "CLIENT DURABILITY REPLICAS 1 once, then SET"},
		{durableClient, 2, 32, "CLIENT DURABILITY REPLICAS 2 once, then 32 x SET"},
		{durableWait, 1, 1, "SET + WAIT 1 0"},
		{durableWait, 2, 32, "32 x SET + WAIT 2 0"},
	} {
		if got := tt.mode.describe(tt.k, tt.pipeline); got != tt.want {
			t.Errorf("describe(%d, %d) = %q, want %q", tt.k, tt.pipeline, got, tt.want)
		}
	}
}

func TestReadBatchKeepsErrorRepliesAsReplies(t *testing.T) {
	in := "+OK\r\n-NOREPLICAS Not enough replicas\r\n:2\r\n"
	rs := make([]batchReply, 3)
	if err := readBatch(bufio.NewReader(strings.NewReader(in)), rs); err != nil {
		t.Fatal(err)
	}
	want := []batchReply{{reply: reply{Str: "OK"}}, {Err: "NOREPLICAS Not enough replicas"}, {reply: reply{Int: 2}}}
	if !reflect.DeepEqual(rs, want) {
		t.Errorf("got %+v, want %+v", rs, want)
	}
	// A connection closed before the last reply is an error.
	err := readBatch(bufio.NewReader(strings.NewReader("+OK\r\n")), make([]batchReply, 2))
	if !errors.Is(err, io.EOF) {
		t.Errorf("short batch: err = %v, want EOF", err)
	}
}

func TestTallyBatchCountsWhatWasAcknowledgedDurable(t *testing.T) {
	ok := batchReply{reply: reply{Str: "OK"}}
	noRepl := batchReply{Err: "NOREPLICAS Not enough replicas hold this connection's writes on disk within 5000 ms (CLIENT DURABILITY REPLICAS 1); the writes stay applied."}
	count := func(n int64) batchReply { return batchReply{reply: reply{Int: n}} }
	tests := []struct {
		name           string
		mode           durableMode
		k, pipeline    int
		rs             []batchReply
		acked, failed  int
		wantErrContain string
	}{
		{"ruvio acknowledged", durableClient, 1, 1, []batchReply{ok}, 1, 0, ""},
		{"ruvio batch partly NOREPLICAS", durableClient, 2, 3, []batchReply{ok, noRepl, noRepl}, 1, 2, ""},
		{"ruvio other error fails the run", durableClient, 1, 1, []batchReply{{Err: "READONLY You can't write against a read only replica."}}, 0, 0, "READONLY"},
		{"ruvio unexpected reply", durableClient, 1, 1, []batchReply{count(1)}, 0, 0, "want OK"},
		{"redis WAIT counts k", durableWait, 1, 1, []batchReply{ok, count(1)}, 1, 0, ""},
		{"redis WAIT counts more than k", durableWait, 1, 2, []batchReply{ok, ok, count(2)}, 2, 0, ""},
		{"redis WAIT short of k fails the batch", durableWait, 2, 2, []batchReply{ok, ok, count(1)}, 0, 2, ""},
		{"redis WAIT error", durableWait, 1, 1, []batchReply{ok, {Err: "ERR WAIT cannot be used with replica instances."}}, 0, 0, "WAIT: ERR"},
		{"redis SET error", durableWait, 1, 1, []batchReply{{Err: "OOM command not allowed"}, count(1)}, 0, 0, "SET: OOM"},
		{"too few replies", durableWait, 1, 2, []batchReply{ok, count(1)}, 0, 0, "2 replies"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, f, err := tallyBatch(tt.mode, tt.k, tt.pipeline, tt.rs)
			if tt.wantErrContain != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErrContain) {
					t.Errorf("err = %v, want one containing %q", err, tt.wantErrContain)
				}
				return
			}
			if err != nil || a != tt.acked || f != tt.failed {
				t.Errorf("got acked %d failed %d err %v, want %d, %d, nil", a, f, err, tt.acked, tt.failed)
			}
		})
	}
}

func TestDurableCellsMeasureEveryKUpToTheReplicaCount(t *testing.T) {
	got := durableCells("always", 2, []int{8, 50}, []int{1, 32})
	var want []durableCell
	for _, k := range []int{1, 2} {
		for _, c := range []int{8, 50} {
			for _, p := range []int{1, 32} {
				want = append(want, durableCell{Durability: "always", Replicas: 2, K: k, Clients: c, Pipeline: p})
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if got := durableCells("memory", 1, []int{8}, []int{1}); len(got) != 1 || got[0].K != 1 {
		t.Errorf("one replica: %+v, want only k=1", got)
	}
}

func TestTallyRunAddsUpTheConnections(t *testing.T) {
	base := durableResult{Elapsed: 2 * time.Second}
	got := tallyRun(base, []clientTally{
		{acked: 30, failed: 2, latencies: []float64{1, 2, 3}},
		{acked: 10, latencies: []float64{4}},
	})
	if got.Error != "" || got.Acked != 40 || got.Failed != 2 || got.OpsPerSec != 20 {
		t.Errorf("got %+v, want 40 acked, 2 failed, 20 ops/s", got)
	}
	if want := (summary{N: 4, P50: 2, P99: 4, Max: 4}); got.Latency != want {
		t.Errorf("latency %+v, want %+v", got.Latency, want)
	}

	got = tallyRun(base, []clientTally{{acked: 5}, {err: errors.New("read tcp: i/o timeout")}})
	if !strings.Contains(got.Error, "i/o timeout") || got.OpsPerSec != 0 {
		t.Errorf("a failed connection: %+v, want the run failed", got)
	}
}
