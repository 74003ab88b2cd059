package app

// The incremental hygiene run: the service decides. A folder bank keeps
// in HygieneMarkFile the change sequence a completed hygiene run (not a
// dry run) started at; the next run asked for Incremental compares only
// the records changed since then (the bank's change log) against their
// neighbours in the index (curator/hygiene/incremental.go). Without a
// mark (the first run, a team bank, a mark that cannot be read) or with
// more than MaxIncremental changed records, the run is a full one.

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memreview/memreview/curator/hygiene"
	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
)

// HygieneMarkFile is the file, in a folder bank, that holds the change
// sequence of the last completed hygiene run.
const HygieneMarkFile = "hygiene.seq"

// MaxIncremental is the most changed records an incremental run compares;
// with more, a full run is cheaper.
const MaxIncremental = 50_000

// defaultNeighbours is how many records the index gives as each changed
// record's neighbours: the best of those sharing its rarest words
// (near-duplicate candidates), and as many sharing its identifiers
// (contradiction candidates).
const defaultNeighbours = 30

// defaultRareTerms is how many of a changed record's rarest terms its
// neighbour search asks for: at most what max-score takes
// (plan.MaxScore).
const defaultRareTerms = 10

// subjectThreshold is the share of a claim's identifier terms' weight
// that its contradiction candidates are found by (the rarest terms
// holding the rest, SharedTermsRequest.Threshold): a record that
// contradicts it names the same identifiers.
const subjectThreshold = 0.5

// withDefaults fills ns's zero fields.
func (ns NeighbourSearch) withDefaults() NeighbourSearch {
	if ns.By == "" {
		ns.By = NeighboursSharedTermsBound
	}
	if ns.K <= 0 {
		ns.K = defaultNeighbours
	}
	if ns.RareTerms <= 0 {
		ns.RareTerms = defaultRareTerms
	}
	return ns
}

// neighbourStrategies are the searches of the index this process owns,
// by name; NeighboursAnyWord is the service's search.
var neighbourStrategies = map[NeighbourStrategy]func(*index.Index, *review.Record, NeighbourSearch) ([]string, error){
	NeighboursSharedTermsBound: func(own *index.Index, r *review.Record, ns NeighbourSearch) ([]string, error) {
		return sharedNeighbours(own, r, ns, true)
	},
	NeighboursSharedTerms: func(own *index.Index, r *review.Record, ns NeighbourSearch) ([]string, error) {
		return sharedNeighbours(own, r, ns, false)
	},
	NeighboursRareTerms: rareNeighbours,
}

// hygieneInput reads a run's input: incremental when opt asks and the
// bank allows (focus set), else the whole bank; seq is the change
// sequence to mark once the run completes.
func (s *Service) hygieneInput(opt HygieneOptions) (in hygiene.Input, focus map[string]bool, seq int64, err error) {
	if seq, err = s.b.LastSeq(); err != nil {
		return in, nil, 0, err
	}
	if opt.Incremental {
		if since, ok := s.hygieneMark(); ok {
			changed, err := s.changedRecords(since)
			if err != nil {
				return in, nil, 0, err
			}
			if len(changed) <= MaxIncremental {
				in, focus, err = hygiene.LoadChanged(s.b, changed, func(rs []*review.Record) ([][]string, error) {
					return s.hygieneNeighbours(rs, opt.Neighbours.withDefaults())
				}, opt.Env)
				return in, focus, seq, err
			}
		}
	}
	in, err = hygiene.Load(s.b, opt.Env)
	return in, nil, seq, err
}

// changedRecords are the ids of the records changed after seq.
func (s *Service) changedRecords(seq int64) ([]string, error) {
	cs, err := s.b.ChangesSince(seq)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var ids []string
	for _, c := range cs {
		if c.Kind == "record" && !seen[c.ID] {
			seen[c.ID] = true
			ids = append(ids, c.ID)
		}
	}
	return ids, nil
}

// hygieneNeighbours are the neighbours of each of rs: through the index
// this process owns, by ns.By (neighbourStrategies: the active records of
// its env and category sharing most of its terms, and those of its env
// sharing most of its identifiers' terms); where this process cannot own
// the index, or with NeighboursAnyWord, an any-word search of its lemma
// and trigger. The searches run on every CPU, each record's neighbours in
// its place, so the answer does not depend on their order.
func (s *Service) hygieneNeighbours(rs []*review.Record, ns NeighbourSearch) ([][]string, error) {
	search, known := neighbourStrategies[ns.By]
	if !known && ns.By != NeighboursAnyWord {
		return nil, fmt.Errorf("hygiene: no neighbour search %q (%s or any-word)", ns.By, strategyNames())
	}
	ix, err := s.index()
	if err != nil {
		return nil, err
	}
	one := func(r *review.Record) ([]string, error) { return s.anyWordNeighbours(r, ns) }
	if h, ok := ix.(interface {
		Hold(time.Duration) (*index.Index, error)
	}); ok && known {
		if own, err := h.Hold(0); err == nil {
			one = func(r *review.Record) ([]string, error) { return search(own, r, ns) }
		}
	}
	out := make([][]string, len(rs))
	errs := make([]error, len(rs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(rs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(rs); i = int(next.Add(1) - 1) {
				out[i], errs[i] = one(rs[i])
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // the first record's, as one search after another would
		}
	}
	return out, nil
}

// strategyNames are neighbourStrategies' names, sorted.
func strategyNames() string {
	var names []string
	for by := range neighbourStrategies {
		names = append(names, string(by))
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// anyWordNeighbours are r's neighbours by the service's search: an
// any-word search of its lemma and trigger.
func (s *Service) anyWordNeighbours(r *review.Record, ns NeighbourSearch) ([]string, error) {
	words := index.LiteralWords(r.Lemma + " " + r.Trigger)
	if strings.TrimSpace(words) == "" {
		return nil, nil
	}
	res, err := s.search(index.Request{Query: words, Type: "record", Size: ns.K + 1,
		Filters: map[string][]string{"status": {string(review.Active)}}})
	if err != nil {
		return nil, fmt.Errorf("hygiene: the neighbours of %s: %w", r.ID, err)
	}
	var out []string
	for _, h := range res.Hits {
		if h.ID != r.ID {
			out = append(out, h.ID)
		}
	}
	return out, nil
}

// sharedNeighbours are r's neighbours in own by shared weight
// (index.SharedTerms, bounded or not): the duplicate candidates by
// hygiene's threshold, the contradiction candidates by subjectThreshold.
func sharedNeighbours(own *index.Index, r *review.Record, ns NeighbourSearch, bound bool) ([]string, error) {
	return neighboursOf(r, func(terms []string, subject bool, env, category string) ([]string, error) {
		threshold := hygiene.DuplicateThreshold
		if subject {
			threshold = subjectThreshold
		}
		ids, _, err := own.SharedTerms(index.SharedTermsRequest{Terms: terms, Threshold: threshold, K: ns.K + 1, Env: env, Category: category, Bound: bound})
		return ids, err
	})
}

// rareNeighbours are r's neighbours in own by BM25 over its rarest terms
// (index.RareTerms, max-score).
func rareNeighbours(own *index.Index, r *review.Record, ns NeighbourSearch) ([]string, error) {
	return neighboursOf(r, func(terms []string, _ bool, env, category string) ([]string, error) {
		ids, _, err := own.RareTerms(index.RareTermsRequest{Terms: terms, MaxTerms: ns.RareTerms, K: ns.K + 1, Env: env, Category: category})
		return ids, err
	})
}

// neighboursOf runs search for r's similarity terms in its env and
// category and, when it makes a claim, for its identifiers' terms in its
// env (subject: the contradiction candidates), and returns the records
// found other than r, each once.
func neighboursOf(r *review.Record, search func(terms []string, subject bool, env, category string) ([]string, error)) ([]string, error) {
	words, subject := hygiene.NeighbourTerms(r)
	found, err := search(words, false, r.Scope.Env, string(r.Category))
	if err == nil && len(subject) > 0 {
		var more []string
		more, err = search(subject, true, r.Scope.Env, "")
		found = append(found, more...)
	}
	if err != nil {
		return nil, fmt.Errorf("hygiene: the neighbours of %s: %w", r.ID, err)
	}
	var out []string
	for _, id := range found {
		if id != r.ID && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// hygieneMark is the sequence of the last completed run, if this bank
// keeps one.
func (s *Service) hygieneMark() (int64, bool) {
	if s.info.Dir == "" {
		return 0, false
	}
	b, err := os.ReadFile(filepath.Join(s.info.Dir, HygieneMarkFile))
	if err != nil {
		return 0, false
	}
	seq, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return seq, err == nil && seq >= 0
}

// markHygiene keeps seq as the last completed run's (written to a
// temporary file and renamed, so a kill leaves the old mark or the new).
func (s *Service) markHygiene(seq int64) error {
	if s.info.Dir == "" {
		return nil
	}
	path := filepath.Join(s.info.Dir, HygieneMarkFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.FormatInt(seq, 10)+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
