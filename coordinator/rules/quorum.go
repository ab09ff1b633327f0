package rules

// VoteResult is where a vote stands.
type VoteResult int

const (
	// VotePending: neither side has a majority yet; a coordinator that
	// has not answered may still decide it.
	VotePending VoteResult = iota
	// VoteLost: enough voters said no that yes cannot reach a majority.
	VoteLost
	// VoteWon: a majority of voters said yes.
	VoteWon
)

// String names the result for logs: won, lost or pending.
func (r VoteResult) String() string {
	switch r {
	case VoteWon:
		return "won"
	case VoteLost:
		return "lost"
	}
	return "pending"
}

// Majority is the number of voters that make a majority.
func Majority(voters int) int { return voters/2 + 1 }

// Tally counts votes (coordinator id -> yes) among voters. A vote from a
// coordinator that is not a voter counts for nothing, and one that did
// not answer (absent from votes) for neither side.
func Tally(voters []int, votes map[int]bool) VoteResult {
	yes, no := 0, 0
	for _, id := range voters {
		v, ok := votes[id]
		switch {
		case !ok:
		case v:
			yes++
		default:
			no++
		}
	}
	q := Majority(len(voters))
	switch {
	case yes >= q:
		return VoteWon
	case no > len(voters)-q:
		return VoteLost
	}
	return VotePending
}

// Yes counts the voters that voted yes.
func Yes(voters []int, votes map[int]bool) int {
	n := 0
	for _, id := range voters {
		if votes[id] {
			n++
		}
	}
	return n
}
