package zsetcmd

import (
	"math/rand/v2"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/random"
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
	random.Run(c, "withscores", func(s *sortedset.Set) string {
		return s.Random(1, newRand())[0].Member
	}, writeRandom)
}

// writeRandom answers ZRANDMEMBER's picks from s: distinct members for a
// positive count, independent draws for a negative one.
func writeRandom(c *command.Ctx, s *sortedset.Set, a random.Args) {
	rng := newRand()
	if a.Count < 0 {
		// Independent picks, so members may repeat; Redis, too, writes
		// every one of them however many were asked for.
		a.Header(c.W, int(-a.Count))
		for left := -a.Count; left > 0; {
			n := min(left, randChunk)
			for _, it := range s.Random(-int(n), rng) {
				writeItem(c.W, it, a.With)
			}
			left -= n
		}
		return
	}
	var items []sortedset.Item
	if a.Count >= int64(s.Len()) {
		// Redis answers with the whole set walked from the top (its set
		// iterator runs backwards), while sortedset.Random would give it
		// in ascending order.
		items = s.ByRank(0, s.Len()-1, true)
	} else {
		items = s.Random(int(a.Count), rng)
	}
	a.Header(c.W, len(items))
	for _, it := range items {
		writeItem(c.W, it, a.With)
	}
}
