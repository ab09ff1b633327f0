// Package slots maps keys to the 16384 hash slots Redis Cluster uses and
// splits the slot space across a node's shards.
package slots

import "strings"

// Count is the number of hash slots (slots 0-16383).
const Count = 16384

// crcTable is the CRC of one byte; crcTable2 the same advanced by one
// more (zero) byte, so that two bytes are folded in per step with two
// independent lookups (the CRC is linear in its input).
var crcTable, crcTable2 [256]uint16

func init() {
	// CRC16-XMODEM (CCITT polynomial 0x1021, initial value 0), the variant
	// Redis Cluster uses, so a key lands in the same slot as on Redis.
	for i := 0; i < 256; i++ {
		crc := uint16(i) << 8
		for j := 0; j < 8; j++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		crcTable[i] = crc
	}
	for i := range crcTable2 {
		t := crcTable[i]
		crcTable2[i] = t<<8 ^ crcTable[t>>8]
	}
}

// CRC16 computes CRC16-XMODEM of b.
func CRC16(b []byte) uint16 { return crc16(b) }

func crc16[T string | []byte](b T) uint16 {
	var crc uint16
	for len(b) >= 2 {
		crc = crcTable2[byte(crc>>8)^b[0]] ^ crcTable[byte(crc)^b[1]]
		b = b[2:]
	}
	if len(b) == 1 {
		crc = crc<<8 ^ crcTable[byte(crc>>8)^b[0]]
	}
	return crc
}

// HashTag returns the part of key that is hashed: the text between the
// first '{' and the next '}' when that is non-empty, else the whole key.
func HashTag(key []byte) []byte { return hashTag(key) }

func hashTag[T string | []byte](key T) T {
	// The conversions to string do not copy: neither result outlives the
	// call.
	if i := strings.IndexByte(string(key), '{'); i >= 0 {
		if j := strings.IndexByte(string(key[i+1:]), '}'); j > 0 {
			return key[i+1 : i+1+j]
		}
	}
	return key
}

// Of returns the slot of key.
func Of(key []byte) int { return int(crc16(hashTag(key)) % Count) }

// OfString returns the slot of a key held as a string, without copying it.
func OfString(key string) int { return int(crc16(hashTag(key)) % Count) }

// Range is an inclusive range of slots.
type Range struct{ First, Last int }

// Split divides the slot space into n contiguous ranges, one per shard, the
// first Count%n shards taking one slot more.
func Split(n int) []Range {
	out := make([]Range, n)
	per, extra := Count/n, Count%n
	next := 0
	for i := range out {
		size := per
		if i < extra {
			size++
		}
		out[i] = Range{First: next, Last: next + size - 1}
		next += size
	}
	return out
}

// Owner returns the index of the shard that owns slot when the slot space
// is split across n shards as Split does.
func Owner(slot, n int) int {
	per, extra := Count/n, Count%n
	big := extra * (per + 1)
	if slot < big {
		return slot / (per + 1)
	}
	return extra + (slot-big)/per
}
