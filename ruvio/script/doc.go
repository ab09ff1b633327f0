// Package script runs Redis's Lua scripts (EVAL and friends) on
// gopher-lua, a pure-Go Lua 5.1 virtual machine; Redis embeds Lua 5.1 too,
// so the language scripts are written in is the same.
//
// It owns everything about a script that does not need a server: the
// compiled-script cache, the sandboxed states (protected globals, no os,
// io or file loading, Redis's lrand48 math.random), the redis.* API, the
// libraries Redis ships (cjson, cmsgpack, bit, struct), the conversions
// between Lua values and RESP replies in both directions, the #!lua
// shebang flags and the error texts Redis 7.0 answers.
//
// The server supplies a Bridge that runs one command for the script with
// the script's shard already locked and returns the command's RESP
// reply; this package never touches the keyspace itself. FUNCTION/FCALL
// can reuse the same states through NewState and Exec.
//
// Where a script can tell it is not on redis-server 7.0:
//   - Lua's own runtime and compile error texts are gopher-lua's where
//     they cannot be mapped back (Lua 5.1 names the variable involved,
//     "attempt to index local 'a'"); errors of the redis API and the
//     libraries are Redis's.
//   - Concatenating a non-integral number ('x' .. 1/3) prints every
//     digit, as gopher-lua's VM does; tostring and string.format print
//     %.14g as Lua 5.1.
//   - Tables are iterated in gopher-lua's order, so a {map=...} reply,
//     cjson objects and cmsgpack maps of several keys list them in
//     another order than Redis.
//   - redis.set_repl is accepted and ignored: effects always replicate.
//     There is no script debugger (redis.breakpoint answers false,
//     redis.debug prints nothing).
//   - math.random continues its sequence from run to run as redis-server
//     7.0 does; each pooled state has its own generator.
package script
