package render

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/reports/history"
)

// testSummary mirrors the summary keys the checkers write; render only
// marshals it, so a local type keeps this test independent of package check.
type testSummary struct {
	Scenario      string          `json:"scenario"`
	Backend       string          `json:"backend"`
	Seed          int64           `json:"seed"`
	Runs          int             `json:"runs"`
	Valid         any             `json:"valid"`
	Ops           int             `json:"ops"`
	Acknowledged  int             `json:"acknowledged"`
	Failed        int             `json:"failed"`
	Indeterminate int             `json:"indeterminate"`
	Lost          int             `json:"lost"`
	LostKeys      []string        `json:"lost_keys"`
	Stale         int             `json:"stale"`
	Linearizable  *bool           `json:"linearizable"`
	FailoverMs    *int64          `json:"failover_ms"`
	UnavailableMs *int64          `json:"unavailable_ms"`
	TwoWriterMs   *int64          `json:"two_writer_ms"`
	RefusalMs     *int64          `json:"refusal_ms"`
	Faults        []history.Fault `json:"faults"`
	Violations    []string        `json:"violations"`
}

// syntheticRun is a few seconds of three writers and a reader, with a
// kill and a SIGSTOP, and every outcome represented.
func syntheticRun() (*history.History, testSummary) {
	h := &history.History{}
	const ms = int64(1e6)
	for p := 0; p < 4; p++ {
		for i := 0; i < 120; i++ {
			t0 := int64(i)*40*ms + int64(p)*7*ms
			op := history.Op{Process: p, Type: history.OK, F: history.FAdd, Key: "k" + fmt.Sprint(p%2),
				Value: fmt.Sprintf("%d-%d", p, i), T0: t0, T1: t0 + int64(1+i%5)*ms/2, Node: "n1"}
			switch {
			case t0 >= 1500*ms && t0 < 2100*ms: // node killed: refused connections
				op.Type, op.Err, op.T1 = history.Fail, "dial tcp 127.0.0.2:6379: connect: connection refused", t0+ms/5
			case t0 >= 3000*ms && t0 < 3400*ms: // node stopped: requests hang until the client times out
				op.Type, op.Err, op.T1 = history.Info, "i/o timeout", t0+500*ms
			}
			if p == 3 {
				op.F, op.Value, op.Values = history.FRead, "", []string{"0-1", "1-1"}
			}
			h.Ops = append(h.Ops, op)
		}
	}
	h.Ops = append(h.Ops, history.Op{Process: 3, Type: history.OK, F: history.FRead, Key: "k0",
		Values: []string{"0-1"}, T0: 5000 * ms, T1: 5003 * ms, Final: true, Err: "odd <err> & \x01 \"quoted\""})
	h.Faults = []history.Fault{
		{Kind: "kill", Target: "n1", StartMs: 1500, EndMs: 2100, Note: "SIGKILL, restarted at end"},
		{Kind: "pause", Target: "n1", StartMs: 3000, EndMs: 3400},
	}
	lin := true
	unavail := int64(600)
	s := testSummary{
		Scenario: "crash", Backend: "local", Seed: 1234567890123456789, Runs: 1, Valid: false,
		Ops: len(h.Ops), Acknowledged: 400, Failed: 45, Indeterminate: 36, Lost: 2,
		LostKeys: []string{"k0/0-7", "k1/1-9"}, Linearizable: &lin, UnavailableMs: &unavail,
		Faults: h.Faults, Violations: []string{"2 acknowledged writes lost | e.g. k0/0-7"},
	}
	return h, s
}

func TestWriteProducesEveryFile(t *testing.T) {
	dir := t.TempDir()
	h, s := syntheticRun()
	notes := []string{"EXPIRE is wall-clock: a node whose clock runs fast expires keys early."}
	if err := Write(dir, h, s, notes); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if os.Getenv("RENDER_SAMPLE_DIR") != "" {
		// Lets a person look at the output: RENDER_SAMPLE_DIR=/tmp/x go test.
		if err := Write(os.Getenv("RENDER_SAMPLE_DIR"), h, s, notes); err != nil {
			t.Fatal(err)
		}
	}
	minSize := map[string]int64{SummaryFile: 300, ReportFile: 1500, TimelineFile: 20000, PlotFile: 20000}
	for name, want := range minSize {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if fi.Size() < want {
			t.Errorf("%s is %d bytes, want at least %d", name, fi.Size(), want)
		}
	}

	t.Run("summary round-trips", func(t *testing.T) {
		raw, err := os.ReadFile(filepath.Join(dir, SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(raw, []byte("\n  \"scenario\": \"crash\"")) {
			t.Errorf("summary.json is not indented:\n%s", raw)
		}
		var back testSummary
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatalf("decode: %v", err)
		}
		if !reflect.DeepEqual(back, s) {
			t.Errorf("round trip differs:\n got %+v\nwant %+v", back, s)
		}
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(raw, &keys); err != nil {
			t.Fatal(err)
		}
		if string(keys["refusal_ms"]) != "null" {
			t.Errorf("refusal_ms = %s, want null", keys["refusal_ms"])
		}
	})

	t.Run("report has verdict, faults, definitions", func(t *testing.T) {
		raw, err := os.ReadFile(filepath.Join(dir, ReportFile))
		if err != nil {
			t.Fatal(err)
		}
		md := string(raw)
		for _, want := range []string{
			"# Chaos run: crash",
			"chaos run crash --seed 1234567890123456789",
			"## Verdict: FAIL",
			"| lost acknowledged writes | 2 |",
			"| linearizable | true |",
			"| refusal time (ms) | n/a |",
			"| kind | target | start | end | duration | note |",
			"| kill | n1 | 1500 ms | 2100 ms | 600ms | SIGKILL, restarted at end |",
			"| pause | n1 | 3000 ms | 3400 ms | 400ms | SIGSTOP/pause: the kernel still accepts connections; not a partition |",
			"- 2 acknowledged writes lost | e.g. k0/0-7",
			"EXPIRE is wall-clock",
			"**failover time**", "**lost**", "**two-writer window**", "**refusal time**", "**indeterminate**",
			"(timeline.html)", "(latency.png)",
		} {
			if !strings.Contains(md, want) {
				t.Errorf("report.md lacks %q", want)
			}
		}
		if t.Failed() {
			t.Logf("report.md:\n%s", md)
		}
	})

	t.Run("timeline is well-formed and complete", func(t *testing.T) {
		raw, err := os.ReadFile(filepath.Join(dir, TimelineFile))
		if err != nil {
			t.Fatal(err)
		}
		page := string(raw)
		for _, banned := range []string{"<script", "http://", "https://"} {
			// The SVG namespace is an identifier, not a fetch.
			rest := strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, "")
			if strings.Contains(rest, banned) {
				t.Errorf("timeline.html contains %q: it must be self-contained", banned)
			}
		}
		counts := parseTimeline(t, raw)
		if counts.ops != len(h.Ops) {
			t.Errorf("timeline's bars cover %d ops, want %d", counts.ops, len(h.Ops))
		}
		if counts.bands != len(h.Faults) {
			t.Errorf("timeline has %d fault bands, want %d", counts.bands, len(h.Faults))
		}
		for _, c := range []string{"ok", "fail", "info"} {
			if counts.byClass[c] == 0 {
				t.Errorf("no bar coloured %q", c)
			}
		}
		for _, lane := range []string{"process 0", "process 3", "pause n1", "kill n1"} {
			if !counts.texts[lane] {
				t.Errorf("timeline lacks the text %q", lane)
			}
		}
	})

	t.Run("plot is a readable PNG", func(t *testing.T) {
		f, err := os.Open(filepath.Join(dir, PlotFile))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		b := img.Bounds()
		if b.Dx() < 800 || b.Dy() < 500 || b.Dx() > 4000 || b.Dy() > 4000 {
			t.Errorf("plot is %dx%d, want a readable page-sized image", b.Dx(), b.Dy())
		}
	})
}

type timelineCounts struct {
	ops, bands int
	byClass    map[string]int
	texts      map[string]bool
}

// parseTimeline decodes the whole page as XML (the renderer promises
// well-formed output) and counts what the SVG draws.
func parseTimeline(t *testing.T, raw []byte) timelineCounts {
	t.Helper()
	c := timelineCounts{byClass: map[string]int{}, texts: map[string]bool{}}
	dec := xml.NewDecoder(bytes.NewReader(raw))
	dec.Strict = true
	var stack []string
	sawSVG := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("timeline.html is not well-formed: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			stack = append(stack, el.Name.Local)
			if el.Name.Local == "svg" {
				sawSVG = true
			}
			if el.Name.Local != "rect" {
				continue
			}
			for _, a := range el.Attr {
				if a.Name.Local != "class" {
					continue
				}
				classes := strings.Fields(a.Value)
				switch {
				case len(classes) > 0 && classes[0] == "band":
					c.bands++
				case len(classes) > 0 && (classes[0] == "ok" || classes[0] == "fail" || classes[0] == "info"):
					n := 1
					for _, a := range el.Attr {
						if a.Name.Local == "data-ops" {
							if _, err := fmt.Sscan(a.Value, &n); err != nil {
								t.Fatalf("data-ops=%q: %v", a.Value, err)
							}
						}
					}
					c.ops += n
					c.byClass[classes[0]] += n
				}
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 && stack[len(stack)-1] == "text" {
				c.texts[strings.TrimSpace(string(el))] = true
			}
		}
	}
	if len(stack) != 0 {
		t.Fatalf("unclosed elements: %v", stack)
	}
	if !sawSVG {
		t.Fatal("timeline.html has no <svg>")
	}
	return c
}

func TestVerdictNeverPassesWithoutProof(t *testing.T) {
	for _, tc := range []struct {
		valid any
		want  string
	}{
		{true, "PASS"}, {false, "FAIL"}, {"unknown", "UNKNOWN"}, {nil, "UNKNOWN"}, {"maybe", "UNKNOWN"},
	} {
		raw, _ := json.Marshal(map[string]any{"valid": tc.valid})
		s, err := parseSummary(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := s.verdict(); got != tc.want {
			t.Errorf("valid=%v: verdict %s, want %s", tc.valid, got, tc.want)
		}
	}
}

func TestEmptyHistoryStillRenders(t *testing.T) {
	dir := t.TempDir()
	h := &history.History{Faults: []history.Fault{{Kind: "partition", Target: "n1 | n2 n3", StartMs: 10}}}
	if err := Write(dir, h, map[string]any{"scenario": "empty", "valid": "unknown"}, nil); err != nil {
		t.Fatalf("Write: %v", err)
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| partition | n1 \\| n2 n3 | 10 ms | not healed |") {
		t.Errorf("open fault not reported as not healed:\n%s", md)
	}
	raw, err := os.ReadFile(filepath.Join(dir, TimelineFile))
	if err != nil {
		t.Fatal(err)
	}
	parseTimeline(t, raw)
}

func TestWriteRejectsUnmarshalableSummary(t *testing.T) {
	if err := Write(t.TempDir(), &history.History{}, func() {}, nil); err == nil {
		t.Fatal("Write accepted a summary that is not JSON")
	}
	if err := Write(t.TempDir(), &history.History{}, []int{1}, nil); err == nil {
		t.Fatal("Write accepted a summary that is not a JSON object")
	}
}

// A replicated run's report tables what the operator did and measured, and
// a pass with tolerated loss says so rather than claiming a clean history.
func TestReportShowsReplicationAndTolerated(t *testing.T) {
	dir := t.TempDir()
	h := &history.History{Observations: []history.Observation{
		{Kind: history.ObsPromotion, Node: "n2", Type: history.OK, StartMs: 6000, EndMs: 6040, Detail: "n1 killed; n2 promoted"},
		{Kind: history.ObsCatchUp, Node: "n1", Type: history.OK, StartMs: 14000, EndMs: 14180, Detail: "after restart"},
		{Kind: history.ObsCatchUp, Node: "n3", Type: history.Info, StartMs: 15000, EndMs: 15100, Detail: "interrupted"},
		{Kind: history.ObsConvergence, Type: history.OK, StartMs: 22000, EndMs: 22100, Detail: "3 nodes hold digest ab"},
	}}
	s := map[string]any{"scenario": "failover-manual", "valid": true, "lost": 12, "catch_up_max_ms": 180, "catch_ups": 1,
		"converged": true, "tolerated": []string{"lost 12 acknowledged writes | k=p1-2"}}
	if err := Write(dir, h, s, nil); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	md := string(raw)
	for _, want := range []string{
		"## Verdict: PASS", "under the scenario's model",
		"## Replication", "| promotion | n2 | done | 6000 ms | 6040 ms | 40 ms | n1 killed; n2 promoted |",
		"| catch-up | n3 | cut short |", "| convergence |  | done |",
		"| replica catch-up, longest (ms) | 180 |", "| nodes converged after heal | true |",
		"## Tolerated", "- lost 12 acknowledged writes | k=p1-2",
		"**replica catch-up**",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}
