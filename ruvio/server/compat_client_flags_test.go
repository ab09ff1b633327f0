package server

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/redis/go-redis/v9"
)

// CLIENT LIST shows a client's open transaction as Redis does, its
// queued commands in "multi" and the flag x, and the flags of MONITOR
// (O), CLIENT NO-EVICT (e) and tracking, in Redis's order.
func TestClientListFlagsAndMultiAsRedis(t *testing.T) {
	r := startRedis(t, 2)
	ru := client(t, startServer(t, nil), 0)
	ctx := context.Background()
	fields := regexp.MustCompile(`flags=\S+|multi=-?\d+`)
	rc, uc := pairedConns(t, r, ru, 2)
	steps := [][]any{
		{"MULTI"}, {"SET", "a", "1"}, {"GET", "a"}, {"LIST"},
		{"EXEC"}, {"LIST"},
		{"MULTI"}, {"LIST"}, {"DISCARD"}, {"LIST"},
		{"MULTI"}, {"SET", "a", "1"}, {"NOSUCHCOMMAND"}, {"LIST"}, {"EXEC"}, {"LIST"},
		{"CLIENT", "NO-EVICT", "on"}, {"LIST"},
		{"CLIENT", "TRACKING", "on", "BCAST"}, {"LIST"},
		{"MULTI"}, {"LIST"}, {"DISCARD"},
		{"CLIENT", "TRACKING", "off"}, {"CLIENT", "NO-EVICT", "off"}, {"LIST"},
		{"MONITOR"}, {"LIST"},
	}
	ids := make([]int64, 2)
	for i, c := range []*redis.Conn{rc[0], uc[0]} {
		ids[i] = c.ClientID(ctx).Val()
	}
	for _, q := range steps {
		var got [2]string
		for i, pair := range [][2]*redis.Conn{{rc[0], rc[1]}, {uc[0], uc[1]}} {
			if fmt.Sprint(q[0]) == "LIST" {
				line, err := pair[1].Do(ctx, "CLIENT", "LIST", "ID", ids[i]).Text()
				got[i] = fmt.Sprint(fields.FindAllString(line, -1), err)
				continue
			}
			if fmt.Sprint(q[0]) == "MONITOR" {
				// MONITOR answers OK and then streams: send it raw.
				got[i] = fmt.Sprint(pair[0].Process(ctx, redis.NewStatusCmd(ctx, "MONITOR")))
				continue
			}
			got[i] = renderCmd(pair[0].Do(ctx, q...))
		}
		if got[0] != got[1] {
			t.Errorf("%q\n  redis: %s\n  ruvio: %s", q, got[0], got[1])
		}
	}
}
