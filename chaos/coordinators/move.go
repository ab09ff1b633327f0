package coordinators

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ruvio/ruvio/nemesis"
	"github.com/ruvio/ruvio/reports/history"
	"github.com/ruvio/ruvio/ruvio/infotext"
)

// Slot moves as the harness's operator carries them out: COORDINATOR
// MOVE or REBALANCE sent to the leader, then COORDINATOR STATUS polled
// every movePoll until the move (each of the rebalance's moves, and the
// rebalance) ended, each recorded in the history when it ends.

const (
	// movePoll is how often a followed move's STATUS is read: the
	// recorded end of a move is at most this late.
	movePoll = 20 * time.Millisecond
	// moveLimit bounds how long a move, or a whole rebalance, is
	// followed; one still running then is recorded as undecided.
	moveLimit = 30 * time.Second
)

// moveStatus is the move and rebalance fields of one COORDINATOR STATUS.
type moveStatus struct {
	leader                        bool
	id, state, rng, starts, error string
	rebalance, rebalanceMoves     string
	rebalanceError                string
}

func parseMoveStatus(text string) moveStatus {
	f := infotext.Parse(text)
	return moveStatus{leader: f["state"] == "leader", id: f["move_id"], state: f["move"], rng: f["move_range"],
		starts: f["move_starts"], error: f["move_error"], rebalance: f["rebalance"],
		rebalanceMoves: f["rebalance_moves"], rebalanceError: f["rebalance_error"]}
}

// ended says a move in state has ended ("" or "none": no move yet).
func ended(state string) bool {
	return state == "committed" || state == "cancelled" || state == "failed"
}

// detail is an ObsMove's Detail: the range first, then how it ended.
func (m moveStatus) detail() string {
	s := fmt.Sprintf("%s: %s, move_starts %s", m.rng, m.state, m.starts)
	if m.error != "" {
		s += ", move_error " + m.error
	}
	return s
}

// observer is the recorder the watch writes to (nil before Watch).
func (s *Set) observer() history.Observer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec
}

// actMove sends a Move or Rebalance step's command to the leader and
// follows what it started in the background. A refusal is a finding of
// the run: it is the note, and an ObsMove that failed.
func (s *Set) actMove(ctx context.Context, st nemesis.Step) (string, error) {
	rec := s.observer()
	if rec == nil {
		return "", errors.New("coordinators: a move is recorded by the watch, which has not started")
	}
	args := []any{"COORDINATOR", "REBALANCE"}
	if st.Kind == nemesis.Move {
		args = []any{"COORDINATOR", "MOVE"}
		for _, w := range strings.Fields(st.Target) {
			args = append(args, w)
		}
	}
	sent := rec.SinceStartMs()
	var last string
	for attempt := 0; attempt < 10; attempt++ {
		leader, err := s.Resolve(ctx, nemesis.Leader)
		if err != nil {
			return "", err
		}
		answer, err := s.force[leader].Do(ctx, args...).Result()
		if err == nil {
			s.moving.Add(1)
			go func() {
				defer s.moving.Done()
				s.follow(context.WithoutCancel(ctx), rec, st.Kind, fmt.Sprint(answer), sent)
			}()
			if st.Kind == nemesis.Move {
				return fmt.Sprintf("sent to the leader %s: move %v; followed in COORDINATOR STATUS every %s", leader, answer, movePoll), nil
			}
			return fmt.Sprintf("sent to the leader %s: %v moves planned; followed in COORDINATOR STATUS every %s", leader, answer, movePoll), nil
		}
		last = fmt.Sprintf("sent to %s: %v", leader, err)
		if !strings.Contains(err.Error(), "not the leader") {
			break
		}
	}
	s.log.Warn("slot move refused", "kind", st.Kind, "detail", last)
	kind := history.ObsMove
	if st.Kind == nemesis.Rebalance {
		kind = history.ObsRebalance
	}
	now := rec.SinceStartMs()
	rec.Observe(history.Observation{Kind: kind, Type: history.Fail, StartMs: sent, EndMs: now, Detail: "refused: " + last})
	return "refused: " + last, nil
}

// leaderStatus is the move fields of the coordinator that says it leads
// (ok false when none answered so).
func (s *Set) leaderStatus(ctx context.Context) (moveStatus, bool) {
	for _, name := range s.names {
		text, err := s.clients[name].Do(ctx, "COORDINATOR", "STATUS").Text()
		if err != nil {
			continue
		}
		if m := parseMoveStatus(text); m.leader {
			return m, true
		}
	}
	return moveStatus{}, false
}

// follow polls the leader's STATUS until the move id (kind Move) or the
// rebalance (kind Rebalance, id the moves it planned) ended, and records
// each move as it ends and the rebalance at its end.
func (s *Set) follow(ctx context.Context, rec history.Observer, kind, id string, sent int64) {
	deadline := time.Now().Add(moveLimit)
	t := time.NewTicker(movePoll)
	defer t.Stop()
	// Rebalance: the moves recorded, and since when the one in flight
	// runs (the end of the one before, as far as the polls tell).
	done := map[string]bool{}
	since := sent
	var lastSeen moveStatus
	for {
		m, ok := s.leaderStatus(ctx)
		now := rec.SinceStartMs()
		if ok {
			switch kind {
			case nemesis.Move:
				if m.id == id && ended(m.state) {
					rec.Observe(history.Observation{Kind: history.ObsMove, Type: moveType(m.state), StartMs: sent, EndMs: now, Detail: m.detail()})
					return
				}
				lastSeen = m
			case nemesis.Rebalance:
				if m.id != "" && ended(m.state) && !done[m.id] && m.rebalance != "" {
					done[m.id] = true
					rec.Observe(history.Observation{Kind: history.ObsMove, Type: moveType(m.state), StartMs: since, EndMs: now, Detail: m.detail()})
					since = now
				}
				lastSeen = m
				if id == "0" || m.rebalance != "" && m.rebalance != "running" {
					d := fmt.Sprintf("%s, rebalance_moves %s of %s planned", m.rebalance, m.rebalanceMoves, id)
					if m.rebalanceError != "" {
						d += ", rebalance_error " + m.rebalanceError
					}
					typ := history.OK
					if m.rebalance != "done" && id != "0" {
						typ = history.Fail
					}
					rec.Observe(history.Observation{Kind: history.ObsRebalance, Type: typ, StartMs: sent, EndMs: now, Detail: d})
					return
				}
			}
		}
		if time.Now().After(deadline) {
			obs := history.ObsMove
			if kind == nemesis.Rebalance {
				obs = history.ObsRebalance
			}
			rec.Observe(history.Observation{Kind: obs, Type: history.Info, StartMs: sent, EndMs: now,
				Detail: fmt.Sprintf("%s: still %s after %s", lastSeen.rng, orNone(lastSeen.state, "unknown"), moveLimit)})
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-s.closed:
			return
		case <-t.C:
		}
	}
}

func moveType(state string) string {
	if state == "committed" {
		return history.OK
	}
	return history.Fail
}

// waitMoves waits until the moves the Set follows have ended and been
// recorded, or ctx ends.
func (s *Set) waitMoves(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.moving.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
