package cli

import (
	"flag"
	"fmt"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

func mergeCommand() *command {
	var with, lemma, note string
	return &command{name: "merge", args: "--with ID,ID PROPOSAL_ID",
		summary: "Fold a proposal's record and the given records into one; the sources are retired and point at it.",
		json:    true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&with, "with", "", "record ids to fold in, comma-separated")
			fs.StringVar(&lemma, "lemma", "", "the merged record's lemma (default: every lemma's sentences, the proposal's first)")
			fs.StringVar(&note, "note", "", "why")
		},
		run: func(c *call, args []string) error {
			if err := needArgs("merge", args, 1, "PROPOSAL_ID"); err != nil {
				return err
			}
			return c.decide(func(s *app.Service) (*review.Decision, error) {
				req := review.DecideRequest{Proposal: args[0], Verb: review.Merge, With: splitList(with), Operator: c.operator, Note: note}
				if lemma == "" && len(req.With) == 0 {
					return s.Decide(c.ctx, req) // nothing chosen to fold in: the proposal's record
				}
				rec, err := proposedRecord(s, req.Proposal, review.Merge)
				if err != nil {
					return nil, err
				}
				if len(req.With) > 0 {
					// No source's content is dropped: the merged record is the
					// candidate combined with every record folded in, as read now
					// (one changed before the commit is a conflict).
					var recs []review.Record
					req.Seen = map[string]int{}
					for _, id := range req.With {
						r, err := s.Record(id)
						if err != nil {
							return nil, fmt.Errorf("merge %s: --with %s: %w", req.Proposal, id, err)
						}
						recs = append(recs, *r)
						req.Seen[id] = r.Version
					}
					rec = review.Combine(rec, recs...)
				}
				if lemma != "" {
					rec.Lemma = lemma
				}
				req.Record = &rec
				return s.Decide(c.ctx, req)
			})
		}}
}
