// Package sortedset implements the ordered (member, score) collection behind
// Redis sorted sets, with no I/O: small sets in one compact buffer, as
// Redis's listpack, and larger ones in a span-counting skiplist plus a
// member index.
package sortedset
