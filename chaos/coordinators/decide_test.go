package coordinators

import (
	"errors"
	"reflect"
	"testing"
)

func TestDecide(t *testing.T) {
	nodeOf := func(addr string) string {
		return map[string]string{"a1:1": "n1", "a2:1": "n2"}[addr]
	}
	down := errors.New("connection refused")
	tests := []struct {
		name    string
		answers []Answer
		want    View
	}{
		{
			name: "all agree",
			answers: []Answer{
				{Coordinator: "c1", Addr: "a1:1", Epoch: 1, Leader: true, Term: 2},
				{Coordinator: "c2", Addr: "a1:1", Epoch: 1, Term: 2},
				{Coordinator: "c3", Addr: "a1:1", Epoch: 1, Term: 2},
			},
			want: View{Primary: "n1", Addr: "a1:1", Epoch: 1, Leader: "c1", Agree: []string{"c1", "c2", "c3"}},
		},
		{
			name: "a coordinator cut off from the others still answers the old record: the highest epoch wins",
			answers: []Answer{
				{Coordinator: "c1", Addr: "a1:1", Epoch: 1, Leader: true, Term: 2},
				{Coordinator: "c2", Addr: "a2:1", Epoch: 2, Leader: true, Term: 3},
				{Coordinator: "c3", Addr: "a2:1", Epoch: 2, Term: 3},
			},
			want: View{Primary: "n2", Addr: "a2:1", Epoch: 2, Leader: "c2", Agree: []string{"c2", "c3"},
				Others: []string{"c1: epoch 1 n1"}},
		},
		{
			name: "no answer, no primary yet, an unknown address",
			answers: []Answer{
				{Coordinator: "c1", Err: down},
				{Coordinator: "c2"},
				{Coordinator: "c3", Addr: "zz:1", Epoch: 4},
			},
			want: View{Addr: "zz:1", Epoch: 4, Agree: []string{"c3"},
				Others: []string{"c1: connection refused", "c2: epoch 0 no primary"}},
		},
		{
			name:    "nobody answers",
			answers: []Answer{{Coordinator: "c1", Err: down}},
			want:    View{Others: []string{"c1: connection refused"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Decide(tc.answers, nodeOf); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
