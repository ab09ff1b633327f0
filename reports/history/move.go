package history

// Kinds of observation the coordinators' operator records for slot moves.
const (
	// ObsMove: one slot move, from COORDINATOR MOVE (or, in a rebalance,
	// the first poll that saw the move running) at StartMs to the first
	// poll of COORDINATOR STATUS that found it ended at EndMs. Type is OK
	// when it committed, Fail when it failed or was cancelled, Info when
	// the run ended first. Detail starts with the move's range as STATUS
	// spells it ("0-99 a/0 -> b/1"), then ": " and how it ended.
	ObsMove = "move"
	// ObsRebalance: a COORDINATOR REBALANCE from its sending to the poll
	// that found it ended; Detail says how and how many moves it made.
	ObsRebalance = "rebalance"
)
