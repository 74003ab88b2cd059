package app

import (
	"context"
	"time"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
)

// CuratorDeps is what a curator run over this bank needs: the store, the
// model client for set, memory search through the shared index, and the
// environments for its probes, which run and are described through the
// service's probe runner. An empty set.Operator takes the service's.
func (s *Service) CuratorDeps(set curator.Settings) curator.Deps {
	if set.Operator == "" {
		set.Operator = s.opt.Operator
	}
	return curator.Deps{Store: s.b, LLM: curator.NewLLM(set), Search: recordSearcher{s}, ResolveEnv: s.ResolveEnv,
		Probe: s.runner().Run, Describe: s.DescribeEnv, Screen: s.curatorScreen()}
}

// CuratorSettings are the curator settings of the bank's config, overridden
// by the environment (OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL) and a
// non-empty model, with the service's operator.
func (s *Service) CuratorSettings(model string) (curator.Settings, error) {
	cfg, err := s.b.Config()
	if err != nil {
		return curator.Settings{}, err
	}
	set := curator.SettingsFromEnv(cfg.Curator, model)
	set.Operator = s.opt.Operator
	return set, nil
}

// Curate runs the LLM curator over trajectories; its proposals join the
// queue (unless opt.DryRun) and the index catches up. opt.RunID "" gets
// curator.NewRunID. Settings with no endpoint and no key configured
// (Settings.Ready) fail at once, before any connection.
func (s *Service) Curate(ctx context.Context, set curator.Settings, trajIDs []string, opt curator.Options) (*curator.Run, error) {
	if err := set.Ready(); err != nil {
		return nil, err // before any connection
	}
	run, err := curator.Curate(ctx, s.CuratorDeps(set), trajIDs, opt)
	if err != nil {
		return run, err
	}
	if !opt.DryRun {
		s.afterWrite("curator run " + run.ID)
	}
	return run, nil
}

// Uncurated lists the trajectories no proposal cites yet.
func (s *Service) Uncurated() ([]string, error) {
	ps, err := s.b.Proposals()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, p := range ps {
		seen[p.Trajectory] = true
	}
	ts, err := s.b.Trajectories()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range ts {
		if !seen[t.ID] {
			out = append(out, t.ID)
		}
	}
	return out, nil
}

// recordSearcher is the curator's memory_search: active records only, best
// first; a query the query-string syntax rejects (a model's stray colon or
// quote) is retried as its literal words.
type recordSearcher struct{ s *Service }

func (r recordSearcher) SearchRecords(query string, k int) ([]string, error) {
	req := index.Request{Query: query, Type: "record", Filters: map[string][]string{"status": {string(review.Active)}}, Size: k}
	res, err := r.s.search(req)
	if err != nil {
		req.Query = index.LiteralWords(query)
		if res, err = r.s.search(req); err != nil {
			return nil, err
		}
	}
	ids := make([]string, 0, len(res.Hits))
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	return ids, nil
}

// The curator's types, as front ends see them through the service.
type (
	// CuratorSettings are a curator run's endpoint, model and limits.
	CuratorSettings = curator.Settings
	// CuratorOptions tune one curator run.
	CuratorOptions = curator.Options
	// CuratorRun is what a curator run did.
	CuratorRun = curator.Run
	// CuratorEvent is one live step of a curator run.
	CuratorEvent = curator.Event
)

// The kinds of CuratorEvent.
const (
	EventDistill = curator.EventDistill
	EventCall    = curator.EventCall
	EventResult  = curator.EventResult
	EventText    = curator.EventText
	EventError   = curator.EventError
)

// NewCuratorRunID is a fresh curator run id at now.
func NewCuratorRunID(now time.Time) string { return curator.NewRunID(now) }
