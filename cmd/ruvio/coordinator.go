package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/ruvio/ruvio/coordinator"
	"github.com/ruvio/ruvio/ruvio/clock"
)

// runCoordinator is `ruvio coordinator --config coordinator.toml`.
func runCoordinator(args []string) int {
	fs := flag.NewFlagSet("coordinator", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	path := fs.String("config", "", "coordinator.toml `file` (required; see deploy/coordinator.toml for every key)")
	level := fs.String("log-level", "info", "log `level`: debug, info, warn or error")
	usage := func(w io.Writer) {
		fmt.Fprintln(w, "Usage: ruvio coordinator --config coordinator.toml [--log-level LEVEL]")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		fmt.Fprintln(w, "\nEnvironment:\n  RUVIO_COORDINATOR_SECRET\toverrides secret in the file")
	}
	if err := fs.Parse(args); err != nil {
		return usageError(err, usage)
	}
	if fs.NArg() > 0 {
		return usageError(fmt.Errorf("unexpected argument %q", fs.Arg(0)), usage)
	}
	if *path == "" {
		return usageError(errors.New("--config coordinator.toml is required"), usage)
	}
	cfg, err := coordinator.LoadConfig(*path, os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ruvio coordinator: %v\n", err)
		return 2
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*level)); err != nil {
		fmt.Fprintf(os.Stderr, "ruvio coordinator: --log-level: %v\n", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lv})).With("coordinator", cfg.ID)
	// Lease ages are measured on the clock package's lease clock, so the
	// chaos clock nemesis reaches coordinators too.
	if err := clock.FromEnvironment(log); err != nil {
		log.Error("bad clock skew", "err", err)
		return 2
	}
	c, err := coordinator.New(cfg, log)
	if err != nil {
		log.Error("cannot start", "err", err)
		return 1
	}
	if err := c.Start(); err != nil {
		log.Error("cannot start", "err", err)
		return 1
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	sig := <-sigs
	log.Info("signal received, shutting down", "signal", sig.String())
	if err := c.Close(); err != nil {
		log.Warn("shutdown", "err", err)
	}
	return 0
}
