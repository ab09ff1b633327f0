package coordinators

import "testing"

func TestParseMoveStatus(t *testing.T) {
	text := "# Coordinator\r\nstate:leader\r\nterm:3\r\nmove:failed\r\nmove_id:11\r\nmove_range:0-99 a/0 -> b/1\r\n" +
		"move_starts:3\r\nmove_error:a group failed over during start 3\r\nrebalance:running\r\nrebalance_moves:2\r\n"
	m := parseMoveStatus(text)
	want := moveStatus{leader: true, id: "11", state: "failed", rng: "0-99 a/0 -> b/1", starts: "3",
		error: "a group failed over during start 3", rebalance: "running", rebalanceMoves: "2"}
	if m != want {
		t.Fatalf("parsed %+v, want %+v", m, want)
	}
	if got := m.detail(); got != "0-99 a/0 -> b/1: failed, move_starts 3, move_error a group failed over during start 3" {
		t.Errorf("detail %q", got)
	}
	for state, want := range map[string]bool{"committed": true, "failed": true, "cancelled": true, "running": false, "none": false, "": false} {
		if ended(state) != want {
			t.Errorf("ended(%q) = %v", state, !want)
		}
	}
	if moveType("committed") != "ok" || moveType("cancelled") != "fail" {
		t.Error("a move's type: committed is ok, anything else fail")
	}
}
