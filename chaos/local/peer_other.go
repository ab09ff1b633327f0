//go:build !linux

package local

import (
	"errors"
	"net"
)

// socketOwner needs Linux's /proc: elsewhere the inbound addresses cannot
// tell which member opened a connection, and treat every connection as
// the harness's (cuts of coordinator and replication links then do not
// reach them).
func socketOwner(conn net.Conn, pids map[int]string) (string, error) {
	return "", errors.New("telling the member behind a connection needs Linux's /proc")
}
