// Package script runs Redis's Lua scripts (EVAL and friends) on
// gopher-lua, a pure-Go Lua 5.1 virtual machine; Redis embeds Lua 5.1 too,
// so the language scripts are written in is the same.
//
// It owns everything about a script that does not need a server: the
// compiled-script cache, the sandboxed states (protected globals, no os,
// io or file loading, Redis's deterministic math.random), the redis.*
// API, the libraries Redis ships (cjson, cmsgpack, bit, struct), the
// conversions between Lua values and RESP replies in both directions,
// the #!lua shebang flags and the error texts Redis 7.0 answers.
//
// The server supplies a Bridge that runs one command for the script with
// the script's shard already locked and returns the command's RESP
// reply; this package never touches the keyspace itself. FUNCTION/FCALL
// can reuse the same states through NewState and Exec.
package script
