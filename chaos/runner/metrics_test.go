package runner

import (
	"testing"
	"time"

	"github.com/ruvio/ruvio/reports/history"
)

// On the local backend every data node serves its metrics and the runner
// records them: the history of a short run holds lag and refusal samples
// of each data node, and the report draws them.
func TestRunsRecordTheNodesMetrics(t *testing.T) {
	dir, _ := runScenarioAt(t, "kill", localBackend(), 4*time.Second, testRate)
	h, err := history.ReadFile(history.Find(dir))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]map[string]int{}
	for _, s := range h.Samples {
		if seen[s.Node] == nil {
			seen[s.Node] = map[string]int{}
		}
		seen[s.Node][s.Metric]++
	}
	for _, n := range []string{"n1", "n2", "n3"} {
		if seen[n][SampleLagRecords] < 4 || seen[n][SampleRefusals] < 4 {
			t.Errorf("%s: samples %v, want several of each metric", n, seen[n])
		}
	}
	for n := range seen {
		if n[0] == 'c' {
			t.Errorf("coordinator %s was scraped as a data node", n)
		}
	}
}
