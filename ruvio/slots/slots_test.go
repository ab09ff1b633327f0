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

// The two-bytes-per-step CRC equals the textbook one, one byte and one
// table lookup at a time, on any input, of odd and even length; and it
// gives XMODEM's check value.
func TestCRC16AgreesWithTheBytewiseDefinition(t *testing.T) {
	bytewise := func(b []byte) uint16 {
		var crc uint16
		for _, c := range b {
			crc ^= uint16(c) << 8
			for range 8 {
				if crc&0x8000 != 0 {
					crc = crc<<1 ^ 0x1021
				} else {
					crc <<= 1
				}
			}
		}
		return crc
	}
	if got := CRC16([]byte("123456789")); got != 0x31c3 {
		t.Fatalf("CRC16(123456789) = %#04x, want XMODEM's check value 0x31c3", got)
	}
	rapid.Check(t, func(t *rapid.T) {
		b := rapid.SliceOfN(rapid.Byte(), 0, 40).Draw(t, "bytes")
		if got, want := CRC16(b), bytewise(b); got != want {
			t.Fatalf("CRC16(%x) = %#04x, want %#04x", b, got, want)
		}
		if got, want := crc16(string(b)), bytewise(b); got != want {
			t.Fatalf("crc16(string %x) = %#04x, want %#04x", b, got, want)
		}
	})
}

func BenchmarkOfString(b *testing.B) {
	for b.Loop() {
		OfString("key:000000012345")
	}
}

func BenchmarkOf(b *testing.B) {
	key := []byte("key:000000012345")
	for b.Loop() {
		Of(key)
	}
}
