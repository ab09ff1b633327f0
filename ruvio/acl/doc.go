// Package acl implements Redis 7 style users, ACL SETUSER rule parsing
// (selectors included) and the per-command, per-key and per-channel
// permission checks, as pure logic, and keeps the ACL log of denials that
// ACL LOG shows.
package acl
