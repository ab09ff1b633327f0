package docker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// staleImageAge is how old an unused harness image must be before Sweep
// removes it, so a run that built its image a moment ago and is about to
// start containers from it does not lose it.
const staleImageAge = time.Hour

// Sweep removes every container and network labelled ruvio.chaos, such as
// those of a run killed before it could clean up, and harness images older
// than an hour that no container uses. The runner calls it at start.
//
// Resources whose owner label names another process on this host that is
// still alive are spared: `go test ./...` runs packages in parallel, and
// one package's sweep must not pull containers from under another's test.
// The calling process's own resources are removed.
func Sweep(ctx context.Context) error {
	log := slog.Default()
	setup(log)
	provider, err := testcontainers.NewDockerProvider(testcontainers.WithLogger(tcLogger{log}))
	if err != nil {
		return fmt.Errorf("docker sweep: %w", err)
	}
	api := provider.Client()
	filter := client.Filters{}.Add("label", LabelKey)
	var errs []error

	ctrs, err := api.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: filter})
	if err != nil {
		return fmt.Errorf("docker sweep: list containers: %w", err)
	}
	removed := 0
	for _, ctr := range ctrs.Items {
		if ownerAlive(ctr.Labels[ownerLabel]) {
			continue
		}
		_, err := api.ContainerRemove(ctx, ctr.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
		if err != nil && !cerrdefs.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("docker sweep: remove container %s: %w", ctr.ID[:12], err))
			continue
		}
		removed++
	}

	nets, err := api.NetworkList(ctx, client.NetworkListOptions{Filters: filter})
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("docker sweep: list networks: %w", err))...)
	}
	for _, nw := range nets.Items {
		if ownerAlive(nw.Labels[ownerLabel]) {
			continue
		}
		if _, err := api.NetworkRemove(ctx, nw.ID, client.NetworkRemoveOptions{}); err != nil && !cerrdefs.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("docker sweep: remove network %s: %w", nw.Name, err))
			continue
		}
		removed++
	}

	imgs, err := api.ImageList(ctx, client.ImageListOptions{Filters: filter})
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("docker sweep: list images: %w", err))...)
	}
	for _, img := range imgs.Items {
		if time.Since(time.Unix(img.Created, 0)) < staleImageAge {
			continue
		}
		_, err := api.ImageRemove(ctx, img.ID, client.ImageRemoveOptions{PruneChildren: true})
		// An image still used by a spared container is in conflict: keep it.
		if err != nil && !cerrdefs.IsNotFound(err) && !cerrdefs.IsConflict(err) {
			errs = append(errs, fmt.Errorf("docker sweep: remove image %s: %w", img.ID, err))
			continue
		}
		if err == nil {
			removed++
		}
	}
	if removed > 0 {
		log.Info("docker sweep removed leftovers", "count", removed)
	}
	return errors.Join(errs...)
}

// ownerAlive reports whether an owner label ("<hostname>:<pid>") names a
// live process on this host other than the caller. Anything else, a
// missing label included, counts as a leftover.
func ownerAlive(label string) bool {
	host, pidText, ok := strings.Cut(label, ":")
	if !ok {
		return false
	}
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	if me, _ := os.Hostname(); host != me {
		return false
	}
	// Signal 0 checks existence; EPERM means it exists under another user.
	err = syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
