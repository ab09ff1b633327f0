package rules

import "testing"

func TestTally(t *testing.T) {
	cases := []struct {
		name   string
		voters []int
		votes  map[int]bool
		want   VoteResult
	}{
		{"one voter says yes", []int{1}, map[int]bool{1: true}, VoteWon},
		{"one voter says no", []int{1}, map[int]bool{1: false}, VoteLost},
		{"nobody answered", []int{1, 2, 3}, nil, VotePending},
		{"two of three yes", []int{1, 2, 3}, map[int]bool{1: true, 3: true}, VoteWon},
		{"one yes, others silent", []int{1, 2, 3}, map[int]bool{1: true}, VotePending},
		{"one yes, one no, one silent", []int{1, 2, 3}, map[int]bool{1: true, 2: false}, VotePending},
		{"two no of three", []int{1, 2, 3}, map[int]bool{1: true, 2: false, 3: false}, VoteLost},
		{"a non-voter's yes counts for nothing", []int{1, 2, 3}, map[int]bool{1: true, 9: true}, VotePending},
		{"two of four is not a majority", []int{1, 2, 3, 4}, map[int]bool{1: true, 2: true, 3: false, 4: false}, VoteLost},
		{"three of four is", []int{1, 2, 3, 4}, map[int]bool{1: true, 2: true, 3: true}, VoteWon},
		{"three of five", []int{1, 2, 3, 4, 5}, map[int]bool{2: true, 4: true, 5: true, 1: false}, VoteWon},
	}
	for _, c := range cases {
		if got := Tally(c.voters, c.votes); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestMajority(t *testing.T) {
	for voters, want := range map[int]int{1: 1, 2: 2, 3: 2, 4: 3, 5: 3} {
		if got := Majority(voters); got != want {
			t.Errorf("Majority(%d) = %d, want %d", voters, got, want)
		}
	}
}
