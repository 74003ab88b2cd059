package telemetry

// Proposals and decisions as memory operations: a queued proposal is the
// operation it asks for, pending; a decision is the operation it did, with
// the operator.

import (
	"context"
	"encoding/json"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/memreview/memreview/review"
)

// opOf is the memory operation a proposal asks for ("" for skip).
func opOf(op review.Op) string {
	switch op {
	case review.OpCreate:
		return opCreate
	case review.OpUpdate, review.OpNarrow, review.OpMerge:
		return opUpdate
	case review.OpDelete:
		return opDelete
	}
	return ""
}

// records adds the records an operation touches: gen_ai.memory.record.id
// when it is one, their ids and count.
func records(ids []string) []attribute.KeyValue {
	attrs := []attribute.KeyValue{attribute.Int("gen_ai.memory.record.count", max(len(ids), 1))}
	switch len(ids) {
	case 0:
	case 1:
		attrs = append(attrs, attribute.String("gen_ai.memory.record.id", ids[0]))
	default:
		attrs = append(attrs, attribute.StringSlice("memreview.record.ids", ids))
	}
	return attrs
}

func (t *Tracer) content(recs ...*review.Record) []attribute.KeyValue {
	if !t.capture {
		return nil
	}
	type rec struct {
		ID      string `json:"id,omitempty"`
		Content string `json:"content"`
	}
	var out []rec
	for _, r := range recs {
		if r != nil {
			out = append(out, rec{r.ID, r.Lemma})
		}
	}
	if len(out) == 0 {
		return nil
	}
	b, _ := json.Marshal(out)
	return []attribute.KeyValue{attribute.String("gen_ai.memory.records", string(b))}
}

// Proposals records the proposals one write queued (they share its start
// and end): each the operation it asks for, with memreview.proposal.id,
// .op and .status (pending: a person decides) and the records it targets.
// Nothing is recorded for skip proposals or a failed write.
func (t *Tracer) Proposals(ctx context.Context, start time.Time, ps []review.Proposal) {
	if t == nil {
		return
	}
	now := time.Now()
	for i := range ps {
		p := &ps[i]
		op := opOf(p.Op)
		if op == "" {
			continue
		}
		attrs := append(t.common(op), records(p.TargetIDs())...)
		attrs = append(attrs, attribute.String("memreview.proposal.id", p.ID), attribute.String("memreview.proposal.op", string(p.Op)),
			attribute.String("memreview.proposal.status", string(review.Pending)))
		if p.CuratorRun != "" {
			attrs = append(attrs, attribute.String("memreview.proposal.source", p.CuratorRun))
		}
		attrs = append(attrs, t.content(p.Record)...)
		_, sp := t.tr.Start(ctx, op, trace.WithTimestamp(start), trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
		sp.End(trace.WithTimestamp(now))
	}
}

// DecideOp names the span of a decision that writes no record.
const DecideOp = "memreview.decide"

// Decision records a committed decision: the memory operation it did
// (create_memory when it wrote a new record, delete_memory when it only
// retired records, update_memory otherwise; memreview.decide when it wrote
// none: a rejection, a deferral), with the operator and the verb as
// attributes and as a memreview.decision event.
func (t *Tracer) Decision(ctx context.Context, start time.Time, d *review.Decision) {
	if t == nil || d == nil {
		return
	}
	op, ids := decisionOp(d)
	attrs := t.common(op)
	if op == DecideOp {
		attrs = []attribute.KeyValue{attribute.String("gen_ai.provider.name", provider), attribute.String("gen_ai.memory.store.id", t.store)}
	} else {
		attrs = append(attrs, records(ids)...)
	}
	attrs = append(attrs, attribute.String("memreview.decision.id", d.ID), attribute.String("memreview.decision.verb", string(d.Verb)),
		attribute.String("memreview.decision.operator", d.Operator))
	if d.Proposal != "" {
		attrs = append(attrs, attribute.String("memreview.proposal.id", d.Proposal))
	}
	if d.Undoes != "" {
		attrs = append(attrs, attribute.String("memreview.decision.undoes", d.Undoes))
	}
	attrs = append(attrs, t.content(d.Record)...)
	_, sp := t.tr.Start(ctx, op, trace.WithTimestamp(start), trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	sp.AddEvent("memreview.decision", trace.WithAttributes(attribute.String("memreview.decision.verb", string(d.Verb)),
		attribute.String("memreview.decision.operator", d.Operator), attribute.String("memreview.proposal.id", d.Proposal)))
	sp.End()
}

// decisionOp is the memory operation a decision did and the records it
// changed.
func decisionOp(d *review.Decision) (string, []string) {
	var ids []string
	created, updated := false, false
	for _, c := range d.Changes {
		ids = append(ids, c.RecordID)
		switch {
		case c.Before == 0:
			created = true
		case c.AfterR == nil || c.AfterR.Status != review.Retired:
			updated = true
		}
	}
	switch {
	case len(d.Changes) == 0:
		return DecideOp, nil
	case created:
		return opCreate, ids
	case updated:
		return opUpdate, ids
	}
	return opDelete, ids
}
