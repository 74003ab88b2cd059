package app

// The service's OpenTelemetry spans (review/app/telemetry): one tracer a
// service, started when OTEL_EXPORTER_OTLP_ENDPOINT or memreview.toml
// [telemetry] names an endpoint, fed by Retrieve, the writes that queue
// proposals and the decisions, and flushed (briefly) on Close.

import (
	"context"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app/telemetry"
)

// telemetryShutdown bounds how long Close waits for queued spans.
const telemetryShutdown = 2 * time.Second

// startTelemetry starts the bank's tracer; a bad setting is a warning and
// no telemetry.
func (s *Service) startTelemetry() {
	cfg, _ := s.b.Config() // a damaged memreview.toml is reported by the commands that need it
	c, err := telemetry.Resolve(telemetry.Settings{Endpoint: cfg.Telemetry.Endpoint, CaptureContent: cfg.Telemetry.CaptureContent})
	if err == nil && c.Endpoint != "" {
		c.Store, c.Warnf = s.storeID(), s.opt.Warnf
		s.tel, err = telemetry.New(c)
	}
	if err != nil {
		s.opt.Warnf("%v; memreview runs without telemetry", err)
	}
}

// storeID is the bank as gen_ai.memory.store.id names it: a team bank's
// id, else the folder's name.
func (s *Service) storeID() string {
	if s.info.Team && s.info.ID != "" {
		return s.info.ID
	}
	return s.info.Name
}

// stopTelemetry sends the spans still queued, waiting a little at most.
func (s *Service) stopTelemetry() {
	if s.tel == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), telemetryShutdown)
	defer cancel()
	s.tel.Shutdown(ctx)
}

// traceSearch starts the search_memory span of a retrieval (none for a
// person's preview).
func (s *Service) traceSearch(req RetrieveRequest) *telemetry.Span {
	if s.tel == nil || req.Preview {
		return nil
	}
	return s.tel.Search(context.Background(), req.Task, req.Scope.Env, req.Scope.Tags, req.K, req.Client, req.TaskID)
}

// found ends a retrieval's span with the records it gave.
func found(sp *telemetry.Span, out []Retrieved, err error) {
	if sp == nil {
		return
	}
	hits := make([]telemetry.Hit, len(out))
	for i, r := range out {
		hits[i] = telemetry.Hit{ID: r.Record.ID, Score: r.Score, Content: r.Record.Lemma}
	}
	sp.Found(hits, err)
}

// traceProposals records proposals a write queued since start.
func (s *Service) traceProposals(start time.Time, ps []review.Proposal) {
	s.tel.Proposals(context.Background(), start, ps)
}

// traceDecision records a committed decision made since start.
func (s *Service) traceDecision(ctx context.Context, start time.Time, d *review.Decision) {
	s.tel.Decision(context.WithoutCancel(ctx), start, d)
}
