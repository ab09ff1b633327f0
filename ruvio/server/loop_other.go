//go:build !linux

package server

// Event loops need epoll: elsewhere every client has a goroutine.
type eventLoop struct{}

func (s *Server) startLoops(n int) error { return nil }
func (s *Server) stopLoops()             {}
func (s *Server) adopt(c *conn) bool     { return false }
func (s *Server) loopClients() int       { return 0 }
