// Package wal is one shard's write-ahead log: an append-only, checksummed
// sequence of records in segment files, with the sequence numbers and fsync
// discipline that replication, durable writes and crash recovery rely on.
//
// # Records and sequences
//
// A Record is one atomic unit of change: the effects of one command, or of a
// whole MULTI/EXEC, as command argvs to replay. Sequence numbers start at 1
// (or where SetNext puts them) and increase by exactly 1 per record, across
// segments and restarts; a gap or a repeat anywhere is corruption. Each record
// also carries the replication epoch it was written in, stored verbatim.
//
// Three sequence numbers describe a live log:
//
//   - Last: the last record appended (assigned by Append).
//   - written: the last record handed to write(2); not exported, but Replay
//     reads up to Last anyway, taking the unwritten tail from memory.
//   - Durable: the last record known to be on stable storage per the Mode:
//     Always and EverySec advance it only after an fsync that covered it;
//     Memory keeps it equal to Last.
//
// # Files
//
// Segments live in Options.Dir and are named wal-<first seq>.log with the
// sequence zero-padded to 20 digits, so that lexical order is sequence order
// and the name alone tells where a segment starts (even an empty one). The
// writer starts a new segment, named after the next sequence, once the active
// one has grown past Options.SegmentBytes; older segments are deleted whole by
// DropBefore once a snapshot covers them. Other files in Dir are ignored,
// except the spare (wal-spare.tmp): a segment's worth of zeros written ahead
// of the next rotation, which renames it into place (see prealloc.go), so
// records overwrite bytes the file has rather than growing it. A segment
// that grows (a new log's first) is sealed early, as soon as a spare is
// ready. A segment may therefore end in zeros after its last record.
//
// # Segment format, version 1
//
// All integers in fixed-size fields are little-endian. A segment starts with
// a 24-byte header:
//
//	offset size field
//	0      8    magic "RUVIOWAL"
//	8      4    format version (1)
//	12     8    base: the sequence of the segment's first record, equal to
//	            the number in the file name
//	20     4    CRC-32C (Castagnoli) of bytes 0..19
//
// The magic and the version are the only fields a future format promises to
// keep where they are: a reader checks them first and refuses a version it
// does not know (ErrUnsupportedFormat) instead of guessing at its layout.
//
// The header is followed by records, back to back, each framed as
//
//	u32 length   number of bytes in body
//	u32 crc      CRC-32C (Castagnoli) of body
//	body:
//	  uvarint seq
//	  uvarint epoch
//	  uvarint nops
//	  nops times:
//	    uvarint argc
//	    argc times:
//	      uvarint len
//	      len bytes
//
// A body is at least 3 bytes long, so a frame of zeros (length 0, whose CRC
// would trivially match) is never a valid record. A body must be consumed
// exactly by its fields; trailing bytes make it malformed. Zeros from the end
// of a segment's last record to the end of its file (any number, fewer than a
// frame header included) are room, the unwritten part of a preallocated
// segment: the segment ends there.
//
// # Recovery rules
//
// Open reads and verifies every record of every segment. A write that was cut
// short by a crash can only damage the end of the last segment, because the
// writer fsyncs a segment before it creates the next one. So a bad last record
// of the last segment (incomplete, failing its checksum, or malformed) with
// nothing valid after it is a torn tail: Open truncates the file at the start
// of that record (cutting any zeros after it too), fsyncs it, logs a warning
// and reports it through TornTail. Zeros alone after the last record are room,
// not a torn tail: nothing is cut, and the next record is written over them.
// A torn or zeroed header of the last segment is rewritten from the file
// name. Anything else — a bad record in an earlier segment, a bad record
// followed by a valid one, a sequence gap or repeat — is a *CorruptError, and
// Open refuses to start: losing acknowledged writes silently is worse than
// asking an operator to run Check and TruncateAt. "Followed by a valid one"
// means that some later offset in the file holds a frame whose checksum
// matches and whose sequence is past the last good one; a torn write could
// only produce that by accident, so when in doubt Open refuses (including
// when the search through a large damaged region exceeds its CPU budget).
// One such accident is likelier in a preallocated segment: a power cut
// during the write-out of an unsynced batch of several pages, on a
// filesystem that writes pages out of order, can keep a later page and not
// an earlier one, whose zeros then come before valid records. Open refuses
// that too; the records after the zeros were never acknowledged, but Open
// cannot tell the zeros from an fsynced record the disk lost.
//
// A rotation cuts the zeros off the segment it seals (after the records,
// before its fsync), so only the last segment normally ends in zeros; one
// sealed by a process that died between its rotation's steps may too, and
// reads the same way.
//
// # Concurrency
//
// Append only encodes into an in-memory buffer under a mutex and, in
// Always mode, wakes the log's one writer goroutine; it never waits for
// I/O. The writer swaps the buffer out, writes it with one write(2) (split
// only where a segment fills up), and in Always mode fsyncs and publishes
// Durable as the last sequence in that write: every record appended while
// one fsync runs rides on the next one (group commit). A caller that waits
// for its record in Always mode (WaitDurable) makes the same pass itself
// when no pass has written the record yet. While a caller holds the log
// (Hold, as an event loop does for a turn) appends do not wake the writer:
// the holder's wait writes and fsyncs the whole turn at once, and Release
// wakes the writer for what is left. In EverySec mode an
// append does not wake the writer: the caller that waits for its record
// (WaitWritten) writes the buffer itself, and a ticker has the writer
// write what is left and fsync. One flush pass runs at a time (flushMu);
// the writer's fsync runs after its pass, so a waiter's write never waits
// for the disk. Nobody does I/O while holding the mutex that guards the
// buffer.
//
// Replay works on a live log. Under the mutex it takes a consistent cut: the
// segments and how many bytes of each have been written, plus copies of the
// bytes being written and not yet written; it then reads without the mutex.
// It therefore returns exactly the records up to Last() as of the call,
// whether they were on disk or still in memory. Segment files are reference
// counted, so DropBefore and Close can run during a Replay without pulling
// the file from under it.
package wal
