package hygiene

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// stale proposes, for every record whose checks fail now (the last verify),
// an update when every failing probe still runs and so shows the current
// fact (the proposed record expects what it returns now; the operator
// rewrites the lemma to match), else a delete. The failing runs are the
// evidence.
func (b *builder) stale(ctx context.Context) error {
	for i := range b.recs {
		r := &b.recs[i]
		var failing []review.CheckResult
		for _, c := range b.in.Checks[r.ID] {
			if review.Fails(c.Verdict) {
				failing = append(failing, c)
			}
		}
		if len(failing) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		var runs []review.ProbeRun
		var says []string
		shows := true
		for _, c := range failing {
			runs = append(runs, b.run(c))
			now := "fails now: " + oneLine(c.Now.Error, 160)
			if c.Now.Error == "" {
				now = "returns " + oneLine(resultText(c.Now), 160) + " now"
			} else {
				shows = false
			}
			says = append(says, fmt.Sprintf("check %d (%s: %s) %s (verify at %s: %s)",
				c.Index+1, c.Env, oneLine(c.Input, 120), now, c.At.Format(time.RFC3339), c.Verdict))
		}
		f := Finding{Kind: Stale, Fingerprint: fingerprint(Stale, r.ID), Records: []string{r.ID}, Runs: runs}
		if shows {
			rec := *r
			rec.Checks = append([]review.Check(nil), r.Checks...)
			for _, c := range failing {
				if c.Index < len(rec.Checks) {
					rec.Checks[c.Index].Expect = c.Now
				}
			}
			f.Proposal = review.Proposal{Op: review.OpUpdate, Targets: []review.Target{target(r)}, Record: &rec,
				Rationale: fmt.Sprintf("Stale: %s. The probe still runs, so it shows the current fact: the proposed record expects what it returns now; rewrite the lemma to match before accepting.", strings.Join(says, "; "))}
		} else {
			f.Proposal = review.Proposal{Op: review.OpDelete, Targets: []review.Target{target(r)},
				Rationale: fmt.Sprintf("Stale: %s. No probe of it runs any more, so nothing shows what holds instead; delete it (or update it by hand from a new probe).", strings.Join(says, "; "))}
		}
		b.add(f)
	}
	return nil
}

// unused proposes deleting active records no task retrieved in the last
// MaxUnusedDays of the bank's activity: the window ends at the latest
// trajectory, not at the wall clock, so a bank no agent used for a while
// does not lose every record at once, and a bank without trajectories
// loses none. A record created inside the window is young, not unused.
func (b *builder) unused(ctx context.Context) error {
	var latest time.Time
	for i := range b.in.Trajectories {
		if t := b.in.Trajectories[i].When(); t.After(latest) {
			latest = t
		}
	}
	if latest.IsZero() {
		return nil
	}
	days := b.opt.MaxUnusedDays
	if days <= 0 {
		days = review.DefaultMaxUnusedDays
	}
	since := latest.AddDate(0, 0, -days)
	for i := range b.recs {
		r := &b.recs[i]
		w := b.worth[r.ID]
		if !r.Created.Before(since) || w.Retrieved > 0 && !w.To.Before(since) {
			continue
		}
		last := "no task ever retrieved it"
		if w.Retrieved > 0 {
			last = fmt.Sprintf("the last task that retrieved it ended %s (%s)", w.To.Format("2006-01-02"), b.uses(r.ID))
		}
		b.add(Finding{Kind: Unused, Fingerprint: fingerprint(Unused, r.ID), Records: []string{r.ID},
			Proposal: review.Proposal{Op: review.OpDelete, Targets: []review.Target{target(r)},
				Rationale: fmt.Sprintf("Unused: no task retrieved %s in the %d days up to the bank's latest task (%s to %s, [hygiene] max_unused_days); %s. It was created %s.",
					r.ID, days, since.Format("2006-01-02"), latest.Format("2006-01-02"), last, r.Created.Format("2006-01-02"))}})
	}
	return nil
}

// resultText is a probe result's output in one string: rows for SQL, text
// for files.
func resultText(r probe.Result) string {
	if len(r.Rows) > 0 || len(r.Columns) > 0 {
		var rows []string
		for _, row := range r.Rows {
			cells := make([]string, len(row))
			for i, c := range row {
				cells[i] = fmt.Sprint(c)
			}
			rows = append(rows, strings.Join(cells, " | "))
		}
		return strings.Join(r.Columns, " | ") + ": " + strings.Join(rows, "; ")
	}
	return r.Text
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
