package client

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/ruvio/ruvio/internal/respvalue"
)

// A ChangeStream is one shard's change stream (CHANGES SUBSCRIBE, see
// docs/changes.md) on a connection of its own.
type ChangeStream struct {
	nc net.Conn
	br *bufio.Reader
	// Start is the cursor the stream starts after, as the shard confirmed
	// it.
	Start string
}

// A ChangeMessage is a change (Kind "change", with its operations) or a
// rewind (Kind "rewound": undo what was applied after Cursor).
type ChangeMessage struct {
	Kind   string
	Cursor string
	Ops    [][]string
}

// ChangesOptions choose where a stream starts and how it connects.
type ChangesOptions struct {
	// From is a cursor to resume after, "0" for the oldest change held,
	// or "" for changes from now on.
	From string
	// Committed sends only changes a durable reply committed.
	Committed bool
	// Username and Password, when set, are sent with AUTH first.
	Username, Password string
	// Dial opens the connection (a TLS dialer, say); net.Dialer's by
	// default.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// SubscribeChanges opens a change stream on addr (a shard's port). A
// refusal (a cursor whose changes are no longer held, say) is returned as
// the node's error text.
func SubscribeChanges(ctx context.Context, addr string, o ChangesOptions) (*ChangeStream, error) {
	dial := o.Dial
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	nc, err := dial(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &ChangeStream{nc: nc, br: bufio.NewReader(nc)}
	if dl, ok := ctx.Deadline(); ok {
		nc.SetDeadline(dl)
	}
	if o.Password != "" {
		args := []string{"AUTH", o.Password}
		if o.Username != "" {
			args = []string{"AUTH", o.Username, o.Password}
		}
		if _, err := s.call(args...); err != nil {
			nc.Close()
			return nil, err
		}
	}
	args := []string{"CHANGES", "SUBSCRIBE"}
	if o.From != "" {
		args = append(args, "FROM", o.From)
	}
	if o.Committed {
		args = append(args, "COMMITTED")
	}
	v, err := s.call(args...)
	if err != nil {
		nc.Close()
		return nil, err
	}
	m, ok := v.([]any)
	if !ok || len(m) != 2 || m[0] != "subscribed" {
		nc.Close()
		return nil, fmt.Errorf("CHANGES SUBSCRIBE answered %v", v)
	}
	s.Start = m[1].(string)
	nc.SetDeadline(time.Time{})
	return s, nil
}

// Next waits for the next message. An error the node sends (the stream
// fell behind what it holds) and a closed connection are errors; after
// one, subscribe again with the last cursor applied.
func (s *ChangeStream) Next(ctx context.Context) (ChangeMessage, error) {
	stop := context.AfterFunc(ctx, func() { s.nc.SetReadDeadline(time.Now()) })
	defer stop()
	v, err := respvalue.Read(s.br)
	if err != nil {
		if ctx.Err() != nil {
			return ChangeMessage{}, ctx.Err()
		}
		return ChangeMessage{}, err
	}
	if e, ok := v.(error); ok {
		return ChangeMessage{}, e
	}
	m, ok := v.([]any)
	if !ok || len(m) < 2 {
		return ChangeMessage{}, fmt.Errorf("not a change stream message: %v", v)
	}
	msg := ChangeMessage{Kind: fmt.Sprint(m[0]), Cursor: fmt.Sprint(m[1])}
	if msg.Kind == "change" && len(m) == 3 {
		ops, _ := m[2].([]any)
		for _, op := range ops {
			args, _ := op.([]any)
			argv := make([]string, len(args))
			for i, a := range args {
				argv[i] = fmt.Sprint(a)
			}
			msg.Ops = append(msg.Ops, argv)
		}
	}
	return msg, nil
}

// Close ends the stream.
func (s *ChangeStream) Close() error { return s.nc.Close() }

// call sends one command and reads its reply; an error reply is an error.
func (s *ChangeStream) call(args ...string) (any, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := io.WriteString(s.nc, b.String()); err != nil {
		return nil, err
	}
	v, err := respvalue.Read(s.br)
	if err != nil {
		return nil, err
	}
	if e, ok := v.(error); ok {
		return nil, e
	}
	return v, nil
}
