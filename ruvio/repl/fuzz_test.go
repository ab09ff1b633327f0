package repl

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/wal"
)

// FuzzDecoder: whatever a primary (or something posing as one) sends, the
// replica's decoder returns messages or an error, never panics, and never
// holds a buffer much larger than the bytes that arrived.
func FuzzDecoder(f *testing.F) {
	var stream []byte
	stream = AppendHeartbeat(stream, Heartbeat{Epoch: 2, Last: 10, Committed: 9})
	for i := uint64(1); i <= 3; i++ {
		b, err := AppendRecord(nil, wal.Record{Seq: i, Epoch: 2, Ops: [][][]byte{{[]byte("SET"), []byte("k"), []byte("v")}}})
		if err != nil {
			f.Fatal(err)
		}
		stream = append(stream, b...)
	}
	f.Add(stream)
	f.Add(stream[:len(stream)-4])
	f.Add([]byte{MsgRecord, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0})
	f.Add([]byte("X"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(bufio.NewReader(bytes.NewReader(data)))
		for range 10000 {
			if _, err := d.Next(); err != nil {
				break
			}
		}
	})
}

// FuzzHandshake: the primary parses a replica's RSYNC arguments and the
// replica parses the primary's reply line; bad input is an error, never a
// panic, and what parses encodes back to something that parses the same.
func FuzzHandshake(f *testing.F) {
	f.Add("RSYNC 2 0 1 0 id 127.0.0.1:6379 41 3 1 1 0 3 17 5 9 40 18446744073709551615", "+CONTINUE 12 3")
	f.Add("RSYNC 2 2 4 1 r :7000 0 0", "+FULL 99 4096 2")
	f.Add("RSYNC x", "-ERR FENCED it was replaced")
	f.Add("", "+CONTINUE 1 -2")
	f.Fuzz(func(t *testing.T, rsync, reply string) {
		var args [][]byte
		for _, a := range strings.Fields(rsync) {
			args = append(args, []byte(a))
		}
		if h, err := ParseRSync(args); err == nil {
			var again [][]byte
			for _, a := range RSyncArgs(h) {
				again = append(again, []byte(a))
			}
			if h2, err := ParseRSync(again); err != nil || h2.Proto != h.Proto || h2.Shard != h.Shard || len(h2.Replica.History) != len(h.Replica.History) {
				t.Fatalf("RSYNC %q parsed to %+v, which re-encodes to %+v, %v", rsync, h, h2, err)
			}
		}
		if r, err := ParseReply(reply); err == nil {
			if r2, err := ParseReply(r.Line()); err != nil || r2 != r {
				t.Fatalf("reply %q parsed to %+v, which re-encodes to %+v, %v", reply, r, r2, err)
			}
		}
	})
}
