package render

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// nestedOrder is the order in which the report tables the fields of a
// summary key that holds an object (the lease figures), so they read as
// the story they tell; fields not listed follow by name.
var nestedOrder = map[string][]string{
	"lease": {"old_primary", "new_primary", "fault", "fault_start_ms", "fault_end_ms", "old_last_ack_ms",
		"first_refusal_ms", "first_refusal", "acks_after_refusal", "lease_due_ms", "lease_end_seen_ms",
		"promotion_ms", "promotion_after_refusal_ms", "new_first_ack_ms", "acks_after_promotion",
		"old_last_ack_after_promotion_ms", "stall"},
	"lease.stall": {"stall_ms", "acked_on_resume", "acked_on_resume_ms", "applied_unacknowledged",
		"acks_before_refusal", "first_refusal_ms", "writes_resumed_ms", "lease_due_ms", "acks_after_lease_due"},
}

// writeFigureRows tables one summary value: a row, or, for an object, a
// row per field named key.field (n/a for null), nested objects likewise.
func writeFigureRows(b *strings.Builder, key string, v any) {
	m, ok := v.(map[string]any)
	if !ok {
		cell := "n/a"
		if v != nil {
			cell = formatValue(v)
		}
		fmt.Fprintf(b, "| %s | %s |\n", mdCell(key), mdCell(cell))
		return
	}
	order := nestedOrder[key]
	fields := make([]string, 0, len(m))
	for f := range m {
		fields = append(fields, f)
	}
	sort.SliceStable(fields, func(i, j int) bool {
		a, c := slices.Index(order, fields[i]), slices.Index(order, fields[j])
		switch {
		case a >= 0 && c >= 0:
			return a < c
		case a >= 0 || c >= 0:
			return a >= 0
		}
		return fields[i] < fields[j]
	})
	for _, f := range fields {
		writeFigureRows(b, key+"."+f, m[f])
	}
}
