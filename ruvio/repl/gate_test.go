package repl

import "testing"

// A replica is good while its last
// acknowledgement is at most min-replicas-max-lag old, to the millisecond.
func TestGoodReplicasAndRefusal(t *testing.T) {
	now := int64(100_000)
	cases := []struct {
		name   string
		acks   []int64
		lag    int
		min    int
		good   int
		refuse bool
	}{
		{"no replicas, gate off", nil, 10, 0, 0, false},
		{"no replicas, one needed", nil, 10, 1, 0, true},
		{"fresh ack", []int64{now - 50}, 10, 1, 1, false},
		{"exactly max lag old", []int64{now - 10_000}, 10, 1, 1, false},
		{"one ms past max lag", []int64{now - 10_001}, 10, 1, 0, true},
		{"lag 0 needs an ack this very ms", []int64{now, now - 1}, 0, 2, 1, true},
		{"two of three good, two needed", []int64{now - 100, now - 2_000, now - 20_000}, 10, 2, 2, false},
		{"two of three good, three needed", []int64{now - 100, now - 2_000, now - 20_000}, 10, 3, 2, true},
	}
	for _, c := range cases {
		good := GoodReplicas(c.acks, now, c.lag)
		if good != c.good || RefuseWrites(c.min, good) != c.refuse {
			t.Errorf("%s: good %d refuse %v, want %d %v", c.name, good, RefuseWrites(c.min, good), c.good, c.refuse)
		}
	}
}

// A replica stops counting one millisecond after its acknowledgement is
// max-lag old; the earliest such instant still ahead is the next check.
func TestNextExpiry(t *testing.T) {
	now := int64(100_000)
	cases := []struct {
		acks []int64
		want int64
	}{
		{nil, 0},
		{[]int64{now - 500, now - 200}, now + 501},
		{[]int64{now - 1001}, 0},       // already counted out
		{[]int64{now - 1000}, now + 1}, // still good now, out in 1 ms
		{[]int64{now - 2000, now}, now + 1001},
	}
	for _, c := range cases {
		if got := NextExpiry(c.acks, now, 1); got != c.want {
			t.Errorf("NextExpiry(%v) = %d, want %d", c.acks, got, c.want)
		}
	}
}

// The gates refuse in one order: LOADING for any command not allowed
// while loading, then for writes READONLY (replica, then replaced
// primary, then a primary that lost records a replica holds), the expired
// lease, and NOREPLICAS last.
func TestRefusalOrder(t *testing.T) {
	fenced := "READONLY This primary was replaced: a replica follows epoch 7. It takes no more writes."
	all := Gates{Write: true, Loading: true, Replica: true, FencedBy: 7, LeaseExpired: true, TooFewReplicas: true}
	cases := []struct {
		name string
		g    Gates
		want string
	}{
		{"nothing closed", Gates{Write: true}, ""},
		{"a read on a replica", Gates{Replica: true, FencedBy: 7, LeaseExpired: true, TooFewReplicas: true}, ""},
		{"a read while loading", Gates{Loading: true}, ErrLoading},
		{"a command allowed while loading", Gates{Loading: true, RunsWhileLoading: true}, ""},
		{"everything closed", all, ErrLoading},
		{"a write allowed while loading on a replica", Gates{Write: true, RunsWhileLoading: true, Loading: true, Replica: true, FencedBy: 7, LeaseExpired: true}, ErrReadOnly},
		{"replica before replaced", Gates{Write: true, Replica: true, FencedBy: 7, LeaseExpired: true, TooFewReplicas: true}, ErrReadOnly},
		{"replaced before the lease", Gates{Write: true, FencedBy: 7, LeaseExpired: true, TooFewReplicas: true}, fenced},
		{"replaced before lost records", Gates{Write: true, FencedBy: 7, LostRecords: 3, LeaseExpired: true}, fenced},
		{"lost records before the lease", Gates{Write: true, LostRecords: 3, LeaseExpired: true, TooFewReplicas: true},
			"READONLY This primary restarted without 3 records a replica holds. It takes no more writes: promote that replica, or send REPLICAOF NO ONE here to go on without them."},
		{"a read on a primary that lost records", Gates{Read: true, LostRecords: 3},
			"MASTERDOWN This primary restarted without 3 records a replica holds. It serves no reads: promote that replica, or send REPLICAOF NO ONE here to go on without them."},
		{"a command that reads no key on a primary that lost records", Gates{LostRecords: 3}, ""},
		{"loading before lost records", Gates{Read: true, Loading: true, LostRecords: 3}, ErrLoading},
		{"lease before replicas", Gates{Write: true, LeaseExpired: true, TooFewReplicas: true}, ErrLeaseExpired},
		{"too few replicas", Gates{Write: true, TooFewReplicas: true}, ErrNoReplicas},
		{"a read with too few replicas", Gates{TooFewReplicas: true}, ""},
	}
	for _, c := range cases {
		if got := Refusal(c.g); got != c.want {
			t.Errorf("%s: Refusal(%+v) = %q, want %q", c.name, c.g, got, c.want)
		}
	}
}
