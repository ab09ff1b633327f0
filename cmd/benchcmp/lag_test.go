package main

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(i + 1)
	}
	tests := []struct {
		name   string
		sorted []float64
		p      float64
		want   float64
	}{
		{"empty", nil, 50, 0},
		{"one value", []float64{7}, 99, 7},
		{"median of odd", []float64{1, 2, 3}, 50, 2},
		{"median of even is the lower", []float64{1, 2, 3, 4}, 50, 2},
		{"p99 of 100", hundred, 99, 99},
		{"p50 of 100", hundred, 50, 50},
		{"p100 is the max", hundred, 100, 100},
		// Fewer than 100 samples: p99 is the largest.
		{"p99 of 50 is the max", hundred[:50], 99, 50},
		{"tiny p is the min", []float64{3, 5}, 0.1, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentile(tt.sorted, tt.p); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	in := []float64{5, 1, 4, 2, 3}
	got := summarize(in)
	if want := (summary{N: 5, P50: 3, P99: 5, Max: 5}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if !reflect.DeepEqual(in, []float64{5, 1, 4, 2, 3}) {
		t.Errorf("summarize sorted its input: %v", in)
	}
	if got := summarize(nil); got != (summary{}) {
		t.Errorf("empty: got %+v", got)
	}
}

func TestActiveSamples(t *testing.T) {
	s := func(pairs ...int64) []posSample {
		var out []posSample
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, posSample{Primary: pairs[i], Replica: pairs[i+1]})
		}
		return out
	}
	tests := []struct {
		name string
		in   []posSample
		want []posSample
	}{
		{"none", nil, nil},
		{"one", s(5, 5), nil},
		{"never moved", s(5, 5, 5, 5, 5, 5), nil},
		{"idle head and tail trimmed", s(0, 0, 0, 0, 10, 2, 30, 25, 30, 30, 30, 30), s(10, 2, 30, 25)},
		{"moving throughout", s(1, 0, 2, 1, 3, 3), s(2, 1, 3, 3)},
		// A pause in the middle is part of the run.
		{"pause kept", s(0, 0, 5, 0, 5, 5, 9, 6), s(5, 0, 5, 5, 9, 6)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := activeSamples(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPositionLags(t *testing.T) {
	got := positionLags([]posSample{{10, 4}, {10, 10}, {10, 12}})
	if want := []float64{6, 0, 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v (a replica read ahead of the primary is not behind)", got, want)
	}
}

func TestBytesPerRecord(t *testing.T) {
	tests := []struct {
		offsetDelta, writes int64
		want                float64
	}{
		{4500, 100, 45},
		{4510, 100, 45.1},
		{0, 100, 0},
		{4500, 0, 0},
		{-1, 10, 0},
	}
	for _, tt := range tests {
		if got := bytesPerRecord(tt.offsetDelta, tt.writes); got != tt.want {
			t.Errorf("bytesPerRecord(%d, %d) = %v, want %v", tt.offsetDelta, tt.writes, got, tt.want)
		}
	}
}

func TestApproxRecords(t *testing.T) {
	pos := summary{N: 3, P50: 450, P99: 900, Max: 4500}
	got, ok := lagResult{Unit: "bytes", BytesPerRecord: 45, Position: pos}.approxRecords()
	if want := (summary{N: 3, P50: 10, P99: 20, Max: 100}); !ok || got != want {
		t.Errorf("got %+v, %v; want %+v", got, ok, want)
	}
	if _, ok := (lagResult{Unit: "records", Position: pos}).approxRecords(); ok {
		t.Error("records converted again")
	}
	if _, ok := (lagResult{Unit: "bytes", Position: pos}).approxRecords(); ok {
		t.Error("converted without a bytes-per-record figure")
	}
}

func TestLagRequests(t *testing.T) {
	runs := []runResult{
		{Role: roleRuvio, Pipeline: 1, Results: []measurement{{Test: "SET", RPS: 50000}, {Test: "GET", RPS: 60000}}},
		{Role: roleRedis, Pipeline: 1, Results: []measurement{{Test: "SET", RPS: 80000}}},
		{Role: roleRuvio, Pipeline: 16, Results: []measurement{{Test: "GET", RPS: 900000}, {Test: "SET", RPS: 400000}}},
		{Role: roleRedis, Pipeline: 16, Error: "boom"},
	}
	tests := []struct {
		name string
		role string
		p    int
		d    time.Duration
		want int
	}{
		{"sized from SET at the depth", roleRuvio, 16, 5 * time.Second, 2000000},
		{"other depth", roleRuvio, 1, 2 * time.Second, 100000},
		{"other side", roleRedis, 1, 500 * time.Millisecond, 40000},
		{"failed run falls back", roleRedis, 16, 5 * time.Second, 777},
		{"unmeasured depth falls back", roleRuvio, 4, 5 * time.Second, 777},
		{"at least one", roleRuvio, 1, time.Nanosecond, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lagRequests(runs, tt.role, tt.p, tt.d, 777); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

// A backlog within 1% of its size is full; any other gets enough SETs to
// fill it with records of minRecordBytes, and some more.
func TestTopUpSets(t *testing.T) {
	const size = 64 << 20
	tests := []struct {
		name       string
		used, size int64
		want       int
	}{
		{"empty", 0, size, size/minRecordBytes + 10000},
		{"three quarters", 3 * size / 4, size, size/4/minRecordBytes + 10000},
		{"just short of 1%", size - size/100 - 1, size, (size/100+1)/minRecordBytes + 10000},
		{"within 1%", size - size/100, size, 0},
		{"whole records short of the size", size - 30, size, 0},
		{"full", size, size, 0},
		{"past its size (Redis's histlen)", size + 1000, size, 0},
	}
	for _, tt := range tests {
		if got := topUpSets(tt.used, tt.size); got != tt.want {
			t.Errorf("%s: topUpSets(%d, %d) = %d, want %d", tt.name, tt.used, tt.size, got, tt.want)
		}
	}
}

// --lag-markers writes a header and a line per marker: the reply time in
// Unix ns and the delay in ms, the same delays the summary is taken over.
func TestMarkersTSV(t *testing.T) {
	at := time.Unix(1700000000, 123456789)
	marks := []marker{{Acked: at, Visible: 1500 * time.Microsecond}, {Acked: at.Add(20 * time.Millisecond), Visible: 12345678 * time.Nanosecond}}
	want := "acked_unix_ns\tvisible_ms\n1700000000123456789\t1.500\n1700000000143456789\t12.346\n"
	if got := string(markersTSV(marks)); got != want {
		t.Errorf("markersTSV = %q, want %q", got, want)
	}
	if got := visibleMs(marks); !slices.Equal(got, []float64{1.5, 12.345678}) {
		t.Errorf("visibleMs = %v", got)
	}
	if got := string(markersTSV(nil)); got != "acked_unix_ns\tvisible_ms\n" {
		t.Errorf("markersTSV(nil) = %q", got)
	}
}
