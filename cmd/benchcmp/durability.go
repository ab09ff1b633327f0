package main

import (
	"fmt"
	"strings"
)

// Durability profiles benchcmp can compare. Each names ruvio's
// --durability value; redisPersistence says how redis-server is configured
// to make the same promise.
const (
	durabilityMemory   = "memory"
	durabilityAlways   = "always"
	durabilityEverysec = "everysec"
)

// durabilityProfiles lists the supported profiles in their default order:
// the cheap one first, so that its numbers exist even if a slow disk makes a
// later profile time out.
var durabilityProfiles = []string{durabilityMemory, durabilityAlways, durabilityEverysec}

// redisPersistence returns the redis-server flags matching a ruvio
// durability profile. RDB snapshots are off in every profile: ruvio's
// memory, always and everysec profiles take none either, and a background
// save in the middle of a run would measure fork(), not the request path.
func redisPersistence(durability string) []string {
	switch durability {
	case durabilityAlways:
		return []string{"--appendonly", "yes", "--appendfsync", "always", "--save", ""}
	case durabilityEverysec:
		return []string{"--appendonly", "yes", "--appendfsync", "everysec", "--save", ""}
	default:
		return []string{"--appendonly", "no", "--save", ""}
	}
}

// profilePlan is what one durability profile runs: the same tests and
// pipeline depths for each of its shard counts.
type profilePlan struct {
	Durability string `json:"durability"`
	Shards     []int  `json:"shards"`
}

// planProfiles decides the shard counts for each profile. The memory
// profile gets every shard count of --shards; the persistent ones, whose
// runs take longer and fill the disk, get --durability-shards.
func planProfiles(durabilities []string, shards, durabilityShards []int) []profilePlan {
	out := make([]profilePlan, 0, len(durabilities))
	for _, d := range durabilities {
		s := durabilityShards
		if d == durabilityMemory {
			s = shards
		}
		out = append(out, profilePlan{Durability: d, Shards: s})
	}
	return out
}

// parseDurabilities parses the comma-separated --durability list, keeping
// the given order and dropping duplicates.
func parseDurabilities(s string) ([]string, error) {
	return uniqueList(splitList(s), func(f string) (string, error) {
		for _, p := range durabilityProfiles {
			if f == p {
				return f, nil
			}
		}
		return "", fmt.Errorf("unknown profile %q (want some of %s)", f, strings.Join(durabilityProfiles, ","))
	}, "empty list")
}

// parseDurabilitiesOrNone is parseDurabilities for a list that may be
// "none", the empty list, which skips that part of the run.
func parseDurabilitiesOrNone(s string) ([]string, error) {
	if strings.EqualFold(strings.TrimSpace(s), "none") {
		return nil, nil
	}
	return parseDurabilities(s)
}
