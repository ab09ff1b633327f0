package coordinator

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
)

func scrapeText(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func value(text, series string) float64 {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(text)
	if m == nil {
		return -1
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// TestMetricsFollowAFailover scrapes a coordinator before and after it
// fails a group over.
func TestMetricsFollowAFailover(t *testing.T) {
	ps, pm := dataNode(t, "primary", "")
	_, rm := dataNode(t, "replica", pm.Replication)
	cfg := soloConfig(t)
	cfg.MetricsListen = "127.0.0.1:0"
	cfg.Groups = []Group{{Name: "main", Members: []Member{pm, rm}}}
	c := runCoordinator(t, cfg, quiet())
	base := "http://" + c.metricsLn.Addr()
	var text string
	poll.Until(t, 15*time.Second, "the first record in the metrics", func() bool {
		_, text = scrapeText(t, base+"/metrics")
		return value(text, `ruvio_coordinator_group_primary{group="main",primary="`+pm.Address+`"}`) == 1 &&
			value(text, `ruvio_coordinator_group_members_heard{group="main"}`) == 2
	})
	for series, want := range map[string]float64{
		`ruvio_coordinator_leader`:                              1,
		`ruvio_coordinator_group_epoch{group="main"}`:           1,
		`ruvio_coordinator_group_failovers_total{group="main"}`: 0,
		`ruvio_coordinator_group_members{group="main"}`:         2,
		`ruvio_coordinator_cluster_map_version`:                 0,
	} {
		if got := value(text, series); got != want {
			t.Errorf("%s = %g, want %g", series, got, want)
		}
	}
	if code, body := scrapeText(t, base+"/readyz"); code != http.StatusOK {
		t.Errorf("/readyz: %d %q", code, body)
	}
	stop(ps)
	poll.Until(t, 15*time.Second, "the failover in the metrics", func() bool {
		_, text = scrapeText(t, base+"/metrics")
		return value(text, `ruvio_coordinator_group_failovers_total{group="main"}`) == 1 &&
			value(text, `ruvio_coordinator_group_primary{group="main",primary="`+rm.Address+`"}`) == 1
	})
	if got := value(text, `ruvio_coordinator_group_primary_silence_seconds{group="main"}`); got < 0 {
		t.Errorf("the new primary's silence is %g: it has been heard", got)
	}
}
