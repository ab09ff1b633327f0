package server

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"testing"

	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/resp"
)

// The cost of the command path under a pipelined load, in one process:
// one connection sends batches of 16 commands over loopback and reads
// their replies. ns/op and allocs/op are per command and count both ends,
// but the client's end allocates nothing (its batches are built once), so
// allocs/op is the server's.
//
//	go test -run '^$' -bench Pipelined -benchmem ./ruvio/server
func BenchmarkPipelined(b *testing.B) {
	for _, bc := range []struct {
		name   string
		cmd    func(i int) []string
		shards int
	}{
		{name: "SET", cmd: setCmd},
		// Two shards: every command is routed by its key's slot, and
		// about half run on the shard whose port they did not come in on.
		{name: "SET-2shards", cmd: setCmd, shards: 2},
		{name: "GET", cmd: func(i int) []string { return []string{"GET", fmt.Sprintf("key:%012d", i)} }},
		{name: "INCR", cmd: func(i int) []string { return []string{"INCR", "counter"} }},
		{name: "LPUSH", cmd: func(i int) []string { return []string{"LPUSH", "list", "xxx"} }},
		{name: "HSET", cmd: func(i int) []string {
			return []string{"HSET", fmt.Sprintf("hash:%d", i%1000), fmt.Sprintf("f%d", i%10), "xxx"}
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := startServer(b, func(c *config.Config) { c.Shards = max(bc.shards, 1) })
			nc, err := net.Dial("tcp", s.Addr(0))
			if err != nil {
				b.Fatal(err)
			}
			defer nc.Close()
			const depth, keys = 16, 10000
			batches := make([][]byte, keys/depth)
			for i := range batches {
				batches[i] = encodeBatch(i*depth, depth, bc.cmd)
			}
			// Every key exists before the timing starts, so GET finds
			// its value and SET replaces one.
			br := bufio.NewReaderSize(nc, 64<<10)
			for i := range batches {
				if _, err := nc.Write(encodeBatch(i*depth, depth, setCmd)); err != nil {
					b.Fatal(err)
				}
				if err := skipReplies(br, depth); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for n := 0; n < b.N; n += depth {
				batch := batches[(n/depth)%len(batches)]
				if _, err := nc.Write(batch); err != nil {
					b.Fatal(err)
				}
				if err := skipReplies(br, depth); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// setCmd is the benchmark's i-th SET: of its i-th key, the key GET reads.
func setCmd(i int) []string { return []string{"SET", fmt.Sprintf("key:%012d", i), "xxx"} }

// encodeBatch encodes cmd(first) .. cmd(first+n-1) as one pipeline.
func encodeBatch(first, n int, cmd func(i int) []string) []byte {
	var buf bytes.Buffer
	w := resp.NewWriter(&buf)
	for i := first; i < first+n; i++ {
		args := cmd(i)
		w.Array(len(args))
		for _, a := range args {
			w.BulkString(a)
		}
	}
	w.Flush()
	return buf.Bytes()
}

// skipReplies reads n replies, each a simple line or one bulk string,
// without allocating.
func skipReplies(br *bufio.Reader, n int) error {
	for i := 0; i < n; i++ {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		switch line[0] {
		case '+', ':':
		case '$':
			size := 0
			for _, c := range line[1 : len(line)-2] {
				size = size*10 + int(c-'0')
			}
			if _, err := br.Discard(size + 2); err != nil {
				return err
			}
		default:
			return fmt.Errorf("reply %q", line)
		}
	}
	return nil
}
