package operator

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// infoText is a shard's INFO replication as the data node writes it.
const infoText = "# Replication\r\nrole:slave\r\nmaster_host:127.0.0.2\r\nmaster_port:27001\r\n" +
	"master_link_status:up\r\nfull_copies:0\r\nconnected_slaves:0\r\nreplication_fenced_by_epoch:0\r\n" +
	"wal_first_sequence:1\r\nepoch:2\r\nwal_last_sequence:41\r\nwal_durable_sequence:40\r\n" +
	"replication_committed_sequence:0\r\n"

func TestParseInfo(t *testing.T) {
	tests := []struct {
		name string
		text string
		want ShardInfo
		err  string
	}{
		{"replica", infoText, ShardInfo{Role: "slave", Epoch: 2, Last: 41, Durable: 40, LinkUp: true}, ""},
		{"primary", "role:master\nepoch:1\nwal_last_sequence:7\nwal_durable_sequence:7\n",
			ShardInfo{Role: "master", Epoch: 1, Last: 7, Durable: 7}, ""},
		{"link down", strings.Replace(infoText, "master_link_status:up", "master_link_status:down", 1),
			ShardInfo{Role: "slave", Epoch: 2, Last: 41, Durable: 40}, ""},
		{"a node without sequences", "role:master\nconnected_slaves:0\n", ShardInfo{}, "epoch, wal_last_sequence, wal_durable_sequence"},
		{"garbage", "role:master\nepoch:x\nwal_last_sequence:1\nwal_durable_sequence:1\n", ShardInfo{}, "epoch (not a number: x)"},
		{"no role", "epoch:1\nwal_last_sequence:1\nwal_durable_sequence:1\n", ShardInfo{}, "role"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseInfo(tc.text)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one naming %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestChoosePromotion(t *testing.T) {
	down := errors.New("connection refused")
	tests := []struct {
		name  string
		cands []Candidate
		want  string
		err   string
	}{
		{"the most durable", []Candidate{{"n2", 100, nil}, {"n3", 120, nil}}, "n3", ""},
		{"a tie goes to the first", []Candidate{{"n2", 120, nil}, {"n3", 120, nil}}, "n2", ""},
		{"an unreadable replica is never chosen", []Candidate{{"n2", 500, down}, {"n3", 1, nil}}, "n3", ""},
		{"nobody answers", []Candidate{{"n2", 0, down}, {"n3", 0, down}}, "", "n2: connection refused; n3: connection refused"},
		{"no replica", nil, "", "no replica to promote"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ChoosePromotion(tc.cands)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if SumDurable([]ShardInfo{{Durable: 40}, {Durable: 2}}) != 42 {
		t.Error("SumDurable does not add the shards")
	}
}

func TestCaughtUp(t *testing.T) {
	target := []Pos{{1, 100}, {1, 200}}
	tests := []struct {
		name string
		got  []Pos
		want bool
	}{
		{"exactly there", []Pos{{1, 100}, {1, 200}}, true},
		{"past it (the load went on)", []Pos{{1, 130}, {1, 260}}, true},
		{"one shard behind", []Pos{{1, 100}, {1, 199}}, false},
		{"a rejoining node's tail of an older epoch does not count", []Pos{{0, 150}, {1, 250}}, false},
		{"a shard missing", []Pos{{1, 100}}, false},
		{"nothing read", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := CaughtUp(target, tc.got); got != tc.want {
				t.Fatalf("CaughtUp = %v, want %v", got, tc.want)
			}
		})
	}
	if CaughtUp(nil, nil) {
		t.Error("an empty target is never reached")
	}
}

func TestDifferences(t *testing.T) {
	same := func(node string) NodeState {
		return NodeState{Node: node, Digest: "ab", Shards: []Pos{{2, 10}, {2, 20}}}
	}
	with := func(s NodeState, f func(*NodeState)) NodeState { f(&s); return s }
	tests := []struct {
		name   string
		states []NodeState
		want   []string
	}{
		{"converged", []NodeState{same("n1"), same("n2"), same("n3")}, nil},
		{"one digest differs", []NodeState{same("n1"), with(same("n2"), func(s *NodeState) { s.Digest = "cd" }), same("n3")},
			[]string{"RUVIO DIGEST differs: n1 n3 at ab; n2 at cd"}},
		{"one shard behind", []NodeState{same("n1"), with(same("n2"), func(s *NodeState) { s.Shards[1].Last = 19 })},
			[]string{"shard 1's last record differs: n1 at epoch 2 sequence 20; n2 at epoch 2 sequence 19"}},
		{"a node unreadable", []NodeState{same("n1"), {Node: "n2", Err: errors.New("refused")}, same("n3")},
			[]string{"n2 could not be read: refused"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Differences(tc.states); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Differences = %q, want %q", got, tc.want)
			}
		})
	}
}
