package server

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/config"
)

func scrape(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// sample finds one sample's value in the text format, -1 when absent.
func sample(text, series string) float64 {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(text)
	if m == nil {
		return -1
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

func TestMetricsCountCommandsAndTheLog(t *testing.T) {
	s := startServer(t, func(c *config.Config) {
		c.Shards = 2
		c.Durability = "always"
		c.MetricsListen = "127.0.0.1:0"
	})
	base := "http://" + s.metricsLn.Addr()
	ctx := context.Background()
	c := client(t, s, 0)
	for i := range 7 {
		if err := c.Set(ctx, "k"+strconv.Itoa(i), "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	c.Get(ctx, "k0")
	c.Do(ctx, "CONFIG", "GET", "maxmemory")

	code, text := scrape(t, base+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics answered %d", code)
	}
	// Keys of both shards' slots are written through shard 0's port: the
	// command runs, and is counted, on the connection's shard.
	for series, want := range map[string]float64{
		`ruvio_commands_total{command="set",shard="0"}`:        7,
		`ruvio_commands_total{command="get",shard="0"}`:        1,
		`ruvio_commands_total{command="config|get",shard="0"}`: 1,
		`ruvio_role{role="standalone"}`:                        1,
		`ruvio_write_refusals_total{cause="min-replicas"}`:     0,
	} {
		if got := sample(text, series); got != want {
			t.Errorf("%s = %g, want %g", series, got, want)
		}
	}
	if got := sample(text, `ruvio_command_duration_seconds_count{shard="0"}`); got < 9 {
		t.Errorf("command_duration_seconds_count = %g, want at least the 9 commands sent", got)
	}
	var appends, fsyncs float64
	for _, sh := range []string{"0", "1"} {
		appends += sample(text, `ruvio_wal_appends_total{shard="`+sh+`"}`)
		fsyncs += sample(text, `ruvio_wal_fsyncs_total{shard="`+sh+`"}`)
	}
	if appends < 7 || fsyncs < 1 {
		t.Errorf("wal appends %g, fsyncs %g: want at least the 7 SETs and one fsync", appends, fsyncs)
	}
	if !strings.Contains(text, "ruvio_wal_fsync_duration_seconds_bucket") || !strings.Contains(text, "go_goroutines") {
		t.Errorf("missing the fsync histogram or the Go collector:\n%s", text)
	}
	if code, body := scrape(t, base+"/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, body := scrape(t, base+"/readyz"); code != http.StatusOK {
		t.Errorf("/readyz on a started standalone node: %d %q", code, body)
	}
	// The heap profile as text names the runtime's own allocation sites.
	if code, body := scrape(t, base+"/debug/pprof/heap?debug=1"); code != http.StatusOK || !strings.Contains(body, "heap profile:") {
		t.Errorf("/debug/pprof/heap: %d %.200q", code, body)
	}
}

func TestReadyzRefusesAnUnlinkedReplica(t *testing.T) {
	// A primary that does not exist: the replica never links.
	s := startServer(t, func(c *config.Config) {
		c.MetricsListen = "127.0.0.1:0"
		c.Replication.Role = "replica"
		c.Replication.Primary = "127.0.0.1:1"
		c.Replication.Listen = "127.0.0.1:" + strconv.Itoa(freePorts(t, 1))
	})
	code, body := scrape(t, "http://"+s.metricsLn.Addr()+"/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "not linked") {
		t.Fatalf("/readyz on an unlinked replica: %d %q", code, body)
	}
	_, text := scrape(t, "http://"+s.metricsLn.Addr()+"/metrics")
	if got := sample(text, `ruvio_replication_link_up{shard="0"}`); got != 0 {
		t.Errorf("replication_link_up = %g, want 0", got)
	}
}

func TestMetricsOffByDefault(t *testing.T) {
	s := startServer(t, nil)
	if s.metrics != nil || s.metricsLn != nil {
		t.Fatal("metrics_listen is empty, yet the node counts or listens")
	}
}
