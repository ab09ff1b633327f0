package repl

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/ruvio/wal"
)

// The replication stream of one shard, both directions. The replica opens
// it with RESP commands (AUTH, then RSYNC with its history); the primary
// answers one line, +CONTINUE <from> <epoch> or +FULL <seq> <bytes>
// <epoch> followed by a snapshot file, or an error. From then on the
// primary sends messages of one kind byte each: 'R' and a log frame (the
// record, as the log encodes it), or 'P' and three little-endian u64s
// (its replication epoch, last sequence and
// replication_committed_sequence) every 100 ms. The replica sends
// REPLCONF ACK <wal_durable_sequence> at least every 100 ms.
//
// This file is the whole wire format: each message has its encoder and
// its decoder side by side, so the two cannot drift apart. It does no I/O
// beyond reading from a buffered reader.

// Protocol is the handshake version. A primary and a replica of
// different versions refuse each other. Version 2 added the ID of each
// stretch of history to RSYNC.
const Protocol = 2

// The kinds of stream messages.
const (
	MsgRecord    = 'R'
	MsgHeartbeat = 'P'
)

// heartbeatBody is the size of a heartbeat after its kind byte.
const heartbeatBody = 24

// Handshake is what a replica presents in RSYNC.
type Handshake struct {
	// Proto is the replica's handshake version; Shard and Shards the
	// shard it asks for and how many the replica has.
	Proto, Shard, Shards int
	// Yield says REPLICAOF ... YIELD named the primary.
	Yield bool
	// RunID is the replica node's; Announce the client address it is
	// listed under.
	RunID, Announce string
	// Replica is its history and last sequence.
	Replica Replica
}

// ReplicationEpoch is the replication epoch the replica follows: the
// newest of its history (0 for none).
func (h Handshake) ReplicationEpoch() uint64 {
	if n := len(h.Replica.History); n > 0 {
		return h.Replica.History[n-1].Epoch
	}
	return 0
}

// RSyncArgs is the RSYNC command that presents h: RSYNC proto shard
// shards yield run_id announce last n epoch1 first1 id1 ... epochN firstN
// idN.
func RSyncArgs(h Handshake) []string {
	yield := "0"
	if h.Yield {
		yield = "1"
	}
	args := []string{"RSYNC", strconv.Itoa(h.Proto), strconv.Itoa(h.Shard), strconv.Itoa(h.Shards), yield,
		h.RunID, h.Announce, strconv.FormatUint(h.Replica.Last, 10), strconv.Itoa(len(h.Replica.History))}
	for _, e := range h.Replica.History {
		args = append(args, strconv.FormatUint(e.Epoch, 10), strconv.FormatUint(e.FirstSeq, 10), strconv.FormatUint(e.ID, 10))
	}
	return args
}

// errRSyncSyntax is the reply to a malformed RSYNC.
var errRSyncSyntax = errors.New("ERR syntax error in RSYNC")

// ParseRSync reads the RSYNC command RSyncArgs writes (args[0] is the
// command name).
func ParseRSync(args [][]byte) (Handshake, error) {
	var h Handshake
	if len(args) < 9 {
		return h, errRSyncSyntax
	}
	nums := func(b []byte) (uint64, bool) { v, err := strconv.ParseUint(string(b), 10, 64); return v, err == nil }
	p, ok1 := nums(args[1])
	sh, ok2 := nums(args[2])
	n, ok3 := nums(args[3])
	last, ok4 := nums(args[7])
	cnt, ok5 := nums(args[8])
	if !(ok1 && ok2 && ok3 && ok4 && ok5) || cnt > uint64(len(args)) || uint64(len(args)) != 9+3*cnt {
		return h, errRSyncSyntax
	}
	h.Proto, h.Shard, h.Shards = int(p), int(sh), int(n)
	h.Yield = string(args[4]) == "1"
	h.RunID, h.Announce = string(args[5]), string(args[6])
	h.Replica.Last = last
	for i := uint64(0); i < cnt; i++ {
		e, ok := nums(args[9+3*i])
		f, ok2 := nums(args[10+3*i])
		id, ok3 := nums(args[11+3*i])
		if !ok || !ok2 || !ok3 {
			return h, errRSyncSyntax
		}
		h.Replica.History = append(h.Replica.History, EpochStart{Epoch: e, FirstSeq: f, ID: id})
	}
	return h, nil
}

// Reply is the primary's answer to RSYNC.
type Reply struct {
	// Err is a refusal (without its '-'); the other fields are unset.
	Err string
	// Continue: records follow from From. Otherwise a full copy: a
	// snapshot at Seq of Size bytes follows.
	Continue bool
	From     uint64
	Seq      uint64
	Size     int64
	// Epoch is the primary's replication epoch.
	Epoch uint64
}

// Line is the reply as the primary sends it, without the line end.
func (r Reply) Line() string {
	switch {
	case r.Err != "":
		return "-" + r.Err
	case r.Continue:
		return fmt.Sprintf("+CONTINUE %d %d", r.From, r.Epoch)
	}
	return fmt.Sprintf("+FULL %d %d %d", r.Seq, r.Size, r.Epoch)
}

// ParseReply reads the line Line writes (the line end already cut).
func ParseReply(line string) (Reply, error) {
	if strings.HasPrefix(line, "-") {
		return Reply{Err: line[1:]}, nil
	}
	bad := fmt.Errorf("unexpected handshake reply %q", line)
	f := strings.Fields(line)
	u := func(s string, v *uint64) bool {
		n, err := strconv.ParseUint(s, 10, 64)
		*v = n
		return err == nil
	}
	var r Reply
	switch {
	case len(f) == 3 && f[0] == "+CONTINUE":
		r.Continue = true
		if !u(f[1], &r.From) || !u(f[2], &r.Epoch) {
			return Reply{}, bad
		}
	case len(f) == 4 && f[0] == "+FULL":
		var size uint64
		if !u(f[1], &r.Seq) || !u(f[2], &size) || !u(f[3], &r.Epoch) || size > 1<<62 {
			return Reply{}, bad
		}
		r.Size = int64(size)
	default:
		return Reply{}, bad
	}
	return r, nil
}

// AckArgs is the replica's acknowledgement: REPLCONF ACK
// <wal_durable_sequence>.
func AckArgs(durable uint64) []string {
	return []string{"REPLCONF", "ACK", strconv.FormatUint(durable, 10)}
}

// ParseAck reads AckArgs; ok is false for any other command.
func ParseAck(args [][]byte) (durable uint64, ok bool) {
	if len(args) != 3 || !strings.EqualFold(string(args[0]), "replconf") || !strings.EqualFold(string(args[1]), "ack") {
		return 0, false
	}
	v, err := strconv.ParseUint(string(args[2]), 10, 64)
	return v, err == nil
}

// Heartbeat is the primary's periodic message.
type Heartbeat struct {
	// Epoch is the primary's replication epoch, Last its last sequence,
	// Committed its replication_committed_sequence.
	Epoch, Last, Committed uint64
}

// AppendHeartbeat appends the heartbeat message (kind byte included).
func AppendHeartbeat(dst []byte, hb Heartbeat) []byte {
	dst = append(dst, MsgHeartbeat)
	dst = binary.LittleEndian.AppendUint64(dst, hb.Epoch)
	dst = binary.LittleEndian.AppendUint64(dst, hb.Last)
	return binary.LittleEndian.AppendUint64(dst, hb.Committed)
}

func decodeHeartbeat(b []byte) Heartbeat {
	return Heartbeat{
		Epoch:     binary.LittleEndian.Uint64(b[0:]),
		Last:      binary.LittleEndian.Uint64(b[8:]),
		Committed: binary.LittleEndian.Uint64(b[16:]),
	}
}

// WriteRecordFrame writes the record message around frame, a record
// already framed by the log (as the backlog keeps them), without copying
// the frame first.
func WriteRecordFrame(w *bufio.Writer, frame []byte) error {
	w.WriteByte(MsgRecord)
	_, err := w.Write(frame)
	return err
}

// AppendRecord appends the record message for rec.
func AppendRecord(dst []byte, rec wal.Record) ([]byte, error) {
	return wal.AppendFrame(append(dst, MsgRecord), rec)
}

// Message is one decoded stream message: a heartbeat or a record.
type Message struct {
	Kind      byte
	Heartbeat Heartbeat
	// Record's Ops alias the decoder's buffers until the next Next.
	Record wal.Record
}

// Decoder reads the primary's stream messages.
type Decoder struct {
	br *bufio.Reader
	fr *wal.FrameReader
	hb [heartbeatBody]byte
}

// NewDecoder reads messages from br.
func NewDecoder(br *bufio.Reader) *Decoder {
	return &Decoder{br: br, fr: wal.NewFrameReader(br)}
}

// Next reads one message.
func (d *Decoder) Next() (Message, error) {
	kind, err := d.br.ReadByte()
	if err != nil {
		return Message{}, err
	}
	switch kind {
	case MsgHeartbeat:
		if _, err := io.ReadFull(d.br, d.hb[:]); err != nil {
			return Message{}, err
		}
		return Message{Kind: kind, Heartbeat: decodeHeartbeat(d.hb[:])}, nil
	case MsgRecord:
		rec, err := d.fr.Next()
		if err != nil {
			return Message{}, fmt.Errorf("reading a record from the primary: %w", err)
		}
		return Message{Kind: kind, Record: rec}, nil
	}
	return Message{}, fmt.Errorf("unknown message kind %q from the primary", kind)
}

// Frame returns the encoded frame of the record Next last returned,
// valid until the next call (see wal.FrameReader.Frame).
func (d *Decoder) Frame() []byte { return d.fr.Frame() }

// RecordBuffered reports whether a whole record message (kind byte,
// frame header and body) is already buffered, so Next returns it without
// waiting on the network.
func (d *Decoder) RecordBuffered() bool {
	const hdr = 1 + 8
	if d.br.Buffered() < hdr {
		return false
	}
	b, err := d.br.Peek(hdr)
	if err != nil || b[0] != MsgRecord {
		return false
	}
	return d.br.Buffered() >= hdr+int(binary.LittleEndian.Uint32(b[1:5]))
}

// Ahead returns the bytes buffered behind the last message Next returned.
// They stay valid while Next is called only for records RecordBuffered
// reports whole.
func (d *Decoder) Ahead() []byte {
	b, _ := d.br.Peek(d.br.Buffered())
	return b
}

// RecordKey reads the record message at the start of b for a hint: its
// length, 0 when b does not start with a whole record message, and its
// first op's key (wal.FrameKey), ok false when it has none.
func RecordKey(b []byte) (key []byte, size int, ok bool) {
	if len(b) < 1 || b[0] != MsgRecord {
		return nil, 0, false
	}
	key, size, ok = wal.FrameKey(b[1:])
	if size == 0 {
		return nil, 0, false
	}
	return key, size + 1, ok
}
