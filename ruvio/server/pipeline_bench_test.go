package server

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"testing"
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
		name string
		cmd  func(i int) []string
	}{
		{"SET", func(i int) []string { return []string{"SET", fmt.Sprintf("key:%012d", i), "xxx"} }},
		{"GET", func(i int) []string { return []string{"GET", fmt.Sprintf("key:%012d", i)} }},
		{"INCR", func(i int) []string { return []string{"INCR", "counter"} }},
		{"LPUSH", func(i int) []string { return []string{"LPUSH", "list", "xxx"} }},
		{"HSET", func(i int) []string {
			return []string{"HSET", fmt.Sprintf("hash:%d", i%1000), fmt.Sprintf("f%d", i%10), "xxx"}
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := startServer(b, nil)
			nc, err := net.Dial("tcp", s.Addr(0))
			if err != nil {
				b.Fatal(err)
			}
			defer nc.Close()
			const depth, keys = 16, 10000
			// Every key exists before the timing starts, so GET finds
			// its value and SET replaces one.
			batches := make([][]byte, keys/depth)
			for i := range batches {
				var buf bytes.Buffer
				for j := 0; j < depth; j++ {
					args := bc.cmd(i*depth + j)
					fmt.Fprintf(&buf, "*%d\r\n", len(args))
					for _, a := range args {
						fmt.Fprintf(&buf, "$%d\r\n%s\r\n", len(a), a)
					}
				}
				batches[i] = buf.Bytes()
			}
			br := bufio.NewReaderSize(nc, 64<<10)
			for i := range batches {
				if _, err := nc.Write([]byte(setBatch(i*depth, depth))); err != nil {
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

// setBatch is n SETs of the keys the benchmark uses, from the first.
func setBatch(first, n int) string {
	var buf bytes.Buffer
	for i := first; i < first+n; i++ {
		k := fmt.Sprintf("key:%012d", i)
		fmt.Fprintf(&buf, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$3\r\nxxx\r\n", len(k), k)
	}
	return buf.String()
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
