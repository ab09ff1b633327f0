package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ruvio/ruvio/internal/atomicfile"
	"github.com/ruvio/ruvio/ruvio/fence"
)

// tokenFile is the file in data_dir holding the token counter's mark:
// the largest generation granted and a ceiling above every counter
// granted (fence.Mark), written before a token that passes either.
const tokenFile = "TOKENS"

// loadTokenMark restores the token counter from data_dir and has it store
// its marks there.
func (s *Server) loadTokenMark(dir string) error {
	path := filepath.Join(dir, tokenFile)
	s.tokens.Store = func(m fence.Mark) error {
		return atomicfile.Write(path, fmt.Appendf(nil, "%d %d\n", m.Generation, m.Ceiling))
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var m fence.Mark
	if _, err := fmt.Sscanf(string(b), "%d %d", &m.Generation, &m.Ceiling); err != nil {
		return fmt.Errorf("%s: not \"generation ceiling\": %w", path, err)
	}
	s.tokens.Restore(m)
	return nil
}

// Token grants a fencing token for LEASE and SEMAPHORE (command.Ctx's
// TokenSource): the generation ruvio/fence derives from the node's
// replication epoch, its cluster map and the generations it granted
// before, and the node's counter. It runs under the shard lock of the
// command that asks.
func (c *conn) Token(nowMs int64) (int64, string) {
	gen, msg := c.Generation()
	if msg != "" {
		return 0, msg
	}
	return c.srv.tokens.Next(gen, nowMs)
}

// Generation is the generation of the tokens Token grants now, or its
// refusal (command.TokenSource).
func (c *conn) Generation() (uint64, string) {
	s := c.srv
	b := fence.Basis{Granted: s.tokens.Granted()}
	for _, sh := range s.shards {
		b.Epoch = max(b.Epoch, sh.ReplicationEpoch())
	}
	if v := s.cluster.view.Load(); v != nil {
		b.MapVersion = v.m.Version
		b.FromCoordinators = s.cluster.fromCoordinators.Load()
		b.NamesSelf = v.m.Groups[v.self].Primary() == c.selfAddr(v)
	}
	return fence.Generation(b)
}
