package deploy

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ruvio/ruvio/coordinator"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/server"
)

// exported lists the metric names a collector describes.
func exported(c prometheus.Collector) []string {
	ch := make(chan *prometheus.Desc, 64)
	go func() { c.Describe(ch); close(ch) }()
	fq := regexp.MustCompile(`fqName: "([^"]+)"`)
	var names []string
	for d := range ch {
		if m := fq.FindStringSubmatch(d.String()); m != nil {
			names = append(names, m[1])
		}
	}
	return names
}

// TestDashboardQueriesExistingMetrics reads every query of the Grafana
// dashboard and requires each ruvio metric it names to be one the data
// node or the coordinator exports (a histogram's _bucket, _sum and _count
// included), so a renamed metric cannot leave a panel empty.
func TestDashboardQueriesExistingMetrics(t *testing.T) {
	raw, err := os.ReadFile("grafana/ruvio.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("grafana/ruvio.json: %v", err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	node, err := server.New(cfg, quiet)
	if err != nil {
		t.Fatal(err)
	}
	ccfg := coordinator.DefaultConfig()
	ccfg.ID, ccfg.Listen, ccfg.DataDir, ccfg.Peers = 1, "127.0.0.1:1", t.TempDir(), []string{"1@127.0.0.1:1"}
	ccfg.Groups = []coordinator.Group{{Name: "main", Members: []coordinator.Member{{Address: "127.0.0.1:2", Replication: "127.0.0.1:3"}}}}
	coord, err := coordinator.New(ccfg, quiet)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, n := range append(exported(node.Metrics()), exported(coord.Metrics())...) {
		known[n] = true
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			known[n+suffix] = true
		}
	}
	if len(known) < 20 {
		t.Fatalf("only %d metric names found: the collectors' descriptions were not read", len(known))
	}
	name := regexp.MustCompile(`\bruvio_[a-z_]+\b`)
	queried := 0
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			for _, n := range name.FindAllString(tg.Expr, -1) {
				queried++
				if !known[n] {
					t.Errorf("panel %q queries %s, which neither the node nor the coordinator exports (query %q)", p.Title, n, tg.Expr)
				}
			}
		}
	}
	if queried == 0 || !strings.Contains(string(raw), "${DS_PROMETHEUS}") {
		t.Fatalf("the dashboard queries %d ruvio metrics and must take its data source as an input", queried)
	}
}
