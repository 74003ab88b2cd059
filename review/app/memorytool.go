package app

// The memory tool: a backend for Claude's memory tool (memory_20250818)
// over the bank. The model views, creates, edits, deletes and renames
// files under /memories; a file is a record (memorytool_paths.go says
// where each lives) and every write is a pending proposal, never a record:
// create → create, str_replace and insert → update (checked against the
// version the session viewed), delete → delete, rename → update. A view
// shows the bank with the session's own open proposals laid over it, so
// the model reads what it wrote.
//
// Results and errors are worded as the anthropic SDK's reference handler
// (BetaLocalFilesystemMemoryTool) words them, a write's result followed
// by "(pending review as prop_N)". Where that handler takes what memreview
// cannot — a view_range outside the file, an empty file, binary data or
// terminal escapes, text over the bank's limits — the refusal is worded as
// Anthropic's text-editor reference words it (view_range) or in the same
// voice.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"

	"github.com/memreview/memreview/review"
)

// MemoryCommand is one memory tool call as the model sends it: command
// (view, create, str_replace, insert, delete, rename) and that command's
// fields.
type MemoryCommand struct {
	Command    string  `json:"command"`
	Path       string  `json:"path,omitempty"`
	ViewRange  []int   `json:"view_range,omitempty"`
	FileText   *string `json:"file_text,omitempty"`
	OldStr     *string `json:"old_str,omitempty"`
	NewStr     *string `json:"new_str,omitempty"`
	InsertLine *int    `json:"insert_line,omitempty"`
	InsertText *string `json:"insert_text,omitempty"`
	OldPath    string  `json:"old_path,omitempty"`
	NewPath    string  `json:"new_path,omitempty"`
}

// MemorySession is one model's conversation with the memory tool: the
// record versions it viewed and its writes still open. It is safe for
// concurrent use; commands run one at a time.
type MemorySession struct {
	svc    *Service
	client string // who, for proposals: "memory-tool:CLIENT"

	mu     sync.Mutex
	seen   map[string]int // record id → version viewed
	writes []memoryWrite  // open proposals this session made, oldest first
	// base is the bank's active records as a tree, as of change baseSeq:
	// read again only when the bank has changed since.
	base    *memTree
	baseSeq int64
}

// memoryWrite is one proposal the session queued: the file it left at
// path (none for a delete) and the path it took the file from (a rename
// or a delete of a record).
type memoryWrite struct {
	proposal string
	path     memPath
	deleted  bool
	from     []memPath
	record   string
	version  int
	text     string
}

// maxMemoryDelete caps the records one delete of a directory proposes to
// retire.
const maxMemoryDelete = 500

// NewMemorySession starts a memory tool session for client (an MCP
// client's name, an HTTP caller's session name).
func (s *Service) NewMemorySession(client string) *MemorySession {
	return &MemorySession{svc: s, client: idSafeName(client), seen: map[string]int{}}
}

// idSafeName keeps the characters an id may hold ("unknown" for none).
func idSafeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '-'
	}, s)
	if len(s) > 64 {
		s = s[:64]
	}
	if strings.Trim(s, "-") == "" {
		return "unknown"
	}
	return s
}

// Run executes one command and returns the tool result the model reads.
// A *MemoryToolError is the tool's own refusal (nothing was queued); any
// other error is the bank failing.
func (m *MemorySession) Run(ctx context.Context, cmd MemoryCommand) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch cmd.Command {
	case "view":
		return m.view(cmd)
	case "create":
		return m.create(ctx, cmd)
	case "str_replace":
		return m.strReplace(ctx, cmd)
	case "insert":
		return m.insert(ctx, cmd)
	case "delete":
		return m.delete(ctx, cmd)
	case "rename":
		return m.rename(ctx, cmd)
	}
	return "", memoryError("Unknown command: %s", cmd.Command)
}

func required(cmd MemoryCommand, field string, missing bool) error {
	if missing {
		return memoryError("Parameter `%s` is required for command: %s", field, cmd.Command)
	}
	return nil
}

// tree is the bank as this session sees it: every active record, then its
// open writes in order. Writes decided meanwhile are forgotten (an
// accepted one is in the bank now).
func (m *MemorySession) tree() (*memTree, error) {
	seq, err := m.svc.b.LastSeq()
	if err != nil {
		return nil, err
	}
	if err := m.catchUp(seq); err != nil {
		return nil, err
	}
	t := &memTree{files: maps.Clone(m.base.files)}
	open := m.writes[:0]
	for _, w := range m.writes {
		p, err := m.svc.b.Proposal(w.proposal)
		if err != nil {
			return nil, err
		}
		switch {
		case p.Status.Open():
			open = append(open, w)
		case p.Status == review.Accepted && w.record != "":
			// The session wrote that version itself.
			if r, err := m.svc.b.Record(w.record); err == nil {
				m.seen[w.record] = r.Version
			}
		}
	}
	m.writes = open
	for _, w := range m.writes {
		for _, from := range w.from {
			delete(t.files, from.String())
		}
		if !w.deleted {
			t.files[w.path.String()] = &memFile{at: w.path, path: w.path.String(), text: w.text, record: w.record, version: w.version, proposal: w.proposal}
		}
	}
	return t, nil
}

// maxCatchUp is the most changed records the session's tree takes in one
// by one; past it the bank is read again whole.
const maxCatchUp = 500

// catchUp brings the session's tree of active records to change seq: the
// records changed since are read again (a proposal changes none), or,
// the first time or after many changes, all of them.
func (m *MemorySession) catchUp(seq int64) error {
	if m.base != nil && seq == m.baseSeq {
		return nil
	}
	if m.base != nil {
		changes, err := m.svc.b.ChangesSince(m.baseSeq)
		if err != nil {
			return err
		}
		var ids []string
		for _, c := range changes {
			if c.Kind == "record" {
				ids = append(ids, c.ID)
			}
		}
		if len(ids) <= maxCatchUp {
			for _, id := range ids {
				m.base.removeRecord(id)
				r, err := m.svc.b.Record(id)
				if errors.Is(err, review.ErrNotFound) {
					continue
				}
				if err != nil {
					return err
				}
				if r.Status == review.Active {
					m.base.addRecord(r)
				}
			}
			m.baseSeq = seq
			return nil
		}
	}
	recs, err := m.svc.b.Records(review.RecordFilter{Status: review.Active})
	if err != nil {
		return err
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].ID < recs[j].ID })
	base := newMemTree()
	for i := range recs {
		base.addRecord(&recs[i])
	}
	m.base, m.baseSeq = base, seq
	return nil
}

// lookup is the session's tree and what p names in it.
func (m *MemorySession) lookup(p string) (*memTree, memPath, error) {
	t, err := m.tree()
	if err != nil {
		return nil, memPath{}, err
	}
	at, err := t.resolve(p)
	return t, at, err
}

func (m *MemorySession) view(cmd MemoryCommand) (string, error) {
	t, at, err := m.lookup(cmd.Path)
	if err != nil {
		return "", err
	}
	if !t.exists(at) {
		return "", memoryError("The path %s does not exist. Please provide a valid path.", cmd.Path)
	}
	if at.depth < 3 {
		if len(cmd.ViewRange) > 0 {
			return "", memoryError("The `view_range` parameter is not allowed when `path` points to a directory.")
		}
		return m.listing(t, at, cmd.Path), nil
	}
	f := t.file(at)
	if f.record != "" && f.proposal == "" {
		m.seen[f.record] = f.version
	}
	lines := strings.Split(f.text, "\n")
	first := 1
	if vr := cmd.ViewRange; len(vr) > 0 {
		if len(vr) != 2 {
			return "", memoryError("Invalid `view_range`. It should be a list of two integers.")
		}
		n, a, b := len(lines), vr[0], vr[1]
		switch {
		case a < 1 || a > n:
			return "", memoryError("Invalid `view_range`: [%d, %d]. Its first element `%d` should be within the range of lines of the file: [1, %d]", a, b, a, n)
		case b > n:
			return "", memoryError("Invalid `view_range`: [%d, %d]. Its second element `%d` should be smaller than the number of lines in the file: `%d`", a, b, b, n)
		case b != -1 && b < a:
			return "", memoryError("Invalid `view_range`: [%d, %d]. Its second element `%d` should be larger or equal than its first `%d`", a, b, b, a)
		}
		if b == -1 {
			b = n
		}
		lines, first = lines[a-1:b], a
	}
	return fmt.Sprintf("Here's the content of %s with line numbers:\n%s", cmd.Path, numbered(lines, first)), nil
}

// maxListing caps the entries of one directory listing.
const maxListing = 2000

// listing is a directory's files and directories two levels deep, as the
// reference lists them; a directory's size is the bytes of the files in it.
func (m *MemorySession) listing(t *memTree, d memPath, shown string) string {
	base := strings.TrimSuffix(shown, "/")
	type entry struct {
		rel  string
		size int
	}
	// The directories below d, by their path below it: env/ and
	// env/category/ under the root, category/ under an environment.
	type dirKey struct {
		env string
		cat review.Category
	}
	sizes := map[dirKey]int{}
	var files []entry
	total := 0
	for _, f := range t.filesUnder(d) {
		n := len(f.text)
		total += n
		env := envDir(f.at.env)
		if strings.HasPrefix(f.at.name, ".") || d.depth == 0 && strings.HasPrefix(env, ".") {
			continue // hidden, as the reference hides them
		}
		switch d.depth {
		case 0:
			sizes[dirKey{env, ""}] += n
			sizes[dirKey{env, f.at.category}] += n
		case 1:
			sizes[dirKey{"", f.at.category}] += n
			files = append(files, entry{string(f.at.category) + "/" + f.at.name, n})
		case 2:
			files = append(files, entry{f.at.name, n})
		}
	}
	entries := files
	for k, n := range sizes {
		rel := k.env + "/"
		switch {
		case k.env == "":
			rel = string(k.cat) + "/"
		case k.cat != "":
			rel = k.env + "/" + string(k.cat) + "/"
		}
		entries = append(entries, entry{rel, n})
	}
	sort.Slice(entries, func(i, j int) bool { return listOrder(entries[i].rel) < listOrder(entries[j].rel) })
	var b strings.Builder
	fmt.Fprintf(&b, "Here're the files and directories up to 2 levels deep in %s, excluding hidden items:\n%s\t%s", shown, fileSize(total), shown)
	for i, e := range entries {
		if i == maxListing {
			fmt.Fprintf(&b, "\n(%d more entries left out; view a directory below %s)", len(entries)-maxListing, shown)
			break
		}
		fmt.Fprintf(&b, "\n%s\t%s/%s", fileSize(e.size), base, e.rel)
	}
	return b.String()
}

// listOrder sorts a listing as the reference walks it: each directory's
// entries by name, a directory's contents right after it.
func listOrder(rel string) string {
	return strings.ReplaceAll(strings.TrimSuffix(rel, "/"), "/", "\x00")
}

// checkText refuses text the bank cannot hold as a memory file; verb is
// what was not done ("No file was created").
func checkText(verb, field, text string) error {
	if msg := textProblem(field, text); msg != "" {
		return memoryError("%s: %s.", verb, msg)
	}
	if len(text) > review.MaxTextBytes {
		return memoryError("%s: %s is %d bytes, over the %d a memory file may hold.", verb, field, len(text), review.MaxTextBytes)
	}
	return nil
}

func (m *MemorySession) create(ctx context.Context, cmd MemoryCommand) (string, error) {
	if err := required(cmd, "file_text", cmd.FileText == nil); err != nil {
		return "", err
	}
	t, at, err := m.lookup(cmd.Path)
	if err != nil {
		return "", err
	}
	if at.depth != 3 || t.exists(at) {
		return "", memoryError("File %s already exists", cmd.Path)
	}
	if err := m.writable(cmd.Path, at); err != nil {
		return "", err
	}
	text := *cmd.FileText
	if err := checkText("No file was created", "file_text", text); err != nil {
		return "", err
	}
	if strings.TrimSpace(text) == "" {
		return "", memoryError("No file was created: file_text is empty; a memory file holds a lesson worth keeping.")
	}
	id, err := m.write(ctx, memoryWrite{path: at, text: text}, nil, "create", cmd.Path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("File created successfully at: %s (pending review as %s)", cmd.Path, id), nil
}

// writable refuses a file the bank cannot hold at at: an environment
// name the bank refuses.
func (m *MemorySession) writable(shown string, at memPath) error {
	if at.env != "" {
		if err := review.CheckEnvName(at.env); err != nil {
			return layoutError(shown)
		}
	}
	if at.name == "" || strings.HasPrefix(at.name, "..") {
		return layoutError(shown)
	}
	return nil
}

// editable finds the file an edit names: it must be there and be a file.
func (m *MemorySession) editable(cmd MemoryCommand) (*memTree, *memFile, error) {
	t, at, err := m.lookup(cmd.Path)
	if err != nil {
		return nil, nil, err
	}
	if !t.exists(at) {
		return nil, nil, memoryError("The path %s does not exist. Please provide a valid path.", cmd.Path)
	}
	if at.depth != 3 {
		return nil, nil, memoryError("The path %s is not a file.", cmd.Path)
	}
	f := t.file(at)
	if f.record != "" && f.proposal == "" {
		// The edit applies to the version the session viewed.
		if v, ok := m.seen[f.record]; ok && v != f.version {
			r, err := m.svc.b.RecordVersion(f.record, v)
			if err != nil {
				return nil, nil, err
			}
			f = &memFile{at: f.at, path: f.path, text: recordText(r), record: f.record, version: v}
		}
	}
	return t, f, nil
}

func (m *MemorySession) strReplace(ctx context.Context, cmd MemoryCommand) (string, error) {
	if err := required(cmd, "old_str", cmd.OldStr == nil); err != nil {
		return "", err
	}
	newStr := ""
	if cmd.NewStr != nil {
		newStr = *cmd.NewStr
	}
	_, f, err := m.editable(cmd)
	if err != nil {
		return "", err
	}
	content, old := f.text, *cmd.OldStr
	switch n := strings.Count(content, old); {
	case n == 0:
		return "", memoryError("No replacement was performed, old_str `%s` did not appear verbatim in %s.", old, cmd.Path)
	case n > 1:
		lines := occurrences(content, old)
		nums := make([]string, len(lines))
		for i, l := range lines {
			nums[i] = fmt.Sprint(l)
		}
		return "", memoryError("No replacement was performed. Multiple occurrences of old_str `%s` in lines: %s. Please ensure it is unique", old, strings.Join(nums, ", "))
	}
	if err := checkText("No replacement was performed", "new_str", newStr); err != nil {
		return "", err
	}
	changed := strings.Count(content[:strings.Index(content, old)], "\n")
	updated := strings.Replace(content, old, newStr, 1)
	if err := m.checkEdit("No replacement was performed", updated); err != nil {
		return "", err
	}
	id, err := m.edit(ctx, f, updated, "str_replace", cmd.Path)
	if err != nil {
		return "", err
	}
	lines := strings.Split(updated, "\n")
	from, to := max(0, changed-2), min(len(lines), changed+3)
	return fmt.Sprintf("The memory file has been edited. Here is the snippet showing the change (with line numbers):\n%s\n(pending review as %s)",
		numbered(lines[from:to], from+1), id), nil
}

// checkEdit refuses an edit whose result the bank cannot hold.
func (m *MemorySession) checkEdit(verb, text string) error {
	if len(text) > review.MaxTextBytes {
		return memoryError("%s: the file would be %d bytes, over the %d a memory file may hold.", verb, len(text), review.MaxTextBytes)
	}
	if strings.TrimSpace(text) == "" {
		return memoryError("%s: the file would be empty; delete it instead.", verb)
	}
	return nil
}

func (m *MemorySession) insert(ctx context.Context, cmd MemoryCommand) (string, error) {
	if err := required(cmd, "insert_line", cmd.InsertLine == nil); err != nil {
		return "", err
	}
	if err := required(cmd, "insert_text", cmd.InsertText == nil); err != nil {
		return "", err
	}
	_, f, err := m.editable(cmd)
	if err != nil {
		return "", err
	}
	lines := splitLines(f.text)
	n := *cmd.InsertLine
	if n < 0 || n > len(lines) {
		return "", memoryError("Invalid `insert_line` parameter: %d. It should be within the range [0, %d].", n, len(lines))
	}
	if err := checkText("No insertion was performed", "insert_text", *cmd.InsertText); err != nil {
		return "", err
	}
	lines = append(lines[:n], append([]string{strings.TrimRight(*cmd.InsertText, "\n")}, lines[n:]...)...)
	updated := strings.Join(lines, "\n")
	if !strings.HasSuffix(updated, "\n") {
		updated += "\n"
	}
	if err := m.checkEdit("No insertion was performed", updated); err != nil {
		return "", err
	}
	id, err := m.edit(ctx, f, updated, "insert", cmd.Path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("The file %s has been edited. (pending review as %s)", cmd.Path, id), nil
}

// edit queues a file's new text: an update of its record, or (a file this
// session created) a create that replaces the earlier one.
func (m *MemorySession) edit(ctx context.Context, f *memFile, text, command, shown string) (string, error) {
	w := memoryWrite{path: f.at, text: text, record: f.record, version: f.version}
	return m.write(ctx, w, f, command, shown)
}

func (m *MemorySession) delete(ctx context.Context, cmd MemoryCommand) (string, error) {
	t, at, err := m.lookup(cmd.Path)
	if err != nil {
		return "", err
	}
	if at.depth == 0 {
		return "", memoryError("Cannot delete the /memories directory itself")
	}
	if !t.exists(at) {
		return "", memoryError("The path %s does not exist", cmd.Path)
	}
	files := []*memFile{t.file(at)}
	if at.depth < 3 {
		files = byPath(t.filesUnder(at))
	}
	var targets []review.Target
	var from []memPath
	var withdrawn []string
	for _, f := range files {
		if f.proposal != "" {
			withdrawn = append(withdrawn, f.proposal)
		}
		if f.record != "" {
			targets = append(targets, review.Target{ID: f.record, Version: m.viewed(f)})
			from = append(from, f.at)
		}
	}
	if len(targets) > maxMemoryDelete {
		return "", memoryError("The path %s holds %d records; memreview deletes at most %d at once: delete a directory below it", cmd.Path, len(targets), maxMemoryDelete)
	}
	if len(targets) == 0 { // only this session's own new files: withdraw them
		m.withdraw(ctx, withdrawn, "")
		return fmt.Sprintf("Successfully deleted %s (withdrew %s, this session's pending proposal)", cmd.Path, strings.Join(withdrawn, ", ")), nil
	}
	p := review.Proposal{Op: review.OpDelete, Targets: targets}
	id, err := m.queue(ctx, p, "delete", cmd.Path, withdrawn)
	if err != nil {
		return "", err
	}
	m.writes = append(m.writes, memoryWrite{proposal: id, deleted: true, from: from})
	return fmt.Sprintf("Successfully deleted %s (pending review as %s)", cmd.Path, id), nil
}

// viewed is the version of a file's record the session viewed, else the
// version the tree holds.
func (m *MemorySession) viewed(f *memFile) int {
	if v, ok := m.seen[f.record]; ok {
		return v
	}
	return f.version
}

func (m *MemorySession) rename(ctx context.Context, cmd MemoryCommand) (string, error) {
	if err := required(cmd, "old_path", cmd.OldPath == ""); err != nil {
		return "", err
	}
	if err := required(cmd, "new_path", cmd.NewPath == ""); err != nil {
		return "", err
	}
	t, from, err := m.lookup(cmd.OldPath)
	if err != nil {
		return "", err
	}
	to, err := t.resolve(cmd.NewPath)
	if err != nil {
		return "", err
	}
	if t.exists(to) {
		return "", memoryError("The destination %s already exists", cmd.NewPath)
	}
	if !t.exists(from) {
		return "", memoryError("The path %s does not exist", cmd.OldPath)
	}
	if from.depth != 3 || to.depth != 3 {
		return "", memoryError("The path %s is a directory; memreview renames one file at a time", cmd.OldPath)
	}
	if err := m.writable(cmd.NewPath, to); err != nil {
		return "", err
	}
	f := t.file(from)
	if f.record != "" && to.name != from.name {
		r, err := m.svc.b.Record(f.record)
		if err != nil {
			return "", err
		}
		if src := r.Provenance.Source; src != nil && src.Format != MemoryToolSource {
			return "", memoryError("The path %s cannot be renamed to %s: record %s was imported from %s and keeps its name; move it to another directory as %s",
				cmd.OldPath, cmd.NewPath, f.record, src.Format, from.name)
		}
	}
	w := memoryWrite{path: to, text: f.text, record: f.record, version: f.version, from: []memPath{from}}
	if f.record != "" {
		w.version = m.viewed(f)
	}
	id, err := m.write(ctx, w, f, "rename", cmd.OldPath+" to "+cmd.NewPath)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Successfully renamed %s to %s (pending review as %s)", cmd.OldPath, cmd.NewPath, id), nil
}

// write queues the proposal a write makes — a create for a file the bank
// does not hold, an update of the record otherwise — and remembers it.
// prev is the file as the session saw it (nil for a new file): when it
// came from one of the session's own open proposals, that one is
// withdrawn in favour of the new one.
func (m *MemorySession) write(ctx context.Context, w memoryWrite, prev *memFile, command, shown string) (string, error) {
	lemma, trigger, steps := parseMemoryText(w.text)
	var p review.Proposal
	if w.record == "" {
		rec := &review.Record{Lemma: lemma, Trigger: trigger, Steps: steps, Category: w.path.category,
			Scope: review.Scope{Env: w.path.env}, Confidence: 0.5, Status: review.Active,
			Provenance: review.Provenance{Source: &review.Source{Format: MemoryToolSource, File: w.path.String()}}}
		p = review.Proposal{Op: review.OpCreate, Record: rec}
	} else {
		cur, err := m.svc.b.Record(w.record)
		if err != nil {
			return "", err
		}
		rec := *cur
		rec.Lemma, rec.Trigger, rec.Steps = lemma, trigger, steps
		rec.Category, rec.Scope.Env = w.path.category, w.path.env
		// A record named by its id keeps its provenance; one the memory
		// tool named (or renames) records its path.
		if src := cur.Provenance.Source; w.path.name != cur.ID+".md" || src != nil && src.Format == MemoryToolSource {
			rec.Provenance.Source = &review.Source{Format: MemoryToolSource, File: w.path.String()}
		}
		version := w.version
		if v, ok := m.seen[w.record]; ok {
			version = v
		}
		p = review.Proposal{Op: review.OpUpdate, Targets: []review.Target{{ID: w.record, Version: version}}, Record: &rec}
	}
	var withdrawn []string
	if prev != nil && prev.proposal != "" {
		withdrawn = []string{prev.proposal}
	}
	id, err := m.queue(ctx, p, command, shown, withdrawn)
	if err != nil {
		return "", err
	}
	w.proposal = id
	m.writes = append(m.writes, w)
	return id, nil
}

// queue stores one proposal of this session and withdraws the earlier
// proposals it replaces.
func (m *MemorySession) queue(ctx context.Context, p review.Proposal, command, shown string, replaces []string) (string, error) {
	p.Status = review.Pending
	p.Source = MemoryToolSource
	p.CuratorRun = MemoryToolSource + ":" + m.client
	p.Rationale = fmt.Sprintf("Claude's memory tool (client %s) ran %s on %s; memreview queued the write for review instead of making it.", m.client, command, shown)
	if len(replaces) > 0 {
		p.Rationale += fmt.Sprintf(" It replaces %s, this session's earlier write to the same file.", strings.Join(replaces, ", "))
	}
	res, err := m.svc.Import(ctx, KindProposals, []ImportInput{{Name: "memory tool", Proposals: []review.Proposal{p}}}, ImportOptions{Actor: p.CuratorRun})
	if err != nil {
		var ie *InputError
		if errors.As(err, &ie) {
			return "", memoryError("The bank refused the write: %s", ie.Msg)
		}
		return "", fmt.Errorf("queue the memory tool's %s: %w", command, err)
	}
	id := res.Proposals[0].ID
	m.withdraw(ctx, replaces, id)
	return id, nil
}

// withdraw closes this session's earlier proposals that a later write
// replaced, as rejected by the session itself with a note; one a person
// has claimed or decided meanwhile is left as it is.
func (m *MemorySession) withdraw(ctx context.Context, ids []string, by string) {
	for _, id := range ids {
		note := "withdrawn: the memory tool session deleted the file it proposed"
		if by != "" {
			note = "superseded by " + by + ": the memory tool session wrote the file again"
		}
		if _, err := m.svc.Decide(ctx, review.DecideRequest{Proposal: id, Verb: review.Reject, Operator: MemoryToolSource + ":" + m.client, Note: note}); err != nil {
			m.svc.opt.Warnf("memory tool: %s stays open (%v)", id, err)
			continue
		}
		kept := m.writes[:0]
		for _, w := range m.writes {
			if w.proposal != id {
				kept = append(kept, w)
			}
		}
		m.writes = kept
	}
}
