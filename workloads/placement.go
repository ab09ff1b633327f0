package workloads

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/ruvio/slots"
)

// Key placement (Spec.Slots): a workload whose keys must fall in a range
// of hash slots, e.g. the range a scenario moves between groups. Key i is
// KeyPrefix + i + "{" + tag + "}", where tag is the i-th of the words
// "t0", "t1", ... whose slot is in the range: a hash tag decides a key's
// slot, so each key lands in the range and the keys spread over it.

// parseSlotRange reads "first-last" (inclusive, within the slot space).
func parseSlotRange(s string) (first, last int, err error) {
	a, b, ok := strings.Cut(s, "-")
	first, err1 := strconv.Atoi(a)
	last, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || first < 0 || first > last || last >= slots.Count {
		return 0, 0, fmt.Errorf("workloads: slots %q: want first-last with 0 <= first <= last < %d", s, slots.Count)
	}
	return first, last, nil
}

// placedKeys are n key names starting with prefix whose slots are in
// first..last.
func placedKeys(prefix string, n, first, last int) []string {
	keys := make([]string, 0, n)
	for j := 0; len(keys) < n; j++ {
		tag := "t" + strconv.Itoa(j)
		if s := slots.OfString(tag); s >= first && s <= last {
			keys = append(keys, prefix+strconv.Itoa(len(keys))+"{"+tag+"}")
		}
	}
	return keys
}
