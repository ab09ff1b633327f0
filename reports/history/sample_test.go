package history

import (
	"bytes"
	"reflect"
	"testing"
)

func TestSamplesRoundTrip(t *testing.T) {
	h := &History{
		Ops:     []Op{{Process: 1, Type: OK, F: FAdd, Key: "k", Value: "v", T0: 1, T1: 2}},
		Samples: []Sample{{Node: "n1", Metric: "lag_records", TMs: 250, Value: 12}, {Node: "n2", Metric: "refusals", TMs: 500, Value: 3}},
	}
	var b bytes.Buffer
	if err := h.Write(&b); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Samples, h.Samples) || len(got.Ops) != 1 {
		t.Fatalf("read back %+v", got)
	}
}
