package server

import (
	"strconv"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
)

// aclLogDefaultCount is how many entries ACL LOG shows without a count,
// as in Redis.
const aclLogDefaultCount = 10

// cmdACLLog answers ACL LOG [count | RESET]: the newest entries of the ACL
// log (a negative count shows none), or empties it.
func cmdACLLog(c *conn, args [][]byte) {
	if len(args) > 3 {
		aclSyntaxError(c, args)
		return
	}
	log := c.srv.acl.Log()
	count := int64(aclLogDefaultCount)
	if len(args) == 3 {
		if command.Eq(args[2], "reset") {
			log.Reset()
			c.w.OK()
			return
		}
		n, ok := command.ParseInt(args[2])
		if !ok {
			c.w.Error(command.ErrNotInteger)
			return
		}
		count = n
	}
	now := clock.NowMs()
	entries := log.Entries(count)
	c.w.Array(len(entries))
	for _, e := range entries {
		c.w.Map(7)
		c.w.BulkString("count")
		c.w.Int(e.Count)
		c.w.BulkString("reason")
		c.w.BulkString(e.Reason.String())
		c.w.BulkString("context")
		c.w.BulkString(e.Context)
		c.w.BulkString("object")
		c.w.BulkString(e.Object)
		c.w.BulkString("username")
		c.w.BulkString(e.Username)
		c.w.BulkString("age-seconds")
		writeDouble17(c, float64(now-e.TimeMs)/1000)
		c.w.BulkString("client-info")
		c.w.BulkString(e.ClientInfo)
	}
}

// writeDouble17 writes f as Redis 7.0's addReplyDouble does
// (formatDouble17), a RESP3 double or, in RESP2, a bulk string.
func writeDouble17(c *conn, f float64) {
	s := formatDouble17(f)
	if c.w.Proto >= 3 {
		c.w.Raw([]byte("," + s + "\r\n"))
		return
	}
	c.w.BulkString(s)
}

// formatDouble17 formats f as printf's "%.17g", which Redis 7.0 replies
// doubles with (0.0030000000000000001 for 3 ms). Newer Redis prints the
// shortest form instead; ACL LOG's ages follow 7.0, as the rest of the
// node does. Ages are never small or large enough for an exponent.
func formatDouble17(f float64) string { return strconv.FormatFloat(f, 'g', 17, 64) }
