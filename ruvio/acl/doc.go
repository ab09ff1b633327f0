// Package acl implements Redis 7 style users, ACL SETUSER rule parsing and
// the per-command, per-key and per-channel permission checks, as pure logic.
package acl
