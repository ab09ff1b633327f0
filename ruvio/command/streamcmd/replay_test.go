package streamcmd

import (
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

// Whatever time-dependent commands run (generated IDs, approximate trims,
// deliveries, claims by idle time), replaying the effects they logged, at
// another time, reaches the same streams: entries, counters, groups and
// every pending entry's owner, delivery time and count.
func TestEffectsReplayToTheSameStreams(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		h := cmdtest.New(t, Specs())
		for i, n := 0, rapid.IntRange(1, 80).Draw(rt, "n"); i < n; i++ {
			h.NowMs += int64(rapid.IntRange(0, 3).Draw(rt, "tick"))
			key := rapid.SampledFrom([]string{"a", "b"}).Draw(rt, "key")
			group := rapid.SampledFrom([]string{"g1", "g2"}).Draw(rt, "group")
			con := rapid.SampledFrom([]string{"c1", "c2", "c3"}).Draw(rt, "consumer")
			var cmd []string
			switch rapid.IntRange(0, 11).Draw(rt, "cmd") {
			case 0, 1, 2:
				cmd = []string{"XADD", key}
				if rapid.Bool().Draw(rt, "trim") {
					cmd = append(cmd, "MAXLEN", rapid.SampledFrom([]string{"~", "="}).Draw(rt, "op"), strconv.Itoa(rapid.IntRange(0, 5).Draw(rt, "len")))
				}
				cmd = append(cmd, "*", "f", strconv.Itoa(i))
			case 3:
				cmd = []string{"XGROUP", "CREATE", key, group, rapid.SampledFrom([]string{"0", "$"}).Draw(rt, "at"), "MKSTREAM"}
			case 4, 5:
				cmd = []string{"XREADGROUP", "GROUP", group, con, "COUNT", "2"}
				if rapid.IntRange(0, 3).Draw(rt, "noack") == 0 {
					cmd = append(cmd, "NOACK")
				}
				cmd = append(cmd, "STREAMS", key, rapid.SampledFrom([]string{">", "0"}).Draw(rt, "after"))
			case 6:
				cmd = []string{"XAUTOCLAIM", key, group, con, strconv.Itoa(rapid.IntRange(0, 4).Draw(rt, "idle")), "0", "COUNT", "2"}
			case 7:
				cmd = []string{"XPENDING", key, group, "-", "+", "10"}
				if v, ok := h.Do(cmd...).([]any); ok && len(v) > 0 {
					id := v[0].([]any)[0].(string)
					cmd = []string{"XCLAIM", key, group, con, strconv.Itoa(rapid.IntRange(0, 4).Draw(rt, "idle")), id,
						"IDLE", strconv.Itoa(rapid.IntRange(0, 10).Draw(rt, "setidle"))}
				}
			case 8:
				cmd = []string{"XDEL", key, strconv.FormatInt(h.NowMs-int64(rapid.IntRange(0, 5).Draw(rt, "back")), 10) + "-0"}
			case 9:
				cmd = []string{"XTRIM", key, "MINID", "~", strconv.FormatInt(h.NowMs-3, 10)}
			case 10:
				cmd = []string{"XGROUP", rapid.SampledFrom([]string{"CREATECONSUMER", "DELCONSUMER"}).Draw(rt, "sub"), key, group, con}
			case 11:
				cmd = []string{"XACK", key, group, strconv.FormatInt(h.NowMs-1, 10) + "-0"}
			}
			h.Do(cmd...)
		}
		want := cmdtest.Dump(h.DB)
		h.NowMs += 1000
		if got := cmdtest.Dump(h.Replay()); got != want {
			rt.Fatalf("replay reached\n%s\nthe commands reached\n%s", got, want)
		}
	})
}
