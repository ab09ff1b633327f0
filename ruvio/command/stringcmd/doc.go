// Package stringcmd implements Redis's string commands: GET and SET with
// their variants, the multi-key MGET/MSET family, counters (INCR and
// friends, INCRBYFLOAT) and the byte-range commands (APPEND, STRLEN,
// GETRANGE, SETRANGE).
//
// A string value is a []byte that belongs to its key alone: commands may
// grow it with append and overwrite it in place (SETRANGE), so a command
// that puts one value under two keys must copy it.
package stringcmd
