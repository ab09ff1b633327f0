package rdb

import (
	"encoding/binary"
	"errors"
)

// opFunction2 is the RDB opcode of one function library (Redis 7.0's
// RDB_OPCODE_FUNCTION2): the library's code as an RDB string follows.
const opFunction2 = 245

// EncodeFunctions serializes function libraries, given by their codes,
// as FUNCTION DUMP does: each an opcode and its code, then the RDB
// version and the CRC64 of everything before it.
func EncodeFunctions(codes []string) []byte {
	var b []byte
	for _, c := range codes {
		b = append(b, opFunction2)
		b = appendString(b, []byte(c))
	}
	b = binary.LittleEndian.AppendUint16(b, Version)
	return binary.LittleEndian.AppendUint64(b, CRC64(b))
}

// ErrNotFunctions is returned by DecodeFunctions for a verified payload
// holding something other than libraries.
var ErrNotFunctions = errors.New("rdb: payload holds something other than function libraries")

// DecodeFunctions reads the library codes of a FUNCTION DUMP payload,
// Redis's or ruvio's; a bad footer is ErrBadPayload.
func DecodeFunctions(p []byte) ([]string, error) {
	if err := Verify(p); err != nil {
		return nil, err
	}
	d := &decoder{b: p[:len(p)-10]}
	var codes []string
	for len(d.b) > 0 && d.err == nil {
		if d.byte() != opFunction2 {
			return nil, ErrNotFunctions
		}
		codes = append(codes, string(d.str()))
	}
	if d.err != nil {
		return nil, d.err
	}
	return codes, nil
}
