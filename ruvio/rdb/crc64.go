// Package rdb reads and writes single values in Redis's serialized form,
// the payload of DUMP and RESTORE: an RDB type byte, the value's RDB
// encoding, the two-byte RDB version and a CRC-64 (Jones) of all that.
// It reads the encodings Redis 7 emits (listpack, quicklist, intset,
// ziplist, integer and LZF-compressed strings) and writes the plain ones
// every Redis 7 loads.
package rdb

// jonesTable is the table of the reflected CRC-64 with Jones's
// polynomial (0xad93d23594c935a9, reflected 0x95ac9329ac4bc9b5), which
// Redis uses with a zero initial value and no final XOR.
var jonesTable = func() *[256]uint64 {
	const poly = 0x95ac9329ac4bc9b5
	var t [256]uint64
	for i := range t {
		crc := uint64(i)
		for range 8 {
			if crc&1 == 1 {
				crc = crc>>1 ^ poly
			} else {
				crc >>= 1
			}
		}
		t[i] = crc
	}
	return &t
}()

// CRC64 is Redis's crc64(0, p).
func CRC64(p []byte) uint64 {
	var crc uint64
	for _, b := range p {
		crc = jonesTable[byte(crc)^b] ^ crc>>8
	}
	return crc
}
