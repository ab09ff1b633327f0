package main

import (
	"net"
	"testing"
)

// busy returns a free func that treats the listed ports as taken.
func busy(ports ...int) func(int) bool {
	taken := map[int]bool{}
	for _, p := range ports {
		taken[p] = true
	}
	return func(p int) bool { return !taken[p] }
}

func TestFindFreeRange(t *testing.T) {
	tests := []struct {
		name         string
		start, width int
		busy         []int
		want         int
		wantErr      bool
	}{
		{"all free", 7300, 1, nil, 7300, false},
		{"first taken", 7300, 1, []int{7300}, 7301, false},
		{"range needs gap", 7300, 2, []int{7301}, 7302, false},
		{"range skips several", 7300, 3, []int{7300, 7303, 7305}, 7306, false},
		{"fits between", 7300, 2, []int{7302}, 7300, false},
		{"top of range", 65534, 2, nil, 65534, false},
		{"past the top", 65535, 2, nil, 0, true},
		{"all taken at top", 65530, 1, []int{65530, 65531, 65532, 65533, 65534, 65535}, 0, true},
		{"zero width", 7300, 0, nil, 0, true},
		{"start below one", 0, 1, nil, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := findFreeRange(tt.start, tt.width, busy(tt.busy...))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("findFreeRange(%d, %d) = %d, %v; want %d, err=%v", tt.start, tt.width, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestPortAllocatorNeverReuses(t *testing.T) {
	a := &portAllocator{next: 7300, free: busy(7302)}
	var got []int
	for _, w := range []int{2, 1, 2, 1} {
		p, err := a.take(w)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
	}
	// 7300-7301 (ruvio, 2 shards), 7302 busy so redis gets 7303, then
	// 7304-7305 and 7306.
	want := []int{7300, 7303, 7304, 7306}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestPortFree(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	if portFree(port) {
		t.Errorf("portFree(%d) = true while we listen on it", port)
	}
	ln.Close()
	if !portFree(port) {
		t.Errorf("portFree(%d) = false after closing the listener", port)
	}
}
