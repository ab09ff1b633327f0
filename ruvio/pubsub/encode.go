package pubsub

import "github.com/ruvio/ruvio/ruvio/resp"

// EncodeMessage renders a pub/sub message (message or pmessage and its
// parts) as a push in RESP3 or an array in RESP2.
func EncodeMessage(proto int, parts ...[]byte) []byte {
	var b buffer
	w := resp.NewWriter(&b)
	w.Proto = proto
	w.Push(len(parts))
	for _, p := range parts {
		w.Bulk(p)
	}
	w.Flush()
	return b
}

// EncodeConfirmation renders a (un)subscribe confirmation: its kind, the
// name (null when nil) and the connection's number of subscriptions left.
func EncodeConfirmation(proto int, kind string, name []byte, count int) []byte {
	var b buffer
	w := resp.NewWriter(&b)
	w.Proto = proto
	w.Push(3)
	w.BulkString(kind)
	if name == nil {
		w.Null()
	} else {
		w.Bulk(name)
	}
	w.Int(int64(count))
	w.Flush()
	return b
}

// buffer is an io.Writer that keeps what is written.
type buffer []byte

func (b *buffer) Write(p []byte) (int, error) {
	*b = append(*b, p...)
	return len(p), nil
}
