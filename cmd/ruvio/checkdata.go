package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/ruvio/snapshot"
	"github.com/ruvio/ruvio/ruvio/wal"
)

// runCheckData is `ruvio check-data`: it verifies every shard's snapshots
// and log without changing anything, and with --truncate-at FILE:OFFSET
// repairs a damaged log by cutting it there (every later record is lost,
// and the report says which files went). Exit status: 0 clean, 1 problems
// found (or the repair failed), 2 usage.
func runCheckData(args []string, out io.Writer) int {
	fs := flag.NewFlagSet("check-data", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dataDir := fs.String("data-dir", "./data", "the node's data directory")
	shard := fs.Int("shard", 0, "the shard whose log --truncate-at repairs")
	truncateAt := fs.String("truncate-at", "", "repair: cut the shard's log at FILE:OFFSET (a segment file name and byte offset from the report)")
	if err := fs.Parse(args); err != nil {
		return usageError(err, func(w io.Writer) {
			fmt.Fprintln(w, "Usage: ruvio check-data [--data-dir DIR] [--shard N --truncate-at FILE:OFFSET]")
			fs.SetOutput(w)
			fs.PrintDefaults()
		})
	}
	if *truncateAt != "" {
		return truncate(out, *dataDir, *shard, *truncateAt)
	}
	dirs, _ := filepath.Glob(filepath.Join(*dataDir, "shard-*"))
	if len(dirs) == 0 {
		fmt.Fprintf(out, "no shard directories under %s\n", *dataDir)
		return 1
	}
	sort.Strings(dirs)
	bad := false
	for _, dir := range dirs {
		if !checkShard(out, dir) {
			bad = true
		}
	}
	if bad {
		fmt.Fprintln(out, "problems found; see above. A damaged log is repaired with: ruvio check-data --data-dir DIR --shard N --truncate-at FILE:OFFSET (records from that offset on are lost)")
		return 1
	}
	fmt.Fprintln(out, "all shards clean")
	return 0
}

func checkShard(out io.Writer, dir string) bool {
	ok := true
	fmt.Fprintf(out, "%s:\n", dir)
	seqs, err := snapshot.List(dir)
	if err != nil {
		fmt.Fprintf(out, "  snapshots: %v\n", err)
		ok = false
	}
	for _, seq := range seqs {
		path := filepath.Join(dir, snapshot.FileName(seq))
		h, n, err := snapshot.Verify(path)
		if err != nil {
			fmt.Fprintf(out, "  snapshot %s: %v\n", filepath.Base(path), err)
			ok = false
			continue
		}
		fmt.Fprintf(out, "  snapshot %s: seq %d, epoch %d, %d entries, ok\n", filepath.Base(path), h.Seq, h.Epoch, n)
	}
	walDir := filepath.Join(dir, "wal")
	if _, err := os.Stat(walDir); err != nil {
		fmt.Fprintln(out, "  log: none")
		return ok
	}
	r, err := wal.Check(walDir)
	if err != nil {
		fmt.Fprintf(out, "  log: %v\n", err)
		return false
	}
	for _, s := range r.Segments {
		room := ""
		if s.Room > 0 {
			room = fmt.Sprintf(" (%d of them preallocated room after the last record)", s.Room)
		}
		fmt.Fprintf(out, "  segment %s: %d records, seq %d-%d, %d bytes%s\n", s.Name, s.Records, s.First, s.Last, s.Bytes, room)
	}
	switch {
	case r.Problem == nil:
		fmt.Fprintf(out, "  log: %d records, seq %d-%d, ok\n", r.Records, r.First, r.Last)
	case r.TornTail:
		fmt.Fprintf(out, "  log: torn tail in %s at offset %d (%s): the next start cuts it off\n", r.Problem.File, r.Problem.Offset, r.Problem.Reason)
	default:
		fmt.Fprintf(out, "  log: CORRUPT in %s at offset %d: %s\n", filepath.Base(r.Problem.File), r.Problem.Offset, r.Problem.Reason)
		ok = false
	}
	return ok
}

func truncate(out io.Writer, dataDir string, shard int, at string) int {
	file, offStr, found := strings.Cut(at, ":")
	off, err := strconv.ParseInt(offStr, 10, 64)
	if !found || err != nil || off < 0 {
		fmt.Fprintf(out, "--truncate-at wants FILE:OFFSET, got %q\n", at)
		return 2
	}
	walDir := filepath.Join(dataDir, fmt.Sprintf("shard-%d", shard), "wal")
	removed, err := wal.TruncateAt(walDir, filepath.Base(file), off)
	if err != nil {
		fmt.Fprintf(out, "repair failed: %v\n", err)
		return 1
	}
	fmt.Fprintf(out, "cut %s at offset %d; removed later segments: %v\n", filepath.Base(file), off, removed)
	return 0
}
