package shard

import (
	"testing"
	"time"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// A run takes the context's slot hint and leaves it nowhere: the next
// command run with the same context may hold other arguments in the same
// buffer, where a hint left behind would name the wrong slot.
func TestARunTakesTheSlotHintOnce(t *testing.T) {
	o := offlineNode(t, t.TempDir(), "memory", 1)
	defer o.closeOffline(t)
	sh := o.shards[0]
	args := [][]byte{[]byte("SET"), []byte("k1"), []byte("v")}
	var ctx command.Ctx
	ctx.Args, ctx.W, ctx.Now = args, discardWriter(), time.Now().UnixMilli()
	ctx.SlotHint = keyspace.SlotHint{Key: args[1], Slot: slots.Of(args[1])}
	sh.Run(o.table.Lookup(args[0]), &ctx)
	if ctx.SlotHint.Key != nil {
		t.Fatal("the context still holds the hint after the run")
	}
	sh.Lock()
	defer sh.Unlock()
	if sh.DB().Hint.Key != nil {
		t.Fatal("the keyspace still holds the hint after the run")
	}
	if sh.DB().Read("k1") == nil {
		t.Fatal("k1, set with a hint, cannot be found")
	}
}
