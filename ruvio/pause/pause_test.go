package pause

import (
	"testing"
	"time"
)

func TestPauseWaitsAndEnds(t *testing.T) {
	var p Pause
	if p.Holds(true) {
		t.Fatal("zero value pauses")
	}
	p.Start(time.Hour, false)
	if !p.Holds(true) || p.Holds(false) {
		t.Fatal("WRITE pause holds reads or lets writes through")
	}
	// A shorter, laxer pause changes nothing; a stricter one holds all.
	p.Start(time.Millisecond, false)
	if active, all := p.Active(); !active || all {
		t.Fatal("shortened")
	}
	p.Start(time.Millisecond, true)
	if !p.Holds(false) {
		t.Fatal("not made stricter")
	}
	done := make(chan bool)
	go func() { done <- p.Wait(false, nil, nil) }()
	select {
	case <-done:
		t.Fatal("did not wait")
	case <-time.After(20 * time.Millisecond):
	}
	p.End()
	if !<-done {
		t.Fatal("wait cancelled")
	}
	p.Start(30*time.Millisecond, true)
	start := time.Now()
	p.Wait(true, nil, nil)
	if time.Since(start) < 20*time.Millisecond {
		t.Fatal("returned before the pause ran out")
	}
	p.Start(time.Hour, true)
	cancel := make(chan struct{})
	close(cancel)
	if p.Wait(true, nil, cancel) {
		t.Fatal("cancel ignored")
	}
}
