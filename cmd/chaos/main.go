// Command chaos runs ruvio's fault-injection scenarios and checks what
// survived:
//
//	chaos list
//	chaos run SCENARIO [--backend docker|local|compose|auto] [--runs N] [--seed S] [--out DIR] [--duration D]
//	chaos analyze [--consistency MODEL] RESULTDIR
//	chaos gate RESULTDIR...
//	chaos figures [--runs N] [--backend B] [--scenarios a,b] [--binary PATH]
//	chaos table [--runs N] [--backend B] [--systems S,...] [--shapes S,...]
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/ruvio/ruvio/chaos/compose"
	"github.com/ruvio/ruvio/chaos/docker"
	"github.com/ruvio/ruvio/chaos/local"
	"github.com/ruvio/ruvio/chaos/runner"
	"github.com/ruvio/ruvio/chaos/scenarios"
	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/reports/check"
)

func main() { os.Exit(run(os.Args[1:])) }

func usage() {
	fmt.Fprintln(os.Stderr, `usage:
  chaos list
  chaos run SCENARIO [--backend docker|local|compose|auto] [--runs N] [--seed S] [--out DIR] [--duration D]
  chaos analyze [--consistency MODEL] RESULTDIR
  chaos gate RESULTDIR...
  chaos figures [--runs N] [--backend B] [--doc docs/figures.md] [--scenarios a,b] [--binary PATH]
  chaos table [--runs N] [--backend B] [--systems ruvio,redis] [--shapes kill,...] [--doc docs/partition-table.md] [--merge cells.json,...]
              [--duration D] [--at D] [--hold D] [--pause-hold D] [--settle D]`)
}

func run(args []string) int {
	if len(args) == 0 {
		usage()
		return 2
	}
	switch args[0] {
	case "list":
		w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
		for _, s := range scenarios.All() {
			fmt.Fprintf(w, "%s\t%s\n", s.Name, s.Summary)
		}
		w.Flush()
		return 0
	case "run":
		return cmdRun(args[1:])
	case "analyze":
		return cmdAnalyze(args[1:])
	case "gate":
		return cmdGate(args[1:])
	case "figures":
		return cmdFigures(args[1:])
	case "table":
		return cmdTable(args[1:])
	case "help", "-h", "--help":
		usage()
		return 0
	}
	fmt.Fprintf(os.Stderr, "chaos: unknown command %q\n", args[0])
	usage()
	return 2
}

func cmdRun(args []string) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		usage()
		return 2
	}
	name := args[0]
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	backendName := fs.String("backend", "auto", "docker, local, or auto (docker when an engine answers)")
	runs := fs.Int("runs", 1, "how many runs")
	seed := fs.Int64("seed", 0, "seed of the randomised schedule (0: pick one and print it)")
	out := fs.String("out", "results", "results root")
	dur := fs.Duration("duration", 0, "length of the faulty phase (0: the scenario's)")
	binary := fs.String("binary", "", "a prebuilt ruvio binary (default: build one)")
	limit := fs.Duration("linearizability-limit", time.Minute, "time limit of the linearizability check per run")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	sc, ok := scenarios.Get(name)
	if !ok {
		fmt.Fprintf(os.Stderr, "chaos: no scenario %q (chaos list shows them)\n", name)
		return 2
	}
	if *seed == 0 {
		*seed = newSeed()
	}
	if sc.Backend != "" && *backendName == "auto" {
		*backendName = sc.Backend
	}
	ctx, stop, backend, why, log, ok := session(*backendName)
	if !ok {
		return 2
	}
	defer stop()
	fmt.Printf("chaos: backend %s (%s); seed %d (replay: chaos run %s --seed %d)\n", backend.Name(), why, *seed, name, *seed)
	dir, sum, err := runner.Run(ctx, runner.Options{Scenario: sc, Backend: backend, Runs: *runs, Seed: *seed, Out: *out,
		Duration: *dur, Binary: *binary, Progress: os.Stdout, Log: log, LinearizabilityLimit: *limit})
	if err != nil {
		fmt.Fprintf(os.Stderr, "chaos: %v\n", err)
		return 1
	}
	printSummary(sum)
	fmt.Printf("results: %s\n", dir)
	return 0
}

// session sets up what run and figures share: the log, a context that
// Ctrl-C cancels (so faults are healed and containers removed), and the
// backend. ok is false (and the problem printed) when no backend fits.
func session(backendName string) (context.Context, context.CancelFunc, topology.Backend, string, *slog.Logger, bool) {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	backend, why, err := pickBackend(ctx, backendName, log)
	if err != nil {
		stop()
		fmt.Fprintf(os.Stderr, "chaos: %v\n", err)
		return nil, nil, nil, "", nil, false
	}
	return ctx, stop, backend, why, log, true
}

// newSeed picks a seed for a run that was given none; it is printed and
// stored so the run can be replayed.
func newSeed() int64 { return time.Now().UnixNano() % 1_000_000_000 }

// pickBackend resolves --backend; auto takes Docker when an engine answers.
func pickBackend(ctx context.Context, name string, log *slog.Logger) (topology.Backend, string, error) {
	switch name {
	case "local":
		return local.New(log), "requested", nil
	case "docker":
		if err := docker.Answers(ctx, log); err != nil {
			return nil, "", err
		}
		docker.Sweep(ctx)
		return docker.New(log), "requested", nil
	case "auto":
		if docker.Answers(ctx, log) == nil {
			docker.Sweep(ctx)
			return docker.New(log), "a Docker engine answers", nil
		}
		return local.New(log), "no Docker engine answers", nil
	case "compose":
		b, err := composeBackend(ctx, log)
		return b, "requested", err
	}
	return nil, "", fmt.Errorf("unknown backend %q (docker, local, compose or auto)", name)
}

// composeBackend is the backend of the scenarios that bring up the
// repository's Compose file (Scenario.Backend "compose").
func composeBackend(ctx context.Context, log *slog.Logger) (topology.Backend, error) {
	if err := compose.Available(ctx); err != nil {
		return nil, err
	}
	return compose.New(log)
}

func printSummary(s check.Summary) {
	fmt.Printf("summary: valid=%s ops=%d acknowledged=%d failed=%d indeterminate=%d lost=%d stale=%d linearizable=%s%s\n",
		s.Valid, s.Ops, s.Acknowledged, s.Failed, s.Indeterminate, s.Lost, s.Stale, linear(s.Linearizable), runner.ReplicationText(s))
	for _, v := range s.Violations {
		fmt.Printf("  violation: %s\n", v)
	}
	for _, v := range s.Tolerated {
		fmt.Printf("  tolerated: %s\n", v)
	}
}

func linear(b *bool) string {
	if b == nil {
		return "null"
	}
	return fmt.Sprint(*b)
}

func cmdAnalyze(args []string) int {
	fs := flag.NewFlagSet("analyze", flag.ContinueOnError)
	limit := fs.Duration("linearizability-limit", time.Minute, "time limit of the linearizability check per run")
	consistency := fs.String("consistency", "", "model the transactions are held to: strict-serializable, serializable, snapshot-isolation or read-committed (default: the scenario's)")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		usage()
		return 2
	}
	sums, err := runner.AnalyzeAs(fs.Arg(0), *limit, *consistency)
	if err != nil {
		fmt.Fprintf(os.Stderr, "chaos: %v\n", err)
		return 1
	}
	for _, s := range sums {
		printSummary(s)
	}
	return 0
}

// cmdGate exits 1 when any run of the given results misses a threshold of
// its scenario, printing which.
func cmdGate(args []string) int {
	if len(args) == 0 {
		usage()
		return 2
	}
	failed := false
	for _, dir := range args {
		meta, err := runner.ReadMeta(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "chaos gate: %v\n", err)
			return 2
		}
		for _, rd := range runner.RunDirs(dir) {
			s, err := runner.ReadSummary(rd)
			if err != nil {
				fmt.Printf("FAIL %s: no summary: %v\n", rd, err)
				failed = true
				continue
			}
			misses := check.Gate(s, meta.Expect)
			if len(misses) == 0 {
				fmt.Printf("pass %s (%s)\n", rd, meta.Scenario)
				continue
			}
			failed = true
			for _, m := range misses {
				fmt.Printf("FAIL %s (%s): %s\n", filepath.Clean(rd), meta.Scenario, m)
			}
		}
	}
	if failed {
		return 1
	}
	return 0
}

// cmdFigures runs the figure scenarios and rewrites docs/figures.md.
func cmdFigures(args []string) int {
	fs := flag.NewFlagSet("figures", flag.ContinueOnError)
	runs := fs.Int("runs", 3, "runs per scenario")
	backendName := fs.String("backend", "auto", "docker, local, or auto")
	doc := fs.String("doc", "docs/figures.md", "the document whose tables are rewritten")
	out := fs.String("out", "results", "results root")
	only := fs.String("scenarios", "", "comma-separated scenarios to measure again (default all; the others keep their rows)")
	binary := fs.String("binary", "", "a prebuilt ruvio binary (default: build one per scenario)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	ctx, stop, backend, why, log, ok := session(*backendName)
	if !ok {
		return 2
	}
	defer stop()
	fmt.Printf("chaos figures: backend %s (%s), %d runs per scenario\n", backend.Name(), why, *runs)
	// The scenarios that bring up the Compose file get that backend.
	backendFor := func(name string) (topology.Backend, error) {
		b, _, err := pickBackend(ctx, name, log)
		return b, err
	}
	if err := runner.FiguresOf(ctx, runner.Options{Backend: backend, Runs: *runs, Seed: newSeed(), Out: *out, Progress: os.Stdout,
		Log: log, LinearizabilityLimit: time.Minute, Binary: *binary, BackendFor: backendFor}, *doc, names); err != nil {
		fmt.Fprintf(os.Stderr, "chaos figures: %v\n", err)
		return 1
	}
	fmt.Printf("updated %s\n", *doc)
	return 0
}

// cmdTable runs the partition table and rewrites docs/partition-table.md;
// it exits 1 when a cell broke what the documentation promises.
func cmdTable(args []string) int {
	fs := flag.NewFlagSet("table", flag.ContinueOnError)
	runs := fs.Int("runs", 1, "runs per cell")
	backendName := fs.String("backend", "auto", "docker, local, or auto")
	doc := fs.String("doc", "docs/partition-table.md", "the document whose table is rewritten (\"\": none)")
	out := fs.String("out", "results", "results root")
	systems := fs.String("systems", "", "comma-separated systems to run (default all; the others keep their last cells)")
	shapes := fs.String("shapes", "", "comma-separated shapes to run (default all)")
	binary := fs.String("binary", "", "a prebuilt ruvio binary (default: build one)")
	merge := fs.String("merge", "", "comma-separated cells.json files of earlier runs: render them as one table, run nothing")
	t := scenarios.DefaultTiming
	fs.DurationVar(&t.Duration, "duration", t.Duration, "faulty phase of each cell")
	fs.DurationVar(&t.At, "at", t.At, "when the fault starts")
	fs.DurationVar(&t.Hold, "hold", t.Hold, "how long the fault lasts")
	fs.DurationVar(&t.PauseHold, "pause-hold", t.PauseHold, "how long the SIGSTOP lasts (longer than down_after_ms)")
	fs.DurationVar(&t.Settle, "settle", t.Settle, "quiet time before the final reads")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *merge != "" {
		md, broken, err := runner.MergeTables(splitList(*merge), t, *runs, *backendName, *doc)
		return tableDone(md, broken, err, *doc)
	}
	ctx, stop, backend, why, log, ok := session(*backendName)
	if !ok {
		return 2
	}
	defer stop()
	fmt.Printf("chaos table: backend %s (%s), %d run(s) per cell\n", backend.Name(), why, *runs)
	md, broken, err := runner.Table(ctx, runner.TableOptions{Options: runner.Options{Backend: backend, Runs: *runs, Seed: newSeed(),
		Out: *out, Binary: *binary, Progress: os.Stdout, Log: log, LinearizabilityLimit: time.Minute},
		Timing: t, Systems: splitList(*systems), Shapes: splitList(*shapes), Doc: *doc})
	return tableDone(md, broken, err, *doc)
}

// tableDone prints a table run's outcome and returns the exit code.
func tableDone(md string, broken []runner.CellResult, err error, doc string) int {
	if err != nil {
		fmt.Fprintf(os.Stderr, "chaos table: %v\n", err)
		return 1
	}
	fmt.Println()
	fmt.Println(md)
	if doc != "" {
		fmt.Printf("updated %s\n", doc)
	}
	if len(broken) > 0 {
		fmt.Printf("chaos table: %d cell(s) broke a documented promise\n", len(broken))
		return 1
	}
	return 0
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
