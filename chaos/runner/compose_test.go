package runner

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/ruvio/ruvio/chaos/compose"
	"github.com/ruvio/ruvio/chaos/topology"
)

// composeBackend returns the backend that brings up the repository's
// Compose file, or skips the test without docker-compose or an engine
// (fails it under CHAOS_REQUIRE_DOCKER=1, as CI sets).
func composeBackend(t *testing.T) topology.Backend {
	t.Helper()
	if err := compose.Available(context.Background()); err != nil {
		if os.Getenv("CHAOS_REQUIRE_DOCKER") == "1" {
			t.Fatalf("CHAOS_REQUIRE_DOCKER=1 but %v", err)
		}
		t.Skipf("%v; set CHAOS_REQUIRE_DOCKER=1 to make this a failure", err)
	}
	b, err := compose.New(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The compose scenarios, briefly: the Compose file's primary container
// killed (and, in compose-leader, the coordinator leader with it); a new
// primary within the gate's bounds, nothing lost, the old primary back
// holding every write. One container set at a time: the file names its
// containers.
func TestComposeScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("brings up the Compose file twice")
	}
	b := composeBackend(t)
	for _, name := range []string{"compose", "compose-leader"} {
		t.Run(name, func(t *testing.T) {
			dir, s := runScenarioAt(t, name, b, 16*time.Second, testRate)
			passesItsGate(t, dir, s)
			if s.FailoverMs == nil {
				t.Fatalf("no failover measured: %+v", s)
			}
			t.Logf("%s: failover %d ms, %d acknowledged, %d lost", name, *s.FailoverMs, s.Acknowledged, s.Lost)
		})
	}
}
