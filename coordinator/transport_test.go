package coordinator

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// A coordinator added with COORDINATOR ADD that this coordinator's peers
// does not list is dialled at its recorded address, so Raft has no
// fallback to warn about; peers still wins for the ones it lists.
func TestRaftDialsCoordinatorsMissingFromPeersAtTheRecordedAddress(t *testing.T) {
	c := &Coordinator{peers: []Peer{{ID: 1, Addr: "one:1"}, {ID: 2, Addr: "two-via-nat:2"}}}
	c.noteRecorded([]coordinatorInfo{{ID: 2, Addr: "two:2"}, {ID: 4, Addr: "four:4"}})
	p := c.peerAddrs()
	for id, want := range map[raft.ServerID]raft.ServerAddress{"1": "one:1", "2": "two-via-nat:2", "4": "four:4"} {
		if got, err := p.ServerAddr(id); err != nil || got != want {
			t.Errorf("coordinator %s: %q %v, want %q", id, got, err, want)
		}
	}
	if _, err := p.ServerAddr("9"); err == nil {
		t.Error("an unknown coordinator has no address")
	}
}

// A Raft line that repeats is logged once a minute, with the count left
// out; another line is logged at once.
func TestRepeatedRaftLinesAreRateLimited(t *testing.T) {
	var out bytes.Buffer
	w := newSlogWriter(slog.New(slog.NewTextHandler(&out, nil)))
	now := time.Unix(100, 0)
	w.now = func() time.Time { return now }
	line := []byte("[WARN]  raft: failed to appendEntries to: peer=4 error=\"dial tcp: connection refused\"\n")
	for range 100 {
		w.Write(line)
		now = now.Add(100 * time.Millisecond)
	}
	w.Write([]byte("[WARN]  raft: something else\n"))
	if n := strings.Count(out.String(), "failed to appendEntries"); n != 1 {
		t.Fatalf("logged %d times within a minute:\n%s", n, out.String())
	}
	now = now.Add(time.Minute)
	w.Write(line)
	if !strings.Contains(out.String(), "repeated=99") || !strings.Contains(out.String(), "something else") {
		t.Fatalf("after a minute:\n%s", out.String())
	}
}
