package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// LogVersion is the version of the Raft log entries this build writes
// and the highest it reads. Entries of earlier builds carry no version
// and read as version 1. A build that writes an entry an older one cannot
// apply correctly (a new kind, a new field that changes a transition)
// raises it. Each entry is written at the lowest version that reads it
// (entryVersion): the slot-move entries need 2, the others 1, so an older
// coordinator stops on a move entry and nothing else.
const LogVersion = 2

// moveOps are the kinds of entry log version 2 added.
var moveOps = map[string]bool{OpMoveBegin: true, OpMoveRestart: true, OpMoveCommit: true, OpMoveEnd: true}

// entryVersion is the lowest log version that reads e.
func entryVersion(e Entry) int {
	if moveOps[e.Op] || e.Move != nil {
		return 2
	}
	return 1
}

// UnreadableError is a log entry or snapshot this build cannot read: one
// written by a newer build (Version above LogVersion, or a kind or field
// this build does not know), or bytes that are no entry at all. A
// coordinator that meets one stops applying the log: applying the rest
// without it would give a state the others do not have.
type UnreadableError struct {
	// Version is the version the entry names (0 when it names none this
	// build could read).
	Version int
	Reason  string
}

func (e *UnreadableError) Error() string {
	if e.Version > LogVersion {
		return fmt.Sprintf("written by a newer coordinator: it needs log version %d, this build reads up to version %d", e.Version, LogVersion)
	}
	return fmt.Sprintf("this build (log version %d) cannot read it: %s", LogVersion, e.Reason)
}

// Needs is the log version a coordinator needs to read the entry, for
// the log line: the entry's own, or "newer than" this build's.
func (e *UnreadableError) Needs() string {
	if e.Version > LogVersion {
		return fmt.Sprint(e.Version)
	}
	return fmt.Sprintf("above %d", LogVersion)
}

// IsUnreadable reports whether err is an UnreadableError.
func IsUnreadable(err error) bool {
	var u *UnreadableError
	return errors.As(err, &u)
}

var knownOps = map[string]bool{OpPrimary: true, OpCommitted: true, OpAddMember: true, OpForget: true,
	OpMoveBegin: true, OpMoveRestart: true, OpMoveCommit: true, OpMoveEnd: true}

// DecodeEntry reads one Raft log entry. Anything this build cannot read
// exactly (a newer version, an unknown kind or field, trailing bytes, no
// JSON object at all) is an *UnreadableError: unknown fields are refused
// rather than dropped, since dropping them could change what the entry
// means.
func DecodeEntry(b []byte) (Entry, error) {
	var head struct {
		V json.RawMessage `json:"v"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Entry{}, &UnreadableError{Reason: "not a log entry: " + short(err.Error())}
	}
	if len(head.V) > 0 {
		var v int
		if err := json.Unmarshal(head.V, &v); err != nil || v < 1 {
			return Entry{}, &UnreadableError{Reason: fmt.Sprintf("version %s is not a positive integer", short(string(head.V)))}
		}
		if v > LogVersion {
			return Entry{}, &UnreadableError{Version: v}
		}
	}
	var e Entry
	if err := strict(b, &e); err != nil {
		return Entry{}, &UnreadableError{Reason: short(err.Error())}
	}
	if !knownOps[e.Op] {
		return Entry{}, &UnreadableError{Reason: fmt.Sprintf("unknown kind of entry %q", short(e.Op))}
	}
	if e.Version == 0 {
		e.Version = 1
	}
	return e, nil
}

// DecodeState reads a snapshot: a Record per group, every field known.
func DecodeState(r io.Reader) (State, error) {
	var s State
	d := json.NewDecoder(r)
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return nil, &UnreadableError{Reason: "snapshot: " + short(err.Error())}
	}
	if d.More() {
		return nil, &UnreadableError{Reason: "snapshot: bytes after the state"}
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, &UnreadableError{Reason: "snapshot: bytes after the state"}
	}
	return s, nil
}

// EncodeEntry is the log's encoding of e, at the lowest version that
// reads it.
func EncodeEntry(e Entry) []byte {
	e.Version = entryVersion(e)
	b, _ := json.Marshal(e) // an Entry always encodes
	return b
}

func strict(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("bytes after the entry")
	}
	return nil
}

// short keeps a reason readable in one log line.
func short(s string) string {
	s = strings.ToValidUTF8(s, "?")
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}
