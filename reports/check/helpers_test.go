package check

import (
	"strconv"
	"time"

	"github.com/ruvio/ruvio/reports/history"
)

// Hand-written histories use milliseconds; ops carry nanoseconds.
const ms = int64(time.Millisecond)

func addOp(p int, key, value, typ string, t0, t1 int64) history.Op {
	return history.Op{Process: p, Type: typ, F: history.FAdd, Key: key, Value: value, T0: t0 * ms, T1: t1 * ms, Node: "n1"}
}

func readOp(key string, t0, t1 int64, values ...string) history.Op {
	return history.Op{Process: 99, Type: history.OK, F: history.FRead, Key: key, Values: values, T0: t0 * ms, T1: t1 * ms, Node: "n1"}
}

func finalRead(key string, t0, t1 int64, values ...string) history.Op {
	op := readOp(key, t0, t1, values...)
	op.Final = true
	return op
}

func writeOp(p int, value, typ string, t0, t1 int64) history.Op {
	return history.Op{Process: p, Type: typ, F: history.FWrite, Key: "x", Value: value, T0: t0 * ms, T1: t1 * ms, Node: "n1"}
}

func getOp(p int, value string, t0, t1 int64) history.Op {
	return history.Op{Process: p, Type: history.OK, F: history.FGet, Key: "x", Value: value, Nil: value == "", T0: t0 * ms, T1: t1 * ms, Node: "n1"}
}

func casOp(p int, expect, value, typ string, t0, t1 int64) history.Op {
	return history.Op{Process: p, Type: typ, F: history.FCAS, Key: "x", Expect: expect, Value: value, T0: t0 * ms, T1: t1 * ms, Node: "n1"}
}

// on returns op as if the client had talked to node.
func on(node string, op history.Op) history.Op {
	op.Node = node
	return op
}

// withErr returns op with an error reply.
func withErr(err string, op history.Op) history.Op {
	op.Err = err
	return op
}

func i64(v int64) *int64 { return &v }

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
