// The bank commands: import, export, search, retrieve, show, history, queue,
// decide, merge, undo.

package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// openInput opens a named file, or stdin for "-".
func (a *cmdline) openInput(name string) (io.ReadCloser, string, error) {
	if name == "-" {
		return io.NopCloser(a.stdin), "<stdin>", nil
	}
	f, err := os.Open(name)
	return f, name, err
}

func cmdImport(a *cmdline, fs *flag.FlagSet) error {
	if err := needArgs(fs, 2, "what to import and a FILE"); err != nil {
		return err
	}
	if done, err := importAdapted(a, fs); done {
		return err
	}
	kind, files := fs.Arg(0), fs.Args()[1:]
	switch kind {
	case app.KindRecords, app.KindProposals, app.KindTrajectories:
	default:
		return usagef("import: %q is not records, proposals, trajectories or memories", kind)
	}
	svc, err := a.open()
	if err != nil {
		return err
	}
	defer svc.Close()
	var inputs []app.Input
	for _, name := range files {
		r, file, err := a.openInput(name)
		if err != nil {
			return err
		}
		defer r.Close()
		inputs = append(inputs, app.Input{Name: file, R: r})
	}
	n, err := svc.Import(kind, inputs, a.operator)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "imported %d %s\n", n, kind)
	return nil
}

func cmdExport(a *cmdline, fs *flag.FlagSet) error {
	if err := needArgs(fs, 1, "what to export"); err != nil {
		return err
	}
	switch fs.Arg(0) {
	case app.KindRecords, app.KindProposals, app.KindDecisions, app.KindTrajectories:
	default:
		return usagef("export: %q is not records, proposals, decisions or trajectories", fs.Arg(0))
	}
	svc, err := a.open()
	if err != nil {
		return err
	}
	defer svc.Close()
	return svc.Export(fs.Arg(0), a.stdout)
}

func cmdSearch(a *cmdline, fs *flag.FlagSet, jsonOut bool) error {
	if err := needArgs(fs, 1, "QUERY"); err != nil {
		return err
	}
	svc, err := a.open()
	if err != nil {
		return err
	}
	defer svc.Close()
	query := strings.Join(fs.Args(), " ")
	req := index.Request{Query: index.RequireAll(query), Type: flagString(fs, "type"), Size: flagInt(fs, "k"),
		Filters: map[string][]string{}, Highlight: true, Exact: flagString(fs, "exact") == "true"}
	for _, f := range []string{"env", "category", "status"} {
		if v := flagString(fs, f); v != "" {
			req.Filters[f] = []string{v}
		}
	}
	app.HideRetired(&req)
	res, err := svc.Search(req)
	if err != nil {
		return err
	}
	if jsonOut {
		return printJSON(a.stdout, res)
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	about := ""
	if res.Estimated { // a huge result set: its total is estimated
		about = "≈ "
	}
	fmt.Fprintf(tw, "%s%d hits%s (%s)\n", about, res.Total, rankedNote(res.Ranked), res.Took.Round(1000))
	if res.Behind > 0 {
		fmt.Fprintf(a.stderr, "memreview: %s\n", behindNote(res))
	}
	for _, h := range res.Hits {
		fmt.Fprintf(tw, "%.3f\t%s\t%s\n", h.Score, h.ID, describe(svc, h.Type, h.ID))
	}
	return tw.Flush()
}

// rankedNote says, after the hit count, that only the first ranked hits
// were ranked (index.Results.Ranked), or nothing when all were.
func rankedNote(ranked uint64) string {
	if ranked == 0 {
		return ""
	}
	return fmt.Sprintf("; best of the first %d ranked (--exact ranks all)", ranked)
}

// describe is the one-line summary of a search hit.
func describe(s *app.Service, typ, id string) string {
	switch typ {
	case "trajectory":
		if t, err := s.Trajectory(id); err == nil {
			verdict := "fail"
			if t.Outcome.Passed {
				verdict = "pass"
			}
			return fmt.Sprintf("%s %.2f  %s", verdict, t.Outcome.Reward, oneLine(t.Task, 90))
		}
	case "proposal":
		if p, err := s.Proposal(id); err == nil {
			return fmt.Sprintf("%s %s  %s", p.Op, p.Status, oneLine(p.Rationale, 90))
		}
	default:
		if r, err := s.Record(id); err == nil {
			flag := ""
			if r.Suspect {
				flag = " [suspect]"
			}
			return fmt.Sprintf("%s %s%s  %s", r.Category, r.Status, flag, oneLine(r.Lemma, 90))
		}
	}
	return typ
}

func cmdRetrieve(a *cmdline, fs *flag.FlagSet, jsonOut bool) error {
	if err := needArgs(fs, 1, "TASK_TEXT"); err != nil {
		return err
	}
	svc, err := a.open()
	if err != nil {
		return err
	}
	defer svc.Close()
	scope := review.Scope{Env: flagString(fs, "env"), Tags: splitList(flagString(fs, "tags"))}
	out, err := svc.Retrieve(app.RetrieveRequest{Task: strings.Join(fs.Args(), " "), Scope: scope, K: flagInt(fs, "k"),
		Client: "cli", TaskID: flagString(fs, "task-id")})
	if err != nil {
		return err
	}
	if jsonOut {
		return printJSON(a.stdout, nonNil(out))
	}
	for _, it := range out {
		fmt.Fprintf(a.stdout, "%.3f  %s  [%s · %s]  %s\n", it.Score, it.Record.ID, it.Record.Category, it.Record.Scope.Env, it.Record.Lemma)
	}
	return nil
}

func cmdShow(a *cmdline, fs *flag.FlagSet, jsonOut bool) error {
	if err := needArgs(fs, 1, "ID"); err != nil {
		return err
	}
	s, err := a.open()
	if err != nil {
		return err
	}
	defer s.Close()
	id := fs.Arg(0)
	if r, err := s.Record(id); err == nil {
		runs, _ := s.ProbeRunsFor("record", id)
		checks, _ := s.CheckResults(id)
		used, _ := s.RetrievedBy(id)
		worth, _ := s.Worth(id)
		if jsonOut {
			return printJSON(a.stdout, map[string]any{"record": r, "evidence": nonNil(runs), "check_results": nonNil(checks), "retrieved_by": nonNil(used), "worth": worth})
		}
		writeRecord(a.stdout, r)
		fmt.Fprintf(a.stdout, "worth        %s\n", worth)
		for _, c := range checks {
			fmt.Fprintf(a.stdout, "check %d      %s  %s: %s\n", c.Index+1, c.Verdict, c.Env, oneLine(c.Input, 70))
		}
		for _, run := range runs {
			fmt.Fprintf(a.stdout, "evidence     %s  %s: %s\n", run.ID, run.Result.Env, oneLine(run.Result.Input, 70))
		}
		for _, u := range used {
			fmt.Fprintf(a.stdout, "retrieved by %s  passed=%v reward=%.2f\n", u.Trajectory, u.Outcome.Passed, u.Outcome.Reward)
		}
		return nil
	}
	var v any
	if p, err := s.Proposal(id); err == nil {
		runs, _ := s.ProbeRunsFor("proposal", id)
		v = map[string]any{"proposal": p, "evidence": runs}
	} else if d, err := s.Decision(id); err == nil {
		v = d
	} else if t, err := s.Trajectory(id); err == nil {
		v = t
	} else if r, err := s.ProbeRun(id); err == nil {
		v = r
	} else {
		return fmt.Errorf("no record, proposal, decision, trajectory or probe run has id %q", id)
	}
	return printJSON(a.stdout, v)
}

func writeRecord(w io.Writer, r *review.Record) {
	suspect := ""
	if r.Suspect {
		suspect = "  SUSPECT: a check no longer holds"
	}
	fmt.Fprintf(w, "%s  v%d  %s  %s%s\n", r.ID, r.Version, r.Category, r.Status, suspect)
	fmt.Fprintf(w, "lemma        %s\n", r.Lemma)
	fmt.Fprintf(w, "scope        env=%s tags=%s family=%s\n", r.Scope.Env, strings.Join(r.Scope.Tags, ","), r.Scope.TaskFamily)
	if r.Trigger != "" {
		fmt.Fprintf(w, "trigger      %s\n", r.Trigger)
	}
	for i, st := range r.Steps {
		fmt.Fprintf(w, "step %d       %s\n", i+1, st)
	}
	fmt.Fprintf(w, "confidence   %.2f  priority %d\n", r.Confidence, r.Priority)
	if p := r.Provenance; p.Trajectory != "" || len(p.MergedFrom) > 0 || p.MergedInto != "" {
		steps := ""
		if p.Steps != nil {
			steps = fmt.Sprintf(" steps %d-%d", p.Steps.From, p.Steps.To)
		}
		fmt.Fprintf(w, "provenance   %s%s merged_from=%s merged_into=%s\n", p.Trajectory, steps, strings.Join(p.MergedFrom, ","), p.MergedInto)
	}
	fmt.Fprintf(w, "updated      %s\n", r.Updated.Format("2006-01-02 15:04:05"))
}

func cmdHistory(a *cmdline, fs *flag.FlagSet, jsonOut bool) error {
	if err := needArgs(fs, 1, "RECORD_ID"); err != nil {
		return err
	}
	svc, err := a.open()
	if err != nil {
		return err
	}
	defer svc.Close()
	h, err := svc.History(fs.Arg(0))
	if err != nil {
		return err
	}
	if jsonOut {
		return printJSON(a.stdout, h)
	}
	for _, v := range h {
		fmt.Fprintf(a.stdout, "v%d  %s  %-7s by %s  %s  %s\n   %s  %s\n", v.Record.Version, v.At.Format("2006-01-02 15:04:05"),
			v.Op, v.Actor, v.Decision, v.Reason, v.Record.Status, v.Record.Lemma)
	}
	return nil
}

func cmdQueue(a *cmdline, jsonOut bool) error {
	svc, err := a.open()
	if err != nil {
		return err
	}
	defer svc.Close()
	q, err := svc.Queue()
	if err != nil {
		return err
	}
	if jsonOut {
		return printJSON(a.stdout, nonNil(q))
	}
	reviewers, err := claimedBy(svc)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	for _, p := range q {
		lemma := ""
		if p.Record != nil {
			lemma = p.Record.Lemma
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s%s\n", p.ID, p.Status, p.Op, strings.Join(p.TargetIDs(), ","), oneLine(lemma, 80), reviewers[p.ID])
	}
	fmt.Fprintf(tw, "%d open proposals\n", len(q))
	return tw.Flush()
}

// decide opens the bank, commits one decision made by fn (the service
// brings the index up to date, or warns that it will catch up) and
// reports it.
func (a *cmdline) decide(jsonOut bool, fn func(*app.Service) (*review.Decision, error)) error {
	svc, err := a.open()
	if err != nil {
		return err
	}
	defer svc.Close()
	d, err := fn(svc)
	if err != nil {
		return err
	}
	if jsonOut {
		err = printJSON(a.stdout, d)
	} else {
		fmt.Fprintf(a.stdout, "%s: %s %s by %s\n", d.ID, d.Verb, d.Proposal, d.Operator)
		for _, c := range d.Changes {
			status := ""
			if c.AfterR != nil {
				status = string(c.AfterR.Status)
			}
			fmt.Fprintf(a.stdout, "  %s v%d → v%d %s\n", c.RecordID, c.Before, c.After, status)
		}
		if len(d.Baselines) > 0 {
			fmt.Fprintf(a.stdout, "  %s\n", review.BaselineText(d.Baselines))
		}
	}
	return err
}

// proposedRecord returns a copy of a proposal's record, for the operator
// to change before deciding.
func proposedRecord(s *app.Service, id string, verb review.Verb) (review.Record, error) {
	p, err := s.Proposal(id)
	if err != nil {
		return review.Record{}, err
	}
	if p.Record == nil {
		return review.Record{}, fmt.Errorf("%s %s: a %s proposal has no record to %s", verb, p.ID, p.Op, verb)
	}
	return *p.Record, nil
}

func cmdDecide(a *cmdline, fs *flag.FlagSet, jsonOut bool) error {
	if err := needArgs(fs, 2, "PROPOSAL_ID and a verb"); err != nil {
		return err
	}
	verb := review.Verb(fs.Arg(1))
	switch verb {
	case review.Accept, review.Narrow, review.Edit, review.Reject, review.Delete, review.Defer:
	default:
		return usagef("decide: %q is not accept, narrow, edit, reject, delete or defer", verb)
	}
	tags, trigger, lemma := flagString(fs, "scope-tags"), flagString(fs, "trigger"), flagString(fs, "lemma")
	if (verb == review.Narrow || verb == review.Edit) && tags == "" && trigger == "" && lemma == "" {
		return usagef("decide %s: give the changed fields with --scope-tags, --trigger or --lemma", verb)
	}
	return a.decide(jsonOut, func(s *app.Service) (*review.Decision, error) {
		req := review.DecideRequest{Proposal: fs.Arg(0), Verb: verb, Operator: a.operator, Note: flagString(fs, "note")}
		if verb == review.Narrow || verb == review.Edit {
			rec, err := proposedRecord(s, req.Proposal, verb)
			if err != nil {
				return nil, err
			}
			if tags != "" {
				rec.Scope.Tags = splitList(tags)
			}
			if trigger != "" {
				rec.Trigger = trigger
			}
			if lemma != "" {
				rec.Lemma = lemma
			}
			req.Record = &rec
		}
		return s.Decide(a.ctx, req)
	})
}

func cmdMerge(a *cmdline, fs *flag.FlagSet, jsonOut bool) error {
	if err := needArgs(fs, 1, "PROPOSAL_ID"); err != nil {
		return err
	}
	return a.decide(jsonOut, func(s *app.Service) (*review.Decision, error) {
		req := review.DecideRequest{Proposal: fs.Arg(0), Verb: review.Merge, With: splitList(flagString(fs, "with")),
			Operator: a.operator, Note: flagString(fs, "note")}
		l := flagString(fs, "lemma")
		if l == "" && len(req.With) == 0 {
			return s.Decide(a.ctx, req) // nothing chosen to fold in: the proposal's record
		}
		rec, err := proposedRecord(s, req.Proposal, review.Merge)
		if err != nil {
			return nil, err
		}
		if len(req.With) > 0 {
			// No source's content is dropped: the merged record is the
			// candidate combined with every record folded in, as read now
			// (one changed before the commit is a conflict).
			var with []review.Record
			req.Seen = map[string]int{}
			for _, id := range req.With {
				r, err := s.Record(id)
				if err != nil {
					return nil, fmt.Errorf("merge %s: --with %s: %w", req.Proposal, id, err)
				}
				with = append(with, *r)
				req.Seen[id] = r.Version
			}
			rec = review.Combine(rec, with...)
		}
		if l != "" {
			rec.Lemma = l
		}
		req.Record = &rec
		return s.Decide(a.ctx, req)
	})
}

func cmdUndo(a *cmdline, fs *flag.FlagSet, jsonOut bool) error {
	return a.decide(jsonOut, func(s *app.Service) (*review.Decision, error) {
		return s.Undo(a.ctx, fs.Arg(0), a.operator, flagString(fs, "note"))
	})
}

// behindNote says how far behind the bank the index was for a search, and
// what was searched directly meanwhile: "index 80,000 changes behind: the
// newest 20,000 changed items searched directly, 60,000 not yet
// searchable".
func behindNote(res *index.Results) string {
	s := fmt.Sprintf("index %s changes behind: ", thousands(int(res.Behind)))
	if res.Unsearched == 0 {
		return s + fmt.Sprintf("the %s changed items searched directly", thousands(res.Direct))
	}
	return s + fmt.Sprintf("the newest %s changed items searched directly, %s not yet searchable", thousands(res.Direct), thousands(res.Unsearched))
}
