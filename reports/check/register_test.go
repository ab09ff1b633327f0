package check

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/ruvio/ruvio/reports/history"
)

func TestCheckRegister(t *testing.T) {
	ok, fail, info := history.OK, history.Fail, history.Info
	tests := []struct {
		name string
		ops  []history.Op
		want porcupine.CheckResult
	}{
		{
			name: "sequential writes and reads",
			ops:  []history.Op{getOp(1, "", 0, 1), writeOp(1, "a", ok, 2, 3), getOp(2, "a", 4, 5), writeOp(2, "b", ok, 6, 7), getOp(1, "b", 8, 9)},
			want: porcupine.Ok,
		},
		{
			name: "a read returning a value overwritten before it started",
			ops:  []history.Op{writeOp(1, "a", ok, 0, 10), writeOp(2, "b", ok, 20, 30), getOp(3, "a", 40, 50)},
			want: porcupine.Illegal,
		},
		{
			name: "a read concurrent with the overwrite may see either value",
			ops:  []history.Op{writeOp(1, "a", ok, 0, 10), writeOp(2, "b", ok, 20, 30), getOp(3, "a", 25, 50)},
			want: porcupine.Ok,
		},
		{
			name: "nil after a write completed",
			ops:  []history.Op{writeOp(1, "a", ok, 0, 10), getOp(2, "", 20, 30)},
			want: porcupine.Illegal,
		},
		{
			name: "an indeterminate write may take effect long after it timed out",
			ops: []history.Op{writeOp(1, "a", ok, 0, 10), writeOp(2, "b", info, 20, 30), getOp(3, "a", 40, 50),
				getOp(3, "b", 60, 70), writeOp(1, "c", info, 80, 90)},
			want: porcupine.Ok,
		},
		{
			name: "an indeterminate write cannot take effect before it was invoked",
			ops:  []history.Op{writeOp(1, "a", ok, 0, 10), getOp(3, "b", 12, 15), writeOp(2, "b", info, 20, 30)},
			want: porcupine.Illegal,
		},
		{
			name: "a failed write did not happen",
			ops:  []history.Op{writeOp(1, "a", ok, 0, 10), writeOp(2, "b", fail, 20, 30), getOp(3, "b", 40, 50)},
			want: porcupine.Illegal,
		},
		{
			name: "failed and indeterminate gets are dropped",
			ops: []history.Op{writeOp(1, "a", ok, 0, 10),
				func() history.Op { op := getOp(2, "zzz", 20, 30); op.Type = info; return op }(),
				func() history.Op { op := getOp(2, "", 40, 50); op.Type = fail; return op }()},
			want: porcupine.Ok,
		},
		{
			name: "an acknowledged cas",
			ops:  []history.Op{writeOp(1, "a", ok, 0, 10), casOp(2, "a", "b", ok, 20, 30), getOp(3, "b", 40, 50)},
			want: porcupine.Ok,
		},
		{
			name: "an acknowledged cas whose expected value was not there",
			ops:  []history.Op{writeOp(1, "a", ok, 0, 10), casOp(2, "z", "b", ok, 20, 30)},
			want: porcupine.Illegal,
		},
		{
			name: "an indeterminate cas may have found another value",
			ops:  []history.Op{writeOp(1, "a", ok, 0, 10), casOp(2, "z", "b", info, 20, 30), getOp(3, "a", 40, 50)},
			want: porcupine.Ok,
		},
		{
			name: "an indeterminate cas that applied",
			ops:  []history.Op{writeOp(1, "a", ok, 0, 10), casOp(2, "a", "b", info, 20, 30), getOp(3, "a", 40, 50), getOp(3, "b", 60, 70)},
			want: porcupine.Ok,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := CheckRegister(&history.History{Ops: tc.ops}, 10*time.Second, "")
			if err != nil {
				t.Fatal(err)
			}
			if r.Result != tc.want {
				t.Fatalf("result %s, want %s", r.Result, tc.want)
			}
			if tc.want == porcupine.Illegal && !reflect.DeepEqual(r.BadKeys, []string{"x"}) {
				t.Errorf("bad keys %v, want [x]", r.BadKeys)
			}
		})
	}
}

func TestRegisterKeysAreIndependent(t *testing.T) {
	y := func(op history.Op) history.Op { op.Key = "y"; return op }
	ops := []history.Op{
		writeOp(1, "a", history.OK, 0, 10), getOp(2, "a", 20, 30), // x: fine
		y(writeOp(1, "a", history.OK, 0, 10)), y(writeOp(1, "b", history.OK, 11, 12)), y(getOp(2, "a", 20, 30)), // y: stale
	}
	r, err := CheckRegister(&history.History{Ops: ops}, 10*time.Second, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Result != porcupine.Illegal || !reflect.DeepEqual(r.BadKeys, []string{"y"}) {
		t.Fatalf("result %s, bad keys %v: want Illegal on y only", r.Result, r.BadKeys)
	}
}

func TestAnalyzeRegisterVerdicts(t *testing.T) {
	ok, info := history.OK, history.Info
	tests := []struct {
		name  string
		ops   []history.Op
		valid Validity
		lin   *bool
	}{
		{
			name:  "non-linearizable is invalid",
			ops:   []history.Op{writeOp(1, "a", ok, 0, 10), writeOp(2, "b", ok, 20, 30), getOp(3, "a", 40, 50)},
			valid: ValidFalse, lin: boolPtr(false),
		},
		{
			name:  "linearizable with indeterminate writes passes",
			ops:   []history.Op{writeOp(1, "a", ok, 0, 10), writeOp(2, "b", info, 20, 30), getOp(3, "b", 40, 50), writeOp(2, "c", info, 60, 70)},
			valid: ValidTrue, lin: boolPtr(true),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Analyze(&history.History{Ops: tc.ops}, Options{LinearizabilityLimit: 10 * time.Second})
			if s.Valid != tc.valid || !reflect.DeepEqual(s.Linearizable, tc.lin) {
				t.Fatalf("valid %s linearizable %v, want %s %v (violations %q)", s.Valid, s.Linearizable, tc.valid, *tc.lin, s.Violations)
			}
		})
	}
}

// bigRegisterHistory is many overlapping writes and reads of one key,
// with indeterminate writes left open to infinity: far more than the
// search can settle in a nanosecond.
func bigRegisterHistory(n int) []history.Op {
	var ops []history.Op
	for i := range n {
		p := i % 50
		t0 := int64(i)
		v := strconv.Itoa(i)
		switch i % 3 {
		case 0:
			ops = append(ops, writeOp(p, v, history.Info, t0, t0+40))
		case 1:
			ops = append(ops, writeOp(p, v, history.OK, t0, t0+40))
		default:
			ops = append(ops, getOp(p, strconv.Itoa(i-1), t0, t0+40))
		}
	}
	return ops
}

func TestLinearizabilityTimeoutIsUnknown(t *testing.T) {
	h := &history.History{Ops: bigRegisterHistory(20000)}
	start := time.Now()
	r, err := CheckRegister(h, time.Nanosecond, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Result != porcupine.Unknown || r.Linearizable() != nil {
		t.Fatalf("result %s, linearizable %v: want Unknown and null", r.Result, r.Linearizable())
	}
	s := Analyze(h, Options{LinearizabilityLimit: time.Nanosecond})
	if s.Valid != ValidUnknown || s.Linearizable != nil || len(s.Violations) != 0 {
		t.Fatalf("valid %s linearizable %v violations %q: want unknown, null, none", s.Valid, s.Linearizable, s.Violations)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the timed-out checks took %s: the limit is not honoured", d)
	}
}

func TestVisualizationHasFaultAnnotations(t *testing.T) {
	h := &history.History{
		Ops: []history.Op{writeOp(1, "a", history.OK, 0, 10), writeOp(2, "b", history.Info, 20, 30), getOp(3, "b", 40, 50)},
		Faults: []history.Fault{
			{Kind: "kill", Target: "n1", StartMs: 15, EndMs: 35, Note: "SIGKILL"},
			{Kind: "pause", Target: "n1", StartMs: 45}, // still open at the end
		},
	}
	path := filepath.Join(t.TempDir(), "linearizability.html")
	s := Analyze(h, Options{VisualizePath: path})
	if s.Valid != ValidTrue {
		t.Fatalf("valid %s (violations %q)", s.Valid, s.Violations)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{`"Tag":"faults"`, `"Description":"kill n1"`, `"Description":"pause n1"`, "SIGKILL", `set(\"b\") ?`} {
		if !strings.Contains(html, want) {
			t.Errorf("visualisation lacks %s", want)
		}
	}
}
