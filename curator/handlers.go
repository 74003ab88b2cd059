package curator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// fatalError ends the run: the bank itself failed, not the model.
type fatalError struct{ err error }

func (e *fatalError) Error() string { return e.err.Error() }

func fatal(format string, args ...any) error {
	return &fatalError{fmt.Errorf(format, args...)}
}

const resultCap = 16 << 10 // bytes of a tool result sent to the model

// call runs one tool call. A plain error is a bad call, sent back to the
// model for correction; a *fatalError ends the run.
func (c *curation) call(ctx context.Context, name, args string) (string, error) {
	if !slices.Contains(c.names, name) {
		return "", fmt.Errorf("unknown tool %q; the tools are %s", name, strings.Join(c.names, ", "))
	}
	var out any
	var err error
	switch {
	case name == ToolSearch:
		var a searchArgs
		if err = decode(name, args, &a); err == nil {
			out, err = c.search(a)
		}
	case name == ToolGet:
		var a getArgs
		if err = decode(name, args, &a); err == nil {
			out, err = c.record(a.ID)
		}
	case name == ToolFinish:
		if c.proposed == 0 {
			return "", errors.New("finish: nothing is proposed yet; call propose_skip with a rationale if the trajectory warrants no change")
		}
		return "finished", nil
	case probeTools[name] != "":
		var a probeArgs
		if err = decode(name, args, &a); err == nil {
			out, err = c.probe(ctx, name, a)
		}
	default:
		var a proposeArgs
		if err = decode(name, args, &a); err == nil {
			out, err = c.propose(proposeTools[name], name, a)
		}
	}
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", fatal("curator: cannot encode the result of %s: %w", name, err)
	}
	return clip(string(b), resultCap), nil
}

func decode(name, args string, v any) error {
	d := json.NewDecoder(bytes.NewReader([]byte(args)))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("the arguments of %s are not valid JSON for its schema (%v)", name, err)
	}
	return nil
}

// hit is a record as memory_search shows it.
type hit struct {
	ID       string          `json:"id"`
	Lemma    string          `json:"lemma"`
	Category review.Category `json:"category"`
	Scope    review.Scope    `json:"scope"`
	Status   review.Status   `json:"status"`
	Version  int             `json:"version"`
}

func (c *curation) search(a searchArgs) (any, error) {
	if strings.TrimSpace(a.Query) == "" {
		return nil, errors.New("memory_search needs a non-empty query")
	}
	k := min(a.K, 20)
	if k <= 0 {
		k = 8
	}
	var ids []string
	var err error
	if c.deps.Search != nil {
		ids, err = c.deps.Search.SearchRecords(a.Query, k)
	} else {
		ids, err = scan(c.deps.Store, a.Query, k)
	}
	if err != nil {
		return nil, fatal("curator: searching the bank for %q failed: %w", a.Query, err)
	}
	hits := []hit{}
	for _, id := range ids {
		r, err := c.deps.Store.Record(id)
		if err != nil {
			continue // the index may lag the bank by a moment
		}
		hits = append(hits, hit{r.ID, r.Lemma, r.Category, r.Scope, r.Status, r.Version})
	}
	return hits, nil
}

// scan is the fallback search: active records whose text contains any
// query word, best-matching first.
func scan(st Store, query string, k int) ([]string, error) {
	recs, err := st.Records(review.RecordFilter{Status: review.Active})
	if err != nil {
		return nil, err
	}
	words := strings.Fields(strings.ToLower(query))
	type scored struct {
		id string
		n  int
	}
	var out []scored
	for _, r := range recs {
		text := strings.ToLower(strings.Join(append([]string{r.ID, r.Lemma, r.Trigger, r.Scope.Env, r.Scope.TaskFamily}, append(r.Scope.Tags, r.Steps...)...), " "))
		n := 0
		for _, w := range words {
			if strings.Contains(text, w) {
				n++
			}
		}
		if n > 0 {
			out = append(out, scored{r.ID, n})
		}
	}
	slices.SortStableFunc(out, func(a, b scored) int { return b.n - a.n })
	ids := make([]string, 0, k)
	for i := 0; i < len(out) && i < k; i++ {
		ids = append(ids, out[i].id)
	}
	return ids, nil
}

// record reads one record, refusing unknown ids as a bad call.
func (c *curation) record(id string) (*review.Record, error) {
	r, err := c.deps.Store.Record(id)
	if errors.Is(err, review.ErrNotFound) {
		return nil, fmt.Errorf("there is no record %q in the bank; use memory_search to find record ids", id)
	}
	if err != nil {
		return nil, fatal("curator: reading record %s failed: %w", id, err)
	}
	return r, nil
}

// probeOut is a probe result as the model sees it.
type probeOut struct {
	ProbeRun  string   `json:"probe_run"`
	Columns   []string `json:"columns,omitempty"`
	Rows      [][]any  `json:"rows,omitempty"`
	Text      string   `json:"text,omitempty"`
	Truncated bool     `json:"truncated,omitempty"`
	Note      string   `json:"note,omitempty"` // mcp: "read-only by your allow-list, not by the server"
	Error     string   `json:"error,omitempty"`
}

func (c *curation) probe(ctx context.Context, tool string, a probeArgs) (any, error) {
	kind := probeTools[tool]
	if !slices.Contains(envNames(c.cfg, kind), a.Env) {
		return nil, fmt.Errorf("%s needs env to be one of the %s environments: %s", tool, kind, strings.Join(envNames(c.cfg, kind), ", "))
	}
	var input string
	switch tool {
	case ToolSQL:
		if strings.TrimSpace(a.SQL) == "" {
			return nil, errors.New("sql_query needs a non-empty sql statement")
		}
		input = a.SQL
	case ToolFilesLs:
		input = "ls " + shellQuote(orDot(a.Path))
	case ToolPostgres:
		if strings.TrimSpace(a.SQL) == "" {
			return nil, errors.New("postgres_query needs a non-empty sql statement")
		}
		input = a.SQL
	case ToolFilesRead:
		var err error
		if input, err = readInput(a); err != nil {
			return nil, err
		}
	case ToolFilesGrep:
		if a.Pattern == "" {
			return nil, errors.New("files_grep needs a pattern")
		}
		input = "grep " + shellQuote(a.Pattern) + " " + shellQuote(orDot(a.Path))
	case ToolFilesSheet:
		if a.Path == "" {
			return nil, errors.New("files_sheet needs the path of an .xlsx file")
		}
		input = "sheet " + shellQuote(a.Path)
		for _, w := range []string{a.Sheet, a.Range} {
			if w != "" {
				input += " " + shellQuote(w)
			}
		}
	case ToolMCP:
		var err error
		if input, err = mcpInput(a); err != nil {
			return nil, err
		}
	}
	env, err := c.deps.resolveEnv(a.Env)
	if err != nil {
		return nil, fatal("curator: cannot resolve environment %s: %w", a.Env, err)
	}
	lim := c.opt.ProbeLimits
	if lim == (probe.Limits{}) {
		lim = probe.DefaultLimits()
	}
	res := c.deps.Probe(ctx, env, input, lim)
	id := fmt.Sprintf("run_%s_%d", c.run.ID, len(c.run.ProbeRuns)+1)
	c.run.ProbeRuns = append(c.run.ProbeRuns, review.ProbeRun{ID: id, Result: res, At: c.deps.Store.Now(), Actor: "curator:" + c.s.Model})
	c.probes = append(c.probes, id)
	return probeOut{id, res.Columns, probe.FiniteRows(res.Rows), res.Text, res.Truncated, res.Note, res.Error}, nil
}

// readInput is files_read's probe: bytes of a text file, or one page,
// slide or sheet of a document.
func readInput(a probeArgs) (string, error) {
	if a.Path == "" {
		return "", errors.New("files_read needs a path")
	}
	input := "read " + shellQuote(a.Path)
	if a.Offset > 0 {
		input += " --offset " + strconv.FormatInt(a.Offset, 10)
	}
	if a.Limit > 0 {
		input += " --limit " + strconv.FormatInt(a.Limit, 10)
	}
	n := 0
	if a.Page > 0 {
		input += " --page " + strconv.Itoa(a.Page)
		n++
	}
	if a.Slide > 0 {
		input += " --slide " + strconv.Itoa(a.Slide)
		n++
	}
	if a.Sheet != "" {
		input += " --sheet " + shellQuote(a.Sheet)
		n++
	}
	if n > 1 {
		return "", errors.New("files_read takes at most one of page, slide and sheet")
	}
	if a.Page < 0 || a.Slide < 0 || a.Offset < 0 || a.Limit < 0 {
		return "", errors.New("files_read: page, slide, offset and limit are 0 or more")
	}
	return input, nil
}

// mcpInput is mcp_call's probe, "TOOL {json arguments}" (the runner checks
// the tool is callable and the arguments against its input schema).
func mcpInput(a probeArgs) (string, error) {
	if a.Tool == "" || strings.ContainsFunc(a.Tool, func(r rune) bool { return r <= ' ' || r == '{' }) {
		return "", fmt.Errorf("mcp_call needs tool to be the name of one callable tool of %s, not %q", a.Env, a.Tool)
	}
	args := bytes.TrimSpace(a.Arguments)
	var text string
	if json.Unmarshal(args, &text) == nil { // a string holding the object
		args = bytes.TrimSpace([]byte(text))
	}
	switch {
	case len(args) == 0 || string(args) == "null":
		args = []byte("{}")
	case args[0] != '{' || !json.Valid(args):
		return "", fmt.Errorf("mcp_call: arguments must be a JSON object, as the input schema of %s asks ({} for none)", a.Tool)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, args); err != nil {
		return "", fmt.Errorf("mcp_call: arguments: %v", err)
	}
	return a.Tool + " " + compact.String(), nil
}

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// shellQuote quotes s for the files-probe grammar (shell-like words).
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// propose validates a propose_* call and queues the proposal in the run.
func (c *curation) propose(op review.Op, tool string, a proposeArgs) (any, error) {
	needRecord := op == review.OpCreate || op == review.OpUpdate || op == review.OpNarrow || op == review.OpMerge
	switch n := len(a.Targets); {
	case op == review.OpCreate && n > 0:
		return nil, errors.New("propose_create takes no targets; use propose_update or propose_merge to change existing records")
	case (op == review.OpUpdate || op == review.OpNarrow) && n != 1:
		return nil, fmt.Errorf("%s needs exactly one target record, not %d", tool, n)
	case (op == review.OpMerge || op == review.OpDelete) && n == 0:
		return nil, fmt.Errorf("%s needs at least one target record", tool)
	}
	if strings.TrimSpace(a.Rationale) == "" {
		return nil, fmt.Errorf("%s needs a rationale citing the evidence", tool)
	}
	if m := review.CheckText(a.Rationale); m != "" {
		return nil, fmt.Errorf("%s: rationale: %s; shorten it", tool, m)
	}
	var targets []review.Target
	for _, id := range a.Targets {
		r, err := c.record(id)
		if err != nil {
			return nil, err
		}
		if r.Status == review.Retired && op != review.OpSkip {
			return nil, fmt.Errorf("record %s is retired; propose changes to active records only", id)
		}
		if slices.ContainsFunc(targets, func(t review.Target) bool { return t.ID == id }) {
			return nil, fmt.Errorf("record %s is named twice in targets", id)
		}
		targets = append(targets, review.Target{ID: r.ID, Version: r.Version})
	}
	n := len(c.traj.Steps)
	var span *review.StepRange
	for i, r := range a.Evidence {
		if err := checkSteps(r, n); err != nil {
			return nil, fmt.Errorf("evidence %d %v", i+1, err)
		}
		if span == nil {
			span = &review.StepRange{From: r.From, To: r.To}
		}
		span.From, span.To = min(span.From, r.From), max(span.To, r.To)
	}
	runs := a.ProbeRuns
	for _, id := range runs {
		if !slices.Contains(c.probes, id) {
			return nil, fmt.Errorf("probe run %q is not one of this session's probe runs (%s)", id, strings.Join(c.probes, ", "))
		}
	}
	if len(runs) == 0 {
		runs = slices.Clone(c.probes)
	}
	p := review.Proposal{
		Op: op, Targets: targets, Rationale: strings.TrimSpace(a.Rationale),
		Evidence:   review.Evidence{Steps: a.Evidence, ProbeRuns: runs},
		Trajectory: c.traj.ID, CuratorRun: c.run.ID, Status: review.Pending, Created: c.deps.Store.Now(),
	}
	if needRecord {
		rec, err := c.newRecord(tool, a.Record)
		if err != nil {
			return nil, err
		}
		rec.Provenance = review.Provenance{Trajectory: c.traj.ID, Steps: span, ProbeRuns: runs}
		if op == review.OpUpdate || op == review.OpNarrow {
			rec.ID = targets[0].ID
		}
		p.Record = rec
	} else if a.Record != nil {
		return nil, fmt.Errorf("%s takes no record", tool)
	}
	if c.deps.Screen != nil {
		if err := c.deps.Screen(&p); err != nil {
			return nil, fmt.Errorf("%s refused: %w", tool, err)
		}
	}
	c.run.Proposals = append(c.run.Proposals, p)
	c.proposed++
	return map[string]any{"queued": tool, "proposal": len(c.run.Proposals), "probe_runs": runs}, nil
}

func (c *curation) newRecord(tool string, a *recordArgs) (*review.Record, error) {
	if a == nil || strings.TrimSpace(a.Lemma) == "" {
		return nil, fmt.Errorf("%s needs record.lemma: one or two sentences stating the lesson", tool)
	}
	if !a.Category.Valid() {
		return nil, fmt.Errorf("record.category %q is not one of %v", a.Category, review.Categories)
	}
	if a.Confidence == nil || *a.Confidence < 0 || *a.Confidence > 1 {
		return nil, errors.New("record.confidence must be a number from 0 to 1")
	}
	if e := a.Scope.Env; e != "" && e != c.traj.Env {
		if _, ok := c.cfg.Env(e); !ok {
			return nil, fmt.Errorf("record.scope.env %q is neither the trajectory's environment nor one in memreview.toml", e)
		}
	}
	rec := &review.Record{
		Lemma: strings.TrimSpace(a.Lemma), Category: a.Category, Scope: a.Scope, Trigger: a.Trigger,
		Steps: a.Steps, Confidence: *a.Confidence, Status: review.Active,
	}
	// The bank's limits, told to the model now so that it can shorten the
	// record, rather than refused when the run's proposals are queued.
	if field, msg := review.CheckRecordLimits(rec); msg != "" {
		if field != "" {
			return nil, fmt.Errorf("record.%s: %s; shorten it", field, msg)
		}
		return nil, fmt.Errorf("record: %s; shorten it", msg)
	}
	return rec, nil
}

// resolveEnv finds an environment through ResolveEnv, else the store's own.
func (d Deps) resolveEnv(name string) (probe.Env, error) {
	if d.ResolveEnv != nil {
		return d.ResolveEnv(name)
	}
	if r, ok := d.Store.(interface {
		ResolveEnv(string) (probe.Env, error)
	}); ok {
		return r.ResolveEnv(name)
	}
	return probe.Env{}, fmt.Errorf("environment %q: this bank resolves no environments", name)
}
