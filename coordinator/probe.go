package coordinator

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/coordinator/rules"
	"github.com/ruvio/ruvio/ruvio/infotext"
)

// prober pings one member every ping interval on every shard port and
// keeps the latest status, on its own goroutine, so a member that accepts
// connections and never answers holds up nothing but its own pings.
type prober struct {
	c      *Coordinator
	member Member
	latest atomic.Pointer[rules.Status]
	// heard is the last time every shard answered (Unix ns, 0: never).
	heard atomic.Int64
	// sent is when the last command sent to the member (send) answered
	// OK, nil before any.
	sent     atomic.Pointer[time.Time]
	mu       sync.Mutex
	clients  map[int]*redis.Client // by shard
	quit     chan struct{}
	quitOnce sync.Once
	// detachWarn rate-limits the warning that the member refused RUVIO
	// DETACH (detachOne).
	detachWarn warnLimit
}

func newProber(c *Coordinator, m Member) *prober {
	p := &prober{c: c, member: m, clients: map[int]*redis.Client{}, quit: make(chan struct{})}
	p.latest.Store(&rules.Status{})
	return p
}

// shardAddr is the address of shard i of a member whose shard 0 is addr.
func shardAddr(addr string, i int) string {
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	return net.JoinHostPort(host, strconv.Itoa(p+i))
}

// client returns the connection pool of shard i, with commands timing out
// after the command timeout.
func (p *prober) client(i int) *redis.Client {
	p.mu.Lock()
	defer p.mu.Unlock()
	if cl, ok := p.clients[i]; ok {
		return cl
	}
	cl := p.c.dialNode(shardAddr(p.member.Address, i), p.c.commandTimeout(), 2)
	p.clients[i] = cl
	return cl
}

func (p *prober) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cl := range p.clients {
		cl.Close()
	}
}

func (p *prober) run(stop <-chan struct{}) {
	t := time.NewTicker(p.c.pingInterval())
	defer t.Stop()
	for {
		p.probe()
		select {
		case <-stop:
			return
		case <-p.quit:
			p.close()
			return
		case <-t.C:
		}
	}
}

// probe pings the member once and records what it learned.
func (p *prober) probe() rules.Status {
	ctx, cancel := context.WithTimeout(context.Background(), p.c.commandTimeout())
	defer cancel()
	asked := time.Now()
	st := p.ask(ctx)
	st.Asked, st.At = asked, time.Now()
	if st.OK {
		p.heard.Store(st.At.UnixNano())
	}
	p.latest.Store(&st)
	return st
}

func (p *prober) ask(ctx context.Context) rules.Status {
	c0 := p.client(0)
	pipe := c0.Pipeline()
	shardsCmd := pipe.ConfigGet(ctx, "shards")
	serverCmd := pipe.Info(ctx, "server")
	if _, err := pipe.Exec(ctx); err != nil {
		return rules.Status{Err: err.Error()}
	}
	n, _ := strconv.Atoi(shardsCmd.Val()["shards"])
	if n < 1 {
		return rules.Status{Err: "CONFIG GET shards gave no shard count"}
	}
	st := rules.Status{RunID: infotext.Parse(serverCmd.Val())["run_id"], Shards: make([]rules.ShardStatus, n)}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st.Shards[i], errs[i] = p.askShard(ctx, i)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			st.Err = fmt.Sprintf("shard %d: %v", i, err)
			return st
		}
	}
	st.OK = true
	return st
}

func (p *prober) askShard(ctx context.Context, i int) (rules.ShardStatus, error) {
	pipe := p.client(i).Pipeline()
	role := pipe.Do(ctx, "ROLE")
	info := pipe.Info(ctx, "replication")
	if _, err := pipe.Exec(ctx); err != nil {
		return rules.ShardStatus{}, err
	}
	r, _ := role.Slice()
	if len(r) == 0 {
		return rules.ShardStatus{}, fmt.Errorf("empty ROLE reply")
	}
	f := infotext.Parse(info.Val())
	sh := rules.ShardStatus{
		Role:             fmt.Sprint(r[0]),
		LinkUp:           f["master_link_status"] == "up",
		Syncing:          f["master_sync_in_progress"] == "1",
		ReplicationEpoch: infotext.Uint(f, "epoch"),
		WalLast:          infotext.Uint(f, "wal_last_sequence"),
		WalDurable:       infotext.Uint(f, "wal_durable_sequence"),
		Committed:        infotext.Uint(f, "replication_committed_sequence"),
		FencedBy:         infotext.Uint(f, "replication_fenced_by_epoch"),
		LostRecords:      infotext.Uint(f, "replication_lost_records"),
		WritesInFlight:   infotext.Uint(f, "writes_in_flight"),
		Replicas:         slaveAddrs(f),
	}
	if sh.Role == "slave" {
		sh.MasterAddr = net.JoinHostPort(f["master_host"], f["master_port"])
	}
	return sh, nil
}

// send runs a command on shard 0 of the member with the command timeout;
// an error reply comes back classified (nodeError).
func (p *prober) send(args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), p.c.commandTimeout())
	defer cancel()
	a := make([]any, len(args))
	for i, s := range args {
		a[i] = s
	}
	err := nodeError(p.client(0).Do(ctx, a...).Err())
	if err == nil {
		now := time.Now()
		p.sent.Store(&now)
	}
	return err
}

// slaveAddrs reads the ip and port of each slaveN line of INFO
// replication, in order.
func slaveAddrs(f map[string]string) []string {
	var out []string
	for i := 0; ; i++ {
		v, ok := f["slave"+strconv.Itoa(i)]
		if !ok {
			return out
		}
		var ip, port string
		for _, kv := range strings.Split(v, ",") {
			if x, ok := strings.CutPrefix(kv, "ip="); ok {
				ip = x
			}
			if x, ok := strings.CutPrefix(kv, "port="); ok {
				port = x
			}
		}
		if ip != "" && port != "" {
			out = append(out, net.JoinHostPort(ip, port))
		}
	}
}
