package server

import "github.com/ruvio/ruvio/ruvio/shard"

// cmdSave writes a snapshot of every shard and answers when all are on
// disk. Unlike Redis's SAVE it does not stop other clients: snapshots are
// copy-on-write, so writes go on meanwhile.
func cmdSave(c *conn, args [][]byte) {
	done := make(chan error, len(c.srv.shards))
	started := 0
	for _, sh := range c.srv.shards {
		if err := sh.StartSnapshot(done); err != nil {
			c.w.Error(err.Error())
			// Let the ones already started finish on their own.
			return
		}
		started++
	}
	for ; started > 0; started-- {
		if err := <-done; err != nil {
			c.w.Error("ERR " + err.Error())
			return
		}
	}
	c.w.OK()
}

// cmdBgsave starts a snapshot of every shard in the background.
func cmdBgsave(c *conn, args [][]byte) {
	if len(args) > 2 || (len(args) == 2 && !eqFold(args[1], "schedule")) {
		c.w.Error("ERR syntax error")
		return
	}
	for _, sh := range c.srv.shards {
		if sh.Saving() {
			c.w.Error(shard.ErrSaveInProgress.Error())
			return
		}
	}
	for _, sh := range c.srv.shards {
		if err := sh.StartSnapshot(nil); err != nil {
			c.w.Error(err.Error())
			return
		}
	}
	c.w.Simple("Background saving started")
}

// cmdLastSave answers the Unix time of the last snapshot that every shard
// completed (or the start time, as Redis answers before any save).
func cmdLastSave(c *conn, args [][]byte) { c.w.Int(c.srv.lastSaveTime()) }

// lastSaveTime is the oldest of the shards' last snapshots: the moment
// from which the whole node is on disk.
func (s *Server) lastSaveTime() int64 {
	last := s.shards[0].LastSave()
	for _, sh := range s.shards[1:] {
		last = min(last, sh.LastSave())
	}
	return last
}

func eqFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		x, y := b[i], s[i]
		if x >= 'A' && x <= 'Z' {
			x += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// persistenceInfo is INFO's persistence section for the whole node.
func (s *Server) persistenceInfo() [][2]string {
	cfg := s.Config()
	var changes, walBytes int64
	saving, ok := 0, "ok"
	var recKeys, recRecords, recMs int64
	for _, sh := range s.shards {
		changes += sh.ChangesSinceSave()
		walBytes += sh.LogBytes()
		if sh.Saving() {
			saving = 1
		}
		if !sh.LastSaveOK() {
			ok = "err"
		}
		rec := sh.Recovered()
		recKeys += rec.Keys
		recRecords += rec.Records
		recMs = max(recMs, rec.Elapsed.Milliseconds())
	}
	last := s.lastSaveTime()
	return [][2]string{
		kv("loading", boolInt(s.repl.Loading())), kv("durability", cfg.Durability),
		kv("rdb_changes_since_last_save", changes), kv("rdb_bgsave_in_progress", saving),
		kv("rdb_last_save_time", last), kv("rdb_last_bgsave_status", ok),
		kv("aof_enabled", 0), kv("wal_bytes", walBytes), kv("wal_segment_bytes", cfg.WALSegmentBytes),
		kv("recovery_keys", recKeys), kv("recovery_records", recRecords), kv("recovery_ms", recMs),
	}
}
