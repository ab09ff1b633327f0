package server

import (
	"sync"
	"sync/atomic"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/rdb"
	"github.com/ruvio/ruvio/ruvio/script"
	"github.com/ruvio/ruvio/ruvio/shard"
)

// FUNCTION and FCALL (Redis 7 functions). The libraries are node-wide
// data kept by shard 0 (see ruvio/shard/libraries.go): every change is a
// record of shard 0 holding the whole new set, encoded as FUNCTION DUMP
// encodes it, so the log, the snapshots, a restart and the replicas all
// carry them the way they carry keys. The node's parsed set follows
// shard 0's image: whichever way the image changed (a command here, a
// replayed or replicated record, a full copy), the next use sees a new
// image pointer and parses it again.

// functionState is the node's parsed library set and its pool of Lua
// states with those libraries loaded.
type functionState struct {
	opts script.Options
	pool *script.FunctionPool
	// cur is the image last parsed and its set; mu serializes parsing a
	// new one, so FCALL pays one atomic load while the image stays.
	cur atomic.Pointer[parsedLibraries]
	mu  sync.Mutex
}

type parsedLibraries struct {
	img *shard.LibraryImage
	set *script.Libraries
}

func (s *Server) functions() *functionState {
	s.fnOnce.Do(func() {
		opts := script.Options{Version: Version, Log: s.log}
		s.fn = &functionState{opts: opts, pool: script.NewFunctionPool(opts)}
	})
	return s.fn
}

// libraryShard is the shard that keeps the node's libraries.
func (s *Server) libraryShard() *shard.Shard { return s.shards[0] }

// libraries is the node's current library set.
func (s *Server) libraries() *script.Libraries {
	st := s.functions()
	img := s.libraryShard().Libraries()
	if p := st.cur.Load(); p != nil && p.img == img {
		return p.set
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if p := st.cur.Load(); p != nil && p.img == img {
		return p.set
	}
	set := script.EmptyLibraries
	if img != nil {
		set = decodeLibraries(img.Payload, st.opts, s)
	}
	st.cur.Store(&parsedLibraries{img: img, set: set})
	return set
}

// decodeLibraries parses an image. A library that no longer loads (it
// cannot happen for an image this node or its primary wrote, short of a
// load timing out on a starved machine) is left out and logged.
func decodeLibraries(payload []byte, o script.Options, s *Server) *script.Libraries {
	codes, err := rdb.DecodeFunctions(payload)
	if err != nil {
		s.log.Error("the function libraries' image does not decode", "err", err)
		return script.EmptyLibraries
	}
	set := script.EmptyLibraries
	for _, code := range codes {
		lib, msg := script.ParseLibrary(code, o)
		if msg == "" {
			var next *script.Libraries
			if next, msg = set.With(lib, true); msg == "" {
				set = next
			}
		}
		if msg != "" {
			s.log.Error("a function library does not load", "err", msg)
		}
	}
	return set
}

// changeLibraries runs change on the current set with the library shard
// locked (unless EXEC holds it already) and logs the set it returns. A
// change that fails (errMsg set) logs nothing.
func (c *conn) changeLibraries(change func(cur *script.Libraries) (*script.Libraries, string)) string {
	s := c.srv
	sh := s.libraryShard()
	held := heldBy(c.locked, sh)
	if !held {
		sh.Lock()
	}
	next, msg := change(s.libraries())
	var seq uint64
	if msg == "" {
		seq = sh.SetLibrariesLocked(rdb.EncodeFunctions(next.Codes()))
		// The set is parsed already: spare the next use parsing the image.
		st := s.functions()
		st.mu.Lock()
		st.cur.Store(&parsedLibraries{img: sh.Libraries(), set: next})
		st.mu.Unlock()
	}
	if !held {
		sh.Unlock()
	}
	c.notePending(sh, seq)
	return msg
}

// functionSpecs are FUNCTION's subcommands and FCALL, for the command
// table.
func functionSpecs() []*command.Spec {
	const cats = "slow scripting"
	const wcats = "write slow scripting"
	return []*command.Spec{
		fcallSpec("fcall", 0, func(c *conn, args [][]byte) { c.fcall(args, false) }),
		fcallSpec("fcall_ro", command.ReadOnly, func(c *conn, args [][]byte) { c.fcall(args, true) }),
		container("function", "slow",
			ext("load", -3, command.Write|command.DenyOOM|command.NoScript, wcats, cmdFunctionLoad),
			ext("delete", 3, command.Write|command.NoScript, wcats, cmdFunctionDelete),
			ext("list", -2, command.NoScript, cats, cmdFunctionList),
			ext("flush", -2, command.Write|command.NoScript, wcats, cmdFunctionFlush),
			ext("dump", 2, command.NoScript, cats, cmdFunctionDump),
			ext("restore", -3, command.Write|command.DenyOOM|command.NoScript, wcats, cmdFunctionRestore),
			ext("stats", 2, command.NoScript, cats, cmdFunctionStats),
			ext("kill", 2, command.NoScript, cats, cmdFunctionKill),
			ext("help", 2, load|stale, cats, cmdFunctionHelp),
		),
	}
}

func cmdFunctionLoad(c *conn, args [][]byte) {
	replace := false
	for _, a := range args[2 : len(args)-1] {
		if !command.Eq(a, "replace") {
			c.w.Error("ERR Unknown option given: " + string(a))
			return
		}
		replace = true
	}
	code := args[len(args)-1]
	st := c.srv.functions()
	lib, msg := script.ParseLibrary(string(code), st.opts)
	if msg == "" {
		msg = c.changeLibraries(func(cur *script.Libraries) (*script.Libraries, string) { return cur.With(lib, replace) })
	}
	if msg != "" {
		c.w.Error(msg)
		return
	}
	c.w.BulkString(lib.Name)
}

func cmdFunctionDelete(c *conn, args [][]byte) {
	msg := c.changeLibraries(func(cur *script.Libraries) (*script.Libraries, string) {
		next, ok := cur.Without(string(args[2]))
		if !ok {
			return nil, "ERR Library not found"
		}
		return next, ""
	})
	if msg != "" {
		c.w.Error(msg)
		return
	}
	c.w.OK()
}

// functionSyntax is Redis's answer to a FUNCTION subcommand given more
// arguments than it takes.
func functionSyntax(c *conn, args [][]byte) {
	c.w.Error("ERR unknown subcommand or wrong number of arguments for '" + string(args[1]) + "'. Try FUNCTION HELP.")
}

func cmdFunctionFlush(c *conn, args [][]byte) {
	if len(args) > 3 {
		functionSyntax(c, args)
		return
	}
	if len(args) == 3 && !command.Eq(args[2], "async") && !command.Eq(args[2], "sync") {
		c.w.Error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
		return
	}
	c.changeLibraries(func(*script.Libraries) (*script.Libraries, string) { return script.EmptyLibraries, "" })
	c.w.OK()
}

func cmdFunctionList(c *conn, args [][]byte) {
	pattern, named, withCode := "", false, false
	for i := 2; i < len(args); i++ {
		switch {
		case command.Eq(args[i], "withcode"):
			if withCode {
				c.w.Error("ERR Unknown argument " + string(args[i]))
				return
			}
			withCode = true
		case command.Eq(args[i], "libraryname"):
			if named {
				c.w.Error("ERR Unknown argument " + string(args[i]))
				return
			}
			if i+1 == len(args) {
				c.w.Error("ERR library name argument was not given")
				return
			}
			i++
			pattern, named = string(args[i]), true
		default:
			c.w.Error("ERR Unknown argument " + string(args[i]))
			return
		}
	}
	libs := c.srv.libraries().List(pattern)
	if named && pattern == "" {
		libs = nil // an empty pattern matches no name
	}
	w := c.w
	w.Array(len(libs))
	for _, l := range libs {
		n := 3
		if withCode {
			n = 4
		}
		w.Map(n)
		w.BulkString("library_name")
		w.BulkString(l.Name)
		w.BulkString("engine")
		w.BulkString("LUA")
		w.BulkString("functions")
		w.Array(len(l.Functions))
		for _, f := range l.Functions {
			w.Map(3)
			w.BulkString("name")
			w.BulkString(f.Name)
			w.BulkString("description")
			if f.Description == nil {
				w.Null()
			} else {
				w.BulkString(*f.Description)
			}
			w.BulkString("flags")
			// Simple strings, as Redis writes a function's flags.
			names := script.FlagNames(f.Flags)
			w.Set(len(names))
			for _, name := range names {
				w.Simple(name)
			}
		}
		if withCode {
			w.BulkString("library_code")
			w.BulkString(l.Code)
		}
	}
}

func cmdFunctionDump(c *conn, args [][]byte) {
	c.w.Bulk(rdb.EncodeFunctions(c.srv.libraries().Codes()))
}

// cmdFunctionRestore loads the libraries of a DUMP payload (Redis's or
// ruvio's), by policy: APPEND (the default) fails on any collision,
// REPLACE replaces libraries of the same names, FLUSH drops every other.
func cmdFunctionRestore(c *conn, args [][]byte) {
	policy := "append"
	if len(args) == 4 {
		switch {
		case command.Eq(args[3], "append"):
		case command.Eq(args[3], "replace"):
			policy = "replace"
		case command.Eq(args[3], "flush"):
			policy = "flush"
		default:
			c.w.Error("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")
			return
		}
	} else if len(args) > 4 {
		functionSyntax(c, args)
		return
	}
	codes, err := rdb.DecodeFunctions(args[2])
	switch {
	case err == rdb.ErrNotFunctions:
		c.w.Error("ERR given type is not a function")
		return
	case err != nil:
		c.w.Error("ERR DUMP payload version or checksum are wrong")
		return
	}
	libs, msg := script.ParseLibraries(codes, c.srv.functions().opts)
	if msg == "" {
		msg = c.changeLibraries(func(cur *script.Libraries) (*script.Libraries, string) {
			if policy == "flush" {
				cur = script.EmptyLibraries
			}
			return cur.WithAll(libs, policy == "replace")
		})
	}
	if msg != "" {
		c.w.Error(msg)
		return
	}
	c.w.OK()
}

func cmdFunctionHelp(c *conn, args [][]byte) {
	writeHelp(c, "FUNCTION",
		"LOAD [REPLACE] <FUNCTION CODE>",
		"    Create a new library with the given library name and code.",
		"DELETE <LIBRARY NAME>",
		"    Delete the given library.",
		"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
		"    Return general information on all the libraries:",
		"    * Library name",
		"    * The engine used to run the Library",
		"    * Library description",
		"    * Functions list",
		"    * Library code (if WITHCODE is given)",
		"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
		"STATS",
		"    Return information about the current function running:",
		"    * Function name",
		"    * Command used to run the function",
		"    * Duration in MS that the function is running",
		"    If no function is running, return nil",
		"    In addition, returns a list of available engines.",
		"KILL",
		"    Kill the current running function.",
		"FLUSH [ASYNC|SYNC]",
		"    Delete all the libraries.",
		"    When called without the optional mode argument, the behavior is determined by the",
		"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
		"    * ASYNC: Asynchronously flush the libraries.",
		"    * SYNC: Synchronously flush the libraries.",
		"DUMP",
		"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
		"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
		"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
		"    control how to handle existing libraries (default APPEND):",
		"    * FLUSH: delete all existing libraries.",
		"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
		"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
		"      libraries with the new libraries (notice that even on this option there is a chance of failure",
		"      in case of functions name collision with another library).")
}
