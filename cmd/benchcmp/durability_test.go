package main

import (
	"reflect"
	"testing"
)

func TestParseDurabilities(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{"memory,always,everysec", []string{"memory", "always", "everysec"}, false},
		{" Always , memory ", []string{"always", "memory"}, false},
		{"everysec,everysec,,memory,", []string{"everysec", "memory"}, false},
		{"", nil, true},
		{",", nil, true},
		{"snapshot", nil, true},
		{"memory,no", nil, true},
	}
	for _, tt := range tests {
		got, err := parseDurabilities(tt.in)
		if (err != nil) != tt.wantErr || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseDurabilities(%q) = %v, %v; want %v, err=%v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestPlanProfiles(t *testing.T) {
	got := planProfiles([]string{"always", "memory", "everysec"}, []int{1, 2}, []int{1})
	want := []profilePlan{
		{Durability: "always", Shards: []int{1}},
		{Durability: "memory", Shards: []int{1, 2}},
		{Durability: "everysec", Shards: []int{1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if got := planProfiles(nil, []int{1}, []int{1}); len(got) != 0 {
		t.Errorf("no profiles gave %+v", got)
	}
}

// TestServerArgs pins the command lines of both sides for every profile:
// the comparison is only fair if they promise the same durability.
func TestServerArgs(t *testing.T) {
	tests := []struct {
		durability string
		ruvio      []string
		redis      []string
	}{
		{
			durabilityMemory,
			[]string{"server", "--port", "7300", "--shards", "2", "--bind", "127.0.0.1", "--durability", "memory", "--data-dir", "/d"},
			[]string{"--port", "7300", "--bind", "127.0.0.1", "--dir", "/d", "--appendonly", "no", "--save", ""},
		},
		{
			durabilityAlways,
			[]string{"server", "--port", "7300", "--shards", "2", "--bind", "127.0.0.1", "--durability", "always", "--data-dir", "/d"},
			[]string{"--port", "7300", "--bind", "127.0.0.1", "--dir", "/d", "--appendonly", "yes", "--appendfsync", "always", "--save", ""},
		},
		{
			durabilityEverysec,
			[]string{"server", "--port", "7300", "--shards", "2", "--bind", "127.0.0.1", "--durability", "everysec", "--data-dir", "/d"},
			[]string{"--port", "7300", "--bind", "127.0.0.1", "--dir", "/d", "--appendonly", "yes", "--appendfsync", "everysec", "--save", ""},
		},
	}
	for _, tt := range tests {
		if got := ruvioKind("/bin/ruvio").Args(7300, 2, tt.durability, "/d"); !reflect.DeepEqual(got, tt.ruvio) {
			t.Errorf("ruvio %s:\n got %q\nwant %q", tt.durability, got, tt.ruvio)
		}
		if got := redisKind("/bin/redis-server").Args(7300, 2, tt.durability, "/d"); !reflect.DeepEqual(got, tt.redis) {
			t.Errorf("redis %s:\n got %q\nwant %q", tt.durability, got, tt.redis)
		}
	}
}

// TestReplicationArgs pins how each kind becomes a primary or a replica:
// ruvio by flag and environment with a listener of its own, redis-server by
// --replicaof to the primary's client port.
func TestReplicationArgs(t *testing.T) {
	tests := []struct {
		name     string
		kind     serverKind
		node     replNode
		wantArgs []string
		wantEnv  []string
	}{
		{"ruvio primary", ruvioKind("/bin/ruvio"), replNode{Role: nodePrimary, Listen: 27301},
			[]string{"--replication-role", "primary"},
			[]string{"RUVIO_REPLICATION_LISTEN=127.0.0.1:27301"}},
		{"ruvio replica", ruvioKind("/bin/ruvio"), replNode{Role: nodeReplica, Listen: 27303, Primary: "127.0.0.1:27301"},
			nil,
			[]string{"RUVIO_REPLICATION_LISTEN=127.0.0.1:27303", "RUVIO_REPLICATION_ROLE=replica", "RUVIO_REPLICATION_PRIMARY=127.0.0.1:27301"}},
		{"redis primary", redisKind("/bin/redis-server"), replNode{Role: nodePrimary},
			[]string{"--repl-diskless-sync-delay", "0"}, nil},
		{"redis replica", redisKind("/bin/redis-server"), replNode{Role: nodeReplica, Primary: "127.0.0.1:7300"},
			[]string{"--replicaof", "127.0.0.1", "7300"}, nil},
	}
	for _, tt := range tests {
		args, env := tt.kind.Replication(tt.node)
		if !reflect.DeepEqual(args, tt.wantArgs) || !reflect.DeepEqual(env, tt.wantEnv) {
			t.Errorf("%s:\n got %q %q\nwant %q %q", tt.name, args, env, tt.wantArgs, tt.wantEnv)
		}
	}
	if w := ruvioKind("r").ReplWidth(3); w != 3 {
		t.Errorf("ruvio with 3 shards needs %d replication ports, want 3", w)
	}
	if w := redisKind("r").ReplWidth(1); w != 0 {
		t.Errorf("redis needs %d replication ports, want 0", w)
	}
}
