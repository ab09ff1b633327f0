package infotext

import "testing"

func TestParse(t *testing.T) {
	f := Parse("# Replication\r\nrole:master\r\nslave0:ip=1.2.3.4,port=7\r\n\r\naddr:[::1]:26379\nwal_last_sequence:42\n# Lease\nbad line\n")
	want := map[string]string{"role": "master", "slave0": "ip=1.2.3.4,port=7", "addr": "[::1]:26379", "wal_last_sequence": "42"}
	if len(f) != len(want) {
		t.Fatalf("got %v", f)
	}
	for k, v := range want {
		if f[k] != v {
			t.Errorf("%s = %q, want %q", k, f[k], v)
		}
	}
	if Uint(f, "wal_last_sequence") != 42 || Uint(f, "role") != 0 || Uint(f, "missing") != 0 {
		t.Fatal("Uint")
	}
}
