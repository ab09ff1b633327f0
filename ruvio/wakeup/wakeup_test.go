package wakeup

import "testing"

// Each function registered before a Fire is called once by it, however
// often it was registered, and not by a later Fire it was not registered
// for.
func TestFireCallsEachRegistrationOnce(t *testing.T) {
	var s Set
	var a, b int
	fa, fb := func() { a++ }, func() { b++ }
	s.Fire() // nothing registered
	for range 3 {
		s.Add(&fa)
	}
	s.Add(&fb)
	s.Fire()
	if a != 1 || b != 1 {
		t.Fatalf("after the first Fire: a %d, b %d; want 1 and 1", a, b)
	}
	s.Add(&fb)
	s.Fire()
	s.Fire()
	if a != 1 || b != 2 {
		t.Fatalf("after b registered again: a %d, b %d; want 1 and 2", a, b)
	}
}

// A function may register again from inside its call, as a woken loop
// does for the next progress; it is called at the next Fire.
func TestAddFromAWakeUp(t *testing.T) {
	var s Set
	n := 0
	var fn func()
	fn = func() {
		n++
		s.Add(&fn)
	}
	s.Add(&fn)
	s.Fire()
	s.Fire()
	if n != 2 {
		t.Fatalf("called %d times, want 2", n)
	}
}
