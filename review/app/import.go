package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/formats"
)

// What Import reads and Export writes.
const (
	KindRecords      = "records"
	KindProposals    = "proposals"
	KindTrajectories = "trajectories"
	KindMemories     = "memories"  // import only: another tool's memory bank
	KindDecisions    = "decisions" // export only
)

// ImportInput is one named input to Import: a file's bytes to read
// (Name is what errors call it: the file name, "<stdin>", or a tool
// call), or proposals an agent made, already decoded (memory_propose),
// which are checked exactly as a proposals file's lines are.
type ImportInput struct {
	Name      string
	R         io.Reader
	Proposals []review.Proposal
}

// ImportOptions tune one Import.
type ImportOptions struct {
	// Format reads every trajectories or memories input in this format
	// (Formats lists them); "" detects each file's from its shape.
	Format string
	// DryRun reads and checks everything, and writes nothing.
	DryRun bool
	// Env scopes every imported memory to this environment, and names the
	// environment imported runs worked in.
	Env string
	// Accept makes imported memories records at once (one audit entry
	// each) instead of pending proposals.
	Accept bool
	// Actor is who imports ("": the service's operator).
	Actor string
	// One refuses an input holding other than one item (a tool call
	// submits one run).
	One bool
	// Session is the MCP session submitting the runs ("" for the CLI and
	// other callers): a run is linked only to the retrievals logged under
	// its id by the same session, so no agent can claim that another's
	// run used a record.
	Session string
}

// ImportResult is what an import read, and wrote unless it was a dry run.
type ImportResult struct {
	Kind  string
	Count int
	// Reports say, per trajectories or memories file, its format and what
	// was read and skipped.
	Reports []*FormatReport
	// Trajectories and Proposals are what was read (and, unless a dry
	// run, stored: the proposals then carry their ids).
	Trajectories []review.Trajectory
	Proposals    []review.Proposal
	// Accepted holds the decisions of an Accept import.
	Accepted []*review.Decision
	// Flagged counts the proposals (or records) the poisoning screen
	// flagged; a proposal's findings are in its Screen.
	Flagged int
	// Known lists the memories left out because the bank already has
	// them (a proposal with the same fingerprint: the same text from the
	// same source, whatever became of it) or this import has them twice.
	Known []KnownMemory
}

// KnownMemory is a memory an import left out, and why.
type KnownMemory struct {
	File string
	Line int
	// Proposal and Status name the proposal the bank holds for it; empty
	// when an earlier line of this import has it (AlsoAt).
	Proposal string
	Status   review.ProposalStatus
	AlsoAt   string // "FILE:LINE" of the first copy in this import
}

func lineOf(lines []int, i int) int {
	if i < len(lines) {
		return lines[i]
	}
	return 0
}

func countFlagged(ps []review.Proposal) int {
	n := 0
	for i := range ps {
		if ps[i].Flagged() {
			n++
		}
	}
	return n
}

// InputError says where an input is wrong: file, line, field and what;
// every refused import and agent proposal is one.
type InputError = formats.InputError

// FormatReport is a trajectories or memories file's report.
type FormatReport = formats.Report

// FormatInfo is one format Import reads.
type FormatInfo = formats.Format

// Formats lists the formats Import reads for kind (trajectories or
// memories).
func Formats(kind string) []*FormatInfo { return formats.Formats(formats.Kind(kind)) }

// ErrImport marks an import refused for its input (a file, line and
// field): nothing was written.
var ErrImport = errors.New("nothing was imported")

// Import reads every input as kind — records or proposals (JSON Lines),
// trajectories (memreview's JSON, OpenAI chat or any format Formats lists)
// or memories (another tool's bank, as create proposals) — validates all
// of it (formats, ids already in the bank or repeated across inputs,
// proposal targets, trajectory steps) and only then writes it, in one
// transaction. Any error names the file, line and field, and nothing is
// written. The CLI's import, the MCP server's trajectory_submit and
// memory_propose all come through here.
func (s *Service) Import(ctx context.Context, kind string, inputs []ImportInput, opt ImportOptions) (*ImportResult, error) {
	if opt.Actor == "" {
		opt.Actor = s.opt.Operator
	}
	if (opt.Format != "" || opt.Accept) && kind != KindTrajectories && kind != KindMemories {
		return nil, fmt.Errorf("import %s: a format and --accept are for trajectories and memories", kind)
	}
	if opt.Accept && kind != KindMemories {
		return nil, fmt.Errorf("import %s: --accept is for memories", kind)
	}
	var forced *formats.Format
	if opt.Format != "" {
		f, ok := formats.Lookup(opt.Format)
		if !ok || string(f.Kind) != kind {
			return nil, fmt.Errorf("import %s: no format %q (formats for %s: %s)", kind, opt.Format, kind, formats.Names(formats.Kind(kind)))
		}
		forced = f
	}
	res := &ImportResult{Kind: kind}
	var err error
	switch kind {
	case KindRecords:
		err = s.importRecords(inputs, opt, res)
	case KindProposals:
		err = s.importProposals(inputs, opt, res)
	case KindTrajectories:
		err = s.importTrajectories(inputs, forced, opt, res)
	case KindMemories:
		err = s.importMemories(ctx, inputs, forced, opt, res)
	default:
		return nil, fmt.Errorf("import: %q is not records, proposals, trajectories or memories", kind)
	}
	if err != nil {
		return res, err
	}
	return res, nil
}

func (s *Service) importRecords(inputs []ImportInput, opt ImportOptions, res *ImportResult) error {
	var recs []review.Record
	from := map[string]string{} // id → the input that has it
	for _, in := range inputs {
		rs, lines, err := formats.ReadRecordsAt(in.R, in.Name)
		if err != nil {
			return err
		}
		// One query for the whole file's ids, not one per record.
		have, err := s.existingRecords(rs)
		if err != nil {
			return fmt.Errorf("import: %s: %w", in.Name, err)
		}
		if err := formats.CheckNewRecords(in.Name, rs, lines, func(id string) bool { return have[id] }, from); err != nil {
			return err
		}
		flagged, err := s.screenRecords(rs, in.Name, lines)
		if err != nil {
			return err
		}
		res.Flagged += flagged
		recs = append(recs, rs...)
	}
	res.Count = len(recs)
	if opt.DryRun {
		return nil
	}
	// When this process owns the index (or can take it at once), the index
	// follows the write, so the import returns with every record
	// searchable; an index another process owns catches up there.
	built := s.followWrite(len(recs))
	err := s.b.PutRecords(recs, opt.Actor, "import")
	if err != nil {
		built(err)
		return fmt.Errorf("import records: %w; %w", err, ErrImport)
	}
	if err := built(nil); err != nil {
		s.opt.Warnf("the import committed, but the search index did not follow it (%v); it catches up on the next search", err)
	}
	s.afterBulkWrite(fmt.Sprintf("import of %d records", len(recs)))
	return nil
}

// followWrite has this process's index follow a write of n records about
// to start, when this process owns the index or can take it over at once.
// The returned function reports the write's end (nil: committed) and
// waits until the index holds it; without an index of its own it returns
// at once.
func (s *Service) followWrite(n int) func(writeErr error) error {
	ix, err := s.index()
	if err != nil {
		return func(error) error { return nil }
	}
	holder, ok := ix.(interface {
		Hold(time.Duration) (*index.Index, error)
	})
	if !ok {
		return func(error) error { return nil }
	}
	own, err := holder.Hold(0)
	if err != nil {
		return func(error) error { return nil } // another process owns it
	}
	f := index.NewFilling(n)
	done := make(chan error, 1)
	go func() { done <- own.Follow(f) }()
	return func(writeErr error) error {
		if writeErr != nil {
			f.Fail(writeErr)
			<-done
			return nil
		}
		seq, err := s.b.LastSeq()
		if err != nil {
			f.Fail(err)
			<-done
			return err
		}
		f.Committed(n)
		f.Inserted(seq)
		return <-done
	}
}

func (s *Service) importProposals(inputs []ImportInput, opt ImportOptions, res *ImportResult) error {
	var props []review.Proposal
	from := map[string]string{}
	type read struct {
		name  string
		ps    []review.Proposal
		lines []int
	}
	var reads []read
	for _, in := range inputs {
		ps, lines := in.Proposals, []int(nil)
		if in.R != nil {
			var err error
			if ps, lines, err = formats.ReadProposals(in.R, in.Name); err != nil {
				return err
			}
		}
		if err := formats.CheckProposalsInBank(in.Name, ps, lines, s.b); err != nil {
			return err
		}
		reads = append(reads, read{in.Name, ps, lines})
		for i, p := range ps {
			if p.ID == "" {
				continue
			}
			line := 0
			if i < len(lines) {
				line = lines[i]
			}
			if _, err := s.b.Proposal(p.ID); err == nil {
				return &formats.InputError{File: in.Name, Line: line, Field: "id", Msg: fmt.Sprintf("proposal %s is already in the bank", p.ID)}
			} else if f, dup := from[p.ID]; dup {
				return &formats.InputError{File: in.Name, Line: line, Field: "id", Msg: fmt.Sprintf("proposal %s is also in %s", p.ID, f)}
			}
			from[p.ID] = in.Name
		}
		if err := s.screenProposals(ps, func(i int) (string, int) { return in.Name, lineOf(lines, i) }); err != nil {
			return err
		}
		props = append(props, ps...)
	}
	res.Count, res.Proposals = len(props), props
	res.Flagged = countFlagged(props)
	if opt.DryRun {
		return nil
	}
	start := time.Now()
	if err := s.b.AddProposals(props, nil); err != nil {
		// The store checks the targets again inside its write: a record
		// retired or removed meanwhile, by another process, is refused
		// there. Say which, as the check above would have.
		for _, r := range reads {
			if ie := formats.CheckProposalsInBank(r.name, r.ps, r.lines, s.b); ie != nil {
				return ie
			}
		}
		return fmt.Errorf("import proposals: %w; %w", err, ErrImport)
	}
	s.afterBulkWrite(fmt.Sprintf("import of %d proposals", len(props)))
	s.traceProposals(start, props)
	return nil
}

// readAll reads an input whole, refusing one over the trajectory cap.
func readAll(in ImportInput) (*formats.Input, error) {
	data, err := io.ReadAll(io.LimitReader(in.R, review.MaxTrajectoryLineBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: read: %w", in.Name, err)
	}
	if len(data) > review.MaxTrajectoryLineBytes {
		return nil, fmt.Errorf("%s: over %d MiB; %w", in.Name, review.MaxTrajectoryLineBytes>>20, ErrImport)
	}
	return formats.NewInput(in.Name, data), nil
}

func (s *Service) importTrajectories(inputs []ImportInput, forced *formats.Format, opt ImportOptions, res *ImportResult) error {
	var all []review.Trajectory
	from := map[string]origin{}
	for _, in := range inputs {
		fin, err := readAll(in)
		if err != nil {
			return err
		}
		ts, rep, err := formats.ReadTrajectories(fin, forced)
		if err != nil {
			return err
		}
		for i, t := range ts {
			var pl formats.Place
			if i < len(rep.Places) {
				pl = rep.Places[i]
			}
			o := origin{in.Name, pl, i + 1, rep.Format}
			if first, dup := from[t.ID]; dup {
				return fmt.Errorf("%s: trajectory id %q is also in %s; rename one file (generated ids come from the file name); %w", o, t.ID, first, ErrImport)
			}
			from[t.ID] = o
		}
		if opt.One && len(ts) != 1 {
			return fmt.Errorf("%s holds %d runs; submit one run per call", in.Name, len(ts))
		}
		all = append(all, ts...)
		res.Reports = append(res.Reports, rep)
	}
	if opt.Env != "" {
		if err := checkEnvName(opt.Env); err != nil {
			return err
		}
		for i := range all {
			all[i].Env = opt.Env
		}
	}
	exists := func(id string, err error) error {
		return fmt.Errorf("%s: trajectory %s is already in the bank (proposals cite its steps, so it is not replaced); %w; %w", from[id], id, err, ErrImport)
	}
	for _, t := range all {
		if _, err := s.b.Trajectory(t.ID); err == nil {
			return exists(t.ID, &review.ExistsError{Kind: "trajectory", ID: t.ID})
		} else if !errors.Is(err, review.ErrNotFound) {
			return err
		}
	}
	if err := s.linkRetrievals(all, opt.Session); err != nil {
		return err
	}
	res.Count, res.Trajectories = len(all), all
	if opt.DryRun {
		return nil
	}
	// Stored new, never replaced: another process may have stored one of
	// these ids since the check above; the store's check inside its write
	// transaction says so.
	if err := s.b.AddTrajectories(all); err != nil {
		var ee *review.ExistsError
		if errors.As(err, &ee) {
			return exists(ee.ID, ee)
		}
		return fmt.Errorf("import trajectories: %w; %w", err, ErrImport)
	}
	s.afterWrite(fmt.Sprintf("import of %d trajectories", len(all)))
	s.logImportedSearches(res.Reports, from)
	return nil
}

// logImportedSearches writes the memory searches an import's runs made
// (search_memory spans) to the retrieval log, for the runs imported; the
// runs themselves already name the records.
func (s *Service) logImportedSearches(reps []*FormatReport, imported map[string]origin) {
	var rs []review.Retrieval
	for _, rep := range reps {
		for _, r := range rep.Retrievals {
			if _, ok := imported[r.TaskID]; ok {
				rs = append(rs, r)
			}
		}
	}
	if len(rs) == 0 {
		return
	}
	batch := make([]pendingRetrieval, len(rs))
	for i, r := range rs {
		batch[i] = pendingRetrieval{r: r}
	}
	if err := writeRetrievals(s.b, batch); err != nil {
		s.opt.Warnf("the imported runs are stored, but their %d memory searches were not logged as retrievals: %v", len(rs), err)
	}
}

// linkRetrievals links to each run the records the retrieval log gave for
// its id (a task agent's task_id, then its run submitted under that id), so
// RetrievedBy shows how the task ended. Only retrievals logged by session
// count ("" : those of the CLI and other callers outside an MCP session):
// an agent's task_id is evidence about the runs that agent submits, never
// another's.
func (s *Service) linkRetrievals(ts []review.Trajectory, session string) error {
	ids := map[string]int{}
	for i, t := range ts {
		ids[t.ID] = i
	}
	log, err := s.b.Retrievals(0, 0)
	if err != nil {
		return err
	}
	for _, r := range log {
		i, ok := ids[r.TaskID]
		if !ok || r.Session != session {
			continue
		}
		for _, id := range r.Records {
			if !slices.Contains(ts[i].Retrieved, id) {
				ts[i].Retrieved = append(ts[i].Retrieved, id)
			}
		}
	}
	return nil
}

func (s *Service) importMemories(ctx context.Context, inputs []ImportInput, forced *formats.Format, opt ImportOptions, res *ImportResult) error {
	known, err := s.proposalFingerprints()
	if err != nil {
		return err
	}
	var props []review.Proposal
	first := map[string]string{} // fingerprint → FILE:LINE of its first copy here
	for _, in := range inputs {
		fin, err := readAll(in)
		if err != nil {
			return err
		}
		ms, rep, err := formats.ReadMemories(fin, forced, opt.Env)
		if err != nil {
			return err
		}
		start := len(props)
		var lines []int // the line of each memory kept from this file
		for _, m := range ms {
			fp := m.Proposal.Fingerprint
			if p, ok := known[fp]; ok && fp != "" {
				res.Known = append(res.Known, KnownMemory{File: in.Name, Line: m.Line, Proposal: p.ID, Status: p.Status})
				continue
			}
			if at, ok := first[fp]; ok && fp != "" {
				res.Known = append(res.Known, KnownMemory{File: in.Name, Line: m.Line, AlsoAt: at})
				continue
			}
			first[fp] = fmt.Sprintf("%s:%d", in.Name, m.Line)
			props = append(props, m.Proposal)
			lines = append(lines, m.Line)
		}
		// The rationale is memreview's own words about the source (its
		// file path and ids), so the memory itself is what is screened.
		if err := s.screenMemories(props[start:], func(i int) (string, int) { return in.Name, lines[i] }); err != nil {
			return err
		}
		if opt.Accept {
			for i, p := range props[start:] {
				if fs := p.RecordFindings(); len(fs) > 0 {
					return &InputError{File: in.Name, Line: lines[i], Field: "record." + fs[0].Field,
						Msg: fmt.Sprintf("flagged by the screen (%s); --accept does not accept flagged memories in bulk: import without --accept and decide it in the queue", fs[0])}
				}
			}
		}
		res.Reports = append(res.Reports, rep)
	}
	res.Count, res.Proposals = len(props), props
	res.Flagged = countFlagged(props)
	if opt.DryRun || len(props) == 0 {
		return nil
	}
	start := time.Now()
	if err := s.b.AddProposals(props, nil); err != nil {
		return fmt.Errorf("import memories: %w; %w", err, ErrImport)
	}
	s.afterWrite(fmt.Sprintf("import of %d memories", len(props)))
	s.traceProposals(start, props)
	if !opt.Accept {
		return nil
	}
	for i, p := range props {
		d, err := s.Decide(ctx, review.DecideRequest{Proposal: p.ID, Verb: review.Accept, Operator: opt.Actor, Note: "import memories --accept"})
		if err != nil {
			return fmt.Errorf("accept %s (%d of %d): %w; the %d before it are records, the rest stay pending proposals", p.ID, i+1, len(props), err, i)
		}
		res.Accepted = append(res.Accepted, d)
	}
	return nil
}

// origin is where a trajectory was read: file, line and id field when the
// reader knows them, else the run's number in the file.
type origin struct {
	file   string
	place  formats.Place
	run    int
	format string
}

func (o origin) String() string {
	if o.place.Line > 0 {
		f := o.place.Field
		if f == "" {
			f = "id"
		}
		return fmt.Sprintf("%s:%d: field %q", o.file, o.place.Line, f)
	}
	return fmt.Sprintf("%s: run %d (its id comes from the %s)", o.file, o.run, idOrigin(o.format))
}

func idOrigin(format string) string {
	switch format {
	case "swe-agent", "openhands":
		return "file name"
	case "otel", "langfuse":
		return "trace or conversation id"
	case "inspect-ai":
		return "file name, sample id and epoch"
	case "atif":
		return "session_id"
	}
	return "file"
}

// checkEnvName refuses an environment name imported runs cannot carry.
func checkEnvName(env string) error {
	if err := review.CheckEnvName(env); err != nil {
		return fmt.Errorf("import trajectories: the environment (--env): %w; %w", err, ErrImport)
	}
	return nil
}

// proposalFingerprints maps each fingerprint the bank's proposals carry
// to the latest such proposal: an imported memory is known by it.
func (s *Service) proposalFingerprints() (map[string]review.Proposal, error) {
	ps, err := s.b.Proposals()
	if err != nil {
		return nil, fmt.Errorf("import memories: read the proposals: %w", err)
	}
	out := map[string]review.Proposal{}
	for _, p := range ps {
		if p.Fingerprint != "" {
			out[p.Fingerprint] = p
		}
	}
	return out, nil
}
