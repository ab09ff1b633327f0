package server

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// A category rule reaches a container's subcommands through their own
// categories, as in Redis 7.0: CLIENT and ACL themselves are only @slow,
// so -@admin leaves CLIENT ID and ACL WHOAMI allowed, +@read does not
// allow MEMORY PURGE, and -@connection reaches COMMAND COUNT. Each
// command's verdict (its error, or that it ran) is compared, since what
// the commands answer describes each server.
func TestACLCategoriesReachSubcommandsAsRedis(t *testing.T) {
	r := startRedis(t, 2)
	ru := client(t, startServer(t, nil), 0)
	ctx := context.Background()
	rules := [][]any{
		{"+@all", "-@admin"}, {"~*", "+@read"}, {"+@all", "-@write"}, {"+@all", "-@connection"},
		{"+@all", "-@dangerous", "+config|get"}, {"-@all", "+@slow"}, {"+@all", "-@slow"},
		{"-@all", "+@scripting"}, {"-@all", "+@keyspace"}, {"-@all", "+@stream", "~*"},
		{"-@all", "+client"}, {"+@all", "-client", "+@connection"},
	}
	probes := [][]any{
		{"CLIENT", "ID"}, {"CLIENT", "GETNAME"}, {"CLIENT", "INFO"}, {"ACL", "WHOAMI"}, {"ACL", "CAT"},
		{"CONFIG", "HELP"}, {"CONFIG", "GET", "maxmemory"}, {"SLOWLOG", "HELP"}, {"SLOWLOG", "LEN"},
		{"MEMORY", "PURGE"}, {"MEMORY", "DOCTOR"}, {"MEMORY", "STATS"}, {"MEMORY", "USAGE", "k"},
		{"OBJECT", "HELP"}, {"OBJECT", "ENCODING", "k"}, {"XINFO", "HELP"}, {"XGROUP", "HELP"},
		{"FUNCTION", "STATS"}, {"FUNCTION", "LIST"}, {"FUNCTION", "HELP"}, {"SCRIPT", "EXISTS", "x"},
		{"PUBSUB", "NUMPAT"}, {"LATENCY", "LATEST"}, {"COMMAND"}, {"COMMAND", "COUNT"},
		{"COMMAND", "INFO", "get"}, {"COMMAND", "DOCS", "get"}, {"COMMAND", "GETKEYS", "GET", "k"},
		{"COMMAND", "LIST", "FILTERBY", "PATTERN", "xyz*"}, {"PING"}, {"GET", "k"},
	}
	for _, c := range []*redis.Client{r, ru} {
		c.Set(ctx, "k", "v", 0)
	}
	for _, rule := range rules {
		for _, c := range []*redis.Client{r, ru} {
			if err := c.Do(ctx, append([]any{"ACL", "SETUSER", "u", "reset", "on", ">p"}, rule...)...).Err(); err != nil {
				t.Fatalf("ACL SETUSER u %v: %v", rule, err)
			}
		}
		rc, uc := pairedConns(t, r, ru, 1)
		for _, cmd := range append([][]any{{"AUTH", "u", "p"}}, probes...) {
			want, got := verdict(rc[0].Do(ctx, cmd...).Err()), verdict(uc[0].Do(ctx, cmd...).Err())
			if got != want {
				t.Errorf("user %v: %q\n  redis: %s\n  ruvio: %s", rule, cmd, want, got)
			}
		}
		// ACL DRYRUN names the subcommand it refuses.
		for _, cmd := range [][]any{{"ACL", "DRYRUN", "u", "COMMAND", "DOCS", "get"}, {"ACL", "DRYRUN", "u", "CLIENT", "KILL", "ID", "1"}} {
			want, got := renderCmd(r.Do(ctx, cmd...)), renderCmd(ru.Do(ctx, cmd...))
			if got != want {
				t.Errorf("user %v: %q\n  redis: %s\n  ruvio: %s", rule, cmd, want, got)
			}
		}
	}
}

// verdict is what a command's answer says about its permission: its
// error, or that it ran.
func verdict(err error) string {
	if err == nil || err == redis.Nil {
		return "ran"
	}
	return err.Error()
}

// ACL CAT and COMMAND LIST FILTERBY ACLCAT list, for every category, the
// commands and subcommands whose own categories hold it, as Redis lists
// them, among the commands both serve.
func TestACLCatListsAsRedis(t *testing.T) {
	r := startRedis(t, 2)
	ru := client(t, startServer(t, nil), 0)
	ctx := context.Background()
	served := func(c *redis.Client) map[string]bool {
		names, err := c.Do(ctx, "COMMAND", "LIST").StringSlice()
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	theirs, ours := served(r), served(ru)
	cats, err := r.Do(ctx, "ACL", "CAT").StringSlice()
	if err != nil {
		t.Fatal(err)
	}
	for _, cat := range cats {
		for _, q := range [][]any{{"ACL", "CAT", cat}, {"COMMAND", "LIST", "FILTERBY", "ACLCAT", cat}} {
			shared := func(c *redis.Client, other map[string]bool) []string {
				names, err := c.Do(ctx, q...).StringSlice()
				if err != nil {
					t.Fatalf("%q: %v", q, err)
				}
				var out []string
				for _, n := range names {
					if other[n] {
						out = append(out, n)
					}
				}
				slices.Sort(out)
				return out
			}
			want, got := shared(r, ours), shared(ru, theirs)
			if !slices.Equal(got, want) {
				t.Errorf("%q:\n  redis: %s\n  ruvio: %s", q, strings.Join(want, " "), strings.Join(got, " "))
			}
		}
	}
}
