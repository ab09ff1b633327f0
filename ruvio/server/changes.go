package server

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/ruvio/ruvio/ruvio/changes"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/replication"
	"github.com/ruvio/ruvio/ruvio/shard"
)

// The change stream: CHANGES SUBSCRIBE on a shard's port turns the
// connection into a stream of that shard's records, as its log holds
// them, each with the cursor a consumer keeps to resume from, on this
// node or on the one a failover promotes. docs/changes.md is the
// consumer's guide.
//
// Messages are arrays (pushes under RESP3):
//
//	["subscribed", cursor]       the stream starts after cursor
//	["rewound", cursor]          the consumer's cursor left this shard's history
//	["change", cursor, ops]      one record: its operations, each an argv
//
// While it streams, the connection takes PING, QUIT and RESET only;
// RESET ends the stream.

// changeStream is a connection's running stream.
type changeStream struct {
	stop context.CancelFunc
	done chan struct{}
}

// changesOutboxMax bounds the messages waiting for a slow consumer: the
// stream stops reading the log until the connection took them.
const changesOutboxMax = 4 << 20

// cmdChangesSubscribe is CHANGES SUBSCRIBE [FROM cursor] [COMMITTED].
func cmdChangesSubscribe(c *conn, args [][]byte) {
	var from *changes.Cursor
	committed := false
	for i := 2; i < len(args); i++ {
		switch {
		case command.Eq(args[i], "committed"):
			committed = true
		case command.Eq(args[i], "from") && i+1 < len(args):
			i++
			cur := changes.Cursor{}
			if string(args[i]) != "0" {
				var err error
				if cur, err = changes.Parse(string(args[i])); err != nil {
					c.w.Error(err.Error())
					return
				}
			}
			from = &cur
		default:
			c.w.Error(command.ErrSyntax)
			return
		}
	}
	s, sh := c.srv, c.shard
	st := s.repl.Shard(sh.ID)
	h, last := sh.HistoryAndPosition()
	// From now: after the last record, or for committed changes the last
	// committed one, so the consumer never holds a cursor a failover may
	// take back.
	now := last.Seq
	if committed {
		now = min(now, st.Committed())
	}
	start := changes.Resume{From: now + 1}
	pos := changes.Holding(h, now)
	if from != nil {
		start = changes.Decide(h, last.Seq, *from)
		pos = *from
	}
	sent := pos // the subscription confirms the cursor it starts from
	if start.Rewound {
		pos = start.At
	}
	cr := s.repl.NewChangeReader(sh.ID)
	if start.From <= last.Seq {
		// The first record must still be held, or the consumer reloads.
		if _, _, err := cr.Read(start.From); err != nil {
			cr.Close()
			c.w.Error(changesGone(sh.ID, pos, err))
			return
		}
	}
	c.flushBeforePush()
	proto := int(c.proto.Load())
	c.push(changeMessage(nil, proto, "subscribed", sent, nil))
	if start.Rewound {
		c.push(changeMessage(nil, proto, "rewound", start.At, nil))
	}
	c.drainOutbox()
	ctx, stop := context.WithCancel(context.Background())
	cs := &changeStream{stop: stop, done: make(chan struct{})}
	c.changes = cs
	// The stream starts from the history the decision read: a change
	// since (a full copy) is decided again at its first turn.
	hid := changes.NewestID(h)
	go func() {
		defer close(cs.done)
		defer cr.Close()
		err := c.streamChanges(ctx, sh, st, cr, hid, start.From, pos, committed, proto)
		if err != nil && ctx.Err() == nil && !c.closed.Load() {
			s.log.Info("change stream ended", "client", c.id, "shard", sh.ID, "err", err)
			c.push([]byte("-" + err.Error() + "\r\n"))
			c.drainOutbox()
			c.close()
		}
	}()
}

// changesGone is the refusal of a cursor whose next records this shard
// no longer holds.
func changesGone(shardID int, pos changes.Cursor, err error) string {
	if errors.Is(err, replication.ErrChangesGone) {
		return "ERR shard " + strconv.Itoa(shardID) + " no longer holds the changes after " + pos.String() +
			": reload the data and subscribe again without FROM"
	}
	return "ERR change stream of shard " + strconv.Itoa(shardID) + ": " + err.Error()
}

// stopChanges ends the connection's stream, if any, and waits for it.
// drain sends the changes already queued before anything else (RESET's
// reply); a connection being closed skips it.
func (c *conn) stopChanges(drain bool) {
	if cs := c.changes; cs != nil {
		c.changes = nil
		cs.stop()
		<-cs.done
		if drain {
			c.drainOutbox()
		}
	}
}

// streamChanges sends the shard's records from next on until ctx ends or
// the connection closes. pos is the cursor the consumer holds. Whenever
// the shard's history changes (a fork, a full copy), the consumer's place
// is decided again: a history that no longer holds its last record
// rewinds it.
func (c *conn) streamChanges(ctx context.Context, sh *shard.Shard, st *replication.ShardState, cr *replication.ChangeReader,
	hid, next uint64, pos changes.Cursor, committed bool, proto int) error {
	var msg []byte
	for ctx.Err() == nil && !c.closed.Load() {
		if sh.HistoryID() != hid {
			h, last := sh.HistoryAndPosition()
			hid = changes.NewestID(h)
			d := changes.Decide(h, last.Seq, pos)
			if d.Rewound {
				pos = d.At
				c.push(changeMessage(nil, proto, "rewound", pos, nil))
			}
			next = d.From
			continue
		}
		upto := uint64(1<<64 - 1)
		var commitWake <-chan struct{}
		if committed {
			commitWake = st.CommittedNotify()
			if upto = st.Committed(); next > upto {
				if err := waitChanges(ctx, commitWake); err != nil {
					return nil
				}
				continue
			}
		}
		recs, wait, err := cr.Read(next)
		if err != nil {
			return errors.New(changesGone(sh.ID, pos, err)[len("ERR "):])
		}
		if len(recs) > 0 {
			// The records' cursors come from the history the stream
			// decided on, or the batch is read again after deciding.
			h, _ := sh.HistoryAndPosition()
			if changes.NewestID(h) != hid {
				continue
			}
			msg = msg[:0]
			for _, r := range recs {
				if r.Seq > upto {
					break
				}
				pos = changes.At(h, r.Epoch, r.Seq)
				next = r.Seq + 1
				if ops := changes.Visible(r.Ops); len(ops) > 0 {
					msg = changeMessage(msg, proto, "change", pos, ops)
				}
			}
			if len(msg) > 0 {
				c.push(msg) // copies msg
			}
			if err := c.waitOutbox(ctx); err != nil {
				return nil
			}
			continue
		}
		if err := waitChanges(ctx, wait, commitWake); err != nil {
			return nil
		}
	}
	return nil
}

// waitChanges waits for the first of chs to close, or ctx to end; at
// most a second, so a stream notices a closed connection.
func waitChanges(ctx context.Context, chs ...<-chan struct{}) error {
	var a, b <-chan struct{}
	if len(chs) > 0 {
		a = chs[0]
	}
	if len(chs) > 1 {
		b = chs[1]
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-a:
	case <-b:
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// waitOutbox holds the stream while the connection has more than
// changesOutboxMax bytes of messages to send.
func (c *conn) waitOutbox(ctx context.Context) error {
	for {
		c.outMu.Lock()
		n := len(c.outbox)
		c.outMu.Unlock()
		if n <= changesOutboxMax || c.closed.Load() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

// changeMessage appends one message of the stream to dst: kind, the
// cursor, and for a change its operations.
func changeMessage(dst []byte, proto int, kind string, pos changes.Cursor, ops [][][]byte) []byte {
	n := 2
	if kind == "change" {
		n = 3
	}
	head := byte('*')
	if proto >= 3 {
		head = '>'
	}
	dst = appendHeader(dst, head, n)
	dst = appendBulk(dst, []byte(kind))
	dst = appendBulk(dst, []byte(pos.String()))
	if kind == "change" {
		dst = appendHeader(dst, '*', len(ops))
		for _, op := range ops {
			dst = appendHeader(dst, '*', len(op))
			for _, a := range op {
				dst = appendBulk(dst, a)
			}
		}
	}
	return dst
}

func appendHeader(dst []byte, kind byte, n int) []byte {
	dst = append(dst, kind)
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, '\r', '\n')
}

func appendBulk(dst, b []byte) []byte {
	dst = appendHeader(dst, '$', len(b))
	dst = append(dst, b...)
	return append(dst, '\r', '\n')
}

// changesRefusal is the refusal of a command on a connection that streams
// changes, or "".
func (c *conn) changesRefusal(run *command.Spec) string {
	if c.changes == nil {
		return ""
	}
	switch run.Name {
	case "ping", "quit", "reset":
		return ""
	}
	return "ERR Can't execute '" + run.Name + "': only PING, QUIT and RESET are allowed while this connection streams changes"
}

func cmdChangesHelp(c *conn, args [][]byte) {
	writeHelp(c, "CHANGES",
		"SUBSCRIBE [FROM <cursor>] [COMMITTED]",
		"    Stream this shard's changes: from now, or after <cursor> as a change message",
		"    gave it (0 for the first, if still held). COMMITTED sends only changes a",
		"    CLIENT DURABILITY reply committed. Messages: [subscribed <cursor>],",
		"    [rewound <cursor>] (undo what you applied after it), [change <cursor> <ops>].",
		"    RESET ends the stream.")
}
