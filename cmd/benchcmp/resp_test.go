package main

import (
	"bufio"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/infotext"
)

func TestEncodeCommand(t *testing.T) {
	got := string(encodeCommand([]string{"SET", "k", ""}))
	if want := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestReadReply(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    reply
		wantErr string
	}{
		{"simple string", "+OK\r\n", reply{Str: "OK"}, ""},
		{"integer", ":-42\r\n", reply{Int: -42}, ""},
		{"bulk", "$5\r\nhello\r\n", reply{Str: "hello"}, ""},
		{"bulk with CRLF inside", "$7\r\na:1\r\nb:\r\n", reply{Str: "a:1\r\nb:"}, ""},
		{"empty bulk", "$0\r\n\r\n", reply{}, ""},
		{"nil bulk", "$-1\r\n", reply{Null: true}, ""},
		{"bare LF", "+PONG\n", reply{Str: "PONG"}, ""},
		{"error", "-READONLY You can't write against a read only replica.\r\n", reply{}, "READONLY You can't write"},
		{"bad integer", ":x\r\n", reply{}, "bad integer"},
		{"bad bulk length", "$-2\r\n", reply{}, "bad bulk length"},
		{"bulk without CRLF", "$2\r\nabcd", reply{}, "not followed by CRLF"},
		{"short bulk", "$10\r\nabc", reply{}, "EOF"},
		{"array", "*1\r\n$1\r\na\r\n", reply{}, "unexpected reply"},
		{"empty line", "\r\n", reply{}, "empty reply line"},
		{"nothing", "", reply{}, "EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readReply(bufio.NewReader(strings.NewReader(tt.in)))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want it to mention %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	_, err := readReply(bufio.NewReader(strings.NewReader("-ERR no\r\n")))
	if !errors.Is(err, errServer) {
		t.Errorf("error reply: err = %v, want errServer", err)
	}
}

// Fields as ruvio's replica and Redis's primary print them.
const (
	ruvioReplicaInfo = "# Replication\r\nrole:slave\r\nmaster_host:127.0.0.1\r\nmaster_port:28001\r\n" +
		"master_link_status:up\r\nslave_repl_offset:20000\r\nconnected_slaves:0\r\n" +
		"master_replid:1312f2275d48fb2ff1002b2db90c49a2f33da93a\r\nwal_last_sequence:19987\r\n"
	redisPrimaryInfo = "# Replication\r\nrole:master\r\nconnected_slaves:1\r\n" +
		"slave0:ip=127.0.0.1,port=7301,state=online,offset=1234,lag=0\r\n" +
		"master_repl_offset:5678\r\n\r\n"
)

func TestParseInfo(t *testing.T) {
	got := infotext.Parse(ruvioReplicaInfo)
	want := map[string]string{
		"role": "slave", "master_host": "127.0.0.1", "master_port": "28001",
		"master_link_status": "up", "slave_repl_offset": "20000", "connected_slaves": "0",
		"master_replid": "1312f2275d48fb2ff1002b2db90c49a2f33da93a", "wal_last_sequence": "19987",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if got := infotext.Parse(redisPrimaryInfo)["slave0"]; got != "ip=127.0.0.1,port=7301,state=online,offset=1234,lag=0" {
		t.Errorf("slave0 = %q", got)
	}
	if got := infotext.Parse("junk\r\n# Server\r\n"); len(got) != 0 {
		t.Errorf("lines without a colon gave %v", got)
	}
}

func TestInfoInt(t *testing.T) {
	tests := []struct {
		info, key string
		want      int64
		wantErr   string
	}{
		{ruvioReplicaInfo, "wal_last_sequence", 19987, ""},
		{ruvioReplicaInfo, "slave_repl_offset", 20000, ""},
		{redisPrimaryInfo, "master_repl_offset", 5678, ""},
		{redisPrimaryInfo, "connected_slaves", 1, ""},
		{redisPrimaryInfo, "wal_last_sequence", 0, "no wal_last_sequence field"},
		{ruvioReplicaInfo, "master_link_status", 0, "not an integer"},
	}
	for _, tt := range tests {
		got, err := infoInt(infotext.Parse(tt.info), tt.key)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want it to mention %q", tt.key, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s = %d, %v; want %d", tt.key, got, err, tt.want)
		}
	}
}

func TestCommandCalls(t *testing.T) {
	stats := infotext.Parse("# Commandstats\r\n" +
		"cmdstat_set:calls=200001,usec=180000,usec_per_call=0.90,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_info:calls=3,usec=90,usec_per_call=30.00,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_get:usec=1\r\n" +
		"cmdstat_incr:calls=x\r\n")
	tests := []struct {
		command string
		want    int64
		wantErr string
	}{
		{"set", 200001, ""},
		{"SET", 200001, ""},
		{"info", 3, ""},
		{"lpush", 0, ""}, // never called: no line
		{"get", 0, "has no calls"},
		{"incr", 0, "not an integer"},
	}
	for _, tt := range tests {
		got, err := commandCalls(stats, tt.command)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want it to mention %q", tt.command, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s = %d, %v; want %d", tt.command, got, err, tt.want)
		}
	}
}
