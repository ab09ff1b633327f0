package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/config"
)

// CONFIG REWRITE writes what CONFIG SET changed into the --config file and
// nothing else; without a file it answers as Redis does.
func TestConfigRewrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ruvio.toml")
	if err := os.WriteFile(path, []byte("# the operator's file\nhz = 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, func(c *config.Config) { c.File = path })
	ctx := context.Background()
	c := client(t, s, 0)
	if err := c.Do(ctx, "CONFIG", "SET", "hz", "20", "maxclients", "77").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, "CONFIG", "REWRITE").Err(); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	got := string(text)
	if !strings.HasPrefix(got, "# the operator's file\nhz = 20\n") || !strings.Contains(got, "maxclients = 77\n") || strings.Count(got, "\n") != 3 {
		t.Fatalf("rewritten file: %q", got)
	}
	loaded, err := config.Load([]string{"--config", path}, nil)
	if err != nil || loaded.Hz != 20 || loaded.MaxClients != 77 {
		t.Fatalf("reloaded: %+v %v", loaded, err)
	}

	bare := startServer(t, nil)
	err = client(t, bare, 0).Do(ctx, "CONFIG", "REWRITE").Err()
	if err == nil || err.Error() != "ERR The server is running without a config file" {
		t.Fatalf("CONFIG REWRITE without a file: %v", err)
	}
}
