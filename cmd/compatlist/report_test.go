package main

import (
	"strings"
	"testing"
)

func TestLeavesResolveAndReport(t *testing.T) {
	redisReply := []any{
		[]any{"get", int64(2)},
		[]any{"config", int64(-2), nil, nil, nil, nil, nil, nil, nil, []any{[]any{"config|get"}, []any{"config|rewrite"}}},
		[]any{"lpush", int64(-3)},
	}
	ruvioReply := []any{
		[]any{"get", int64(2)},
		[]any{"config", int64(-2), nil, nil, nil, nil, nil, nil, nil, []any{[]any{"config|get"}}},
		[]any{"ruvio", int64(-2), nil, nil, nil, nil, nil, nil, nil, []any{[]any{"ruvio|digest"}}},
	}
	r := report{RedisVersion: "7.0.15", Redis: leaves(redisReply), Ruvio: leaves(ruvioReply),
		Exercised: []string{"config get", "get k", "nosuch x"}}
	if got := strings.Join(r.missing(), ","); got != "config|rewrite,lpush" {
		t.Errorf("missing = %s", got)
	}
	in, out := r.covered()
	if strings.Join(in, ",") != "config|get,get" || strings.Join(out, ",") != "ruvio|digest" {
		t.Errorf("covered %v, not %v", in, out)
	}
	if s := r.missingSection(); !strings.Contains(s, "ruvio implements 2; these 2 it does not:\n\n`CONFIG REWRITE`, `LPUSH`") ||
		!strings.Contains(s, "`RUVIO DIGEST`") {
		t.Errorf("missing section:\n%s", s)
	}
	if s := r.coverageSection(); !strings.Contains(s, "exercise 2 of the 3 commands ruvio implements (67%)") {
		t.Errorf("coverage section:\n%s", s)
	}
}

func TestReplaceBetween(t *testing.T) {
	doc := "a\n<!-- x begin -->\nold\n<!-- x end -->\nb"
	got, err := replaceBetween(doc, "x", "new\n")
	if err != nil || got != "a\n<!-- x begin -->\nnew\n<!-- x end -->\nb" {
		t.Fatalf("replaceBetween = %q, %v", got, err)
	}
	if _, err := replaceBetween("no markers", "x", ""); err == nil {
		t.Fatal("missing markers passed")
	}
}
