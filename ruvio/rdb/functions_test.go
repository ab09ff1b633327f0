package rdb

import (
	"encoding/hex"
	"testing"
)

func TestFunctionsRoundTrip(t *testing.T) {
	codes := []string{"#!lua name=a\nredis.register_function('f', function() return 1 end)", "#!lua name=b\n"}
	got, err := DecodeFunctions(EncodeFunctions(codes))
	if err != nil || len(got) != 2 || got[0] != codes[0] || got[1] != codes[1] {
		t.Fatalf("round trip: %q, %v", got, err)
	}
	if got, err := DecodeFunctions(EncodeFunctions(nil)); err != nil || len(got) != 0 {
		t.Fatalf("empty: %q, %v", got, err)
	}
}

func TestFunctionsDecodeRedis(t *testing.T) {
	// FUNCTION DUMP of redis-server 7.0 after
	// FUNCTION LOAD "#!lua name=mylib\nredis.register_function('myfunc', function() return 1 end)".
	p, err := hex.DecodeString(redisFunctionDump)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeFunctions(p)
	if err != nil || len(got) != 1 || got[0] != "#!lua name=mylib\nredis.register_function('myfunc', function() return 1 end)" {
		t.Fatalf("decode: %q, %v", got, err)
	}
	bad := append([]byte(nil), p...)
	bad[len(bad)-1] ^= 1
	if _, err := DecodeFunctions(bad); err != ErrBadPayload {
		t.Fatalf("bad checksum: %v", err)
	}
}

const redisFunctionDump = "f5404b23216c7561206e616d653d6d796c69620a72656469732e72656769737465725f66756e6374696f6e28276d7966756e63272c2066756e6374696f6e28292072657475726e203120656e64290a00599158d941bacf60"
