// Package zsetcmd implements Redis's sorted-set commands. A sorted set is
// stored as a *sortedset.Set in the keyspace entry; an empty sorted set
// never stays in the keyspace.
//
// Scores are replied as Redis 7 does: RESP3 doubles where Redis sends
// doubles (ZSCORE, ZMSCORE, ZINCRBY, WITHSCORES and pops), bulk strings in
// RESP2, both with the text sortedset.FormatScore renders, so a score read
// back from any reply parses to the same float64.
package zsetcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/resp"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// ACL categories, as Redis 7 files each command.
var (
	readFast      = []string{"read", "sortedset", "fast"}
	readSlow      = []string{"read", "sortedset", "slow"}
	writeFast     = []string{"write", "sortedset", "fast"}
	writeSlow     = []string{"write", "sortedset", "slow"}
	writeBlocking = []string{"write", "sortedset", "fast", "blocking"}
)

// Specs returns the sorted-set commands with Redis 7's arity, flags, key
// positions and categories.
func Specs() []*command.Spec {
	const (
		wd  = command.Write | command.DenyOOM
		wdf = command.Write | command.DenyOOM | command.Fast
		wf  = command.Write | command.Fast
		w   = command.Write
		ro  = command.ReadOnly
		rof = command.ReadOnly | command.Fast
		bl  = command.Write | command.NoScript | command.Fast | command.Blocking
	)
	one := func(name string, arity int, flags command.Flags, cats []string, run func(*command.Ctx)) *command.Spec {
		return &command.Spec{Name: name, Arity: arity, Flags: flags, FirstKey: 1, LastKey: 1, Step: 1, Categories: cats, Run: run}
	}
	return []*command.Spec{
		one("zadd", -4, wdf, writeFast, zadd),
		one("zincrby", 4, wdf, writeFast, zincrby),
		one("zrem", -3, wf, writeFast, zrem),
		one("zscore", 3, rof, readFast, zscore),
		one("zmscore", -3, rof, readFast, zmscore),
		one("zcard", 2, rof, readFast, zcard),
		one("zcount", 4, rof, readFast, zcount),
		one("zlexcount", 4, rof, readFast, zlexcount),
		one("zrank", 3, rof, readFast, rankCmd(false)),
		one("zrevrank", 3, rof, readFast, rankCmd(true)),
		one("zrange", -4, ro, readSlow, rangeCmd(byAuto, dirAuto)),
		one("zrangebyscore", -4, ro, readSlow, rangeCmd(byScore, dirForward)),
		one("zrevrangebyscore", -4, ro, readSlow, rangeCmd(byScore, dirReverse)),
		one("zrangebylex", -4, ro, readSlow, rangeCmd(byLex, dirForward)),
		one("zrevrangebylex", -4, ro, readSlow, rangeCmd(byLex, dirReverse)),
		one("zrevrange", -4, ro, readSlow, rangeCmd(byRank, dirReverse)),
		{Name: "zrangestore", Arity: -5, Flags: wd, FirstKey: 1, LastKey: 2, Step: 1, Categories: writeSlow, Run: zrangestore},
		one("zpopmin", -2, wf, writeFast, popCmd(false)),
		one("zpopmax", -2, wf, writeFast, popCmd(true)),
		{Name: "bzpopmin", Arity: -3, Flags: bl, FirstKey: 1, LastKey: -2, Step: 1, Categories: writeBlocking, Run: bpopCmd(false)},
		{Name: "bzpopmax", Arity: -3, Flags: bl, FirstKey: 1, LastKey: -2, Step: 1, Categories: writeBlocking, Run: bpopCmd(true)},
		one("zremrangebyscore", 4, w, writeSlow, zremrangebyscore),
		one("zremrangebyrank", 4, w, writeSlow, zremrangebyrank),
		one("zremrangebylex", 4, w, writeSlow, zremrangebylex),
		one("zrandmember", -2, ro, readSlow, zrandmember),
		one("zscan", -3, ro, readSlow, zscan),
	}
}

// lookup returns key's sorted set, nil when the key does not exist. ok is
// false when the key holds another type, in which case WRONGTYPE has been
// written. Read commands count keyspace hits and misses; writes do not, as
// in Redis.
func lookup(c *command.Ctx, key string, read bool) (s *sortedset.Set, ok bool) {
	var e *keyspace.Entry
	if read {
		e = c.DB.Read(key)
	} else {
		e = c.DB.Get(key)
	}
	if e == nil {
		return nil, true
	}
	s, isZset := e.Val.(*sortedset.Set)
	if !isZset {
		c.W.Error(command.ErrWrongType)
		return nil, false
	}
	return s, true
}

// changed records that s, key's sorted set, was modified in place by n
// changes: the key is deleted once s is empty (Redis never keeps an empty
// aggregate), otherwise WATCH and blocked clients are told.
func changed(c *command.Ctx, key string, s *sortedset.Set, n int) {
	if n == 0 {
		return
	}
	if s.Len() == 0 {
		c.DB.Delete(key)
	} else {
		c.DB.Touch(key)
	}
	c.Dirty += n
}

// writeScore writes a score as Redis's addReplyDouble does: a RESP3
// double, or a bulk string in RESP2. The text is FormatScore's in both, not
// resp.FormatFloat's, so ZSCORE agrees with ZRANGE WITHSCORES and ZSCAN.
func writeScore(w *resp.Writer, f float64) {
	var buf [40]byte
	if w.Proto >= 3 {
		b := append(buf[:0], ',')
		b = sortedset.AppendScore(b, f)
		w.Raw(append(b, '\r', '\n'))
		return
	}
	w.Bulk(sortedset.AppendScore(buf[:0], f))
}

// writeItems writes a range reply: members alone, or with WITHSCORES a flat
// [member, score, ...] array in RESP2 and an array of [member, score] pairs
// in RESP3, as Redis 7 does.
func writeItems(w *resp.Writer, items []sortedset.Item, withScores bool) {
	switch {
	case !withScores:
		w.Array(len(items))
	case w.Proto >= 3:
		w.Array(len(items))
	default:
		w.Array(2 * len(items))
	}
	for _, it := range items {
		writeItem(w, it, withScores)
	}
}

// writeItem writes one element of a range reply started by the caller.
func writeItem(w *resp.Writer, it sortedset.Item, withScores bool) {
	if !withScores {
		w.BulkString(it.Member)
		return
	}
	if w.Proto >= 3 {
		w.Array(2)
	}
	w.BulkString(it.Member)
	writeScore(w, it.Score)
}

// parseScore parses a score or increment argument as Redis's string2d.
func parseScore(b []byte) (float64, bool) {
	f, err := sortedset.ParseScore(string(b))
	return f, err == nil
}
