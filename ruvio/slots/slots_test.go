package slots

import (
	"testing"

	"pgregory.net/rapid"
)

// Values from the Redis Cluster specification and CLUSTER KEYSLOT on Redis 7.
func TestSlotMatchesRedis(t *testing.T) {
	cases := []struct {
		key  string
		slot int
	}{
		{"123456789", 12739}, // CRC16-XMODEM check value 0x31C3
		{"foo", 12182},
		{"bar", 5061},
		{"somekey", 11058},
		{"{user1000}.following", 3443},
		{"{user1000}.followers", 3443},
		{"foo{}{bar}", 8363},
		{"foo{{bar}}zap", 4015},
		{"foo{bar}{zap}", 5061},
		{"", 0},
	}
	for _, c := range cases {
		if got := Of([]byte(c.key)); got != c.slot {
			t.Errorf("Of(%q) = %d, want %d", c.key, got, c.slot)
		}
		if got := OfString(c.key); got != c.slot {
			t.Errorf("OfString(%q) = %d, want %d", c.key, got, c.slot)
		}
	}
}

func TestSplitCoversEverySlotOnce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 256).Draw(t, "n")
		rs := Split(n)
		next := 0
		for i, r := range rs {
			if r.First != next || r.Last < r.First {
				t.Fatalf("range %d = %+v, want to start at %d", i, r, next)
			}
			for _, s := range []int{r.First, r.Last, (r.First + r.Last) / 2} {
				if o := Owner(s, n); o != i {
					t.Fatalf("Owner(%d,%d) = %d, want %d", s, n, o, i)
				}
			}
			next = r.Last + 1
		}
		if next != Count {
			t.Fatalf("ranges end at %d", next)
		}
	})
}

func TestOfStringAgreesWithOf(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.StringMatching(`[a-z{}]{0,12}`).Draw(t, "key")
		if Of([]byte(k)) != OfString(k) {
			t.Fatalf("disagree on %q", k)
		}
	})
}
