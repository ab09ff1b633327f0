// Command ruvio is the product binary: `ruvio server` runs a data node
// (the default when no subcommand is given), `ruvio coordinator` a
// failover coordinator, and `ruvio version` prints the build.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/ruvio/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/server"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	sub := "server"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "server":
		return runServer(args)
	case "check-data":
		return runCheckData(args, os.Stdout)
	case "coordinator":
		return runCoordinator(args)
	case "version":
		fmt.Printf("ruvio %s (redis_version %s)\n", server.BuildVersion, server.Version)
		return 0
	case "help":
		printUsage(os.Stdout)
		return 0
	default:
		fmt.Fprintf(os.Stderr, "ruvio: unknown subcommand %q\n\n", sub)
		printUsage(os.Stderr)
		return 2
	}
}

// printUsage is the whole command line: the subcommands, then the data
// node's flags (the default subcommand).
func printUsage(w io.Writer) {
	fmt.Fprint(w, `Usage:
  ruvio [server] [flags]         run a data node (the default)
  ruvio coordinator --config F   run a failover coordinator (ruvio coordinator --help)
  ruvio check-data [flags]       verify a stopped node's data (ruvio check-data --help)
  ruvio version                  print the build
  ruvio help                     print this

ruvio server
`)
	config.PrintUsage(w)
}

// usageError reports a command line that cannot be parsed: the error, then
// the usage, on stderr, with exit status 2; --help prints the usage on
// stdout with status 0.
func usageError(err error, usage func(io.Writer)) int {
	if errors.Is(err, flag.ErrHelp) {
		usage(os.Stdout)
		return 0
	}
	fmt.Fprintf(os.Stderr, "ruvio: %v\n\n", err)
	usage(os.Stderr)
	return 2
}

func runServer(args []string) int {
	config.RuleValidator = acl.ParseRules
	cfg, err := config.Load(args, os.Getenv)
	var ve *config.ValidationError
	switch {
	case errors.As(err, &ve):
		// A bad value: the problems say what to change, the usage would
		// only bury them.
		fmt.Fprintf(os.Stderr, "ruvio: %v\n", err)
		return 2
	case err != nil:
		return usageError(err, printUsage)
	}
	log := newLogger(cfg)
	if err := clock.FromEnvironment(log); err != nil {
		log.Error("bad clock skew", "err", err)
		return 2
	}
	setThreads(cfg, log)
	srv, err := server.New(cfg, log)
	if err != nil {
		log.Error("cannot start", "err", err)
		return 1
	}
	if err := srv.Start(); err != nil {
		log.Error("cannot listen", "err", err)
		return 1
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	select {
	case sig := <-sigs:
		log.Info("signal received, shutting down", "signal", sig.String())
	case <-srv.Done():
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		log.Warn("shutdown did not finish in time", "err", err)
		return 1
	}
	return 0
}

func newLogger(cfg *config.Config) *slog.Logger {
	var level slog.Level
	switch cfg.LogLevel {
	case "debug":
		level = slog.LevelDebug
	case "warn":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	}
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}

// setThreads sizes GOMAXPROCS from the threads setting (config.ThreadsFor:
// 0 is one per shard, one more when writes wait for the log, at most
// Go's default), unless the GOMAXPROCS environment variable already did.
func setThreads(cfg *config.Config, log *slog.Logger) {
	if os.Getenv("GOMAXPROCS") != "" {
		return
	}
	n := cfg.ThreadsFor(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(n)
	log.Info("threads set", "gomaxprocs", n, "threads", cfg.Threads, "shards", cfg.Shards, "durability", cfg.Durability)
}
