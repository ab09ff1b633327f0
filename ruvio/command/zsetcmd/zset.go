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
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/notify"
	"github.com/ruvio/ruvio/ruvio/resp"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// readSet and writeSet look a key up as a sorted set; see command.As.
var (
	readSet  = command.LookupRead[*sortedset.Set]
	writeSet = command.LookupWrite[*sortedset.Set]
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
		mk  = command.MovableKeys
	)
	f := command.Family("sortedset")
	return []*command.Spec{
		f.Spec("zadd", -4, wdf, zadd).Copying(),
		f.Spec("zincrby", 4, wdf, zincrby),
		f.Spec("zrem", -3, wf, zrem),
		f.Spec("zscore", 3, rof, zscore).Copying(),
		f.Spec("zmscore", -3, rof, zmscore),
		f.Spec("zcard", 2, rof, zcard).Copying(),
		f.Spec("zcount", 4, rof, zcount),
		f.Spec("zlexcount", 4, rof, zlexcount),
		f.Spec("zrank", 3, rof, rankCmd(false)),
		f.Spec("zrevrank", 3, rof, rankCmd(true)),
		f.Spec("zrange", -4, ro, rangeCmd(byAuto, dirAuto)),
		f.Spec("zrangebyscore", -4, ro, rangeCmd(byScore, dirForward)),
		f.Spec("zrevrangebyscore", -4, ro, rangeCmd(byScore, dirReverse)),
		f.Spec("zrangebylex", -4, ro, rangeCmd(byLex, dirForward)),
		f.Spec("zrevrangebylex", -4, ro, rangeCmd(byLex, dirReverse)),
		f.Spec("zrevrange", -4, ro, rangeCmd(byRank, dirReverse)),
		f.Spec("zrangestore", -5, wd, zrangestore).KeysAt(1, 2, 1),
		f.Spec("zpopmin", -2, wf, popCmd(false)),
		f.Spec("zpopmax", -2, wf, popCmd(true)),
		f.Spec("bzpopmin", -3, bl, bpopCmd(false)).KeysAt(1, -2, 1),
		f.Spec("bzpopmax", -3, bl, bpopCmd(true)).KeysAt(1, -2, 1),
		f.Spec("zremrangebyscore", 4, w, zremrangebyscore),
		f.Spec("zremrangebyrank", 4, w, zremrangebyrank),
		f.Spec("zremrangebylex", 4, w, zremrangebylex),
		f.Spec("zrandmember", -2, ro, zrandmember),
		f.Spec("zscan", -3, ro, zscan),
		f.Spec("zunion", -3, ro|mk, algebraCmd(opUnion)).KeysAt(0, 0, 0).KeysBy(command.NumKeysAt(1)),
		f.Spec("zinter", -3, ro|mk, algebraCmd(opInter)).KeysAt(0, 0, 0).KeysBy(command.NumKeysAt(1)),
		f.Spec("zdiff", -3, ro|mk, algebraCmd(opDiff)).KeysAt(0, 0, 0).KeysBy(command.NumKeysAt(1)),
		f.Spec("zunionstore", -4, wd|mk, storeCmd(opUnion)).KeysBy(command.DestAndNumKeys),
		f.Spec("zinterstore", -4, wd|mk, storeCmd(opInter)).KeysBy(command.DestAndNumKeys),
		f.Spec("zdiffstore", -4, wd|mk, storeCmd(opDiff)).KeysBy(command.DestAndNumKeys),
		f.Spec("zintercard", -3, ro|mk, zintercard).KeysAt(0, 0, 0).KeysBy(command.NumKeysAt(1)),
		f.Spec("zmpop", -4, w|mk, zmpop).KeysAt(0, 0, 0).KeysBy(command.NumKeysAt(1)),
		f.Spec("bzmpop", -5, w|command.Blocking|mk, bzmpop).KeysAt(0, 0, 0).KeysBy(command.NumKeysAt(2)),
	}
}

// writeScore writes a score as Redis's addReplyDouble does: a RESP3
// double, or a bulk string in RESP2. The text is FormatScore's in both, not
// resp.FormatFloat's, so ZSCORE agrees with ZRANGE WITHSCORES and ZSCAN.
// notifyAsSent records a sorted-set notification named after the command
// as sent (zrem, zunionstore, ...).
func notifyAsSent(c *command.Ctx, key string) {
	if c.Notes.Wants(notify.Zset) {
		c.NotifyString(notify.Zset, strings.ToLower(string(c.Args[0])), key)
	}
}

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
