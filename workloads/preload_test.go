package workloads

import (
	"slices"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/slots"
)

func TestPreloadKeysInTheRangeApartFromTheLoad(t *testing.T) {
	s := Spec{Kind: KindSet, Keys: 8, Slots: "0-1023", Via: ViaCluster, KeyPrefix: "set0:", Preload: 3000}
	fill := s.PreloadKeys()
	if len(fill) != 3000 {
		t.Fatalf("%d preloaded keys, want 3000", len(fill))
	}
	load := s.KeyNames()
	seen := map[string]bool{}
	for _, k := range fill {
		if sl := slots.OfString(k); sl < 0 || sl > 1023 {
			t.Fatalf("%s in slot %d, outside 0-1023", k, sl)
		}
		if seen[k] || slices.Contains(load, k) || !strings.HasPrefix(k, "set0:fill:") {
			t.Fatalf("%s repeated, one of the load's keys, or without the fill prefix", k)
		}
		seen[k] = true
	}
	if (Spec{Kind: KindSet, Slots: "0-1023", Via: ViaCluster}).PreloadKeys() != nil {
		t.Fatal("keys preloaded without Preload")
	}
}

func TestPreloadNeedsSlotsAndClusterClients(t *testing.T) {
	for _, s := range []Spec{
		{Kind: KindSet, Preload: 10, Via: ViaCluster},
		{Kind: KindSet, Preload: 10, Slots: "0-10"},
		{Kind: KindSet, Preload: -1, Slots: "0-10", Via: ViaCluster},
		{Kind: KindSet, Preload: 10, PreloadBytes: -1, Slots: "0-10", Via: ViaCluster},
	} {
		if _, err := s.withDefaults(); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
	s, err := Spec{Kind: KindSet, Preload: 10, Slots: "0-10", Via: ViaCluster}.withDefaults()
	if err != nil || s.PreloadBytes != DefaultPreloadBytes {
		t.Fatalf("err %v, bytes %d", err, s.PreloadBytes)
	}
}
