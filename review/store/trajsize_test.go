package store

import (
	"errors"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
)

// A run over review.MaxTrajectoryBytes as JSON is refused by the store
// whoever writes it (an import, trajectory_submit, the curator), and
// nothing is stored.
func TestTrajectoryOverTheCapIsRefused(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	big := review.Trajectory{ID: "huge", Steps: []review.Step{{Role: "tool", Content: strings.Repeat("x", review.MaxTrajectoryBytes)}}}
	for name, put := range map[string]func([]review.Trajectory) error{"PutTrajectories": s.PutTrajectories, "AddTrajectories": s.AddTrajectories} {
		err := put([]review.Trajectory{{ID: "small", Steps: []review.Step{{Role: "user"}}}, big})
		if err == nil || !strings.Contains(err.Error(), "over the 64 MiB a trajectory may hold") {
			t.Fatalf("%s of a %d MiB run: %v", name, review.MaxTrajectoryBytes>>20, err)
		}
		for _, id := range []string{"huge", "small"} {
			if _, err := s.Trajectory(id); !errors.Is(err, review.ErrNotFound) {
				t.Fatalf("%s refused, yet %s is stored (%v)", name, id, err)
			}
		}
	}
}
