package acl

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
)

// MaxGenPassBits is the most bits ACL GENPASS hands out, Redis's limit.
const MaxGenPassBits = 4096

// ErrGenPassBits is Redis's reply to ACL GENPASS with a bit count out of
// range.
var ErrGenPassBits = errors.New("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")

// GeneratePassword returns ACL GENPASS's password: bits random bits as
// lower-case hex, rounded up to whole hex digits as Redis rounds them (5
// bits give two digits), read from crypto/rand so that the passwords are
// fit to protect a server.
func GeneratePassword(bits int64) (string, error) {
	if bits <= 0 || bits > MaxGenPassBits {
		return "", ErrGenPassBits
	}
	digits := (bits + 3) / 4
	buf := make([]byte, (digits+1)/2)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	return hex.EncodeToString(buf)[:digits], nil
}
