//go:build !linux

package replication

import (
	"io"
	"net"
)

// linkIO is the connection itself where raw socket calls are not used.
func linkIO(nc net.Conn) io.ReadWriter { return nc }
