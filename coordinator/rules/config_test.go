package rules

import (
	"strings"
	"testing"
)

// The fit rule at its boundary with the defaults (ping 500, down_after
// 3000, drift 10): the stretched lease already holds 200 ms, and another
// 200 ms must fit, so 2127 is the largest lease allowed.
func TestLeaseProblems(t *testing.T) {
	const fit = "the stretched lease plus 200 ms must fit in down_after_ms"
	cases := []struct {
		name                                    string
		lease, ping, downAfter, drift, coordins int
		want                                    []string // substrings; nil: allowed
	}{
		{"off", 0, 500, 3000, 10, 300, nil},
		{"the documented 2000 with the defaults", 2000, 500, 3000, 10, 3, nil},
		{"the largest that fits", 2127, 500, 3000, 10, 3, nil},
		{"one more does not fit", 2128, 500, 3000, 10, 3, []string{"primary_lease_ms = 2128: " + fit + " (2801 ms + 200 ms = 3001 ms > 3000)"}},
		{"inside the range the single 200 ms let through", 2290, 500, 3000, 10, 3, []string{fit}},
		{"2000 needs 2845", 2000, 500, 2844, 10, 3, []string{"(2645 ms + 200 ms = 2845 ms > 2844)"}},
		{"2000 fits in 2845", 2000, 500, 2845, 10, 3, nil},
		{"no drift", 2600, 500, 3000, 0, 3, nil},
		{"below three pings", 1400, 500, 3000, 10, 3, []string{"at least three times ping_interval_ms (1500)"}},
		{"below ping + 500", 700, 210, 3000, 10, 3, []string{"at least ping_interval_ms + 500 (710)"}},
		{"too long", 60001, 500, 100000, 10, 3, []string{"at most 60000"}},
		{"too many coordinators for a lease", 2000, 500, 3000, 10, 256, []string{"at most 255 coordinators can grant a lease"}},
		{"255 can", 2000, 500, 3000, 10, 255, nil},
	}
	for _, c := range cases {
		got := LeaseProblems(c.lease, c.ping, c.downAfter, c.drift, c.coordins)
		if c.want == nil {
			if got != nil {
				t.Errorf("%s: refused: %v", c.name, got)
			}
			continue
		}
		all := strings.Join(got, "; ")
		for _, w := range c.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: %q missing from %q", c.name, w, all)
			}
		}
	}
}

// Ids compare as numbers: the same set is the same once ids reach 10.
func TestPeersDiffer(t *testing.T) {
	cases := []struct {
		rec, peers []int
		differ     bool
		r, p       string
	}{
		{[]int{1, 2, 3}, []int{3, 1, 2}, false, "1,2,3", "1,2,3"},
		{[]int{1, 2, 10}, []int{10, 2, 1}, false, "1,2,10", "1,2,10"},
		{[]int{2, 9, 10, 11}, []int{11, 10, 9, 2}, false, "2,9,10,11", "2,9,10,11"},
		{[]int{1, 2, 3}, []int{1, 2}, true, "1,2,3", "1,2"},
		{[]int{1, 2, 4}, []int{1, 2, 3}, true, "1,2,4", "1,2,3"},
	}
	for _, c := range cases {
		d, r, p := PeersDiffer(c.rec, c.peers)
		if d != c.differ || r != c.r || p != c.p {
			t.Errorf("PeersDiffer(%v, %v) = %v %q %q, want %v %q %q", c.rec, c.peers, d, r, p, c.differ, c.r, c.p)
		}
	}
}

func TestJoinRefusal(t *testing.T) {
	cases := []struct {
		status map[string]string
		want   string
	}{
		{map[string]string{"id": "4", "join": "1"}, ""},
		{map[string]string{"id": "4", "join": "0"}, "coordinator 4 at h:1 is not running with join = true: refused"},
		{map[string]string{"id": "4"}, "not running with join = true"},
		{map[string]string{"id": "2", "join": "1"}, "the coordinator at h:1 is coordinator 2, not 4"},
	}
	for _, c := range cases {
		err := JoinRefusal(c.status, 4, "h:1")
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%v: %v, want %q", c.status, err, c.want)
		}
	}
}
