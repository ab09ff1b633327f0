package repl

import "time"

// GateInterval is how often a primary checks its write-safety gates
// (min-replicas-to-write, and the primary lease), never per command
// (N-GATE-2, N-LEASE-10).
const GateInterval = 100 * time.Millisecond

// GoodReplicas counts the replicas whose last acknowledgement (Unix ms in
// ackAtMs) is at most maxLagS seconds old at nowMs. Counting in
// milliseconds rather than Redis's whole seconds keeps the promise that a
// refusal begins within maxLag + 0.1 s of the last needed acknowledgement
// (N-GATE-2).
func GoodReplicas(ackAtMs []int64, nowMs int64, maxLagS int) int {
	n := 0
	for _, t := range ackAtMs {
		if nowMs-t <= int64(maxLagS)*1000 {
			n++
		}
	}
	return n
}

// RefuseWrites reports whether a primary with good replicas must refuse
// writes under min-replicas-to-write minReplicas (0: never, N-CFG-5).
func RefuseWrites(minReplicas, good int) bool {
	return minReplicas > 0 && good < minReplicas
}

// NextExpiry is the first instant after nowMs (Unix ms) at which one of
// the replicas acknowledged at ackAtMs stops counting as good, or 0 when
// none will: the gate checks again then, so a refusal does not wait for
// the next tick.
func NextExpiry(ackAtMs []int64, nowMs int64, maxLagS int) int64 {
	var next int64
	for _, t := range ackAtMs {
		if at := t + int64(maxLagS)*1000 + 1; at > nowMs && (next == 0 || at < next) {
			next = at
		}
	}
	return next
}
