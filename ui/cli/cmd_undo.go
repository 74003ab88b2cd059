package cli

import (
	"flag"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

func undoCommand() *command {
	var note string
	return &command{name: "undo", args: "[DECISION_ID]",
		summary: "Undo a decision, by default the last one not yet undone.",
		json:    true,
		flags:   func(fs *flag.FlagSet) { fs.StringVar(&note, "note", "", "why") },
		run: func(c *call, args []string) error {
			id := ""
			if len(args) > 0 {
				id = args[0]
			}
			return c.decide(func(s *app.Service) (*review.Decision, error) {
				return s.Undo(c.ctx, id, c.operator, note)
			})
		}}
}
