// Package snapshot writes and reads a shard's point-in-time image on disk.
//
// A snapshot holds every key of one shard as it was at one WAL sequence
// (Header.Seq): recovery loads the newest complete snapshot, then replays
// the log after that sequence. Snapshots live in the shard's directory as
// snap-<seq, 20 zero-padded decimal digits>.rsnap, so names sort by
// sequence. A snapshot is written to snap-<seq>.rsnap.tmp, fsynced, renamed
// into place and the directory fsynced, so a file with the final name is
// always complete; a .tmp file is a write that never finished.
//
// # File format (version 1)
//
// All fixed-width integers are little-endian. "uvarint" and "varint" are
// encoding/binary's unsigned and zig-zag signed varints. Every checksum is
// CRC-32C (Castagnoli).
//
//	file   = header block* footer
//
//	header = magic      "RUVIOSNP" (8 bytes)
//	         version    u16
//	         bodyLen    u32          at most 1 MiB
//	         bodyCRC    u32          CRC-32C of version, bodyLen and body
//	         body       bodyLen bytes:
//	                      uvarint shard
//	                      uvarint seq       WAL sequence the image is consistent at
//	                      uvarint epoch
//	                      uvarint n         epoch history, oldest first:
//	                      n × (uvarint epoch, uvarint firstSeq, uvarint id)
//	                                      (version 1: no id)
//	                      varint  createdMs Unix milliseconds
//
//	block  = len        u32          1..65536
//	         crc        u32          CRC-32C of the 4 len bytes, then payload
//	         payload    len bytes
//
//	footer = marker     u32 = 0      a block length of zero ends the blocks
//	         count      u64          number of entries
//	         headerCRC  u32          bodyCRC again, tying footer to header
//	         endMagic   "RUVIOEND" (8 bytes), then end of file
//
// The concatenated block payloads form one stream of entries. An entry may
// continue from one block into the next, so a value larger than a block
// needs no special case and neither writer nor reader ever holds more than
// a block of framing in memory:
//
//	entry  = type       byte         0 string, 1 list, 2 set, 3 sorted set, 4 hash
//	         key        uvarint length, bytes
//	         expireAt   varint       Unix ms, 0 = no expiry
//	         value, by type:
//	           string      uvarint length, bytes
//	           list        uvarint n, n × (uvarint length, bytes), front to back
//	           set         uvarint n, n × (uvarint length, bytes)
//	           sorted set  uvarint n, n × (uvarint length, member bytes,
//	                       u64 IEEE-754 bits of the score), ascending order
//	           hash        uvarint n, n × (field: uvarint length, bytes;
//	                       value: uvarint length, bytes)
//
// The type codes follow Redis's RDB object types, so a dump is recognisable
// to anyone who has read one.
//
// # Integrity
//
// Every byte of the file is covered: the header by its CRC, each block by
// its CRC (which includes the length, so a damaged length is caught too),
// and the footer by cross-checks: the marker must fall between entries, the
// count must equal the entries read, headerCRC must equal the header's, the
// end magic must match and nothing may follow it. A CRC-32C catches every
// change confined to 32 consecutive bits, so any single damaged byte is
// always reported, and a truncated file always is (its footer is missing).
// The reader verifies a block before decoding anything from it, so entries
// handed to the caller come only from verified bytes. Problems are reported
// as *CorruptError naming the file and the offset of the damaged block or
// field; Load's caller must throw away whatever it built from a file that
// failed.
//
// Counts and lengths are also checked against the bytes left in the file
// before anything is allocated, so even a crafted file cannot make the
// reader allocate more than the file's size.
//
// # Versions
//
// The prefix magic, version, bodyLen, bodyCRC is the same in every version,
// so any release can tell a damaged header (CRC mismatch: *CorruptError)
// from a file written by a newer release (ErrUnsupportedVersion). A new
// version bumps Version and teaches the header decoder its fields; the
// reader keeps decoding every older version, and refuses versions it does
// not know instead of guessing. Version 2 added the ID of each history
// entry; a version 1 file reads with IDs of 0.
package snapshot
