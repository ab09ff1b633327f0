package leasewatch

import (
	"testing"

	"github.com/ruvio/ruvio/reports/history"
)

func TestParseInfo(t *testing.T) {
	text := "# Replication\r\nrole:master\r\nconnected_slaves:2\r\nprimary_lease:yes\r\nprimary_lease_grants:3\r\n" +
		"primary_lease_remaining_ms:1712\r\nmaster_replid:x\r\n"
	if got, want := ParseInfo(text, 40), (Poll{AtMs: 40, Primary: true, RemainingMs: 1712, Grants: 3}); got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if got := ParseInfo("role:slave\r\nprimary_lease_remaining_ms:0\r\n", 1); got.Primary || got.Holds() {
		t.Fatalf("a replica read as %+v", got)
	}
}

// A node's polls in order, and the observations they make: the lease
// holds once a majority's grants run past the 300 ms margin, ends when they
// no longer do or the node is no longer primary, with the instant the last
// holding poll said it would stop writes.
func TestStep(t *testing.T) {
	type want struct {
		kind       string
		start, end int64
	}
	tests := []struct {
		name  string
		polls []Poll
		want  []want
	}{
		{"lease off: nothing", []Poll{{AtMs: 0, Primary: true}, {AtMs: 50, Primary: true}}, nil},
		{"a replica's grants are not a lease", []Poll{{AtMs: 0, RemainingMs: 2000, Grants: 3}}, nil},
		{"granted, renewed, then run out", []Poll{
			{AtMs: 0, Primary: true},
			{AtMs: 50, Primary: true, RemainingMs: 1900, Grants: 3},
			{AtMs: 100, Primary: true, RemainingMs: 1850, Grants: 3},
			{AtMs: 1500, Primary: true, RemainingMs: 400, Grants: 3},
			{AtMs: 1550, Primary: true, RemainingMs: 300, Grants: 3},
		}, []want{{history.ObsLeaseHeld, 50, 50}, {history.ObsLeaseEnded, 1550, 1550}}},
		{"a gap (frozen) then ended: due from the last poll before it", []Poll{
			{AtMs: 0, Primary: true, RemainingMs: 2000, Grants: 2},
			{AtMs: 2900, Primary: true, RemainingMs: 0},
			{AtMs: 3400, Primary: true, RemainingMs: 1950, Grants: 3},
		}, []want{{history.ObsLeaseHeld, 0, 0}, {history.ObsLeaseEnded, 1700, 2900}, {history.ObsLeaseHeld, 3400, 3400}}},
		{"demoted while holding", []Poll{
			{AtMs: 0, Primary: true, RemainingMs: 2000, Grants: 3},
			{AtMs: 50, RemainingMs: 0},
		}, []want{{history.ObsLeaseHeld, 0, 0}, {history.ObsLeaseEnded, 50, 50}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var st State
			var got []want
			for _, p := range tc.polls {
				var o *history.Observation
				st, o = Step(st, "n1", p)
				if o != nil {
					if o.Node != "n1" || o.Type != history.OK || o.Detail == "" {
						t.Fatalf("observation %+v", o)
					}
					got = append(got, want{o.Kind, o.StartMs, o.EndMs})
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}
