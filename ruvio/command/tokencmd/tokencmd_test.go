package tokencmd_test

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/hashcmd"
	"github.com/ruvio/ruvio/ruvio/command/keycmd"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
	"github.com/ruvio/ruvio/ruvio/command/tokencmd"
	"github.com/ruvio/ruvio/ruvio/fence"
)

// counting grants the tokens of generation gen (1 unless set) with
// counters 101, 102, ... (tok), or refuses with refusal when set.
type counting struct {
	gen     uint64
	next    int64
	refusal string
}

func (c *counting) Token(int64) (int64, string) {
	if c.refusal != "" {
		return 0, c.refusal
	}
	c.next++
	return fence.Token(max(c.gen, 1), 100+c.next), ""
}

func (c *counting) Generation() (uint64, string) {
	if c.refusal != "" {
		return 0, c.refusal
	}
	return max(c.gen, 1), ""
}

// tok is the token counting grants n-th in generation 1.
func tok(n int64) int64 { return fence.Token(1, 100+n) }

// newHarness serves the token commands and the commands their effects
// replay through (SET, HSET, HDEL, PEXPIREAT, DEL).
func newHarness(t *testing.T) (*cmdtest.Harness, *counting) {
	h := cmdtest.New(t, tokencmd.Specs(), stringcmd.Specs(), hashcmd.Specs(), keycmd.Specs(), cmdtest.TypeMakers())
	src := &counting{}
	h.Tokens = src
	return h, src
}

const (
	errNotInt   = cmdtest.Error("ERR value is not an integer or out of range")
	errPositive = cmdtest.Error("ERR value is out of range, must be positive")
	errWrong    = cmdtest.Error("WRONGTYPE Operation against a key holding the wrong kind of value")
)

func TestOnce(t *testing.T) {
	h, _ := newHarness(t)
	cmdtest.Steps{
		cmdtest.Row("ONCE", "m", "1000", 1),
		cmdtest.Row("ONCE", "m", "1000", 0),
		cmdtest.Row("PTTL", "m", 1000),
		{Adv: 999},
		cmdtest.Row("ONCE", "m", "1000", 0),
		{Adv: 1},
		cmdtest.Row("ONCE", "m", "1000", 1), // the mark expired
		cmdtest.Row("ONCE", "m", "0", cmdtest.Error("ERR invalid expire time in 'once' command")),
		cmdtest.Row("ONCE", "m", "x", errNotInt),
		cmdtest.Row("TESTHASH", "h", "OK"),
		cmdtest.Row("ONCE", "h", "10", errWrong),
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
}

func TestLimit(t *testing.T) {
	h, _ := newHarness(t)
	cmdtest.Steps{
		cmdtest.Row("LIMIT", "r", "3", "1000", cmdtest.Array(1, 2, 1000)),
		{Adv: 100},
		cmdtest.Row("LIMIT", "r", "3", "1000", "COST", "2", cmdtest.Array(1, 0, 900)),
		cmdtest.Row("LIMIT", "r", "3", "1000", cmdtest.Array(0, 0, 900)), // refused: counts nothing
		cmdtest.Row("GET", "r", "3"),
		cmdtest.Row("LIMIT", "r", "3", "1000", "COST", "0", cmdtest.Array(1, 0, 900)), // looks: nothing to count
		{Adv: 900},
		cmdtest.Row("LIMIT", "r", "3", "1000", cmdtest.Array(1, 2, 1000)), // a new window
		cmdtest.Row("LIMIT", "fresh", "1", "1000", "COST", "2", cmdtest.Array(0, 1, 0)),
		cmdtest.Row("EXISTS", "fresh", 0),
		cmdtest.Row("LIMIT", "fresh", "1", "1000", "COST", "0", cmdtest.Array(1, 1, 0)),
		cmdtest.Row("EXISTS", "fresh", 0),
		cmdtest.Row("LIMIT", "r", "-1", "1000", errPositive),
		cmdtest.Row("LIMIT", "r", "3", "0", errPositive),
		cmdtest.Row("LIMIT", "r", "3", "1000", "COST", "-1", errPositive),
		cmdtest.Row("LIMIT", "r", "3", "1000", "WEIGHT", "1", cmdtest.Error("ERR syntax error")),
		cmdtest.Row("LIMIT", "r", "3", cmdtest.Error("ERR wrong number of arguments for 'limit' command")),
		cmdtest.Row("SET", "s", "word", "OK"),
		cmdtest.Row("LIMIT", "s", "3", "1000", cmdtest.Error("ERR the key does not hold a LIMIT count")),
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
}

func TestLease(t *testing.T) {
	h, src := newHarness(t)
	cmdtest.Steps{
		cmdtest.Row("LEASE", "HOLDER", "l", nil),
		cmdtest.Row("LEASE", "ACQUIRE", "l", "a", "1000", tok(1)),
		cmdtest.Row("LEASE", "ACQUIRE", "l", "b", "1000", nil), // held by a
		{Adv: 500},
		cmdtest.Row("LEASE", "ACQUIRE", "l", "a", "1000", tok(1)), // a extends, keeping its token; none is used up
		cmdtest.Row("LEASE", "HOLDER", "l", cmdtest.Array("a", tok(1), 1000)),
		cmdtest.Row("LEASE", "RELEASE", "l", "b", 0),
		cmdtest.Row("LEASE", "RELEASE", "l", "a", 1),
		cmdtest.Row("LEASE", "ACQUIRE", "l", "b", "1000", tok(2)), // a new grant: a new token
		{Adv: 1000},
		cmdtest.Row("LEASE", "HOLDER", "l", nil), // expired
		cmdtest.Row("LEASE", "ACQUIRE", "l", "a", "1000", tok(3)),
		cmdtest.Row("LEASE", "ACQUIRE", "m", "a", "-5", cmdtest.Error("ERR invalid expire time in 'lease|acquire' command")),
		cmdtest.Row("HSET", "h", "f", "v", 1),
		cmdtest.Row("LEASE", "ACQUIRE", "h", "a", "1000", cmdtest.Error("ERR the key does not hold a LEASE")),
		cmdtest.Row("SET", "s", "v", "OK"),
		cmdtest.Row("LEASE", "HOLDER", "s", errWrong),
		cmdtest.Row("LEASE", "NOPE", "l", cmdtest.Error("ERR unknown subcommand 'NOPE'. Try LEASE HELP.")),
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
	// A failover raised the generation: the holder extending its grant
	// gets a token of the new generation, above any the old primary
	// granted after it.
	src.gen = 2
	raised := fence.Token(2, 100+4)
	cmdtest.Steps{
		cmdtest.Row("LEASE", "ACQUIRE", "l", "a", "1000", raised),
		cmdtest.Row("LEASE", "HOLDER", "l", cmdtest.Array("a", raised, 1000)),
		cmdtest.Row("LEASE", "ACQUIRE", "l", "a", "1000", raised), // the same generation: kept
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
	src.refusal = "TRYAGAIN not yet"
	cmdtest.Steps{
		cmdtest.Row("LEASE", "ACQUIRE", "n", "a", "1000", cmdtest.Error("TRYAGAIN not yet")),
		cmdtest.Row("EXISTS", "n", 0),
		cmdtest.Row("LEASE", "ACQUIRE", "l", "a", "1000", cmdtest.Error("TRYAGAIN not yet")), // an extension asks too
		cmdtest.Row("LEASE", "HOLDER", "l", cmdtest.Array("a", raised, 1000)),
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
}

func TestSemaphore(t *testing.T) {
	h, _ := newHarness(t)
	cmdtest.Steps{
		cmdtest.Row("SEMAPHORE", "HOLDERS", "s", cmdtest.Array()),
		cmdtest.Row("SEMAPHORE", "ACQUIRE", "s", "2", "a", "1000", tok(1)),
		{Adv: 100},
		cmdtest.Row("SEMAPHORE", "ACQUIRE", "s", "2", "b", "1000", tok(2)),
		cmdtest.Row("SEMAPHORE", "ACQUIRE", "s", "2", "c", "1000", nil),    // full
		cmdtest.Row("SEMAPHORE", "ACQUIRE", "s", "2", "a", "2000", tok(1)), // a extends, keeping its token
		cmdtest.Row("PTTL", "s", 2000),
		cmdtest.Row("SEMAPHORE", "HOLDERS", "s", cmdtest.Array(cmdtest.Array("a", tok(1), 2000), cmdtest.Array("b", tok(2), 1000))),
		{Adv: 1000},
		cmdtest.Row("SEMAPHORE", "HOLDERS", "s", cmdtest.Array(cmdtest.Array("a", tok(1), 1000))), // b's place ran out
		cmdtest.Row("SEMAPHORE", "ACQUIRE", "s", "2", "c", "1000", tok(3)),
		cmdtest.Row("HEXISTS", "s", "b", 0), // removed by that ACQUIRE
		cmdtest.Row("SEMAPHORE", "RELEASE", "s", "b", 0),
		cmdtest.Row("SEMAPHORE", "RELEASE", "s", "a", 1),
		cmdtest.Row("SEMAPHORE", "RELEASE", "s", "c", 1),
		cmdtest.Row("EXISTS", "s", 0),
		cmdtest.Row("SEMAPHORE", "ACQUIRE", "s", "0", "a", "1000", errPositive),
		cmdtest.Row("HSET", "h", "f", "v", 1),
		cmdtest.Row("SEMAPHORE", "ACQUIRE", "h", "1", "a", "1000", cmdtest.Error("ERR the key does not hold a SEMAPHORE")),
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
	// Every place ran out: the next ACQUIRE removes them all first.
	cmdtest.Steps{
		cmdtest.Row("SEMAPHORE", "ACQUIRE", "t", "1", "a", "100", tok(4)),
		{Adv: 100},
		cmdtest.Row("SEMAPHORE", "ACQUIRE", "t", "1", "b", "100", tok(5)),
		cmdtest.Row("SEMAPHORE", "HOLDERS", "t", cmdtest.Array(cmdtest.Array("b", tok(5), 100))),
		{Adv: 100},
		cmdtest.Row("SEMAPHORE", "RELEASE", "t", "b", 0), // ran out: held nothing, removed
		cmdtest.Row("EXISTS", "t", 0),
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
}
