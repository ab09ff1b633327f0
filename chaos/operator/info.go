package operator

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/ruvio/infotext"
)

// ShardInfo is what one shard's INFO replication says that the operator
// needs.
type ShardInfo struct {
	// Role is "master" or "slave", as Redis names them.
	Role string
	// Epoch is the epoch of the shard's latest log record.
	Epoch uint64
	// Last is wal_last_sequence, Durable wal_durable_sequence.
	Last, Durable uint64
	// LinkUp is master_link_status:up on a replica.
	LinkUp bool
}

// Pos is the shard's position in its log.
func (s ShardInfo) Pos() Pos { return Pos{Epoch: s.Epoch, Last: s.Last} }

// ParseInfo reads the INFO replication text of one shard. The fields it
// needs must all be there: a node that does not report them cannot be
// judged.
func ParseInfo(text string) (ShardInfo, error) {
	var si ShardInfo
	fields := infotext.Parse(text)
	var missing []string
	num := func(key string) uint64 {
		v, ok := fields[key]
		if !ok {
			missing = append(missing, key)
			return 0
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			missing = append(missing, key+" (not a number: "+v+")")
		}
		return n
	}
	si.Role = fields["role"]
	if si.Role != "master" && si.Role != "slave" {
		missing = append(missing, "role")
	}
	si.Epoch = num("epoch")
	si.Last = num("wal_last_sequence")
	si.Durable = num("wal_durable_sequence")
	si.LinkUp = fields["master_link_status"] == "up"
	if len(missing) > 0 {
		return si, fmt.Errorf("INFO replication lacks %s", strings.Join(missing, ", "))
	}
	return si, nil
}
