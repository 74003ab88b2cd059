package hygiene

import (
	"context"
	"fmt"
	"strings"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/review"
)

// Member is one record of a duplicate cluster as a lemma writer sees it:
// the record and how the tasks that retrieved it ended.
type Member struct {
	Record review.Record
	Worth  review.Worth
}

// LemmaWriter writes the combined lemma of a merge.
type LemmaWriter interface {
	CombinedLemma(ctx context.Context, members []Member) (string, error)
}

func (b *builder) candidates(recs []*review.Record) []Member {
	out := make([]Member, len(recs))
	for i, r := range recs {
		out[i] = Member{Record: *r, Worth: b.worth[r.ID]}
	}
	return out
}

// ModelLemmas is a LemmaWriter over a curator model (curator.LLM, set up
// from memreview.toml [curator] and the environment as curate is).
type ModelLemmas struct{ LLM curator.LLM }

const lemmaSystem = `You merge near-duplicate memory records of an LLM agent into one. Write the merged record's lemma: one or two sentences that keep every fact, name, number and unit the members state, and invent nothing. When members disagree in emphasis, prefer the advice of records retrieved by tasks that passed over those retrieved by tasks that failed, and proven recovery (what fixed a failure) over speculative prevention. Answer with the lemma only.`

// CombinedLemma asks the model for the merged lemma.
func (m ModelLemmas) CombinedLemma(ctx context.Context, members []Member) (string, error) {
	var sb strings.Builder
	for _, mb := range members {
		r := mb.Record
		fmt.Fprintf(&sb, "[%s] category %s; %s\nlemma: %s\n", r.ID, r.Category, mb.Worth.String(), r.Lemma)
		if r.Trigger != "" {
			fmt.Fprintf(&sb, "trigger: %s\n", r.Trigger)
		}
		for _, s := range r.Steps {
			fmt.Fprintf(&sb, "step: %s\n", s)
		}
		sb.WriteString("\n")
	}
	out, err := m.LLM.Complete(ctx, lemmaSystem, sb.String(), "writing a merged lemma")
	if err != nil {
		return "", err
	}
	out = strings.Join(strings.Fields(strings.Trim(out, "\"`")), " ")
	if out == "" {
		return "", fmt.Errorf("the curator model answered with an empty lemma")
	}
	return out, nil
}
