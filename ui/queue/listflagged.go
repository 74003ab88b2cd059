package queue

import (
	"fmt"
	"strings"

	"github.com/memreview/memreview/review"
)

// The poisoning screen in the queue list: a ⚑ after a flagged row's mark
// box (in the lead, so it shows at any width), its kinds ahead of the
// lemma, F to show only flagged rows, and a bulk accept (a) that leaves
// the flagged ones out, naming them: each is accepted on its own, after
// its y/n (flagask.go).

// leadWidth is the cells of a row's lead: cursor, mark box, flag, gap.
const leadWidth = 6

// listFlag is what the screen found in a row's proposal.
type listFlag struct {
	kinds  string // "instruction, secret"; "" when not flagged
	blocks bool   // the findings are in text accepting would write
}

func rowFlag(p *review.Proposal) listFlag {
	fs := findings(p)
	if len(fs) == 0 {
		return listFlag{}
	}
	return listFlag{kinds: strings.Join(findingKinds(fs), ", "), blocks: len(p.RecordFindings()) > 0}
}

// mark is the flag cell of the row's lead.
func (f listFlag) mark() string {
	if f.kinds == "" {
		return " "
	}
	return "⚑"
}

// flaggedLeftOut is the bulk question's note on the marked proposals a
// bulk accept leaves out.
func flaggedLeftOut(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf(" %d flagged by the screen, left out (accept each on its own): %s.", len(ids), strings.Join(ids, ", "))
}
