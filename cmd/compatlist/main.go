// Command compatlist writes the compatibility section of README.md: the
// Redis 7 commands ruvio does not implement, from redis-server's COMMAND
// and ruvio's, and how many of ruvio's commands the differential tests
// exercise, from the list those tests record (RUVIO_COMPAT_COVERAGE).
// `make compat-readme` runs the tests and then this program.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/server"
)

func main() {
	readme := flag.String("readme", "README.md", "file whose compat markers are rewritten")
	coverage := flag.String("coverage", "", "file of exercised commands, one per line (from RUVIO_COMPAT_COVERAGE)")
	redisBin := flag.String("redis-server", "redis-server", "the reference server")
	flag.Parse()
	if err := run(*readme, *coverage, *redisBin); err != nil {
		fmt.Fprintln(os.Stderr, "compatlist:", err)
		os.Exit(1)
	}
}

func run(readme, coverage, redisBin string) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "compatlist")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	port, err := freePort()
	if err != nil {
		return err
	}
	rs := exec.Command(redisBin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir)
	if err := rs.Start(); err != nil {
		return err
	}
	defer func() { rs.Process.Kill(); rs.Wait() }()
	rc := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), Protocol: 2})
	defer rc.Close()

	cfg := config.Default()
	cfg.DataDir = dir + "/ruvio"
	cfg.Durability = "memory"
	if cfg.Port, err = freePort(); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	srv, err := server.New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	uc := redis.NewClient(&redis.Options{Addr: srv.Addr(0), Protocol: 2})
	defer uc.Close()

	var r report
	deadline := time.Now().Add(10 * time.Second)
	for rc.Ping(ctx).Err() != nil {
		if time.Now().After(deadline) {
			return fmt.Errorf("redis-server did not answer")
		}
		time.Sleep(20 * time.Millisecond)
	}
	info := rc.Info(ctx, "server").Val()
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "redis_version:"); ok {
			r.RedisVersion = v
		}
	}
	for _, side := range []struct {
		c   *redis.Client
		set *commandSet
	}{{rc, &r.Redis}, {uc, &r.Ruvio}} {
		v, err := side.c.Do(ctx, "COMMAND").Slice()
		if err != nil {
			return err
		}
		*side.set = leaves(v)
	}
	probeSubcommands(ctx, uc, &r)
	if coverage != "" {
		f, err := os.Open(coverage)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); l != "" {
				r.Exercised = append(r.Exercised, l)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return err
		}
	}
	doc, err := os.ReadFile(readme)
	if err != nil {
		return err
	}
	text, err := replaceBetween(string(doc), "compat:missing", r.missingSection())
	if err != nil {
		return err
	}
	if coverage != "" {
		if text, err = replaceBetween(text, "compat:coverage", r.coverageSection()); err != nil {
			return err
		}
	}
	return os.WriteFile(readme, []byte(text), 0o644)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// probeSubcommands settles the Redis subcommands whose parent ruvio lists
// as a single command (COMMAND, whose subcommands one handler serves): a
// subcommand ruvio does not answer "unknown subcommand" to is one it
// implements. Only read-only parents are probed.
func probeSubcommands(ctx context.Context, c *redis.Client, r *report) {
	safe := map[string]bool{"command": true}
	for name := range r.Redis {
		parent, sub, ok := strings.Cut(name, "|")
		if !ok || r.Ruvio[name] || !r.Ruvio[parent] || !safe[parent] {
			continue
		}
		err := c.Do(ctx, parent, sub).Err()
		if err == nil || !strings.Contains(err.Error(), "unknown subcommand") {
			r.Ruvio[name] = true
		}
	}
	for name := range r.Ruvio {
		if safe[name] && !r.Redis[name] {
			for other := range r.Ruvio {
				if strings.HasPrefix(other, name+"|") {
					delete(r.Ruvio, name)
					break
				}
			}
		}
	}
}
