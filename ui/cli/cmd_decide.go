package cli

import (
	"flag"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

func decideCommand() *command {
	var note, tags, trigger, lemma string
	var ack bool
	return &command{name: "decide", args: "PROPOSAL_ID accept|narrow|edit|reject|delete|defer",
		summary: "Decide a proposal; narrow and edit take the changed fields from the flags.",
		json:    true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&note, "note", "", "why (kept in the audit entry)")
			fs.StringVar(&tags, "scope-tags", "", "narrow/edit: new scope tags, comma-separated")
			fs.StringVar(&trigger, "trigger", "", "narrow/edit: new trigger")
			fs.StringVar(&lemma, "lemma", "", "narrow/edit: new lemma")
			fs.BoolVar(&ack, "ack-findings", false, "accept a proposal the poisoning screen flagged: you read its findings ('queue --flagged')")
		},
		run: func(c *call, args []string) error {
			if err := needArgs("decide", args, 2, "PROPOSAL_ID and a verb"); err != nil {
				return err
			}
			verb := review.Verb(args[1])
			switch verb {
			case review.Accept, review.Narrow, review.Edit, review.Reject, review.Delete, review.Defer:
			default:
				return usagef("decide: %q is not accept, narrow, edit, reject, delete or defer", verb)
			}
			edits := verb == review.Narrow || verb == review.Edit
			if edits && tags == "" && trigger == "" && lemma == "" {
				return usagef("decide %s: give the changed fields with --scope-tags, --trigger or --lemma", verb)
			}
			return c.decide(func(s *app.Service) (*review.Decision, error) {
				req := review.DecideRequest{Proposal: args[0], Verb: verb, Operator: c.operator, Note: note, AckFindings: ack}
				if edits {
					rec, err := proposedRecord(s, req.Proposal, verb)
					if err != nil {
						return nil, err
					}
					if tags != "" {
						rec.Scope.Tags = splitList(tags)
					}
					if trigger != "" {
						rec.Trigger = trigger
					}
					if lemma != "" {
						rec.Lemma = lemma
					}
					req.Record = &rec
				}
				return s.Decide(c.ctx, req)
			})
		}}
}
