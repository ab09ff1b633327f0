package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const rewriteFile = `# a node
bind = "127.0.0.1"   # where to listen
min_replicas_to_write = 0

# Replication.
[replication]
role = ""
backlog_bytes = "64mb"
`

func loadFrom(t *testing.T, path string) *Config {
	t.Helper()
	c, err := Load([]string{"--config", path}, nil)
	if err != nil {
		t.Fatalf("the rewritten file does not load: %v", err)
	}
	return c
}

func TestRewriteReplacesAddsAndKeepsTheRest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ruvio.toml")
	if err := os.WriteFile(path, []byte(rewriteFile), 0o600); err != nil {
		t.Fatal(err)
	}
	cur := loadFrom(t, path)
	if err := cur.SetParams(
		[2]string{"min-replicas-to-write", "2"},     // in the file: replaced
		[2]string{"maxmemory", "100mb"},             // not in the file: added to the top-level keys
		[2]string{"primary-lease", "yes"},           // a boolean
		[2]string{"loglevel", "warn"},               // a string
		[2]string{"repl-backlog-size", "1048576"},   // in [replication]
		[2]string{"hash-max-listpack-entries", "9"}, // a tunable: not a file key
	); err != nil {
		t.Fatal(err)
	}
	changed, err := Rewrite(path, cur)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"maxmemory", "log_level", "min_replicas_to_write", "primary_lease", "replication.backlog_bytes"}
	if !sameSet(changed, want) {
		t.Errorf("rewrote %v, want %v", changed, want)
	}
	text, _ := os.ReadFile(path)
	got := string(text)
	for _, keep := range []string{"# a node\n", `bind = "127.0.0.1"   # where to listen`, "# Replication.\n[replication]\n", `role = ""`} {
		if !strings.Contains(got, keep) {
			t.Errorf("the rewrite lost %q:\n%s", keep, got)
		}
	}
	if strings.Contains(got, "min_replicas_to_write = 0") || strings.Count(got, "min_replicas_to_write") != 1 {
		t.Errorf("min_replicas_to_write not replaced in place:\n%s", got)
	}
	// Top-level keys must come before the first table: after it they
	// would belong to [replication].
	if top := got[:strings.Index(got, "[replication]")]; !strings.Contains(top, "maxmemory = 104857600") || !strings.Contains(top, "primary_lease = true") {
		t.Errorf("added keys are not top-level:\n%s", got)
	}
	again := loadFrom(t, path)
	again.Tunables = cur.Tunables
	again.File = cur.File
	if !reflect.DeepEqual(again, cur) {
		t.Errorf("reloaded %+v\nwant     %+v", again, cur)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's own 0600", st.Mode().Perm())
	}
	// Nothing differs now: nothing is written.
	if changed, err := Rewrite(path, again); err != nil || len(changed) != 0 {
		t.Errorf("second rewrite: %v %v", changed, err)
	}
}

func TestRewriteAddsAMissingTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ruvio.toml")
	if err := os.WriteFile(path, []byte("port = 7000"), 0o644); err != nil {
		t.Fatal(err)
	}
	cur := loadFrom(t, path)
	if err := cur.SetParams([2]string{"repl-backlog-size", "2mb"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Rewrite(path, cur); err != nil {
		t.Fatal(err)
	}
	if got := loadFrom(t, path); got.Replication.BacklogBytes != 2<<20 || got.Port != 7000 {
		t.Errorf("backlog %d port %d", got.Replication.BacklogBytes, got.Port)
	}
}

func TestRewriteWithoutAFile(t *testing.T) {
	if _, err := Rewrite("", Default()); !errors.Is(err, ErrNoConfigFile) {
		t.Fatalf("%v, want %v", err, ErrNoConfigFile)
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}
