package command

// MPop is the parsed form of the multi-key pops ZMPOP, BZMPOP, LMPOP and
// BLMPOP: [timeout] numkeys key [key ...] WHERE [COUNT count].
type MPop struct {
	// Keys are the keys in argument order.
	Keys [][]byte
	// Where is the argument after the keys (MIN/MAX or LEFT/RIGHT), as
	// sent; Side is the index of the word of sides it matched.
	Where []byte
	Side  int
	// Count is how many elements to pop at most (1 without COUNT).
	Count int64
	// TimeoutMs is the blocking form's timeout (0: forever).
	TimeoutMs int64
}

// ParseMPop parses c.Args as a multi-key pop whose numkeys is at position
// at; blocking commands have their timeout at position 1. sides are the
// two words WHERE may be. It writes Redis 7's error and reports false when
// the arguments are bad, in Redis 7.0's order: numkeys ("numkeys should
// be greater than 0"), the count of keys, WHERE, COUNT ("count should be
// greater than 0"; COUNT twice is a syntax error), and the timeout last.
func ParseMPop(c *Ctx, at int, sides [2]string) (MPop, bool) {
	var p MPop
	n, ok := ParseInt(c.Args[at])
	if !ok || n < 1 {
		c.W.Error("ERR numkeys should be greater than 0")
		return p, false
	}
	if n > int64(len(c.Args)-at-2) {
		c.W.Error(ErrSyntax)
		return p, false
	}
	p.Keys = c.Args[at+1 : at+1+int(n)]
	p.Where = c.Args[at+1+int(n)]
	switch {
	case Eq(p.Where, sides[0]):
		p.Side = 0
	case Eq(p.Where, sides[1]):
		p.Side = 1
	default:
		c.W.Error(ErrSyntax)
		return p, false
	}
	p.Count = 1
	opts := c.Args[at+2+int(n):]
	counted := false
	for len(opts) > 0 {
		if counted || len(opts) < 2 || !Eq(opts[0], "count") {
			c.W.Error(ErrSyntax)
			return p, false
		}
		k, ok := ParseInt(opts[1])
		if !ok || k < 1 {
			c.W.Error("ERR count should be greater than 0")
			return p, false
		}
		p.Count, counted = k, true
		opts = opts[2:]
	}
	if at == 2 {
		t, msg := ParseTimeout(c.Args[1])
		if msg != "" {
			c.W.Error(msg)
			return p, false
		}
		p.TimeoutMs = t
	}
	return p, true
}

// ServeMPop runs a multi-key pop (LMPOP, ZMPOP and their blocking forms):
// it parses the arguments, lets pop serve the first key that has
// elements, and with every key missing answers a null array, or, for a
// blocking form outside MULTI, blocks on the keys until one has some.
func ServeMPop(c *Ctx, blocking bool, sides [2]string, pop func(*Ctx, MPop) bool) {
	at := 1
	if blocking {
		at = 2
	}
	p, ok := ParseMPop(c, at, sides)
	if !ok || pop(c, p) {
		return
	}
	if !blocking || c.InMulti {
		c.W.NullArray()
		return
	}
	c.BlockOn(p.Keys, p.TimeoutMs)
}
