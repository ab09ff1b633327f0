package config

import (
	"math"
	"testing"
)

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"1", 1, true},
		{"1048576", 1 << 20, true},
		{"100b", 100, true},
		{"1k", 1000, true},
		{"1kb", 1024, true},
		{"512kb", 512 << 10, true},
		{"10m", 10_000_000, true},
		{"100mb", 100 << 20, true},
		{"1g", 1_000_000_000, true},
		{"1gb", 1 << 30, true},
		{"1GB", 1 << 30, true},
		{"2Mb", 2 << 20, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"8589934591gb", 8589934591 << 30, true},
		{"8589934592gb", 0, false}, // overflows int64
		{"9223372036854775808", 0, false},
		{"", 0, false},
		{"mb", 0, false},
		{"-1", 0, false},
		{"+1", 0, false},
		{"1.5gb", 0, false},
		{"1 mb", 0, false},
		{" 1", 0, false},
		{"1tb", 0, false},
		{"1mib", 0, false},
		{"0x10", 0, false},
	}
	for _, tc := range tests {
		got, err := ParseBytes(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
