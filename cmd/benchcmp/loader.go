package main

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// The data shapes the memory and recovery tables load. Every key holds
// one of them; the loader writes exactly n keys, so DBSIZE must say n.
const (
	shapeStrings = "strings"
	shapeHashes  = "hashes"
	shapeZsets   = "zsets"
)

// memoryKinds lists the shapes of the memory table in its default order.
var memoryKinds = []string{shapeStrings, shapeHashes, shapeZsets}

const (
	// loadValue is every string's value and every hash field's value:
	// 16 bytes.
	loadValue = "vvvvvvvvvvvvvvvv"
	// loadFields is how many fields each hash and members each sorted
	// set gets.
	loadFields = 10
	// loadBatch is how many commands the loader sends per round trip.
	loadBatch = 1000
	// loadReplyTimeout bounds one batch's round trip; an always
	// profile fsyncs within it.
	loadReplyTimeout = 60 * time.Second
)

// parseMemoryKinds parses the comma-separated --memory list, keeping the
// order and dropping duplicates.
func parseMemoryKinds(s string) ([]string, error) {
	return uniqueList(splitList(s), func(f string) (string, error) {
		for _, k := range memoryKinds {
			if f == k {
				return f, nil
			}
		}
		return "", fmt.Errorf("unknown shape %q (want some of %s,%s,%s)", f, shapeStrings, shapeHashes, shapeZsets)
	}, "empty list")
}

// appendLoadCommand appends the command that writes key number i of shape
// to b: SET key:<i> <16 bytes>, HSET hash:<i> f0 <16 bytes> ... f9, or
// ZADD zset:<i> 0 m0 ... 9 m9. Keys are 12-digit numbers, like
// redis-benchmark's.
func appendLoadCommand(b []byte, shape string, i int) []byte {
	switch shape {
	case shapeHashes:
		b = append(b, '*')
		b = strconv.AppendInt(b, 2+2*loadFields, 10)
		b = append(b, "\r\n$4\r\nHSET\r\n"...)
		b = appendBulk(b, loadKeyName("hash:", i))
		for f := range loadFields {
			b = appendBulk(b, "f"+strconv.Itoa(f))
			b = appendBulk(b, loadValue)
		}
	case shapeZsets:
		b = append(b, '*')
		b = strconv.AppendInt(b, 2+2*loadFields, 10)
		b = append(b, "\r\n$4\r\nZADD\r\n"...)
		b = appendBulk(b, loadKeyName("zset:", i))
		for m := range loadFields {
			b = appendBulk(b, strconv.Itoa(m))
			b = appendBulk(b, "m"+strconv.Itoa(m))
		}
	default:
		b = append(b, "*3\r\n$3\r\nSET\r\n"...)
		b = appendBulk(b, loadKeyName("key:", i))
		b = appendBulk(b, loadValue)
	}
	return b
}

// loadKeyName is prefix and i as 12 digits.
func loadKeyName(prefix string, i int) string {
	return fmt.Sprintf("%s%012d", prefix, i)
}

// loadKeys writes n keys of shape to addr over one connection, loadBatch
// commands per round trip, and checks every reply. It then checks that
// DBSIZE is n: the tables divide by it.
func loadKeys(ctx context.Context, addr, shape string, n int) error {
	c, err := dialRESP(ctx, addr)
	if err != nil {
		return err
	}
	defer c.close()
	stop := context.AfterFunc(ctx, c.close)
	defer stop()
	var buf []byte
	for start := 0; start < n; start += loadBatch {
		end := min(start+loadBatch, n)
		buf = buf[:0]
		for i := start; i < end; i++ {
			buf = appendLoadCommand(buf, shape, i)
		}
		if err := c.conn.SetDeadline(time.Now().Add(loadReplyTimeout)); err != nil {
			return err
		}
		if _, err := c.conn.Write(buf); err != nil {
			return loadErr(ctx, err)
		}
		for i := start; i < end; i++ {
			if _, err := readReply(c.r); err != nil {
				return loadErr(ctx, fmt.Errorf("loading %s key %d: %w", shape, i, err))
			}
		}
	}
	return checkDBSize(c, n)
}

// loadErr prefers the interruption to the broken connection it caused.
func loadErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

// checkDBSize checks that the server holds exactly n keys.
func checkDBSize(c *respConn, n int) error {
	r, err := c.do("DBSIZE")
	if err != nil {
		return fmt.Errorf("DBSIZE: %w", err)
	}
	if r.Int != int64(n) {
		return fmt.Errorf("DBSIZE is %d, want %d", r.Int, n)
	}
	return nil
}

// dbSize asks addr for DBSIZE on a connection of its own.
func dbSize(ctx context.Context, addr string) (int64, error) {
	c, err := dialRESP(ctx, addr)
	if err != nil {
		return 0, err
	}
	defer c.close()
	r, err := c.do("DBSIZE")
	return r.Int, err
}
