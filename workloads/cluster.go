package workloads

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/client"
)

// Cluster mode (Spec.Via == ViaCluster): each client is a go-redis
// ClusterClient seeded with targets(), which reads the slot map (CLUSTER
// SLOTS), sends each key to the primary of the group that owns its slot,
// follows MOVED, retries TRYAGAIN (a slot move's frozen range) for up to
// 635 ms, and reloads the map as soon as a node cannot be reached
// (client.FollowClusterFailovers). The same workloads then run on keys
// that several groups serve.
//
// What the history must still show:
//
//   - Which node served an op: a hook on every node's client notes, per
//     key, the address each command on it was last sent to; the op
//     records that address (Op.Node).
//   - No hidden retries. A ClusterClient retries a command after MOVED,
//     READONLY or a failed dial (the server did not do it: safe), but
//     also after a timeout, a connection lost mid-reply or NOREPLICAS
//     (CLIENT DURABILITY's leaves the write applied), which could apply
//     a write twice and hold the op through several waits. The hook
//     refuses to send a command again once an attempt of it ended that
//     way: the client gets that attempt's error back as the op's.
//   - Refused against indeterminate. Several nodes' connections share one
//     client here, and its map reloads dial in the background, so the
//     single-connection "ready" flag cannot say whether this op's
//     command was written; a cluster client calls an op refused (fail)
//     only on the server's error reply, its own failed dial or a pool
//     timeout, and indeterminate (info) otherwise.
//
// Batches and WAIT are refused in cluster mode: a pipeline spans groups
// and a WAIT names no key, so neither has one node to answer for it.

// ViaCluster is Spec.Via for clients that are cluster clients.
const ViaCluster = "cluster"

// clusterRedirects bounds the MOVED and dial retries of one command.
const clusterRedirects = 4

// clusterState is what a cluster conn's hooks note.
type clusterState struct {
	mu sync.Mutex
	// served is the address each key's last command went to.
	served map[string]string
	// unsure are the commands an attempt of which may have been applied.
	unsure map[redis.Cmder]error
}

// newClusterConn makes a cluster client over seeds with spec's timeouts
// and durability, one connection per node.
func newClusterConn(seeds []string, spec Spec) *conn {
	c := &conn{cluster: &clusterState{served: map[string]string{}, unsure: map[redis.Cmder]error{}}}
	d := &net.Dialer{Timeout: spec.Timeout}
	cc := redis.NewClusterClient(&redis.ClusterOptions{
		// Each client gets its own copy: go-redis keeps Addrs as the
		// start of its list of known nodes and appends the nodes it
		// learns to it, so clients made from one slice with room to
		// spare would write into the same array.
		Addrs:           slices.Clone(seeds),
		Protocol:        2,
		DisableIdentity: true,
		MaxRedirects:    clusterRedirects,
		// A retry the hook ends at once, or of a refused dial, need not
		// wait long: the workload's own back-off is failBackoff.
		MinRetryBackoff: time.Millisecond,
		MaxRetryBackoff: failBackoff,
		MaxRetries:      -1,
		DialerRetries:   1,
		DialTimeout:     spec.Timeout,
		ReadTimeout:     spec.Timeout,
		WriteTimeout:    spec.Timeout,
		PoolTimeout:     spec.Timeout,
		PoolSize:        1,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return dial(ctx, d, spec.TLS, network, addr)
		},
		OnConnect: c.onConnect(spec),
	})
	cc.OnNewNode(func(node *redis.Client) { node.AddHook(clusterHook{st: c.cluster, addr: node.Options().Addr}) })
	// A slot move's frozen range answers TRYAGAIN for a moment: each
	// node's client retries it (client.RetryClusterTryAgain), and the
	// MOVED that ends it is followed as any other.
	c.rdb = client.FollowClusterFailovers(client.RetryClusterTryAgain(cc))
	return c
}

// clusterHook is one node's hook of a cluster conn.
type clusterHook struct {
	st   *clusterState
	addr string
}

func (h clusterHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h clusterHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if err := h.before(cmd); err != nil {
			cmd.SetErr(err)
			return err
		}
		err := next(ctx, cmd)
		h.after(cmd, err)
		return err
	}
}

func (h clusterHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			if err := h.before(cmd); err != nil {
				cmd.SetErr(err)
				return err
			}
		}
		err := next(ctx, cmds)
		for _, cmd := range cmds {
			h.after(cmd, err)
		}
		return err
	}
}

// before notes where cmd goes and returns the error of an earlier
// attempt that may have applied it, which ends it.
func (h clusterHook) before(cmd redis.Cmder) error {
	h.st.mu.Lock()
	defer h.st.mu.Unlock()
	if err, ok := h.st.unsure[cmd]; ok {
		return err
	}
	if args := cmd.Args(); len(args) >= 2 {
		if key, ok := args[1].(string); ok {
			h.st.served[key] = h.addr
		}
	}
	return nil
}

// after marks cmd done for good when its attempt ended in a transport
// error that does not prove it unsent, or in NOREPLICAS, which go-redis
// retries too: the durable one leaves the write applied, and either is
// the op's answer.
func (h clusterHook) after(cmd redis.Cmder, err error) {
	if err == nil || clusterNeverSent(err) || isErrorReply(err) && !strings.HasPrefix(err.Error(), "NOREPLICAS") {
		return
	}
	h.st.mu.Lock()
	h.st.unsure[cmd] = err
	h.st.mu.Unlock()
}

// clusterNeverSent is neverSent for a cluster conn: only what proves
// the command did not leave the client.
func clusterNeverSent(err error) bool {
	var de *dialError
	return errors.As(err, &de) || errors.Is(err, redis.ErrPoolTimeout) || errors.Is(err, redis.ErrClosed)
}

// servedBy is the address key's last command went to ("" before any),
// and forgets the commands that finished: the op is over.
func (st *clusterState) servedBy(key string) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	clear(st.unsure)
	return st.served[key]
}
