package config

import "testing"

func TestThreadsFor(t *testing.T) {
	tests := []struct {
		threads, shards int
		durability      string
		cpus, want      int
	}{
		{0, 1, DurabilityMemory, 2, 1},
		{0, 1, DurabilityMemory, 1, 1},
		{0, 1, DurabilityAlways, 2, 3}, // one idle for the monitor
		{0, 1, DurabilityEverysec, 8, 2},
		{0, 1, DurabilitySnapshot, 8, 2},
		{0, 1, DurabilityAlways, 1, 1},
		{0, 4, DurabilityMemory, 8, 4},
		{0, 4, DurabilityAlways, 8, 6},
		{0, 16, DurabilityMemory, 8, 8},
		{0, 16, DurabilityAlways, 8, 9},
		{3, 1, DurabilityMemory, 2, 3},
		{1, 4, DurabilityAlways, 8, 1},
	}
	for _, tt := range tests {
		c := Default()
		c.Threads, c.Shards, c.Durability = tt.threads, tt.shards, tt.durability
		if got := c.ThreadsFor(tt.cpus); got != tt.want {
			t.Errorf("threads %d, %d shards, %s, %d CPUs: %d threads, want %d", tt.threads, tt.shards, tt.durability, tt.cpus, got, tt.want)
		}
	}
}
