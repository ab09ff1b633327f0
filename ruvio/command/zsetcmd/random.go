package zsetcmd

import (
	"math"
	"math/rand/v2"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/hashcmd"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// randChunk bounds how many repeated picks a negative ZRANDMEMBER count
// draws at once, so a huge count streams into the reply instead of being
// allocated up front.
const randChunk = 1024

// newRand returns a generator for one command. Shards run concurrently, so
// they share no generator; seeding from the runtime's source costs little.
func newRand() *rand.Rand {
	return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
}

// zrandmember is ZRANDMEMBER key [count [WITHSCORES]]. It only reads, so
// its randomness never reaches the log.
func zrandmember(c *command.Ctx) {
	key := string(c.Args[1])
	if len(c.Args) == 2 {
		s, ok := lookup(c, key, true)
		switch {
		case !ok:
		case s == nil:
			c.W.Null()
		default:
			c.W.BulkString(s.Random(1, newRand())[0].Member)
		}
		return
	}
	count, errMsg := hashcmd.ParseRandCount(c.Args[2])
	if errMsg != "" {
		c.W.Error(errMsg)
		return
	}
	if len(c.Args) > 4 || (len(c.Args) == 4 && !command.Eq(c.Args[3], "withscores")) {
		c.W.Error(command.ErrSyntax)
		return
	}
	withScores := len(c.Args) == 4
	if withScores && (count < -math.MaxInt64/2 || count > math.MaxInt64/2) {
		// The RESP2 reply would hold twice count elements.
		c.W.Error("ERR value is out of range")
		return
	}
	s, ok := lookup(c, key, true)
	if !ok {
		return
	}
	if s == nil || count == 0 {
		c.W.Array(0)
		return
	}
	header := func(n int64) {
		if withScores && c.W.Proto < 3 {
			c.W.Array(int(2 * n))
		} else {
			c.W.Array(int(n))
		}
	}
	rng := newRand()
	if count < 0 {
		// Independent picks, so members may repeat; Redis, too, writes
		// every one of them however many were asked for.
		header(-count)
		for left := -count; left > 0; {
			n := min(left, randChunk)
			for _, it := range s.Random(-int(n), rng) {
				writeItem(c.W, it, withScores)
			}
			left -= n
		}
		return
	}
	var items []sortedset.Item
	if count >= int64(s.Len()) {
		// Redis answers with the whole set walked from the top (its set
		// iterator runs backwards), while sortedset.Random would give it
		// in ascending order.
		items = s.ByRank(0, s.Len()-1, true)
	} else {
		items = s.Random(int(count), rng)
	}
	header(int64(len(items)))
	for _, it := range items {
		writeItem(c.W, it, withScores)
	}
}
