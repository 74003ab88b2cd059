package hygiene

import (
	"context"
	"fmt"
	"strings"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/screen"
)

// poisoning screens every active record as a proposal is screened on its
// way in, and proposes for each flagged one:
//   - a delete, when it holds an instruction aimed at a model, an
//     exfiltration or hidden text: a record that steers its reader or
//     moves data out is retired rather than rewritten by a machine (the
//     operator can still edit it by hand);
//   - an update with each secret replaced by its marker, when secrets
//     are all it holds: the lesson stays, the secret leaves the active
//     version (earlier versions keep it; the rationale says so).
//
// The rationale lists the findings by field, span, rule and reason; it
// never quotes the flagged text.
func (b *builder) poisoning(ctx context.Context) error {
	sc := b.opt.Screen
	if sc == nil {
		sc = screen.New()
	}
	for i := range b.recs {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r := &b.recs[i]
		fields := screenFields(r.Texts())
		fs := sc.ScreenFields(fields...)
		if len(fs) == 0 {
			continue
		}
		onlySecrets := true
		var says []string
		for j, f := range fs {
			if f.Kind != screen.Secret && !insideSecret(fs, f) {
				onlySecrets = false
			}
			if j < 3 {
				says = append(says, fmt.Sprintf("%s in %s at bytes %d-%d (%s: %s)", f.Kind, f.Field, f.Start, f.End, f.Rule, f.Reason))
			}
		}
		if n := len(fs) - len(says); n > 0 {
			says = append(says, fmt.Sprintf("%d more", n))
		}
		found := strings.Join(says, "; ")
		f := Finding{Kind: Poisoning, Fingerprint: fingerprint(Poisoning, r.ID), Records: []string{r.ID}}
		if onlySecrets {
			rec := *r
			rec.Steps = append([]string(nil), r.Steps...)
			rec.Checks = append([]review.Check(nil), r.Checks...)
			red, _ := sc.RedactFields(fields...)
			for _, t := range red {
				rec.SetText(t.Name, t.Text)
			}
			f.Proposal = review.Proposal{Op: review.OpUpdate, Targets: []review.Target{target(r)}, Record: &rec,
				Rationale: oneLine("Poisoning screen: "+found+". The update replaces each secret with its marker; the record's earlier versions still hold it, so rotate the credential.", 2000)}
		} else {
			f.Proposal = review.Proposal{Op: review.OpDelete, Targets: []review.Target{target(r)},
				Rationale: oneLine("Poisoning screen: "+found+". A record that steers its reader or moves data out is retired, not rewritten; edit it by hand instead if its lesson is worth keeping.", 2000)}
		}
		b.add(f)
	}
	return nil
}

func screenFields(ts []review.Text) []screen.Field {
	out := make([]screen.Field, len(ts))
	for i, t := range ts {
		out[i] = screen.Field{Name: t.Name, Text: t.Text}
	}
	return out
}

// insideSecret reports a finding whose span lies within a secret's in
// the same field (a token is also a long base64 blob): redacting the
// secret removes it too.
func insideSecret(fs []screen.Finding, f screen.Finding) bool {
	for _, o := range fs {
		if o.Kind == screen.Secret && o.Field == f.Field && o.Start <= f.Start && f.End <= o.End {
			return true
		}
	}
	return false
}
