package acl

import (
	"encoding/hex"
	"strconv"
	"testing"
)

func entry(reason Denial, object, user string, ms int64) LogEntry {
	return LogEntry{Reason: reason, Context: ContextToplevel, Object: object, Username: user, TimeMs: ms, ClientInfo: "at " + strconv.FormatInt(ms, 10)}
}

func objects(es []LogEntry) string {
	s := ""
	for _, e := range es {
		s += e.Object + ":" + strconv.FormatInt(e.Count, 10) + " "
	}
	return s
}

// Denials alike within a minute are counted in one entry, which moves to
// the front and takes the newest time and client; others, or the same a
// minute later, are new entries.
func TestLogGroupsAlikeEntries(t *testing.T) {
	var l Log
	l.Add(entry(DeniedKey, "k", "u", 1000), 128)
	l.Add(entry(DeniedCommand, "get", "u", 2000), 128)
	l.Add(entry(DeniedKey, "k", "u", 3000), 128)
	if got := objects(l.Entries(10)); got != "k:2 get:1 " {
		t.Fatalf("entries %s", got)
	}
	if e := l.Entries(1)[0]; e.TimeMs != 3000 || e.ClientInfo != "at 3000" {
		t.Fatalf("grouped entry keeps %+v", e)
	}
	// Another user, reason, context or object is another entry.
	l.Add(entry(DeniedKey, "k", "v", 3000), 128)
	l.Add(entry(DeniedChannel, "k", "u", 3000), 128)
	multi := entry(DeniedKey, "k", "u", 3000)
	multi.Context = ContextMulti
	l.Add(multi, 128)
	if n := len(l.Entries(100)); n != 5 {
		t.Fatalf("%d entries, want 5", n)
	}
	// More than a minute after the entry's last update: a new one.
	l.Reset()
	l.Add(entry(DeniedKey, "k", "u", 0), 128)
	l.Add(entry(DeniedKey, "k", "u", logGroupMs), 128)
	l.Add(entry(DeniedKey, "k", "u", 2*logGroupMs+1), 128)
	if got := objects(l.Entries(10)); got != "k:1 k:2 " {
		t.Fatalf("entries %s", got)
	}
}

// Only the newest ten entries are looked at for one alike.
func TestLogGroupsAmongTheNewestTen(t *testing.T) {
	var l Log
	l.Add(entry(DeniedKey, "old", "u", 0), 128)
	for i := range 10 {
		l.Add(entry(DeniedKey, "k"+strconv.Itoa(i), "u", 0), 128)
	}
	l.Add(entry(DeniedKey, "old", "u", 0), 128)
	if es := l.Entries(100); len(es) != 12 || es[0].Count != 1 {
		t.Fatalf("entries %s", objects(es))
	}
	// Now old, k9 ... k1 are the newest ten: k1 is counted up, k0 not.
	l.Add(entry(DeniedKey, "k1", "u", 0), 128)
	if es := l.Entries(100); len(es) != 12 || es[0].Object != "k1" || es[0].Count != 2 {
		t.Fatalf("entries %s", objects(es))
	}
	l.Add(entry(DeniedKey, "k0", "u", 0), 128)
	if es := l.Entries(100); len(es) != 13 || es[0].Object != "k0" || es[0].Count != 1 {
		t.Fatalf("entries %s", objects(es))
	}
}

// The log keeps maxLen entries, dropping the oldest; a lower maxLen takes
// effect at the next entry added; 0 keeps none, though an entry alike is
// still counted up.
func TestLogMaxLen(t *testing.T) {
	var l Log
	for i := range 5 {
		l.Add(entry(DeniedKey, "k"+strconv.Itoa(i), "u", 0), 3)
	}
	if got := objects(l.Entries(10)); got != "k4:1 k3:1 k2:1 " {
		t.Fatalf("entries %s", got)
	}
	l.Add(entry(DeniedKey, "k4", "u", 0), 1)
	if got := objects(l.Entries(10)); got != "k4:2 k3:1 k2:1 " {
		t.Fatalf("after lowering, an alike entry: %s", got)
	}
	l.Add(entry(DeniedKey, "k5", "u", 0), 1)
	if got := objects(l.Entries(10)); got != "k5:1 " {
		t.Fatalf("after lowering, a new entry: %s", got)
	}
	l.Add(entry(DeniedKey, "k5", "u", 0), 0)
	if got := objects(l.Entries(10)); got != "k5:2 " {
		t.Fatalf("maxLen 0, alike: %s", got)
	}
	l.Add(entry(DeniedKey, "k6", "u", 0), 0)
	if got := l.Entries(10); len(got) != 0 {
		t.Fatalf("maxLen 0, new: %s", objects(got))
	}
	if got := l.Entries(-1); len(got) != 0 {
		t.Fatal("negative count")
	}
}

func TestDenialNames(t *testing.T) {
	for d, want := range map[Denial]string{DeniedCommand: "command", DeniedKey: "key", DeniedAuth: "auth", DeniedChannel: "channel"} {
		if d.String() != want {
			t.Errorf("%d: %q", d, d.String())
		}
	}
}

// GENPASS rounds bits up to whole hex digits, as Redis does, and refuses
// counts out of 1..4096.
func TestGeneratePassword(t *testing.T) {
	for bits, digits := range map[int64]int{1: 1, 4: 1, 5: 2, 8: 2, 255: 64, 256: 64, 4096: 1024} {
		p, err := GeneratePassword(bits)
		if err != nil || len(p) != digits {
			t.Errorf("GeneratePassword(%d) = %q, %v: want %d digits", bits, p, err, digits)
		}
		if _, err := hex.DecodeString(p + p); err != nil {
			t.Errorf("GeneratePassword(%d) = %q: not hex", bits, p)
		}
	}
	a, _ := GeneratePassword(256)
	b, _ := GeneratePassword(256)
	if a == b {
		t.Error("two passwords alike")
	}
	for _, bits := range []int64{0, -1, 4097} {
		if _, err := GeneratePassword(bits); err != ErrGenPassBits {
			t.Errorf("GeneratePassword(%d): %v", bits, err)
		}
	}
}
