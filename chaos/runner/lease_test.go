package runner

import (
	"testing"
	"time"
)

// With the primary lease, the old primary of the split brain refuses
// before a replica is promoted and acknowledges nothing after its first
// refusal, briefly, on local processes (the scenario's own gate).
func TestLeaseStopsTheOldPrimaryFirstLocal(t *testing.T) {
	_, s := testCoordinated(t, "lease-on", localBackend(), 12*time.Second)
	r := s.Lease
	if r == nil || r.FirstRefusalMs == nil || r.PromotionMs == nil || r.AcksAfterRefusal != 0 || r.AcksAfterPromotion != 0 ||
		*r.FirstRefusalMs >= *r.PromotionMs {
		t.Fatalf("lease %+v", r)
	}
	t.Logf("first refusal %d ms after the cut, promotion seen at %d ms, last ack on the old primary at %d ms; lost %d",
		*r.FirstRefusalMs, *r.PromotionMs, *r.OldLastAckMs, s.Lost)
}
