package server

import "net"

// errProtected is what a client refused by protected mode reads before
// the connection closes. The first two sentences are Redis's, which
// client libraries and operators recognise; the remedies are ruvio's.
const errProtected = "-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. " +
	"In this mode connections are only accepted from the loopback interface. " +
	"If you want to connect from external computers to ruvio you may adopt one of the following solutions: " +
	"1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting from the same host the node is running on, " +
	"however MAKE SURE the node is not publicly accessible from internet if you do so. " +
	"2) Alternatively set protected_mode = false in the configuration file (or RUVIO_PROTECTED_MODE=no) and restart the node. " +
	"3) Set up a password for the default user (auth in the configuration file, or CONFIG SET requirepass). " +
	"NOTE: You only need to do one of the above things in order for the node to start accepting connections from the outside.\r\n"

// refusedByProtectedMode reports whether a client connecting from remote
// is refused: protected mode is on, the default user takes no password,
// and the client is not on the loopback interface. Redis decides the same
// way, whatever the bind address.
func refusedByProtectedMode(protected, defaultNoPass bool, remote net.Addr) bool {
	if !protected || !defaultNoPass {
		return false
	}
	tcp, ok := remote.(*net.TCPAddr)
	return !ok || !tcp.IP.IsLoopback()
}
