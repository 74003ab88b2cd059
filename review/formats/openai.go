package formats

// OpenAI chat format (tau-bench's result files and memreview's own
// trajectory lines): read by ReadTrajectoriesAt.

import (
	"bytes"
	"errors"

	"github.com/memreview/memreview/review"
)

func init() {
	register(&Format{Name: "openai", Kind: Trajectories,
		About: "OpenAI chat messages: one run as an array, runs as objects with messages/traj (tau-bench), one per line, or memreview's own trajectory lines",
		fits:  fitsOpenAI, trajectories: readOpenAI})
}

var openaiKeys = []string{"messages", "traj", "trajectory", "history", "steps"}

func fitsOpenAI(in *Input) error {
	sh := in.getShape()
	switch sh.kind {
	case "array", "lines", "object":
		if sh.keys["role"] && sh.kind != "object" {
			return nil
		}
		for _, k := range openaiKeys {
			if sh.keys[k] {
				return nil
			}
		}
		return errors.New("no chat messages (no \"role\" in the first element, no messages/traj/steps list)")
	}
	return errors.New("not a JSON array, object or JSON Lines")
}

func readOpenAI(in *Input, rep *Report) ([]review.Trajectory, error) {
	ts, places, err := ReadTrajectoriesAt(bytes.NewReader(in.data()), in.File)
	if err != nil {
		return nil, err
	}
	rep.Places = places
	for i := range ts {
		// A run that states no outcome (reward, score, success or outcome)
		// has none: not a failure.
		// (An outcome's kind is checked as each run is read.)
		if i < len(places) && !places[i].Outcome {
			ts[i].Outcome.Kind = review.OutcomeUnknown
		}
		for _, s := range ts[i].Steps {
			for _, c := range s.ToolCalls {
				if c.Result != "" {
					rep.Linked++
				}
			}
		}
	}
	return ts, nil
}
