package elle

import (
	"fmt"
	"strings"
)

// FormatMop writes a micro-op as one line of words: "append KEY VALUE",
// or "r KEY E1 E2 ..." for a read with its result ("r KEY" for an empty
// list, and for a read whose result is unknown). Keys and values must not
// hold white space; the workload's never do. This is how a transaction's
// micro-ops travel in the Values of a history.Op.
func FormatMop(m Mop) string {
	if m.F == Append {
		return Append + " " + m.Key + " " + m.Value
	}
	if len(m.List) == 0 {
		return Read + " " + m.Key
	}
	return Read + " " + m.Key + " " + strings.Join(m.List, " ")
}

// ParseMop reads what FormatMop writes.
func ParseMop(s string) (Mop, error) {
	w := strings.Fields(s)
	switch {
	case len(w) == 3 && w[0] == Append:
		return Mop{F: Append, Key: w[1], Value: w[2]}, nil
	case len(w) >= 2 && w[0] == Read:
		return Mop{F: Read, Key: w[1], List: append([]string{}, w[2:]...)}, nil
	}
	return Mop{}, fmt.Errorf("elle: bad micro-op %q (want \"append KEY VALUE\" or \"r KEY ELEMENTS...\")", s)
}

// OpF is the function of a history op that holds a transaction: its
// Values are the micro-ops, one FormatMop line each.
const OpF = "txn"
