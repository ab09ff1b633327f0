package keyspace_test

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/hashcmd"
	"github.com/ruvio/ruvio/ruvio/command/keycmd"
	"github.com/ruvio/ruvio/ruvio/command/listcmd"
	"github.com/ruvio/ruvio/ruvio/command/setcmd"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
	"github.com/ruvio/ruvio/ruvio/command/zsetcmd"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/slots"
)

func harness(t testing.TB) *cmdtest.Harness {
	return cmdtest.New(t, stringcmd.Specs(), keycmd.Specs(), hashcmd.Specs(), listcmd.Specs(), setcmd.Specs(), zsetcmd.Specs())
}

// randomWrite draws one write command over a small key set so that
// commands often hit keys already copied, not yet copied, or saved.
func randomWrite(t *rapid.T) []string {
	k := "k" + strconv.Itoa(rapid.IntRange(0, 30).Draw(t, "key"))
	v := rapid.StringMatching(`[a-c]{0,3}`).Draw(t, "val")
	switch rapid.IntRange(0, 10).Draw(t, "op") {
	case 0:
		return []string{"SET", k, v}
	case 1:
		return []string{"APPEND", k, v}
	case 2:
		return []string{"DEL", k}
	case 3:
		return []string{"HSET", k, v, "x"}
	case 4:
		return []string{"RPUSH", k, v}
	case 5:
		return []string{"SADD", k, v}
	case 6:
		return []string{"ZADD", k, strconv.Itoa(rapid.IntRange(0, 5).Draw(t, "score")), v}
	case 7:
		return []string{"LPOP", k}
	case 8:
		return []string{"PEXPIREAT", k, "1800000000000"}
	case 9:
		return []string{"INCR", k}
	default:
		return []string{"RENAME", k, "k" + strconv.Itoa(rapid.IntRange(0, 30).Draw(t, "dst"))}
	}
}

// do runs a write the way the server does: WillModify on its keys first.
func do(h *cmdtest.Harness, args []string) {
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	spec := h.Table.Lookup(argv[0])
	for _, i := range spec.KeyIndexes(argv) {
		h.DB.WillModify(string(argv[i]))
	}
	h.DoBytes(argv)
}

// dumpEntries renders emitted entries like cmdtest.Dump renders a keyspace.
func dumpEntries(m map[string]keyspace.Entry) string {
	var lines []string
	for k, e := range m {
		lines = append(lines, fmt.Sprintf("%q exp=%d %s", k, e.ExpireAt, cmdtest.DumpValue(e.Val)))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// The image a snapshot emits is the keyspace at BeginSnapshot, whatever
// writes (including FLUSHALL) run while the slots are walked.
func TestSnapshotImageIsThePointInTimeState(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		h := harness(t)
		for _, n := 0, rapid.IntRange(0, 60).Draw(rt, "setup"); n > 0; n-- {
			do(h, randomWrite(rt))
		}
		want := cmdtest.Dump(h.DB)
		h.DB.BeginSnapshot()
		image := map[string]keyspace.Entry{}
		emit := func(k string, e *keyspace.Entry) {
			if _, dup := image[k]; dup {
				rt.Fatalf("key %q emitted twice", k)
			}
			image[k] = keyspace.Entry{Val: keyspace.CloneValue(e.Val), ExpireAt: e.ExpireAt}
		}
		slot := 0
		for slot < slots.Count {
			switch rapid.IntRange(0, 4).Draw(rt, "step") {
			case 0:
				// Emit a run of slots, as the snapshot goroutine does.
				end := min(slot+rapid.IntRange(1, 4000).Draw(rt, "run"), slots.Count)
				for ; slot < end; slot++ {
					h.DB.SnapshotSlot(slot, emit)
				}
			case 1:
				if rapid.IntRange(0, 20).Draw(rt, "flush") == 0 {
					h.DB.Flush()
				}
			default:
				do(h, randomWrite(rt))
			}
		}
		h.DB.EndSnapshot()
		if got := dumpEntries(image); got != want {
			rt.Fatalf("image differs from the state at the instant:\n%s\nwant\n%s", got, want)
		}
	})
}
