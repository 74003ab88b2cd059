package review

// RecordStanding is what ranking and filtering need of a record without
// the record itself: a retrieval weighs and filters its candidates (up to
// a hundred) by these and decodes in full only the ones it returns.
type RecordStanding struct {
	Status     Status
	Category   Category
	Priority   int
	Confidence float64
	Suspect    bool
}

// StandingOf is r's standing.
func StandingOf(r *Record) RecordStanding {
	return RecordStanding{Status: r.Status, Category: r.Category, Priority: r.Priority, Confidence: r.Confidence, Suspect: r.Suspect}
}
