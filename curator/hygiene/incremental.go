package hygiene

// The incremental run: only the records changed since the last run,
// compared against the bank through the index. Its input is the changed
// records and, for each, its neighbours (the records the index ranks
// best for its rarest terms in its scope, and for its identifiers when it
// makes a claim: NeighbourTerms; the candidates a near-duplicate or a
// contradiction of it is found among); Run keeps only the findings that
// name a changed record. A finding between two records neither of which
// changed was found by an earlier run (or by the full run, which stays
// available), so nothing a full run would find about a changed record is
// lost unless the index does not rank the other record among its
// neighbours. Stale and unused findings name their one record: the
// incremental run makes them only of changed records.

import (
	"errors"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
)

// NeighbourTerms are what an index search for r's neighbours asks for:
// words, the terms its similarity compares (a near duplicate shares some
// of the rarest of them: prefix filtering, similar.go), and subject, the
// terms of its identifiers when it makes a claim (a record it contradicts
// names them too: contradictions), nil otherwise.
func NeighbourTerms(r *review.Record) (words, subject []string) {
	words, _ = recordTerms(r)
	if ids := identifiers(r.Lemma); len(ids) > 0 && len(claimsOf(r.Lemma)) > 0 {
		subject = index.Terms(strings.Join(ids, " "))
	}
	return words, subject
}

// Neighbours returns, for each of rs in order, the ids of the records
// that may duplicate or contradict it (an index search of its words in
// its scope). It is asked once, for all the changed records, so that it
// may search for several at a time.
type Neighbours func(rs []*review.Record) ([][]string, error)

// readHalves is the most records recordsByID reads in one go.
const readHalves = 2000

// LoadChanged reads an incremental run's input: the active records among
// changed (of env, when set) and their neighbours, the last verify
// results of those that carry checks, the trajectories, the open
// proposals and hygiene's rejected ones; and the Focus for Options (the
// changed records read). The records come first the changed ones (by
// id), then the neighbours in the order near gives them, each once.
func LoadChanged(s Store, changed []string, near Neighbours, env string) (Input, map[string]bool, error) {
	in := Input{Checks: map[string][]review.CheckResult{}, Now: s.Now()}
	focus := map[string]bool{}
	loaded := map[string]bool{}
	// add reads the records of ids not read before and keeps the active
	// ones of env, in ids's order.
	add := func(ids []string) error {
		var todo []string
		for _, id := range ids {
			if !loaded[id] {
				loaded[id] = true
				todo = append(todo, id)
			}
		}
		got, err := recordsByID(s, todo)
		if err != nil {
			return err
		}
		in.Records = slices.Grow(in.Records, len(got)) // grown once, not record by record
		for _, id := range todo {
			if r := got[id]; r != nil && r.Status == review.Active && (env == "" || r.Scope.Env == env) {
				in.Records = append(in.Records, *r)
			}
		}
		return nil
	}
	ids := append([]string(nil), changed...)
	sort.Strings(ids)
	if err := add(ids); err != nil {
		return in, nil, err
	}
	rs := make([]*review.Record, len(in.Records))
	for i := range in.Records {
		focus[in.Records[i].ID] = true
		rs[i] = &in.Records[i]
	}
	lists, err := near(rs)
	if err != nil {
		return in, nil, err
	}
	var ns []string
	for _, l := range lists {
		ns = append(ns, l...)
	}
	if err := add(ns); err != nil {
		return in, nil, err
	}
	for _, r := range in.Records {
		if len(r.Checks) == 0 {
			continue
		}
		cs, err := s.CheckResults(r.ID)
		if err != nil {
			return in, nil, err
		}
		if len(cs) > 0 {
			in.Checks[r.ID] = cs
		}
	}
	if in.Trajectories, err = s.Trajectories(); err != nil {
		return in, nil, err
	}
	if in.Open, err = s.Queue(); err != nil {
		return in, nil, err
	}
	all, err := s.Proposals()
	for _, p := range all {
		if p.Source == Source && p.Status == review.Rejected {
			in.Rejected = append(in.Rejected, p)
		}
	}
	return in, focus, err
}

// recordsByID are the records of ids that s holds, in two halves read at
// once above readHalves (the decoding is most of it). The ids are asked
// for in order: each query's rows then lie near each other in the
// bank's id index (fewer pages read; the answer is a map).
func recordsByID(s Store, ids []string) (map[string]*review.Record, error) {
	ids = slices.Sorted(slices.Values(ids))
	if len(ids) < readHalves {
		return s.RecordsByID(ids)
	}
	var other map[string]*review.Record
	var otherErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		other, otherErr = s.RecordsByID(ids[len(ids)/2:])
	}()
	out, err := s.RecordsByID(ids[:len(ids)/2])
	<-done
	if err = errors.Join(err, otherErr); err != nil {
		return nil, err
	}
	maps.Copy(out, other)
	return out, nil
}

// inFocus reports whether a finding about ids is one this run makes:
// every finding in a full run, those naming a focus record in an
// incremental one.
func (b *builder) inFocus(ids []string) bool {
	if b.opt.Focus == nil {
		return true
	}
	for _, id := range ids {
		if b.opt.Focus[id] {
			return true
		}
	}
	return false
}

// ids are the record ids of members (indexes into b.recs).
func (b *builder) ids(members []int) []string {
	out := make([]string, len(members))
	for i, m := range members {
		out[i] = b.recs[m].ID
	}
	return out
}
