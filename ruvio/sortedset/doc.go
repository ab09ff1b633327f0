// Package sortedset implements the ordered (member, score) collection behind
// Redis sorted sets: a span-counting skiplist plus a member index, with no I/O.
package sortedset
