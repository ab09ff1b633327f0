package docker

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	"github.com/ruvio/ruvio/chaos/topology"
)

// Redis and Sentinel on Docker (topology.SystemRedis): no registry can be
// reached, so the image is built FROM scratch around the host's own
// redis-server and every library it links (as ldd lists them, the
// dynamic loader included). Data nodes run it on their redis.conf,
// Sentinels with --sentinel on their sentinel.conf, both in /data (the
// container's writable layer, which Sentinel's CONFIG REWRITE changes and
// a restart keeps). Nodes and Sentinels reach each other at their
// addresses on the run network, which is what they announce, so the
// iptables cuts act on them as on ruvio's.

// redisConfPath is a Redis container's configuration file.
const redisConfPath = "/data/redis.conf"

// redisFiles are the host files the Redis image holds: redis-server
// (named so, whatever its symlinks say: the binary picks its mode by
// name) and what ldd says it links.
func redisFiles() (map[string]string, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("docker backend: the redis system needs redis-server on the host (Debian: apt-get install redis-server): %w", err)
	}
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return nil, err
	}
	files := map[string]string{"/usr/bin/redis-server": real}
	out, err := exec.Command("ldd", real).Output()
	if err != nil {
		return nil, fmt.Errorf("docker backend: ldd %s: %w", real, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		var path string
		switch {
		case len(f) >= 3 && f[1] == "=>" && strings.HasPrefix(f[2], "/"):
			path = f[2]
		case len(f) >= 1 && strings.HasPrefix(f[0], "/"):
			path = f[0] // the dynamic loader
		default:
			continue // linux-vdso: the kernel's
		}
		files[path] = path
	}
	return files, nil
}

// redisImage returns the tag of the Redis image, building it once per
// content of the files it holds.
func (b *Backend) redisImage(ctx context.Context, provider *testcontainers.DockerProvider, workDir string) (string, error) {
	files, err := redisFiles()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, dst := range slices.Sorted(maps.Keys(files)) {
		f, err := os.Open(files[dst])
		if err != nil {
			return "", err
		}
		io.WriteString(h, dst)
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	digest := "redis-" + hex.EncodeToString(h.Sum(nil))[:12]
	b.mu.Lock()
	defer b.mu.Unlock()
	if tag, ok := b.built[digest]; ok {
		if _, err := provider.Client().ImageInspect(ctx, tag); err == nil {
			return tag, nil
		}
	}
	dir, err := os.MkdirTemp(workDir, "redis-image-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	for dst, src := range files {
		if err := copyFile(src, filepath.Join(dir, "rootfs", dst)); err != nil {
			return "", fmt.Errorf("docker backend: redis image: %w", err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "rootfs", "data"), 0o755); err != nil {
		return "", err
	}
	df := "FROM scratch\nCOPY rootfs/ /\nWORKDIR /data\nENTRYPOINT [\"/usr/bin/redis-server\"]\n"
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(df), 0o644); err != nil {
		return "", err
	}
	req := &testcontainers.ContainerRequest{FromDockerfile: testcontainers.FromDockerfile{
		Context: dir, Dockerfile: "Dockerfile", Repo: imageRepo, Tag: digest, KeepImage: true,
		BuildOptionsModifier: func(o *client.ImageBuildOptions) {
			o.Labels = map[string]string{LabelKey: "image"}
		},
	}}
	tag, err := provider.BuildImage(ctx, req)
	if err != nil {
		return "", fmt.Errorf("docker backend: build the redis image: %w", err)
	}
	b.built[digest] = tag
	return tag, nil
}

// redisConfig is node spec's redis.conf (a data node) or sentinel.conf
// (a coordinator) on the run network.
func redisConfig(topo topology.Topology, spec topology.NodeSpec, ips map[string]netip.Addr, secret string) ([]byte, error) {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("# %s of %s, written by the chaos harness", filepath.Base(redisConfPath), spec.Name)
	line("bind 0.0.0.0")
	line("dir /data")
	line("daemonize no")
	line(`logfile ""`)
	line("protected-mode no")
	if spec.Role == topology.RoleCoordinator {
		down := topo.Coordination.DownAfterMs
		if down == 0 {
			down = topology.DefaultDownAfterMs
		}
		line("port %d", coordPort)
		line("requirepass %s", secret)
		line("sentinel sentinel-pass %s", secret)
		line("sentinel announce-ip %s", ips[spec.Name])
		line("sentinel announce-port %d", coordPort)
		line("sentinel resolve-hostnames no")
		line("sentinel monitor %s %s %d %d", topology.GroupName, ips[topo.Primary()], nodePort, len(topo.Coordinators())/2+1)
		line("sentinel down-after-milliseconds %s %d", topology.GroupName, down)
		return []byte(b.String()), nil
	}
	line("port %d", nodePort)
	line("replica-announce-ip %s", ips[spec.Name])
	if spec.ReplicaOf != "" {
		line("replicaof %s %d", ips[spec.ReplicaOf], nodePort)
	}
	for _, a := range spec.Args {
		if strings.ContainsAny(a, "\n\r") {
			return nil, fmt.Errorf("docker backend: redis directive %q of %s spans lines", a, spec.Name)
		}
		line("%s", a)
	}
	return []byte(b.String()), nil
}

// redisArgs is a Redis container's command after the entry point.
func redisArgs(spec topology.NodeSpec) []string {
	if spec.Role == topology.RoleCoordinator {
		return []string{redisConfPath, "--sentinel"}
	}
	return []string{redisConfPath}
}
