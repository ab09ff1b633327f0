package main

import (
	"errors"
	"strings"
)

// splitTrimmed splits a comma-separated flag into trimmed, non-empty items,
// as typed: numbers keep their spelling so an error quotes it.
func splitTrimmed(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// splitList splits a comma-separated flag into lower-case, trimmed,
// non-empty items, for names that are matched without regard to case.
func splitList(s string) []string {
	out := splitTrimmed(s)
	for i, f := range out {
		out[i] = strings.ToLower(f)
	}
	return out
}

// uniqueList turns the items of a list flag into values with item, keeping
// their order and dropping repeats so that one setting is not measured
// twice by accident. The first item that item rejects is the error; a list
// with no items at all fails with the words empty.
func uniqueList[T comparable](items []string, item func(string) (T, error), empty string) ([]T, error) {
	var out []T
	seen := map[T]bool{}
	for _, f := range items {
		v, err := item(f)
		if err != nil {
			return nil, err
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, errors.New(empty)
	}
	return out, nil
}
