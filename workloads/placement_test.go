package workloads

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/ruvio/slots"
)

// Every key a placed workload names is in its range, and the names are
// distinct.
func TestPlacedKeysFallInTheirRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		first := rapid.IntRange(0, slots.Count-1).Draw(t, "first")
		last := rapid.IntRange(first, min(first+rapid.IntRange(0, 2000).Draw(t, "width"), slots.Count-1)).Draw(t, "last")
		n := rapid.IntRange(1, 12).Draw(t, "keys")
		keys := placedKeys("set:", n, first, last)
		if len(keys) != n {
			t.Fatalf("%d keys, want %d", len(keys), n)
		}
		seen := map[string]bool{}
		for _, k := range keys {
			if s := slots.OfString(k); s < first || s > last {
				t.Fatalf("key %q is in slot %d, outside %d-%d", k, s, first, last)
			}
			if seen[k] {
				t.Fatalf("key %q named twice", k)
			}
			seen[k] = true
		}
	})
}

func TestSpecSlots(t *testing.T) {
	s := Spec{Kind: KindRegister, Keys: 5, Slots: "100-199", KeyPrefix: "reg:"}
	keys := s.KeyNames()
	if len(keys) != 5 || keys[0] == keys[1] {
		t.Fatalf("keys %v", keys)
	}
	for _, k := range keys {
		if sl := slots.OfString(k); sl < 100 || sl > 199 {
			t.Errorf("key %q in slot %d", k, sl)
		}
	}
	for _, bad := range []Spec{
		{Kind: KindSet, Slots: "5"},
		{Kind: KindSet, Slots: "9-3"},
		{Kind: KindSet, Slots: "0-16384"},
		{Kind: KindAppend, Slots: "0-10"},
	} {
		if _, err := bad.withDefaults(); err == nil {
			t.Errorf("spec with slots %q (%s) accepted", bad.Slots, bad.Kind)
		}
	}
	if (Spec{Kind: KindSet, Keys: 3}).KeyNames()[2] != "set:2" {
		t.Error("a spec without slots changed its key names")
	}
}
