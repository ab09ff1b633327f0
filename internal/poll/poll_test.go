package poll

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// recorder is a testing.TB that remembers a Fatalf instead of stopping the
// goroutine, so the failure paths can be checked.
type recorder struct {
	testing.TB
	failed atomic.Bool
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(string, ...any) {
	r.failed.Store(true)
}

func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	var n atomic.Int32
	r := &recorder{TB: t}
	Until(r, time.Second, "the third check", func() bool { return n.Add(1) >= 3 })
	if r.failed.Load() || n.Load() != 3 {
		t.Fatalf("failed=%v after %d checks; want success after 3", r.failed.Load(), n.Load())
	}
}

func TestUntilFailsWhenTheConditionNeverHolds(t *testing.T) {
	r := &recorder{TB: t}
	Until(r, 30*time.Millisecond, "never", func() bool { return false })
	if !r.failed.Load() {
		t.Fatal("Until did not fail on a condition that never held")
	}
}

func TestUntilNilReportsTheLastError(t *testing.T) {
	r := &recorder{TB: t}
	UntilNil(r, 30*time.Millisecond, "an error", func() error { return errors.New("no") })
	if !r.failed.Load() {
		t.Fatal("UntilNil did not fail on a function that always errs")
	}
	r = &recorder{TB: t}
	UntilNil(r, time.Second, "nil", func() error { return nil })
	if r.failed.Load() {
		t.Fatal("UntilNil failed on a function that returned nil")
	}
}

func TestStaysFailsTheFirstTimeTheConditionBreaks(t *testing.T) {
	var n atomic.Int32
	r := &recorder{TB: t}
	Stays(r, time.Second, "fewer than three checks", func() bool { return n.Add(1) < 3 })
	if !r.failed.Load() || n.Load() != 3 {
		t.Fatalf("failed=%v after %d checks; want a failure at the third", r.failed.Load(), n.Load())
	}
	r = &recorder{TB: t}
	Stays(r, 30*time.Millisecond, "true", func() bool { return true })
	if r.failed.Load() {
		t.Fatal("Stays failed on a condition that always held")
	}
}
