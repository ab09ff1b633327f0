package operator

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// probeTimeout bounds each network step of the operator's commands. A
// paused node makes them time out, which the operator treats as a node it
// cannot read.
const probeTimeout = time.Second

// probe keeps one client per shard address, so that polling every 20 ms
// does not dial every time.
type probe struct {
	mu      sync.Mutex
	clients map[string]*redis.Client
	closed  bool
	tls     *tls.Config
}

// newProbe dials the nodes with cfg (nil: plain TCP).
func newProbe(cfg *tls.Config) *probe { return &probe{clients: map[string]*redis.Client{}, tls: cfg} }

func (p *probe) client(addr string) (*redis.Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("operator: closed")
	}
	if c := p.clients[addr]; c != nil {
		return c, nil
	}
	c := redis.NewClient(&redis.Options{
		Addr: addr, Protocol: 2, DisableIdentity: true,
		// A command is sent once: REPLICAOF retried behind the operator's
		// back could land after a later one.
		MaxRetries: -1, DialerRetries: 1, PoolSize: 1,
		DialTimeout: probeTimeout, ReadTimeout: probeTimeout, WriteTimeout: probeTimeout, PoolTimeout: probeTimeout,
		TLSConfig: p.tls,
	})
	p.clients[addr] = c
	return c, nil
}

// forget drops addr's client after a failure, so the next call dials
// afresh instead of waiting out go-redis's dial back-off (a node that just
// restarted is then seen at once).
func (p *probe) forget(addr string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.clients[addr]; c != nil {
		c.Close()
		delete(p.clients, addr)
	}
}

func (p *probe) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for addr, c := range p.clients {
		c.Close()
		delete(p.clients, addr)
	}
}

// do sends one command to addr and returns its reply.
func (p *probe) do(ctx context.Context, addr string, args ...any) (any, error) {
	c, err := p.client(addr)
	if err != nil {
		return nil, err
	}
	v, err := c.Do(ctx, args...).Result()
	if err != nil {
		// An error reply leaves the connection good; anything else may
		// not have.
		var re redis.Error
		if !errors.As(err, &re) {
			p.forget(addr)
		}
		return nil, fmt.Errorf("%s %s: %w", strings.ToUpper(fmt.Sprint(args[0])), addr, err)
	}
	return v, nil
}

// info reads INFO replication from every shard address.
func (p *probe) info(ctx context.Context, addrs []string) ([]ShardInfo, error) {
	out := make([]ShardInfo, len(addrs))
	for i, a := range addrs {
		v, err := p.do(ctx, a, "INFO", "replication")
		if err != nil {
			return nil, err
		}
		text, _ := v.(string)
		if out[i], err = ParseInfo(text); err != nil {
			return nil, fmt.Errorf("shard %d at %s: %w", i, a, err)
		}
	}
	return out, nil
}

// replicaOf sends REPLICAOF host port (or NO ONE for primary "") to the
// node at addr and expects OK.
func (p *probe) replicaOf(ctx context.Context, addr, primary string) error {
	args := []any{"REPLICAOF", "NO", "ONE"}
	if primary != "" {
		host, port, err := net.SplitHostPort(primary)
		if err != nil {
			return err
		}
		args = []any{"REPLICAOF", host, port}
	}
	v, err := p.do(ctx, addr, args...)
	if err != nil {
		return err
	}
	if s, _ := v.(string); !strings.HasPrefix(s, "OK") {
		return fmt.Errorf("REPLICAOF %s answered %v", addr, v)
	}
	return nil
}

// digest reads RUVIO DIGEST.
func (p *probe) digest(ctx context.Context, addr string) (string, error) {
	v, err := p.do(ctx, addr, "RUVIO", "DIGEST")
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok || s == "" {
		return "", fmt.Errorf("RUVIO DIGEST %s answered %v", addr, v)
	}
	return s, nil
}
