package main

import (
	"slices"
	"testing"
	"time"
)

func TestMedianRunTakesEachTestsMedianRound(t *testing.T) {
	rounds := []runResult{
		{Role: roleRuvio, Pipeline: 16, Elapsed: time.Second, Results: []measurement{
			{Test: "SET", RPS: 300, ServerCPU: new(int64(3))}, {Test: "GET", RPS: 900, ServerCPU: new(int64(9))}}},
		{Role: roleRuvio, Pipeline: 16, Elapsed: 2 * time.Second, Results: []measurement{
			{Test: "SET", RPS: 100, ServerCPU: new(int64(1))}, {Test: "GET", RPS: 700, ServerCPU: new(int64(7))}}},
		{Role: roleRuvio, Pipeline: 16, Elapsed: 3 * time.Second, Results: []measurement{
			{Test: "SET", RPS: 200, ServerCPU: new(int64(2))}, {Test: "GET", RPS: 800, ServerCPU: new(int64(8))}}},
	}
	got := medianRun(rounds)
	if got.Rounds != 3 || got.Elapsed != 6*time.Second || got.Role != roleRuvio || got.Pipeline != 16 {
		t.Fatalf("folded run %+v", got)
	}
	want := []struct {
		test   string
		rps    float64
		cpu    int64
		rounds []float64
	}{
		{"SET", 200, 2, []float64{300, 100, 200}},
		{"GET", 800, 8, []float64{900, 700, 800}},
	}
	if len(got.Results) != len(want) {
		t.Fatalf("results %+v", got.Results)
	}
	for i, w := range want {
		m := got.Results[i]
		if m.Test != w.test || m.RPS != w.rps || *m.ServerCPU != w.cpu || !slices.Equal(m.RoundsRPS, w.rounds) {
			t.Errorf("%s: got rps %v cpu %v rounds %v, want %v %v %v", w.test, m.RPS, *m.ServerCPU, m.RoundsRPS, w.rps, w.cpu, w.rounds)
		}
	}
	if rounds[0].Results[0].RoundsRPS != nil {
		t.Error("folding wrote into the first round's measurements")
	}
}

func TestMedianRunOfTwoRoundsIsTheLowerAndOfOneIsItself(t *testing.T) {
	two := []runResult{
		{Results: []measurement{{Test: "SET", RPS: 500}}},
		{Results: []measurement{{Test: "SET", RPS: 400}}, Error: "second round failed"},
	}
	got := medianRun(two)
	if got.Results[0].RPS != 400 || got.Error != "second round failed" {
		t.Errorf("two rounds folded to %+v", got)
	}
	one := []runResult{{Results: []measurement{{Test: "SET", RPS: 500}}}}
	if got := medianRun(one); got.Rounds != 0 || got.Results[0].RoundsRPS != nil {
		t.Errorf("one round folded to %+v", got)
	}
}
