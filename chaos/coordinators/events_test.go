package coordinators

import "testing"

// The events a Set records are those naming its group, in every payload
// shape Sentinel uses.
func TestNamesGroup(t *testing.T) {
	for _, tc := range []struct {
		payload string
		want    bool
	}{
		{"master main 10.0.0.2 6379", true},
		{"master other 10.0.0.2 6379", false},
		{"master main 10.0.0.2 6379 #quorum 2/2", true},
		{"main 10.0.0.2 6379 10.0.0.3 6379", true},
		{"other 10.0.0.2 6379 10.0.0.3 6379", false},
		{"slave 10.0.0.3:6379 10.0.0.3 6379 @ main 10.0.0.2 6379", true},
		{"slave 10.0.0.3:6379 10.0.0.3 6379 @ other 10.0.0.2 6379", false},
		{"sentinel 3f2a 10.0.0.9 26379 @ main 10.0.0.2 6379", true},
		{"7", false},
		{"", false},
	} {
		if got := namesGroup(tc.payload, "main"); got != tc.want {
			t.Errorf("namesGroup(%q, main) = %v, want %v", tc.payload, got, tc.want)
		}
	}
}
