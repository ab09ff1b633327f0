package command

// BlockOn asks the server to wait for a write to one of keys, or for
// timeoutMs to pass (0: forever), and then run the command again with the
// same arguments. The keys are deduplicated, in argument order. The
// command must write no reply and record no effect.
func (c *Ctx) BlockOn(keys [][]byte, timeoutMs int64) {
	ks := make([]string, 0, len(keys))
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		if s := string(k); !seen[s] {
			seen[s] = true
			ks = append(ks, s)
		}
	}
	c.Block = &BlockRequest{Keys: ks, TimeoutMs: timeoutMs}
}

// PassOverOnWake reports whether a blocking command run again after a
// wake-up should pass over key because it holds something other than a
// T: Redis serves a blocked client only from a key of the type it waits
// for, and a key given another type meanwhile (SET on a list a BLPOP
// waits on) leaves the client waiting rather than answering WRONGTYPE.
// On the first run such a key answers WRONGTYPE as usual.
func PassOverOnWake[T any](c *Ctx, key []byte) bool {
	if !c.Woken {
		return false
	}
	e := c.DB.Peek(string(key))
	if e == nil {
		return false
	}
	_, ok := e.Val.(T)
	return !ok
}

// BlockingPop runs a blocking pop of the form NAME key [key ...] timeout
// (BLPOP, BRPOP, BZPOPMIN, BZPOPMAX) on values of type T. It calls pop with
// the first key, in argument order, that holds a T, and pop answers and
// records the effect; keys are checked in that order, so a key of another
// type after a non-empty one is not reported, as in Redis. When every key
// is missing it blocks on them all, or inside MULTI, where nothing can
// wait, has timedOut write what a timeout answers.
func BlockingPop[T any](c *Ctx, pop func(key []byte, v T), timedOut func(*Ctx)) {
	last := len(c.Args) - 1
	timeout, msg := ParseTimeout(c.Args[last])
	if msg != "" {
		c.W.Error(msg)
		return
	}
	keys := c.Args[1:last]
	for _, k := range keys {
		if PassOverOnWake[T](c, k) {
			continue
		}
		e := c.DB.Get(string(k))
		v, ok := As[T](c, e)
		if !ok {
			return
		}
		if e != nil {
			pop(k, v)
			return
		}
	}
	if c.InMulti {
		timedOut(c)
		return
	}
	// Every blocking pop answers a timeout with a null array.
	c.BlockOn(keys, timeout)
}
