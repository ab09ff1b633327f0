package script

import "testing"

// Vectors from redis-server 7.0.15.
func TestBitLibraryMatchesRedis(t *testing.T) {
	cases := []struct{ body, want string }{
		{"return {bit.tobit(0xffffffff), bit.tobit(2^32+5), bit.tobit(1.5), bit.tobit(2.5), bit.tobit(-1.5), bit.tohex(255), bit.tohex(-1), bit.tohex(255, 2), bit.tohex(255, -4), bit.bnot(0), bit.band(0xff, 0x0f, 0x3), bit.bor(1,2,4), bit.bxor(5,3), bit.lshift(1, 31), bit.lshift(1, 33), bit.rshift(-1, 28), bit.arshift(-256, 4), bit.rol(0x12345678, 8), bit.ror(0x12345678, 8), bit.bswap(0x12345678), bit.tohex(0x12345678, 0), bit.tohex(1, 9)}",
			"*22\r\n:-1\r\n:5\r\n:2\r\n:2\r\n:-2\r\n$8\r\n000000ff\r\n$8\r\nffffffff\r\n$2\r\nff\r\n$4\r\n00FF\r\n:-1\r\n:3\r\n:7\r\n:6\r\n:-2147483648\r\n:2\r\n:15\r\n:-16\r\n:878082066\r\n:2014458966\r\n:2018915346\r\n$0\r\n\r\n$8\r\n00000001\r\n"},
		{"return bit.band()", "-ERR user_script:1: bad argument #1 to 'band' (number expected, got no value) script: 5cf53f885283a4f44a8fe7ad7e7fccaed4113e62, on @user_script:1.\r\n"},
		{"return bit.tobit('x')", "-ERR user_script:1: bad argument #1 to 'tobit' (number expected, got string) script: 4fe0a4258aa95439ac2f80d95b01a24a0ba1ff0c, on @user_script:1.\r\n"},
		{"return bit.tobit('12')", ":12\r\n"},
	}
	for _, c := range cases {
		if got := eval(t, c.body, 2, nil, nil, nil); got != c.want {
			t.Errorf("%s\n got %q\nwant %q", c.body, got, c.want)
		}
	}
}
