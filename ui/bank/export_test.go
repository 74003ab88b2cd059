package bank

import "github.com/memreview/memreview/review"

// What the flows in package bank_test use of the screen's insides: they
// drive the real program (ui.New), and ui imports this package.

// SortFor is the order the screen asks of the index for query.
var SortFor = sortFor

// SampleWorth and Extreme are sampleWorth and extreme (worth_test.go).
var (
	SampleWorth = sampleWorth
	Extreme     = extreme
)

// RowStart is how the list's row of r begins when every one of recs is
// on the screen: id, then the category and env columns as wide as the
// widest of recs, then the suspect mark.
func RowStart(r review.Record, recs []review.Record) string {
	var cols columns
	for _, r := range recs {
		cols.category = max(cols.category, len(r.Category))
		cols.env = max(cols.env, len(orDash(r.Scope.Env)))
	}
	row := r.ID + " " + pad(string(r.Category), cols.category) + " " + pad(orDash(r.Scope.Env), cols.env) + " "
	if r.Suspect {
		row += "suspect "
	}
	return row
}
