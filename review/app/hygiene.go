package app

import (
	"context"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/curator/hygiene"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/screen"
)

// HygieneOptions say what a hygiene run looks for.
type HygieneOptions struct {
	Env    string      // only this environment ("" = all)
	Only   HygieneKind // "" = every kind
	LLM    bool        // a curator model writes merged lemmas (settings as Curate)
	Model  string      // with LLM: overrides the configured model
	DryRun bool        // find, queue nothing
	// Incremental compares only the records changed since the last
	// completed run against the bank, when the service can
	// (hygiene_incremental.go); the report says which it ran.
	Incremental bool
	// Neighbours tunes an incremental run's neighbour search; the zero
	// value is the default (benchmarks compare the others).
	Neighbours NeighbourSearch
}

// NeighbourSearch is how an incremental hygiene run finds a changed
// record's neighbours in the index.
type NeighbourSearch struct {
	By        NeighbourStrategy // "" : NeighboursSharedTermsBound
	K         int               // records per search (0: 30)
	RareTerms int               // NeighboursRareTerms: the rarest terms searched (0: 10, what max-score takes)
}

// NeighbourStrategy names a way to find a changed record's neighbours
// (hygiene_incremental.go's neighbourStrategies).
type NeighbourStrategy string

const (
	// NeighboursSharedTermsBound: the same records as
	// NeighboursSharedTerms, its candidates taken only until no other
	// record can be among the best (index.SharedTermsRequest.Bound); the
	// default.
	NeighboursSharedTermsBound NeighbourStrategy = "shared-terms-bound"
	// NeighboursSharedTerms: the records sharing the most weight of its
	// terms (index.SharedTerms, the postings as bitmaps), every record
	// holding one of its prefix terms weighed; the default before.
	NeighboursSharedTerms NeighbourStrategy = "shared-terms"
	// NeighboursRareTerms: BM25's best over its rarest terms
	// (index.RareTerms, max-score); the default before.
	NeighboursRareTerms NeighbourStrategy = "rare-terms"
	// NeighboursAnyWord: an any-word search of its lemma and trigger;
	// also where this process cannot own the index.
	NeighboursAnyWord NeighbourStrategy = "any-word"
)

// Hygiene finds near-duplicate, contradicting, stale and unused records
// (and, with Only poisoning, records the poisoning screen flags) and
// queues a proposal (source "hygiene") for each finding not already open,
// all or nothing; the index catches up. The report lists every finding,
// with Open set on those proposed before.
func (s *Service) Hygiene(ctx context.Context, opt HygieneOptions) (*HygieneReport, []review.Proposal, error) {
	cfg, err := s.b.Config()
	if err != nil {
		return nil, nil, err
	}
	// The run holds the records, their terms and the findings at once: at a
	// million records about 1.6 GB live, which GOGC alone lets grow to
	// twice that before the collector runs.
	defer holdMemoryLimit(cfg.Hygiene.MemoryLimit())()
	in, focus, seq, err := s.hygieneInput(opt)
	if err != nil {
		return nil, nil, err
	}
	if opt.Only == "" || opt.Only == hygiene.Duplicates {
		in.Neighbours = s.vectorNeighbours(ctx, in.Records)
	}
	hopt := hygiene.Options{Env: opt.Env, Only: opt.Only, MaxUnusedDays: cfg.Hygiene.UnusedDays(),
		Screen: screen.New(screen.WithKnownHosts(envHosts(cfg.Envs)...)), Focus: focus}
	if opt.LLM {
		set, err := s.CuratorSettings(opt.Model)
		if err != nil {
			return nil, nil, err
		}
		if err := set.Ready(); err != nil {
			return nil, nil, err
		}
		hopt.Lemmas = hygiene.ModelLemmas{LLM: curator.NewLLM(set)}
	}
	rep, err := hygiene.Run(ctx, in, hopt)
	if err != nil || opt.DryRun {
		return rep, nil, err
	}
	saved, err := hygiene.Save(hygieneAdder{s}, rep)
	if err != nil {
		return rep, nil, err
	}
	if opt.Only == "" && opt.Env == "" {
		if err := s.markHygiene(seq); err != nil {
			s.opt.Warnf("hygiene: the run's mark was not kept (the next incremental run is a full one): %v", err)
		}
	}
	if len(saved) > 0 {
		s.afterWrite("hygiene proposals")
	}
	return rep, saved, nil
}

// Worth is what a record is worth: the tasks that retrieved it and how they
// ended, against the bank's tasks over the same period.
func (s *Service) Worth(recordID string) (review.Worth, error) { return s.b.Worth(recordID) }

// The hygiene run's types, as front ends see them through the service.
type (
	// HygieneKind is one kind of hygiene finding.
	HygieneKind = hygiene.Kind
	// HygieneReport is what a hygiene run found.
	HygieneReport = hygiene.Report
)

// ParseHygieneKind reads a kind of finding as the CLI's --only gives it
// ("" = every kind).
func ParseHygieneKind(s string) (HygieneKind, error) { return hygiene.ParseKind(s) }
