package config

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadFile: whatever a configuration file holds, LoadFile and Validate
// answer with a configuration or an error, never a panic, and a file that
// loads and validates can be written back by CONFIG GET without one either.
func FuzzLoadFile(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "ruvio.toml")); err == nil {
		f.Add(b)
	}
	f.Add([]byte("port = 7000\nshards = 4\n[replication]\nrole = \"replica\"\nprimary = \"127.0.0.1:26379\"\n"))
	f.Add([]byte("maxmemory = \"100mb\"\n[[users]]\nname = \"app\"\nrules = \"on >pw ~* +@all\"\n"))
	f.Add([]byte("port = \"x\"\n"))
	f.Add([]byte("[replication\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "ruvio.toml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := LoadFile(path)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error with no message")
			}
			return
		}
		if err := c.Validate(); err != nil {
			if err.Error() == "" {
				t.Fatal("a validation error with no message")
			}
			return
		}
		_ = c.GetParams("*")
	})
}
