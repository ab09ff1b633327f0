package rules

import (
	"slices"
	"testing"
	"time"
)

func TestSettled(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	st := map[string]Status{
		"never-sent:1":     {OK: true, Asked: at(0)},
		"asked-before:1":   {OK: true, Asked: at(100)},
		"asked-same:1":     {OK: true, Asked: at(200)},
		"asked-after:1":    {OK: true, Asked: at(301)},
		"never-answered:1": {},
	}
	sent := map[string]time.Time{
		"asked-before:1":   at(150),
		"asked-same:1":     at(200),
		"asked-after:1":    at(300),
		"never-answered:1": at(50),
		"not-in-st:1":      at(10),
	}
	got := Settled(st, sent)
	var kept []string
	for addr := range got {
		kept = append(kept, addr)
	}
	slices.Sort(kept)
	if want := []string{"asked-after:1", "never-sent:1"}; !slices.Equal(kept, want) {
		t.Fatalf("Settled kept %v, want %v", kept, want)
	}
	if len(Settled(st, nil)) != len(st) {
		t.Fatal("with nothing sent, every status stays")
	}
}

// A member demoted by a correction is not demoted again from the ping
// that showed it a primary, only from one sent after the REPLICAOF.
func TestACorrectionIsNotRepeatedFromAnOlderPing(t *testing.T) {
	t0 := time.Unix(1000, 0)
	rec := Record{Primary: "p:1", Members: []Member{{Address: "p:1", Replication: "p:2"}, {Address: "r:1", Replication: "r:2"}}}
	asPrimary := Status{OK: true, Asked: t0, Shards: []ShardStatus{{Role: "master"}}}
	st := map[string]Status{"p:1": {OK: true, Asked: t0, Shards: []ShardStatus{{Role: "master"}}}, "r:1": asPrimary}
	first := Corrections(rec, Settled(st, nil))
	if len(first) != 1 || first[0].Member.Address != "r:1" || !first[0].Demote {
		t.Fatalf("first round: %+v", first)
	}
	sent := map[string]time.Time{"r:1": t0.Add(10 * time.Millisecond)}
	if again := Corrections(rec, Settled(st, sent)); len(again) != 0 {
		t.Fatalf("from the ping before the command: %+v", again)
	}
	st["r:1"] = Status{OK: true, Asked: t0.Add(20 * time.Millisecond), Shards: []ShardStatus{{Role: "master"}}}
	if later := Corrections(rec, Settled(st, sent)); len(later) != 1 {
		t.Fatalf("a later ping still showing a primary must be corrected again: %+v", later)
	}
}
