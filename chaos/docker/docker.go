// Package docker is the chaos backend that runs each node in a container
// built FROM scratch, with real SIGKILL, SIGSTOP and packet drops.
package docker

// This package is the chaos harness's Docker backend: every node of a
// topology is a container built FROM scratch around a static ruvio binary,
// on a network made for the run, and faults are real: SIGKILL, SIGSTOP and
// packet drops in the container's network namespace.
//
// It drives the engine through testcontainers-go and, where testcontainers
// has no call (kill with a signal, listing and removing by label), through
// the moby client testcontainers itself uses.
//
// Facts a scenario author should know:
//   - No registry is reachable, so nothing is pulled: the image is built
//     locally from the binary handed to Start, which must be static
//     (CGO_ENABLED=0), with the repository's docker/Dockerfile. It is tagged
//     by the binary's digest and rebuilt only when missing.
//   - Addr is the container's own address on the run network, port 6379
//     (shard i listens on 6379+i). In a replicated topology every data
//     node also listens for replicas on 26379+i, with a password made for
//     the run, and a replica follows its primary's address there. The host reaches container addresses
//     directly, so no ports need publishing, and the harness's traffic
//     arrives from the network's gateway, which is how Cut names the Client.
//     Each node gets a fixed address so Addr stays valid across Kill and
//     Restart (Docker would otherwise hand out whichever address is free).
//   - A node's data lives in the container's /data, its writable layer:
//     it survives Kill and Restart of that container and vanishes on Close.
//   - Kill is SIGKILL and Restart starts the same container again. Pause and
//     Resume are SIGSTOP and SIGCONT to the node process (not the cgroup
//     freezer); the kernel keeps accepting TCP connections to a stopped
//     process, so a pause is never a partition.
//   - Cut installs iptables DROP rules inside the container's network
//     namespace, entered from the host with nsenter (root and the host's
//     iptables and nsenter binaries are needed). Rules die with the namespace
//     when a container stops, so Restart re-installs the cuts in force.
//   - The clock skew spec is the file /faketime in the container, named by
//     RUVIO_FAKETIME_FILE; SetClock overwrites it while the node runs.
//   - A coordinator is a container running `ruvio coordinator --config
//     /coordinator.toml` (written by the backend, with a secret made for
//     the run), listening on port 26400 (its Addr), its Raft data in /data.
//   - Everything made is labelled ruvio.chaos=<run id>; Close removes a
//     run's containers and network and Sweep removes leftovers of runs that
//     were killed before they could.

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/ruvio/ruvio/chaos/topology"
)

const (
	// LabelKey marks every container, network and image the backend makes;
	// on containers and networks its value is the run id.
	LabelKey = "ruvio.chaos"
	// ownerLabel records "<hostname>:<pid>" of the process that made a
	// resource, so Sweep can spare the runs of processes still alive.
	ownerLabel = "ruvio.chaos.owner"
	// imageRepo is the repository of the built image; the tag is a prefix of
	// the binary's SHA-256.
	imageRepo = "ruvio-chaos"
	// nodePort is shard 0's port inside every container.
	nodePort = 6379
	// replPort is shard 0's replication port inside every container of a
	// replicated topology.
	replPort = 26379
	// faketimePath is the clock skew file inside every container.
	faketimePath = "/faketime"
	// coordPort is a coordinator container's one port (Raft, coordinator
	// questions, the Sentinel API), as in deploy/coordinator.toml.
	coordPort = 26400
	// coordConfigPath is a coordinator container's coordinator.toml.
	coordConfigPath = "/coordinator.toml"
)

// setupOnce guards the process-wide testcontainers settings, which
// testcontainers reads once, on its first call.
var setupOnce sync.Once

// setup disables the reaper (its image cannot be pulled here) and pins the
// address testcontainers reports for the daemon to loopback, because on a
// machine that is itself a container it would otherwise pick the bridge
// gateway. Values already set by the user are kept.
func setup(log *slog.Logger) {
	setupOnce.Do(func() {
		for k, v := range map[string]string{
			"TESTCONTAINERS_RYUK_DISABLED": "true",
			"TESTCONTAINERS_HOST_OVERRIDE": "127.0.0.1",
		} {
			if _, ok := os.LookupEnv(k); !ok {
				os.Setenv(k, v)
			}
		}
		if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") != "true" {
			log.Warn("TESTCONTAINERS_RYUK_DISABLED is not exactly \"true\": testcontainers will try to pull its reaper image")
		}
		// testcontainers prints its progress through a package-level logger;
		// route it into slog at debug level so it does not litter the
		// runner's terminal.
		tclog.SetDefault(tcLogger{log})
	})
}

// tcLogger adapts slog to testcontainers' Printf-style logger.
type tcLogger struct{ log *slog.Logger }

// Printf logs one testcontainers message at debug level.
func (l tcLogger) Printf(format string, v ...any) {
	l.log.Debug(fmt.Sprintf(format, v...), "from", "testcontainers")
}

// Backend starts topologies as Docker containers.
type Backend struct {
	log *slog.Logger

	mu sync.Mutex
	// built maps a binary digest to the image tag made from it in this
	// process, so later runs only check that the image still exists.
	built map[string]string
}

// New returns the Docker backend. It sets the testcontainers environment
// variables it needs if they are unset.
func New(log *slog.Logger) topology.Backend {
	if log == nil {
		log = slog.Default()
	}
	setup(log)
	return &Backend{log: log, built: map[string]string{}}
}

// Name returns "docker".
func (b *Backend) Name() string { return "docker" }

// Start builds the image if needed, makes the run's network and one running
// container per node, and returns when every shard of every node answers
// PING (or topology.ReadyTimeout passes). On failure it removes what it made.
func (b *Backend) Start(ctx context.Context, topo topology.Topology, binary string, workDir string) (topology.Cluster, error) {
	if len(topo.Nodes) == 0 {
		return nil, errors.New("docker backend: empty topology")
	}
	provider, err := testcontainers.NewDockerProvider(testcontainers.WithLogger(tcLogger{b.log}))
	if err != nil {
		return nil, fmt.Errorf("docker backend: %w", err)
	}
	if _, err := provider.Client().Ping(ctx, client.PingOptions{}); err != nil {
		return nil, fmt.Errorf("docker backend: no engine answers: %w", err)
	}
	began := time.Now()
	var image string
	if topo.System == topology.SystemRedis {
		image, err = b.redisImage(ctx, provider, workDir)
	} else {
		image, err = b.image(ctx, provider, binary, workDir)
	}
	if err != nil {
		return nil, err
	}
	imageReady := time.Since(began)
	runID, err := newRunID()
	if err != nil {
		return nil, err
	}
	c, err := startCluster(ctx, b.log, provider, topo, image, runID, workDir)
	if err != nil {
		return nil, err
	}
	b.log.Info("docker cluster up", "run", runID, "nodes", len(topo.Nodes), "image", image,
		"image_ms", imageReady.Milliseconds(), "total_ms", time.Since(began).Milliseconds())
	return c, nil
}

// image returns the tag of an image holding binary, building it when this
// process has not built it yet or it has since been removed (by Sweep).
func (b *Backend) image(ctx context.Context, provider *testcontainers.DockerProvider, binary, workDir string) (string, error) {
	digest, err := checkStatic(binary)
	if err != nil {
		return "", err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if tag, ok := b.built[digest]; ok {
		if _, err := provider.Client().ImageInspect(ctx, tag); err == nil {
			return tag, nil
		} else if !cerrdefs.IsNotFound(err) {
			return "", fmt.Errorf("docker backend: inspect image %s: %w", tag, err)
		}
	}
	began := time.Now()
	tag, err := buildImage(ctx, provider, binary, digest[:12], workDir)
	if err != nil {
		return "", err
	}
	b.log.Info("docker image built", "tag", tag, "ms", time.Since(began).Milliseconds())
	b.built[digest] = tag
	return tag, nil
}

// checkStatic returns the binary's SHA-256 in hex after making sure it is a
// statically linked ELF file: a scratch image has no dynamic loader or libc,
// so a cgo build would fail to start with a puzzling "no such file".
func checkStatic(binary string) (string, error) {
	f, err := elf.Open(binary)
	if err != nil {
		return "", fmt.Errorf("docker backend: ruvio binary %s: %w", binary, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return "", fmt.Errorf("docker backend: %s is dynamically linked; build it with CGO_ENABLED=0 (make build)", binary)
		}
	}
	r, err := os.Open(binary)
	if err != nil {
		return "", fmt.Errorf("docker backend: %w", err)
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", fmt.Errorf("docker backend: hash %s: %w", binary, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// buildImage lays out a build context holding only the Dockerfile and
// bin/ruvio (testcontainers sends the whole context directory) and builds
// it. FROM scratch is never pulled, so the build needs no registry.
func buildImage(ctx context.Context, provider *testcontainers.DockerProvider, binary, tag, workDir string) (string, error) {
	dir, err := os.MkdirTemp(workDir, "ruvio-image-")
	if err != nil {
		return "", fmt.Errorf("docker backend: build context: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), dockerfile(), 0o644); err != nil {
		return "", fmt.Errorf("docker backend: build context: %w", err)
	}
	if err := copyFile(binary, filepath.Join(dir, "bin", "ruvio")); err != nil {
		return "", fmt.Errorf("docker backend: build context: %w", err)
	}
	req := &testcontainers.ContainerRequest{FromDockerfile: testcontainers.FromDockerfile{
		Context:    dir,
		Dockerfile: "Dockerfile",
		Repo:       imageRepo,
		Tag:        tag,
		// Nodes are started from the image many times a run, and a kept
		// image gets no testcontainers labels: Sweep finds it by ours.
		KeepImage: true,
		BuildOptionsModifier: func(o *client.ImageBuildOptions) {
			o.Labels = map[string]string{LabelKey: "image"}
		},
	}}
	name, err := provider.BuildImage(ctx, req)
	if err != nil {
		return "", fmt.Errorf("docker backend: build image: %w", err)
	}
	return name, nil
}

// fallbackDockerfile mirrors docker/Dockerfile for a harness run outside a
// checkout of the repository.
const fallbackDockerfile = "FROM scratch\nCOPY bin/ruvio /ruvio\nENV RUVIO_PROTECTED_MODE=no\nEXPOSE 6379\nENTRYPOINT [\"/ruvio\"]\n"

// dockerfile returns the repository's docker/Dockerfile, looked for from
// the working directory upwards (the runner runs at the root, go test in
// the package directory), so the image the harness tests is the one users
// build with `make image`.
func dockerfile() []byte {
	dir, err := os.Getwd()
	for err == nil {
		if b, rerr := os.ReadFile(filepath.Join(dir, "docker", "Dockerfile")); rerr == nil {
			if _, serr := os.Stat(filepath.Join(dir, "go.mod")); serr == nil {
				return b
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return []byte(fallbackDockerfile)
}

// copyFile copies src to dst, making dst's directory and keeping it
// executable.
func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// newRunID returns a short random id that names and labels a run's
// resources.
func newRunID() (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("docker backend: run id: %w", err)
	}
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:]), nil
}

// owner identifies this process for the owner label.
func owner() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}
