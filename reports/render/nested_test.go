package render

import (
	"strings"
	"testing"
)

// An object in the summary (the lease figures) is tabled one row per
// field, in the order that tells its story, nested objects likewise, and
// null reads n/a.
func TestWriteFigureRowsFlattensObjects(t *testing.T) {
	var b strings.Builder
	writeFigureRows(&b, "lease", map[string]any{
		"zeta": "z", "promotion_ms": nil, "old_primary": "n1", "first_refusal_ms": 1300,
		"stall": map[string]any{"stall_ms": 1700, "acked_on_resume_ms": []any{10, 12}},
	})
	want := "| lease.old_primary | n1 |\n| lease.first_refusal_ms | 1300 |\n| lease.promotion_ms | n/a |\n" +
		"| lease.stall.stall_ms | 1700 |\n| lease.stall.acked_on_resume_ms | [10,12] |\n| lease.zeta | z |\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}
