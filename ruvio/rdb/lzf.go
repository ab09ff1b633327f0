package rdb

import "errors"

var errLZF = errors.New("rdb: corrupt LZF data")

// lzfDecompress expands LZF data (as liblzf's lzf_decompress) into
// exactly n bytes.
func lzfDecompress(in []byte, n int) ([]byte, error) {
	out := make([]byte, 0, n)
	for ip := 0; ip < len(in); {
		ctrl := int(in[ip])
		ip++
		if ctrl < 32 {
			run := ctrl + 1
			if ip+run > len(in) || len(out)+run > n {
				return nil, errLZF
			}
			out = append(out, in[ip:ip+run]...)
			ip += run
			continue
		}
		length := ctrl >> 5
		if length == 7 {
			if ip >= len(in) {
				return nil, errLZF
			}
			length += int(in[ip])
			ip++
		}
		if ip >= len(in) {
			return nil, errLZF
		}
		ref := len(out) - (ctrl&0x1f)<<8 - 1 - int(in[ip])
		ip++
		length += 2
		if ref < 0 || len(out)+length > n {
			return nil, errLZF
		}
		for i := range length {
			out = append(out, out[ref+i])
		}
	}
	if len(out) != n {
		return nil, errLZF
	}
	return out, nil
}
