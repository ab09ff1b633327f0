package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseCSV(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []measurement
	}{
		{
			name: "redis-benchmark 7.0",
			in: `"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
"SET","37735.85","0.758","0.280","0.671","1.407","2.799","3.719"
"GET","42553.19","0.763","0.192","0.703","1.207","1.719","2.407"
`,
			want: []measurement{
				{Test: "SET", RPS: 37735.85, Latency: map[string]float64{
					"avg_latency_ms": 0.758, "min_latency_ms": 0.280, "p50_latency_ms": 0.671,
					"p95_latency_ms": 1.407, "p99_latency_ms": 2.799, "max_latency_ms": 3.719,
				}},
				{Test: "GET", RPS: 42553.19, Latency: map[string]float64{
					"avg_latency_ms": 0.763, "min_latency_ms": 0.192, "p50_latency_ms": 0.703,
					"p95_latency_ms": 1.207, "p99_latency_ms": 1.719, "max_latency_ms": 2.407,
				}},
			},
		},
		{
			name: "plain test,rps with header",
			in:   "\"test\",\"rps\"\n\"SET\",\"123456.79\"\n\"LPUSH\",\"99.5\"\n",
			want: []measurement{{Test: "SET", RPS: 123456.79}, {Test: "LPUSH", RPS: 99.5}},
		},
		{
			name: "plain without header, CRLF",
			in:   "\"SET\",\"123456.79\"\r\n\"INCR\",\"1000.00\"\r\n",
			want: []measurement{{Test: "SET", RPS: 123456.79}, {Test: "INCR", RPS: 1000}},
		},
		{
			name: "banner and progress noise skipped",
			in: "Cluster has 3 master nodes:\n\nMaster 0: abc 127.0.0.1:7000\n" +
				"SET: rps=1000.0 (overall: 900.0) avg_msec=0.1\r\"test\",\"rps\"\n\"SET\",\"5.5\"\n",
			want: []measurement{{Test: "SET", RPS: 5.5}},
		},
		{
			name: "test names with spaces",
			in:   "\"test\",\"rps\"\n\"LRANGE_100 (first 100 elements)\",\"20000.00\"\n",
			want: []measurement{{Test: "LRANGE_100 (first 100 elements)", RPS: 20000}},
		},
		{
			name: "rps not in second column",
			in:   "\"test\",\"avg_latency_ms\",\"rps\"\n\"GET\",\"0.5\",\"7\"\n",
			want: []measurement{{Test: "GET", RPS: 7, Latency: map[string]float64{"avg_latency_ms": 0.5}}},
		},
		{name: "empty", in: "", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseCSV([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseCSVErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"bad rps", "\"SET\",\"fast\"\n", "bad rps"},
		{"missing rps", "\"SET\"\n", "no rps column"},
		{"header without rps", "\"test\",\"qps\"\n", "no rps column"},
		{"broken quoting", "\"SET\",\"1\"x\n", "line 1"},
		{"too fast to time", "\"SET\",\"inf\",\"0.1\"\n", "within redis-benchmark's 1 ms clock"},
		{"nan", "\"SET\",\"nan\"\n", "use more requests"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseCSV([]byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestBenchArgs(t *testing.T) {
	got := benchArgs(7300, []string{"set", "get"}, 1000, 50, 16, false)
	want := []string{"-h", "127.0.0.1", "-p", "7300", "-t", "set,get", "-n", "1000", "-c", "50", "-P", "16", "-q", "--csv"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	got = benchArgs(7300, []string{"set"}, 1, 1, 1, true)
	if got[len(got)-1] != "--cluster" {
		t.Errorf("cluster mode: got %q, want trailing --cluster", got)
	}
}

func TestTailWriter(t *testing.T) {
	w := &tailWriter{max: 5}
	if w.String() != "(empty)" {
		t.Errorf("empty writer = %q", w.String())
	}
	w.Write([]byte("abc"))
	w.Write([]byte("defgh"))
	if got := w.String(); got != "defgh" {
		t.Errorf("got %q, want %q", got, "defgh")
	}
}
