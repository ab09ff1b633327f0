package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/ruvio/notify"
)

// Tunables are Redis parameters that exist only under CONFIG GET/SET, not
// in the file: the slow log's two settings, the ACL log's length, and
// Redis's representation thresholds (listpack, intset, quicklist and
// stream node sizes) that Redis tools read and set. ruvio stores the
// thresholds and answers them back; the stream node sizes (streams keep
// Redis's nodes) and hll-sparse-max-bytes (HyperLogLogs are Redis's
// strings) shape its values, and the set and sorted-set thresholds what
// OBJECT ENCODING answers and a set's order (keyspace.ShapeParams).
type Tunables struct {
	SlowlogLogSlowerThan int64 // µs; -1 disables the slow log, 0 logs every command
	SlowlogMaxLen        int64
	// AcllogMaxLen is acllog-max-len: how many entries ACL LOG keeps.
	AcllogMaxLen int64
	// LatencyMonitorThreshold is the LATENCY monitor's threshold in ms; 0
	// records nothing.
	LatencyMonitorThreshold int64
	HashMaxListpackEntries,
	HashMaxListpackValue,
	ListMaxListpackSize,
	ListCompressDepth,
	SetMaxIntsetEntries,
	SetMaxListpackEntries,
	SetMaxListpackValue,
	ZsetMaxListpackEntries,
	ZsetMaxListpackValue,
	StreamNodeMaxBytes,
	StreamNodeMaxEntries,
	HllSparseMaxBytes,
	// ActiveExpireEffort, ActiveRehashing and the Lazyfree switches are
	// how hard Redis works at housekeeping: stored and answered back, for
	// the tools that set them, with no effect on ruvio, whose expiry cycle
	// and freeing of values are its own.
	ActiveExpireEffort int64
	ActiveRehashing,
	LazyfreeLazyEviction,
	LazyfreeLazyExpire,
	LazyfreeLazyServerDel,
	LazyfreeLazyUserDel,
	LazyfreeLazyUserFlush bool
	// NotifyKeyspaceEvents is notify-keyspace-events: the classes of
	// keyspace notifications the node publishes; none by default.
	NotifyKeyspaceEvents notify.Class
	// LatencyTracking is latency-tracking: whether each command's
	// latencies are kept for LATENCY HISTOGRAM and INFO latencystats;
	// LatencyTrackingPercentiles, latency-tracking-info-percentiles, the
	// percentiles INFO prints.
	LatencyTracking            bool
	LatencyTrackingPercentiles []float64
}

// DefaultTunables are Redis 7's defaults.
func DefaultTunables() Tunables {
	return Tunables{
		SlowlogLogSlowerThan:       10000,
		SlowlogMaxLen:              128,
		AcllogMaxLen:               128,
		HashMaxListpackEntries:     512,
		HashMaxListpackValue:       64,
		ListMaxListpackSize:        -2,
		ListCompressDepth:          0,
		SetMaxIntsetEntries:        512,
		SetMaxListpackEntries:      128,
		SetMaxListpackValue:        64,
		ZsetMaxListpackEntries:     128,
		ZsetMaxListpackValue:       64,
		StreamNodeMaxBytes:         4096,
		StreamNodeMaxEntries:       100,
		HllSparseMaxBytes:          3000,
		ActiveExpireEffort:         1,
		ActiveRehashing:            true,
		LatencyTracking:            true,
		LatencyTrackingPercentiles: []float64{50, 99, 99.9},
	}
}

// tunable is one entry: its Redis name, the older name Redis 7 still
// answers to (its own entry in CONFIG GET *), its range, and whether it
// is a memory value ("1kb").
type tunable struct {
	name, alias string
	lo, hi      int64
	memory      bool
	p           func(*Tunables) *int64
}

var tunables = []tunable{
	{"slowlog-log-slower-than", "", -1, math.MaxInt64, false, func(t *Tunables) *int64 { return &t.SlowlogLogSlowerThan }},
	{"slowlog-max-len", "", 0, math.MaxInt64, false, func(t *Tunables) *int64 { return &t.SlowlogMaxLen }},
	{"acllog-max-len", "", 0, math.MaxInt64, false, func(t *Tunables) *int64 { return &t.AcllogMaxLen }},
	{"latency-monitor-threshold", "", 0, math.MaxInt64, false, func(t *Tunables) *int64 { return &t.LatencyMonitorThreshold }},
	{"hash-max-listpack-entries", "hash-max-ziplist-entries", 0, math.MaxInt64, false, func(t *Tunables) *int64 { return &t.HashMaxListpackEntries }},
	{"hash-max-listpack-value", "hash-max-ziplist-value", 0, math.MaxInt64, true, func(t *Tunables) *int64 { return &t.HashMaxListpackValue }},
	{"list-max-listpack-size", "list-max-ziplist-size", math.MinInt32, math.MaxInt32, false, func(t *Tunables) *int64 { return &t.ListMaxListpackSize }},
	{"list-compress-depth", "", 0, math.MaxInt32, false, func(t *Tunables) *int64 { return &t.ListCompressDepth }},
	{"set-max-intset-entries", "", 0, math.MaxInt64, false, func(t *Tunables) *int64 { return &t.SetMaxIntsetEntries }},
	{"set-max-listpack-entries", "", 0, math.MaxInt64, false, func(t *Tunables) *int64 { return &t.SetMaxListpackEntries }},
	{"set-max-listpack-value", "", 0, math.MaxInt64, true, func(t *Tunables) *int64 { return &t.SetMaxListpackValue }},
	{"zset-max-listpack-entries", "zset-max-ziplist-entries", 0, math.MaxInt64, false, func(t *Tunables) *int64 { return &t.ZsetMaxListpackEntries }},
	{"zset-max-listpack-value", "zset-max-ziplist-value", 0, math.MaxInt64, true, func(t *Tunables) *int64 { return &t.ZsetMaxListpackValue }},
	{"stream-node-max-bytes", "", 0, math.MaxInt64, true, func(t *Tunables) *int64 { return &t.StreamNodeMaxBytes }},
	{"stream-node-max-entries", "", 0, math.MaxInt64, false, func(t *Tunables) *int64 { return &t.StreamNodeMaxEntries }},
	{"hll-sparse-max-bytes", "", 0, math.MaxInt64, true, func(t *Tunables) *int64 { return &t.HllSparseMaxBytes }},
	{"active-expire-effort", "", 1, 10, false, func(t *Tunables) *int64 { return &t.ActiveExpireEffort }},
}

// switches are the yes/no tunables.
var switches = []struct {
	name string
	p    func(*Tunables) *bool
}{
	{"activerehashing", func(t *Tunables) *bool { return &t.ActiveRehashing }},
	{"lazyfree-lazy-eviction", func(t *Tunables) *bool { return &t.LazyfreeLazyEviction }},
	{"lazyfree-lazy-expire", func(t *Tunables) *bool { return &t.LazyfreeLazyExpire }},
	{"lazyfree-lazy-server-del", func(t *Tunables) *bool { return &t.LazyfreeLazyServerDel }},
	{"lazyfree-lazy-user-del", func(t *Tunables) *bool { return &t.LazyfreeLazyUserDel }},
	{"lazyfree-lazy-user-flush", func(t *Tunables) *bool { return &t.LazyfreeLazyUserFlush }},
	{"latency-tracking", func(t *Tunables) *bool { return &t.LatencyTracking }},
}

// switchParam is the CONFIG parameter of a yes/no tunable, read and
// written as Redis's are.
func switchParam(name string, p func(*Tunables) *bool) Param {
	return Param{Name: name, Mutable: true,
		Get: func(c *Config) string {
			if *p(&c.Tunables) {
				return "yes"
			}
			return "no"
		},
		Set: func(c *Config, value string) error {
			switch strings.ToLower(value) {
			case "yes":
				*p(&c.Tunables) = true
			case "no":
				*p(&c.Tunables) = false
			default:
				return errors.New("argument must be 'yes' or 'no'")
			}
			return nil
		}}
}

// tunableParams returns the CONFIG parameters of the tunables, aliases
// included.
func tunableParams() []Param {
	var ps []Param
	for _, tu := range tunables {
		tu := tu
		get := func(c *Config) string { return strconv.FormatInt(*tu.p(&c.Tunables), 10) }
		set := func(c *Config, value string) error {
			var n int64
			var err error
			if tu.memory {
				n, err = ParseBytes(value)
				if err != nil || n < 0 {
					return errors.New("argument " + errNotMemory.Error())
				}
			} else if v, ok := parseInt(value); !ok {
				return errors.New("argument " + errNotInt.Error())
			} else {
				n = v
			}
			if n < tu.lo || n > tu.hi {
				return fmt.Errorf("argument must be between %d and %d inclusive", tu.lo, tu.hi)
			}
			*tu.p(&c.Tunables) = n
			return nil
		}
		ps = append(ps, Param{Name: tu.name, Mutable: true, Get: get, Set: set})
		if tu.alias != "" {
			ps = append(ps, Param{Name: tu.alias, Mutable: true, Get: get, Set: set})
		}
	}
	for _, sw := range switches {
		ps = append(ps, switchParam(sw.name, sw.p))
	}
	ps = append(ps, Param{Name: "latency-tracking-info-percentiles", Mutable: true,
		Get: func(c *Config) string {
			parts := make([]string, len(c.Tunables.LatencyTrackingPercentiles))
			for i, p := range c.Tunables.LatencyTrackingPercentiles {
				parts[i] = strconv.FormatFloat(p, 'f', -1, 64)
			}
			return strings.Join(parts, " ")
		},
		Set: func(c *Config, value string) error {
			ps := []float64{}
			for _, f := range strings.Fields(value) {
				p, err := strconv.ParseFloat(f, 64)
				if err != nil {
					//lint:ignore ST1005 Redis's own words, which CONFIG SET answers after "ERR "
					return errors.New("Invalid latency-tracking-info-percentiles parameters")
				}
				if p < 0 || p > 100 {
					return errors.New("latency-tracking-info-percentiles parameters should sit between [0.0,100.0]")
				}
				ps = append(ps, p)
			}
			c.Tunables.LatencyTrackingPercentiles = ps
			return nil
		}})
	ps = append(ps, Param{Name: "notify-keyspace-events", Mutable: true,
		Get: func(c *Config) string { return c.Tunables.NotifyKeyspaceEvents.String() },
		Set: func(c *Config, value string) error {
			cl, err := notify.Parse(value)
			if err != nil {
				return err
			}
			c.Tunables.NotifyKeyspaceEvents = cl
			return nil
		}})
	return ps
}
