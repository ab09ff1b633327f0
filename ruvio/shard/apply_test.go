package shard

import (
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/ruvio/wal"
)

// TestARecordThisBuildCannotApplyChangesNothing: a primary's record
// holding a command this build does not know (a newer build's) is
// refused before any of its operations runs, so the link's next attempt
// from the same record finds the keyspace as it was.
func TestARecordThisBuildCannotApplyChangesNothing(t *testing.T) {
	o := offlineNode(t, t.TempDir(), "everysec", 1)
	defer o.closeOffline(t)
	sh := o.shards[0]
	rec := wal.Record{Seq: 1, Epoch: 1, Ops: [][][]byte{{[]byte("INCR"), []byte("c")}, {[]byte("NEWCMD"), []byte("x")}}}
	for range 3 {
		sh.Lock()
		err := sh.ApplyReplicatedLocked(rec, nil, time.Now().UnixMilli())
		e := sh.DB().Peek("c")
		last := sh.Last()
		sh.Unlock()
		if err == nil || !strings.Contains(err.Error(), "NEWCMD") {
			t.Fatalf("the record applied: %v", err)
		}
		if e != nil || last != 0 {
			t.Fatalf("a refused record changed the shard: c=%v, last record %d", e, last)
		}
	}
}

// TestMovedKeysThatFailPartlyAreLogged: a batch of moved keys one of
// whose operations answers an error keeps the others' changes in the
// log too, so a restart (and the replicas) hold what memory held.
func TestMovedKeysThatFailPartlyAreLogged(t *testing.T) {
	dir := t.TempDir()
	o := offlineNode(t, dir, "always", 1)
	sh := o.shards[0]
	sh.Lock()
	_, err := sh.ApplyLocked([][][]byte{{[]byte("SET"), []byte("s"), []byte("x")}, {[]byte("INCR"), []byte("s")}})
	sh.Unlock()
	if err == nil {
		t.Fatal("INCR of a string that is not a number answered no error")
	}
	before := o.dump()
	o.closeOffline(t)
	again := offlineNode(t, dir, "always", 1)
	defer again.closeOffline(t)
	if after := again.dump(); after != before || !strings.Contains(after, `"s"`) {
		t.Fatalf("before the restart:\n%s\nafter:\n%s", before, after)
	}
}
