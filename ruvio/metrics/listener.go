package metrics

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Ready answers /readyz: ok, or why not.
type Ready func() (ok bool, why string)

// Listener serves /metrics, /healthz and /readyz on one address.
type Listener struct {
	srv *http.Server
	ln  net.Listener
}

// NewRegistry is a registry holding the Go runtime's and the process's
// collectors besides the given ones.
func NewRegistry(cs ...prometheus.Collector) (*prometheus.Registry, error) {
	reg := prometheus.NewRegistry()
	all := append([]prometheus.Collector{
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	}, cs...)
	for _, c := range all {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// Handler is the listener's routes: /metrics from g, /healthz (the process
// answers), /readyz (ready says so; 503 with the reason otherwise) and the
// Go runtime's profiles under /debug/pprof/ (CPU, heap, allocations,
// goroutines, the execution trace), which cost nothing until asked for.
func Handler(g prometheus.Gatherer, ready Ready, log *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorLog: slogPrinter{log}}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if ok, why := ready(); !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(why + "\n"))
			return
		}
		w.Write([]byte("ready\n"))
	})
	return mux
}

// Listen starts serving h on addr ("host:port"; port 0 picks one).
func Listen(addr string, h http.Handler, log *slog.Logger) (*Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	l := &Listener{ln: ln, srv: &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}}
	go func() {
		if err := l.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("metrics listener stopped", "addr", addr, "err", err)
		}
	}()
	return l, nil
}

// Addr is the address the listener took.
func (l *Listener) Addr() string { return l.ln.Addr().String() }

// Close stops the listener, giving scrapes in flight a second.
func (l *Listener) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return l.srv.Shutdown(ctx)
}

type slogPrinter struct{ log *slog.Logger }

func (p slogPrinter) Println(v ...any) { p.log.Warn("metrics", "err", v) }
