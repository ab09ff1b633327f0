package docker

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// Answers reports whether a Docker engine answers (nil) or why not. It
// finds the engine the way the backend will (DOCKER_HOST, the usual
// socket), so the runner's choice and the tests' skip agree with what
// Start can use.
func Answers(ctx context.Context, log *slog.Logger) error {
	setup(log)
	provider, err := testcontainers.NewDockerProvider()
	if err != nil {
		return fmt.Errorf("no Docker engine found: %w", err)
	}
	defer provider.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := provider.Client().Ping(ctx, client.PingOptions{}); err != nil {
		return fmt.Errorf("no Docker engine answers: %w", err)
	}
	return nil
}
