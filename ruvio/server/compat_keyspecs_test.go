package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/ruvio/command"
)

// infoFields names COMMAND INFO's elements after the name, by position.
var infoFields = []string{1: "arity", 2: "flags", 3: "first key", 4: "last key", 5: "step", 6: "categories",
	7: "tips", 8: "key specs"}

// infoDiffers lists the COMMAND INFO fields where ruvio knowingly answers
// otherwise than redis-server, by command, with the reason.
var infoDiffers = map[string]map[string]string{
	// ruvio answers PING while loading and on a stale replica, for
	// health checks.
	"ping": {"flags": "loading, stale"},
	// ruvio's REPLICAOF takes more arguments than host and port and may
	// not be queued in MULTI.
	"replicaof": {"arity": "-3", "flags": "no_multi"},
	"slaveof":   {"arity": "-3", "flags": "no_multi"},
}

// clusterSubDiffers: ruvio answers CLUSTER's read-only subcommands while
// loading, from its own topology.
var clusterSubDiffers = map[string]string{"flags": "loading"}

func knownDiffer(name, field string) bool {
	if _, ok := infoDiffers[name][field]; ok {
		return true
	}
	if _, ok := clusterSubDiffers[field]; ok && strings.HasPrefix(name, "cluster|") {
		return true
	}
	return false
}

// renderReply is render for replies that hold RESP3 maps, with the keys
// sorted.
func renderReply(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = renderReply(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case map[any]any:
		parts := make([]string, 0, len(x))
		for k, e := range x {
			parts = append(parts, renderReply(k)+":"+renderReply(e))
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, " ") + "}"
	case string:
		return fmt.Sprintf("%q", x)
	case nil:
		return "(nil)"
	}
	return fmt.Sprintf("%T:%v", v, v)
}

// commandNames is a server's COMMAND LIST.
func commandNames(t *testing.T, c *redis.Client) []string {
	t.Helper()
	v, err := c.Do(context.Background(), "COMMAND", "LIST").Slice()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(v))
	for i, n := range v {
		out[i] = n.(string)
	}
	return out
}

// COMMAND INFO answers as redis-server 7 does, element by element, for
// every command and subcommand both serve, in RESP2 (where maps keep
// their order) and RESP3 (where sets and maps have their own types).
func TestKeySpecsMatchRedis(t *testing.T) {
	srv := startServer(t, nil)
	for _, proto := range []int{2, 3} {
		r := startRedis(t, proto)
		ru := client(t, srv, 0, func(o *redis.Options) { o.Protocol = proto })
		ctx := context.Background()
		theirs := map[string]bool{}
		for _, n := range commandNames(t, r) {
			theirs[n] = true
		}
		compared := 0
		for _, name := range commandNames(t, ru) {
			if !theirs[name] {
				continue // ruvio's own (RUVIO, CLIENT DURABILITY)
			}
			noteExercised([]any{"COMMAND", "INFO"})
			want, err := r.Do(ctx, "COMMAND", "INFO", name).Slice()
			if err != nil {
				t.Fatal(err)
			}
			got, err := ru.Do(ctx, "COMMAND", "INFO", name).Slice()
			if err != nil {
				t.Fatalf("ruvio COMMAND INFO %s: %v", name, err)
			}
			w, g := want[0].([]any), got[0].([]any)
			for i := 1; i <= 8; i++ {
				field := infoFields[i]
				if knownDiffer(name, field) {
					continue
				}
				if ws, gs := renderReply(w[i]), renderReply(g[i]); ws != gs {
					t.Errorf("RESP%d COMMAND INFO %s, %s:\n  redis: %s\n  ruvio: %s", proto, name, field, ws, gs)
				}
			}
			compared++
		}
		if compared < 200 {
			t.Errorf("compared only %d commands", compared)
		}
	}
}

// A command whose field is listed as differing really does differ, so
// the list does not outlive its reason.
func TestKeySpecsKnownDifferencesHold(t *testing.T) {
	r := startRedis(t, 2)
	ru := client(t, startServer(t, nil), 0, func(o *redis.Options) { o.Protocol = 2 })
	ctx := context.Background()
	for name, fields := range infoDiffers {
		want, _ := r.Do(ctx, "COMMAND", "INFO", name).Slice()
		got, _ := ru.Do(ctx, "COMMAND", "INFO", name).Slice()
		for i, field := range infoFields {
			if _, listed := fields[field]; listed && renderReply(want[0].([]any)[i]) == renderReply(got[0].([]any)[i]) {
				t.Errorf("%s %s is listed as differing but matches redis-server", name, field)
			}
		}
	}
}

// COMMAND DOCS reports since, group, complexity and deprecation as
// redis-server does for every command both serve; COMMAND COUNT counts the top-level
// commands COMMAND LIST names.
func TestCommandDocsMatchRedis(t *testing.T) {
	r := startRedis(t, 3)
	ru := client(t, startServer(t, nil), 0)
	ctx := context.Background()
	theirs := map[string]bool{}
	for _, n := range commandNames(t, r) {
		theirs[n] = true
	}
	names := commandNames(t, ru)
	top := 0
	for _, name := range names {
		if !strings.Contains(name, "|") {
			top++
		}
		if !theirs[name] {
			continue
		}
		noteExercised([]any{"COMMAND", "DOCS"})
		want, err := r.Do(ctx, "COMMAND", "DOCS", name).Result()
		if err != nil {
			t.Fatal(err)
		}
		got, err := ru.Do(ctx, "COMMAND", "DOCS", name).Result()
		if err != nil {
			t.Fatalf("ruvio COMMAND DOCS %s: %v", name, err)
		}
		wd := want.(map[any]any)[name].(map[any]any)
		gd, ok := got.(map[any]any)[name].(map[any]any)
		if !ok {
			t.Errorf("ruvio COMMAND DOCS %s: %s", name, renderReply(got))
			continue
		}
		for _, field := range []string{"since", "group", "complexity", "doc_flags", "deprecated_since", "replaced_by"} {
			if w, g := renderReply(wd[field]), renderReply(gd[field]); w != g {
				t.Errorf("COMMAND DOCS %s, %s:\n  redis: %s\n  ruvio: %s", name, field, w, g)
			}
		}
	}
	if n, err := ru.Do(ctx, "COMMAND", "COUNT").Int(); err != nil || n != top {
		t.Errorf("COMMAND COUNT = %d, %v; COMMAND LIST names %d top-level commands", n, err, top)
	}
}

// COMMAND's own subcommands answer as redis-server's do: their argument
// errors, GETKEYS on a container, and COMMAND LIST FILTERBY, whose lists
// agree on every command both serve (but containers, whose categories
// differ as infoDiffers says).
func TestGetKeysAndCommandListMatchRedis(t *testing.T) {
	r := startRedis(t, 3)
	ru := client(t, startServer(t, nil), 0)
	ctx := context.Background()
	for _, cmd := range [][]any{
		{"COMMAND", "COUNT", "x"},
		{"COMMAND", "HELP", "x"},
		{"COMMAND", "NOSUCH"},
		{"COMMAND", "LIST", "x"},
		{"COMMAND", "LIST", "FILTERBY", "ACLCAT"},
		{"COMMAND", "LIST", "FILTERBY", "NOSUCH", "x"},
		{"COMMAND", "LIST", "FILTERBY", "MODULE", "x"},
		{"COMMAND", "LIST", "FILTERBY", "ACLCAT", "nosuch"},
		{"COMMAND", "GETKEYS"},
		{"COMMAND", "GETKEYSANDFLAGS", "GET"},
		{"COMMAND", "GETKEYS", "OBJECT"},
		{"COMMAND", "GETKEYS", "CONFIG", "NOSUCH"},
		{"COMMAND", "GETKEYSANDFLAGS", "XGROUP", "NOSUCH", "s"},
		{"COMMAND", "GETKEYSANDFLAGS", "CONFIG", "GET", "x"},
		{"COMMAND", "GETKEYSANDFLAGS", "XINFO", "HELP"},
		{"COMMAND", "GETKEYSANDFLAGS", "MEMORY", "USAGE"},
		{"COMMAND", "INFO", "nosuch", "get|x", "config|nosuch"},
		{"COMMAND", "DOCS", "nosuch", "config|nosuch"},
	} {
		noteExercised(cmd)
		wv, we := r.Do(ctx, cmd...).Result()
		gv, ge := ru.Do(ctx, cmd...).Result()
		if want, got := render(wv, we, false), render(gv, ge, false); got != want {
			t.Errorf("%q\n  redis: %s\n  ruvio: %s", cmd, want, got)
		}
	}
	theirs := map[string]bool{}
	for _, n := range commandNames(t, r) {
		theirs[n] = true
	}
	containers := map[string]bool{}
	for _, n := range commandNames(t, ru) {
		if parent, _, sub := strings.Cut(n, "|"); sub {
			containers[parent] = true
		}
	}
	for _, filter := range [][]any{{"ACLCAT", "hash"}, {"ACLCAT", "Dangerous"}, {"ACLCAT", "@read"},
		{"PATTERN", "x*"}, {"PATTERN", "CONFIG|*"}, {"PATTERN", "*e?"}, {"MODULE", "x"}} {
		cmd := append([]any{"COMMAND", "LIST", "FILTERBY"}, filter...)
		noteExercised(cmd)
		kept := func(c *redis.Client) map[string]bool {
			v, err := c.Do(ctx, cmd...).StringSlice()
			if err != nil {
				t.Fatalf("%q: %v", cmd, err)
			}
			out := map[string]bool{}
			for _, n := range v {
				out[n] = true
			}
			return out
		}
		want, got := kept(r), kept(ru)
		for _, n := range commandNames(t, ru) {
			if theirs[n] && !containers[n] && want[n] != got[n] {
				t.Errorf("%q keeps %s: redis %v, ruvio %v", cmd, n, want[n], got[n])
			}
		}
	}
}

// keyRangeDiffers are the commands whose first key, last key and step,
// which the server routes by, differ from what their key specs derive.
var keyRangeDiffers = map[string]string{
	// Shard channels hash like keys in Redis Cluster, so their not_key
	// specs give a range; ruvio routes the shard channel commands itself.
	"spublish": "not_key", "ssubscribe": "not_key", "sunsubscribe": "not_key",
	// A key count comes first: ruvio locates the keys with a function and
	// keeps a range for nothing but its old COMMAND INFO.
	"sintercard": "keynum",
}

// Every command that has keys has key specs, and the specs agree with
// the positions the server routes by: the table of facts and the command
// families describe the same commands, ruvio's own included.
func TestKeySpecsAgreeWithRouting(t *testing.T) {
	var specs []*command.Spec
	for _, s := range (&Server{}).commandTable().All() {
		specs = append(append(specs, s), s.Subcommands...)
	}
	for _, s := range specs {
		if len(s.Subcommands) > 0 {
			continue // a container's subcommands have the keys
		}
		hasKeys := s.FirstKey != 0 || s.Keys != nil
		specKeys := false
		for _, ks := range s.Info.KeySpecs {
			specKeys = specKeys || ks.Flags&command.KeyNotKey == 0
		}
		if hasKeys != specKeys && keyRangeDiffers[s.Name] != "not_key" {
			t.Errorf("%s: has keys %v, but key specs %v", s.Name, hasKeys, s.Info.KeySpecs)
			continue
		}
		if !hasKeys || keyRangeDiffers[s.Name] != "" {
			continue
		}
		first, last, step, movable := command.LegacyRange(s.Info.KeySpecs)
		if first != s.FirstKey || last != s.LastKey || step != s.Step {
			t.Errorf("%s: key specs give %d %d %d, the spec routes by %d %d %d", s.Name, first, last, step,
				s.FirstKey, s.LastKey, s.Step)
		}
		// SORT_RO's moving keys are its BY and GET patterns, which
		// neither Redis Cluster nor ruvio routes by.
		if movable && s.Keys == nil && s.Name != "sort_ro" {
			t.Errorf("%s: key specs say the keys move, but no function finds them", s.Name)
		}
	}
}

// readReply reads one RESP reply off r and returns its bytes: go-redis
// reads a set, an array, a bulk and a simple string into the same Go
// values, and the wire is where they differ.
func readReply(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	out := line
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	switch line[0] {
	case '$', '=', '!':
		if n >= 0 {
			buf := make([]byte, n+2)
			if _, err := io.ReadFull(r, buf); err != nil {
				t.Fatal(err)
			}
			out += string(buf)
		}
	case '*', '~', '>':
		for range n {
			out += readReply(t, r)
		}
	case '%', '|':
		for range 2 * n {
			out += readReply(t, r)
		}
	}
	return out
}

// COMMAND INFO and GETKEYSANDFLAGS send the RESP3 types redis-server
// sends, byte for byte, for every command both serve but those listed as
// differing.
func TestKeySpecsWireMatchesRedis(t *testing.T) {
	r := startRedis(t, 3)
	srv := startServer(t, nil)
	dial := func(addr string) (net.Conn, *bufio.Reader) {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(nc)
		io.WriteString(nc, "HELLO 3\r\n")
		readReply(t, br)
		return nc, br
	}
	rc, rr := dial(r.Options().Addr)
	uc, ur := dial(srv.Addr(0))
	lines := []string{"COMMAND INFO get mset", "COMMAND INFO nosuch", "COMMAND GETKEYSANDFLAGS SET k v GET",
		"COMMAND GETKEYSANDFLAGS ZUNIONSTORE d 2 a b", "COMMAND DOCS nosuch"}
	// Every command both serve whose COMMAND INFO differs in no field.
	theirs := map[string]bool{}
	for _, n := range commandNames(t, r) {
		theirs[n] = true
	}
	ru := client(t, srv, 0)
	for _, n := range commandNames(t, ru) {
		v, err := ru.Do(context.Background(), "COMMAND", "INFO", n).Slice()
		if err != nil {
			t.Fatal(err)
		}
		// A container's subcommands come in Redis's hash-table order,
		// so containers are checked on their own below.
		differs := len(v[0].([]any)[9].([]any)) > 0
		for _, field := range infoFields {
			differs = differs || knownDiffer(n, field)
		}
		if theirs[n] && !differs {
			lines = append(lines, "COMMAND INFO "+n)
		}
	}
	if len(lines) < 200 {
		t.Errorf("compared only %d lines", len(lines))
	}
	for _, line := range lines {
		io.WriteString(rc, line+"\r\n")
		io.WriteString(uc, line+"\r\n")
		if want, got := readReply(t, rr), readReply(t, ur); got != want {
			t.Errorf("%s\n  redis: %q\n  ruvio: %q", line, want, got)
		}
	}
	// A container's subcommands are an array in Redis's replies.
	n := len(srv.table.Lookup([]byte("config")).Subcommands)
	io.WriteString(uc, "COMMAND INFO config\r\n")
	if got, want := readReply(t, ur), fmt.Sprintf("~0\r\n*%d\r\n*10\r\n", n); !strings.Contains(got, want) {
		t.Errorf("COMMAND INFO config = %q, want its %d subcommands as an array (%q)", got, n, want)
	}
}
