// Package hash implements the value behind a Redis hash: fields mapped to
// byte-string values, with no I/O. Small hashes live in one compact
// buffer, as Redis's listpack, and larger ones in a Go map.
package hash

import (
	"bytes"
	"maps"
	"unsafe"
)

// Redis keeps a hash as a listpack while it has at most
// hash-max-listpack-entries fields and no field or value longer than
// hash-max-listpack-value bytes; a Hash does the same with its compact
// form, using Redis 7's defaults.
const (
	packedMaxLen   = 512
	packedMaxValue = 64
)

// Hash is a hash value. Like Redis, it has two forms. While it holds at
// most 512 fields, none of them and none of their values longer than 64
// bytes, it keeps them in one buffer in insertion order (see packed); the
// first Set past either limit turns it into a map, for good, as Redis
// never converts a hash back either. Every operation answers alike in both
// forms, except for the order Range visits fields in.
//
// A Hash owns all its bytes: Set copies the value it is given, so a stored
// hash never pins a request's buffer.
//
// Values returned by Get and passed to Range alias the hash's storage:
// they may be written to a client or copied, but must not be modified,
// and must not be used after the hash changes (in the compact form a
// change moves bytes in place).
//
// A nil *Hash reads as empty: Len, Get, Delete, Range and Encoding accept
// it. New returns an empty hash ready for Set. A Hash is not safe for
// concurrent use, and must not be modified while Range runs.
type Hash struct {
	small packed            // the fields while big is nil
	big   map[string][]byte // the large form, once the hash outgrew small
}

// New returns an empty hash.
func New() *Hash { return &Hash{} }

// FromMap returns a hash holding m's fields, copied, in the form Redis
// would choose for them.
func FromMap(m map[string][]byte) *Hash {
	h := New()
	for f, v := range m {
		h.Set(f, v)
	}
	return h
}

// Len returns the number of fields.
func (h *Hash) Len() int {
	switch {
	case h == nil:
		return 0
	case h.big != nil:
		return len(h.big)
	}
	return h.small.len()
}

// Get returns field's value and whether field is present. See the type's
// comment for how long the value stays valid.
func (h *Hash) Get(field string) ([]byte, bool) {
	switch {
	case h == nil:
		return nil, false
	case h.big != nil:
		v, ok := h.big[field]
		return v, ok
	}
	off := h.small.find(field)
	if off < 0 {
		return nil, false
	}
	_, v, _ := h.small.entry(off)
	return v, true
}

// Set sets field to a copy of val and reports whether field is new. A
// field or value longer than the compact form allows, or a field past its
// count, moves the hash to the map form first, as Redis converts a
// listpack before it stores such a field (even one that replaces a short
// value).
func (h *Hash) Set(field string, val []byte) (added bool) {
	if added, done := h.setCompact(field, val); done {
		return added
	}
	_, exists := h.big[field]
	// A copy: in the map form a value is replaced, never written in
	// place, which is what lets Clone share values.
	h.big[field] = bytes.Clone(val)
	return !exists
}

// SetBytes is Set for a field given as bytes. The compact form copies the
// field's bytes into its buffer, so there the field never becomes a
// string of its own: an HSET of a small hash allocates nothing.
func (h *Hash) SetBytes(field, val []byte) (added bool) {
	if added, done := h.setCompact(unsafe.String(unsafe.SliceData(field), len(field)), val); done {
		return added
	}
	return h.Set(string(field), val)
}

// setCompact stores field and val in the compact form when the hash is in
// it and they fit (done), keeping no part of field. When they do not fit
// it moves the hash to the map form, where the caller stores them.
func (h *Hash) setCompact(field string, val []byte) (added, done bool) {
	if h.big != nil {
		return false, false
	}
	if len(field) <= packedMaxValue && len(val) <= packedMaxValue {
		if off := h.small.find(field); off >= 0 {
			h.small.replace(off, val)
			return false, true
		}
		if h.small.len() < packedMaxLen {
			h.small.add(field, val)
			return true, true
		}
	}
	h.promote()
	return false, false
}

// promote turns the compact form into the map, with room for one more
// field.
func (h *Hash) promote() {
	big := make(map[string][]byte, h.small.len()+1)
	for off := packedPrefix; off < len(h.small); {
		f, v, next := h.small.entry(off)
		big[string(f)] = bytes.Clone(v)
		off = next
	}
	h.big, h.small = big, nil
}

// Delete removes field and reports whether it was present.
func (h *Hash) Delete(field string) bool {
	switch {
	case h == nil:
		return false
	case h.big != nil:
		_, ok := h.big[field]
		delete(h.big, field)
		return ok
	}
	off := h.small.find(field)
	if off < 0 {
		return false
	}
	h.small.remove(off)
	return true
}

// Range calls yield with every field and its value until yield returns
// false: in insertion order in the compact form (as Redis's listpack
// answers HGETALL), in the map's random order in the large one. The field
// string is the caller's to keep; the value is as Get's.
func (h *Hash) Range(yield func(field string, val []byte) bool) {
	switch {
	case h == nil:
		return
	case h.big != nil:
		for f, v := range h.big {
			if !yield(f, v) {
				return
			}
		}
		return
	}
	for off := packedPrefix; off < len(h.small); {
		f, v, next := h.small.entry(off)
		if !yield(string(f), v) {
			return
		}
		off = next
	}
}

// CompactSize is the bytes the compact form's buffer holds room for, 0
// in the map form: what MEMORY USAGE counts for a small hash besides the
// Hash itself.
func (h *Hash) CompactSize() int {
	if h == nil {
		return 0
	}
	return cap(h.small)
}

// Encoding is the name OBJECT ENCODING gives the hash's form.
func (h *Hash) Encoding() string {
	if h != nil && h.big != nil {
		return "hashtable"
	}
	return "listpack"
}

// Clone returns a copy that later changes to either hash do not reach,
// in the same form. The map form's values are shared, which is safe since
// they are only ever replaced.
func (h *Hash) Clone() *Hash {
	if h.big != nil {
		return &Hash{big: maps.Clone(h.big)}
	}
	return &Hash{small: h.small.clone()}
}
