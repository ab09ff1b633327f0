package coordinator

import (
	"sync"

	"github.com/ruvio/ruvio/ruvio/glob"
)

// hub delivers Sentinel events to this coordinator's subscribers. The
// channel is the event's name (+switch-master, +sdown, ...), as in
// Sentinel.
type hub struct {
	mu      sync.Mutex
	clients map[*apiConn]struct{}
}

func newHub() *hub { return &hub{clients: map[*apiConn]struct{}{}} }

func (h *hub) add(c *apiConn) {
	h.mu.Lock()
	h.clients[c] = struct{}{}
	h.mu.Unlock()
}

func (h *hub) remove(c *apiConn) {
	h.mu.Lock()
	delete(h.clients, c)
	h.mu.Unlock()
}

func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
		c.nc.Close()
	}
}

// publish sends payload on channel to every subscriber of it or of a
// matching pattern.
func (h *hub) publish(channel, payload string) {
	h.mu.Lock()
	var to []*apiConn
	for c := range h.clients {
		to = append(to, c)
	}
	h.mu.Unlock()
	for _, c := range to {
		c.deliver(channel, payload)
	}
}

// matches lists the patterns of subs matching channel.
func matches(patterns map[string]bool, channel string) []string {
	var out []string
	for p := range patterns {
		if glob.MatchString(p, channel) {
			out = append(out, p)
		}
	}
	return out
}
