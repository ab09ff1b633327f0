// Package notify holds Redis's keyspace notifications: the event classes
// that notify-keyspace-events selects, and the buffer in which a shard
// collects a command's events until they are published, just before its
// lock is released, on the __keyspace@0__ and __keyevent@0__ channels.
package notify

import (
	"errors"
	"strings"
	"sync/atomic"
)

// Class is a set of event classes, one bit per letter of
// notify-keyspace-events.
type Class uint32

// The classes, with their letters.
const (
	Keyspace Class = 1 << iota // K: publish on __keyspace@0__:<key>
	Keyevent                   // E: publish on __keyevent@0__:<event>
	Generic                    // g: DEL, EXPIRE, RENAME, ...
	String                     // $
	List                       // l
	Set                        // s
	Hash                       // h
	Zset                       // z
	Expired                    // x: a key whose time ran out was deleted
	Evicted                    // e: a key was evicted for maxmemory
	Stream                     // t
	KeyMiss                    // m: a read found no key
	Module                     // d: no modules, never sent
	New                        // n: a key was created
)

// All is the 'A' alias: every class but key-miss and new.
const All = Generic | String | List | Set | Hash | Zset | Expired | Evicted | Stream | Module

// ErrBadClass is Redis's reason for refusing a letter.
//
//lint:ignore ST1005 the text is Redis's reply, word for word
var ErrBadClass = errors.New("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")

var letters = []struct {
	c  byte
	cl Class
}{
	{'g', Generic}, {'$', String}, {'l', List}, {'s', Set}, {'h', Hash}, {'z', Zset},
	{'x', Expired}, {'e', Evicted}, {'t', Stream}, {'d', Module}, {'n', New},
}

// Parse reads a notify-keyspace-events value.
func Parse(s string) (Class, error) {
	var c Class
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; ch {
		case 'A':
			c |= All
		case 'K':
			c |= Keyspace
		case 'E':
			c |= Keyevent
		case 'm':
			c |= KeyMiss
		default:
			found := false
			for _, l := range letters {
				if l.c == ch {
					c |= l.cl
					found = true
					break
				}
			}
			if !found {
				return 0, ErrBadClass
			}
		}
	}
	return c, nil
}

// String renders c as CONFIG GET answers it: 'A' for all the classes it
// covers (Redis 7.0 then omits n), the others letter by letter, then K,
// E and m.
func (c Class) String() string {
	var b strings.Builder
	if c&All == All {
		// Redis 7.0 then leaves out 'n' (the class stays on).
		b.WriteByte('A')
	} else {
		for _, l := range letters {
			if c&l.cl != 0 {
				b.WriteByte(l.c)
			}
		}
	}
	if c&Keyspace != 0 {
		b.WriteByte('K')
	}
	if c&Keyevent != 0 {
		b.WriteByte('E')
	}
	if c&KeyMiss != 0 {
		b.WriteByte('m')
	}
	return b.String()
}

// Event is one notification: its class, its name ("set", "expired") and
// the key.
type Event struct {
	Class Class
	Name  string
	Key   string
}

// Buffer collects events in order. Its Mask is the node's setting, read
// once per Add, so with notifications off an Add costs one atomic load.
type Buffer struct {
	Mask *atomic.Uint32
	evs  []Event
}

// Wants reports whether an event of class c would be kept.
func (b *Buffer) Wants(c Class) bool {
	if b == nil || b.Mask == nil {
		return false
	}
	m := Class(b.Mask.Load())
	return m&c != 0 && m&(Keyspace|Keyevent) != 0
}

// Add keeps an event if the setting asks for its class.
func (b *Buffer) Add(c Class, name, key string) {
	if !b.Wants(c) {
		return
	}
	b.evs = append(b.evs, Event{c, name, key})
}

// Take returns the events collected so far and empties the buffer.
func (b *Buffer) Take() []Event {
	if b == nil || len(b.evs) == 0 {
		return nil
	}
	evs := b.evs
	b.evs = nil
	return evs
}

// Publisher sends messages on channels (the node's pub/sub hub).
type Publisher interface {
	Publish(channel, msg []byte) int
}

// Send publishes evs as the setting mask asks: on the key's keyspace
// channel with the event as message, then on the event's keyevent channel
// with the key as message.
func Send(p Publisher, mask Class, evs []Event) {
	for _, e := range evs {
		if mask&Keyspace != 0 {
			p.Publish([]byte("__keyspace@0__:"+e.Key), []byte(e.Name))
		}
		if mask&Keyevent != 0 {
			p.Publish([]byte("__keyevent@0__:"+e.Name), []byte(e.Key))
		}
	}
}
