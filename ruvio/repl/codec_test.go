package repl

import (
	"bufio"
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/ruvio/wal"
)

func toBytes(args []string) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = []byte(a)
	}
	return out
}

func TestHandshakeAndRepliesRoundTrip(t *testing.T) {
	handshakes := []Handshake{
		{Proto: 2, Shard: 0, Shards: 1, RunID: "id", Announce: "127.0.0.1:6379"},
		{Proto: 2, Shard: 2, Shards: 4, Yield: true, RunID: "r", Announce: ":7000",
			Replica: Replica{Last: 41, History: []EpochStart{{1, 1, 0}, {3, 17, 1 << 63}, {9, 40, 12}}}},
	}
	for _, h := range handshakes {
		got, err := ParseRSync(toBytes(RSyncArgs(h)))
		if err != nil || !reflect.DeepEqual(got, h) {
			t.Errorf("RSYNC of %+v came back as %+v, %v", h, got, err)
		}
	}
	for _, bad := range [][]string{{"RSYNC"}, {"RSYNC", "2", "0", "1", "0", "id", "a", "0", "1", "1", "1"}, {"RSYNC", "2", "0", "1", "0", "id", "a", "0", "1", "1", "1", "x"}, {"RSYNC", "x", "0", "1", "0", "id", "a", "0", "0"}} {
		if _, err := ParseRSync(toBytes(bad)); err == nil {
			t.Errorf("ParseRSync(%q) took it", bad)
		}
	}
	replies := []struct {
		r    Reply
		line string
	}{
		{Reply{Continue: true, From: 12, Epoch: 3}, "+CONTINUE 12 3"},
		{Reply{Seq: 99, Size: 4096, Epoch: 2}, "+FULL 99 4096 2"},
		{Reply{Err: "ERR FENCED it was replaced"}, "-ERR FENCED it was replaced"},
	}
	for _, c := range replies {
		if got := c.r.Line(); got != c.line {
			t.Errorf("Line(%+v) = %q, want %q", c.r, got, c.line)
		}
		if got, err := ParseReply(c.line); err != nil || got != c.r {
			t.Errorf("ParseReply(%q) = %+v, %v", c.line, got, err)
		}
	}
	for _, bad := range []string{"+OK", "+CONTINUE 1", "+FULL a 1 1", "+CONTINUE 1 -2"} {
		if _, err := ParseReply(bad); err == nil {
			t.Errorf("ParseReply(%q) took it", bad)
		}
	}
	if v, ok := ParseAck(toBytes(AckArgs(77))); !ok || v != 77 {
		t.Errorf("ack came back as %d %v", v, ok)
	}
}

// Property: whatever the handshake, reply, heartbeats and records, each
// decodes to what was encoded, and a stream of messages decodes in order.
func TestCodecRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 6).Draw(t, "epochs")
		h := Handshake{
			Proto: rapid.IntRange(0, 1000).Draw(t, "proto"), Shard: rapid.IntRange(0, 64).Draw(t, "shard"),
			Shards: rapid.IntRange(0, 64).Draw(t, "shards"), Yield: rapid.Bool().Draw(t, "yield"),
			RunID: rapid.StringMatching(`[0-9a-f]{0,40}`).Draw(t, "run"), Announce: rapid.StringMatching(`[0-9.]{1,15}:[0-9]{1,5}`).Draw(t, "announce"),
			Replica: Replica{Last: rapid.Uint64().Draw(t, "last")},
		}
		for i := 0; i < n; i++ {
			h.Replica.History = append(h.Replica.History, EpochStart{rapid.Uint64().Draw(t, "e"), rapid.Uint64().Draw(t, "f"), rapid.Uint64().Draw(t, "id")})
		}
		if got, err := ParseRSync(toBytes(RSyncArgs(h))); err != nil || !reflect.DeepEqual(got, h) {
			t.Fatalf("handshake %+v came back as %+v, %v", h, got, err)
		}
		r := Reply{Epoch: rapid.Uint64().Draw(t, "epoch")}
		switch rapid.IntRange(0, 2).Draw(t, "kind") {
		case 0:
			r.Continue, r.From = true, rapid.Uint64().Draw(t, "from")
		case 1:
			r.Seq, r.Size = rapid.Uint64().Draw(t, "seq"), rapid.Int64Range(0, 1<<62).Draw(t, "size")
		default:
			r = Reply{Err: "ERR " + rapid.StringMatching(`[a-z ]{0,20}`).Draw(t, "msg")}
		}
		if got, err := ParseReply(r.Line()); err != nil || got != r {
			t.Fatalf("reply %+v came back as %+v, %v", r, got, err)
		}

		var want []Message
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		for i, m := 0, rapid.IntRange(0, 20).Draw(t, "messages"); i < m; i++ {
			if rapid.Bool().Draw(t, "heartbeat") {
				hb := Heartbeat{rapid.Uint64().Draw(t, "hb.epoch"), rapid.Uint64().Draw(t, "hb.last"), rapid.Uint64().Draw(t, "hb.committed")}
				w.Write(AppendHeartbeat(nil, hb))
				want = append(want, Message{Kind: MsgHeartbeat, Heartbeat: hb})
				continue
			}
			rec := wal.Record{Seq: rapid.Uint64Range(1, 1<<40).Draw(t, "seq"), Epoch: rapid.Uint64Range(1, 1<<20).Draw(t, "epoch")}
			for j, k := 0, rapid.IntRange(0, 3).Draw(t, "ops"); j < k; j++ {
				rec.Ops = append(rec.Ops, toBytes(rapid.SliceOfN(rapid.StringMatching(`[a-z0-9]{0,8}`), 1, 4).Draw(t, "argv")))
			}
			if rapid.Bool().Draw(t, "framed") {
				frame, err := wal.AppendFrame(nil, rec)
				if err != nil {
					t.Fatal(err)
				}
				WriteRecordFrame(w, frame)
			} else {
				b, err := AppendRecord(nil, rec)
				if err != nil {
					t.Fatal(err)
				}
				w.Write(b)
			}
			want = append(want, Message{Kind: MsgRecord, Record: rec})
		}
		w.Flush()
		// A reader large enough for the whole stream: after the first
		// read, every later message is buffered.
		dec := NewDecoder(bufio.NewReaderSize(&buf, buf.Len()+16))
		for i, m := range want {
			if i > 0 && m.Kind == MsgRecord && !dec.RecordBuffered() {
				t.Fatalf("message %d: a whole record is buffered but RecordBuffered says no", i)
			}
			got, err := dec.Next()
			if err != nil {
				t.Fatalf("message %d: %v", i, err)
			}
			if got.Kind != m.Kind || got.Heartbeat != m.Heartbeat || got.Record.Seq != m.Record.Seq || got.Record.Epoch != m.Record.Epoch ||
				len(got.Record.Ops) != len(m.Record.Ops) || (len(m.Record.Ops) > 0 && !reflect.DeepEqual(got.Record.Ops, m.Record.Ops)) {
				t.Fatalf("message %d: got %+v, want %+v", i, got, m)
			}
		}
		if _, err := dec.Next(); err == nil {
			t.Fatal("a message after the end of the stream")
		}
	})
}

// A decoder's Ahead shows the record messages buffered behind the one
// Next returned, and RecordKey walks them to their keys, stopping at a
// heartbeat or at a record not yet whole.
func TestAheadAndRecordKey(t *testing.T) {
	var stream []byte
	for i, key := range []string{"a", "b", "c"} {
		rec := wal.Record{Seq: uint64(i + 1), Ops: [][][]byte{{[]byte("SET"), []byte(key), []byte("v")}}}
		var err error
		if stream, err = AppendRecord(stream, rec); err != nil {
			t.Fatal(err)
		}
	}
	whole := len(stream)
	stream = AppendHeartbeat(stream, Heartbeat{Epoch: 1})
	stream, _ = AppendRecord(stream, wal.Record{Seq: 4, Ops: [][][]byte{{[]byte("SET"), []byte("d"), []byte("v")}}})
	dec := NewDecoder(bufio.NewReader(bytes.NewReader(stream[:len(stream)-1])))
	if _, err := dec.Next(); err != nil {
		t.Fatal(err)
	}
	ahead := dec.Ahead()
	var keys []string
	for {
		key, size, ok := RecordKey(ahead)
		if size == 0 {
			break
		}
		if !ok {
			t.Fatalf("a SET record gave no key")
		}
		keys = append(keys, string(key))
		ahead = ahead[size:]
	}
	// The three records are the same size; the walk stops after the
	// second and third, where the heartbeat starts.
	if walked := len(dec.Ahead()) - len(ahead); fmt.Sprint(keys) != "[b c]" || walked != whole/3*2 {
		t.Fatalf("keys ahead %v, stopped %d bytes in; want [b c], %d", keys, walked, whole/3*2)
	}
}
