package config

// ThreadsFor is the GOMAXPROCS a node runs with on a machine where Go
// would use cpus threads: Threads when set, else one per shard, plus
// one when writes wait for the log (everysec, always, snapshot) so that
// an fsync, which holds its thread until the runtime notices, never
// stops the shards; never more than cpus. always, which syncs after
// every turn of writes, gets one more beyond cpus, left idle: the
// runtime's monitor takes a processor back from a system call (an
// fsync) only when none is idle, and once it has, it wakes every 20 µs
// for the next millisecond, which with an fsync every millisecond or
// two never ends (sysmon was 11% of an INCR -P 16 profile with two
// threads, 1% with three; the idle one costs 6% in wake-ups that find
// nothing, so the rate rose about 10%).
//
// One thread per shard is how Redis runs, one thread per process. Every
// command of a shard runs under its lock, so more threads than shards buy
// only parsing and socket calls in parallel, and they cost: the runtime's
// idle threads spin looking for work and goroutines move between them.
// Measured with redis-benchmark on the same two-CPU machine as the node
// (memory, one shard, 50 clients), one thread served -P 1 about a third
// faster than two, and -P 16 no slower.
func (c *Config) ThreadsFor(cpus int) int {
	if c.Threads > 0 {
		return c.Threads
	}
	n := c.Shards
	if c.Durability != DurabilityMemory {
		n++
	}
	n = max(1, min(n, cpus))
	if c.Durability == DurabilityAlways && cpus > 1 {
		n++
	}
	return n
}
