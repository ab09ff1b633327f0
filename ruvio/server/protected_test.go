package server

import (
	"net"
	"testing"
)

func TestRefusedByProtectedMode(t *testing.T) {
	tcp := func(ip string) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: 5000} }
	tests := []struct {
		name              string
		protected, nopass bool
		remote            net.Addr
		want              bool
	}{
		{"another host, no password", true, true, tcp("10.1.2.3"), true},
		{"another host over IPv6, no password", true, true, tcp("fd00::5"), true},
		{"loopback", true, true, tcp("127.0.0.1"), false},
		{"the rest of 127/8 is loopback", true, true, tcp("127.0.0.7"), false},
		{"IPv6 loopback", true, true, tcp("::1"), false},
		{"another host, with a password", true, false, tcp("10.1.2.3"), false},
		{"another host, protected mode off", false, true, tcp("10.1.2.3"), false},
		{"not TCP", true, true, &net.UnixAddr{Name: "/tmp/s", Net: "unix"}, true},
	}
	for _, tc := range tests {
		if got := refusedByProtectedMode(tc.protected, tc.nopass, tc.remote); got != tc.want {
			t.Errorf("%s: refused = %v, want %v", tc.name, got, tc.want)
		}
	}
}
