package resp

import "testing"

// CommandKey walks whole multibulk commands to their second argument and
// stops at anything it cannot read whole.
func TestCommandKey(t *testing.T) {
	get := "*2\r\n$3\r\nGET\r\n$16\r\nkey:000000012345\r\n"
	ping := "*1\r\n$4\r\nPING\r\n"
	set := "*3\r\n$3\r\nSET\r\n$0\r\n\r\n$2\r\nv1\r\n"
	b := []byte(get + ping + set)

	key, size, ok := CommandKey(b)
	if !ok || string(key) != "key:000000012345" || size != len(get) {
		t.Fatalf("GET: %q, %d, %v", key, size, ok)
	}
	b = b[size:]
	if key, size, ok = CommandKey(b); ok || size != len(ping) {
		t.Fatalf("PING: %q, %d, %v; want no key, %d", key, size, ok, len(ping))
	}
	b = b[size:]
	if key, size, ok = CommandKey(b); !ok || len(key) != 0 || size != len(set) {
		t.Fatalf("SET with an empty key: %q, %d, %v", key, size, ok)
	}
	for cut := range len(get) {
		if _, size, ok := CommandKey([]byte(get[:cut])); ok || size != 0 {
			t.Fatalf("GET cut at %d: %d, %v; want 0, false", cut, size, ok)
		}
	}
	for _, bad := range []string{"PING\r\n", "*2\r\n$3\r\nGET\r\n$99\r\nkey\r\n", "*x\r\n", "*2\r\n:3\r\nGET\r\n", "*1\n$4\r\nPING\r\n"} {
		if _, size, ok := CommandKey([]byte(bad)); ok || size != 0 {
			t.Fatalf("%q: %d, %v; want 0, false", bad, size, ok)
		}
	}
}
