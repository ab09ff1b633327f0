package command

import (
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// As returns the value of entry e as a T, the zero T when e is nil (the
// key does not exist). ok is false when e holds another type, in which
// case WRONGTYPE has been written.
func As[T any](c *Ctx, e *keyspace.Entry) (v T, ok bool) {
	if e == nil {
		return v, true
	}
	v, ok = e.Val.(T)
	if !ok {
		c.W.Error(ErrWrongType)
	}
	return v, ok
}

// LookupRead returns key's value as a T for a command that reads it; see
// As. Like Redis's lookupKeyRead it counts a keyspace hit or miss.
func LookupRead[T any](c *Ctx, key string) (T, bool) { return As[T](c, c.DB.Read(key)) }

// LookupWrite returns key's value as a T for a command about to change
// it; see As. Like Redis's lookupKeyWrite it counts no hit or miss.
func LookupWrite[T any](c *Ctx, key string) (T, bool) { return As[T](c, c.DB.Get(key)) }

// LookupWriteKey is LookupWrite of the command's key argument, Args[1],
// for a command that stores under it: it also returns the key as a string
// the keyspace may keep (keyspace.DB.GetForWrite), the entry's own when
// the key exists, so that a write to an existing key copies no key.
func LookupWriteKey[T any](c *Ctx) (v T, key string, ok bool) {
	e, key := c.DB.GetForWrite(c.Args[1])
	v, ok = As[T](c, e)
	return v, key, ok
}

// Has is Redis's membership reply to whether key is in m (nil reads as
// empty): 1 or 0.
func Has[V any](m map[string]V, key []byte) int64 {
	if _, in := m[string(key)]; in {
		return 1
	}
	return 0
}

// Stored records one change to the value v at key: a created value is
// stored under key, one changed in place only touched, so WATCH fails and
// blocked clients retry.
func (c *Ctx) Stored(key string, v any, created bool) {
	if created {
		c.DB.Set(key, v)
	} else {
		c.DB.Touch(key)
	}
	c.Dirty++
}

// Changed records n changes made in place to the aggregate value (list,
// hash, set, sorted set) at key, which now holds size elements: an emptied
// value is deleted, since Redis never keeps an empty aggregate, and any
// other is touched. With n = 0 nothing happened and nothing is recorded.
func (c *Ctx) Changed(key string, size, n int) {
	if n == 0 {
		return
	}
	if size == 0 {
		c.DB.Delete(key)
		c.NotifyString(notify.Generic, "del", key)
	} else {
		c.DB.Touch(key)
	}
	c.Dirty += n
}

// DestAndNumKeys returns a Keys function for commands of the form NAME
// destination numkeys key [key ...] (ZUNIONSTORE, ZDIFFSTORE): the
// destination, then the counted keys (none when the count is bad).
func DestAndNumKeys(args [][]byte) []int {
	if len(args) < 2 {
		return nil
	}
	return append([]int{1}, NumKeysAt(2)(args)...)
}
