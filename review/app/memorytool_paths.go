package app

// The memory tool's paths: which memory file or directory a /memories path
// names, and the tree the bank reads as.
//
// The layout: /memories/ENV/CATEGORY/NAME is a record — ENV its scope's
// environment (AnyEnvDir for a record that applies to any), CATEGORY its
// category, NAME its id plus ".md", or the name the memory tool gave a
// file it created. Shorter paths are the model's shorthand:
// /memories/NAME is /memories/_any/fact/NAME and /memories/ENV/NAME is
// /memories/ENV/fact/NAME, unless they name a directory that is there.

import (
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/memreview/memreview/review"
)

// MemoryRoot is where the memory tool's files live; AnyEnvDir is the
// directory of records that apply to any environment; MemoryToolSource is
// the provenance format of records the memory tool created.
const (
	MemoryRoot       = "/memories"
	AnyEnvDir        = "_any"
	MemoryToolSource = "memory-tool"
	// defaultMemoryCategory is the category of a file written outside a
	// category directory.
	defaultMemoryCategory = review.Fact
	// maxPathBytes and maxNameBytes are the operating system's limits the
	// reference handler runs into (PATH_MAX, NAME_MAX).
	maxPathBytes = 4096
	maxNameBytes = 255
)

// memPath is a path resolved to memreview's layout.
type memPath struct {
	env      string          // "" for AnyEnvDir
	category review.Category // "" for a directory above the categories
	name     string          // "" for a directory
	depth    int             // 0 root, 1 env directory, 2 category directory, 3 a file
}

func (p memPath) String() string {
	segs := []string{MemoryRoot}
	if p.depth >= 1 {
		segs = append(segs, envDir(p.env))
	}
	if p.depth >= 2 {
		segs = append(segs, string(p.category))
	}
	if p.depth == 3 {
		segs = append(segs, p.name)
	}
	return strings.Join(segs, "/")
}

func envDir(env string) string {
	if env == "" {
		return AnyEnvDir
	}
	return env
}

// memoryError is the memory tool's error result: what the model reads.
func memoryError(format string, args ...any) error {
	return &MemoryToolError{Msg: fmt.Sprintf(format, args...)}
}

// MemoryToolError is a memory tool command refused with the reference
// handler's words; nothing was queued.
type MemoryToolError struct{ Msg string }

func (e *MemoryToolError) Error() string { return e.Msg }

// pathSegments checks a path as the reference handler does (it must start
// with /memories and stay inside it) and as memreview must (no "..", also
// when percent-encoded or written with backslashes; the operating
// system's length limits; no NUL or control characters) and returns its
// segments below /memories.
func pathSegments(p string) ([]string, error) {
	if !strings.HasPrefix(p, MemoryRoot) {
		return nil, memoryError("Path must start with /memories, got: %s", p)
	}
	if !utf8.ValidString(p) {
		return nil, memoryError("Path %s would escape /memories directory", strings.ToValidUTF8(p, "\uFFFD"))
	}
	if strings.ContainsRune(p, 0) {
		return nil, memoryError("ValueError('embedded null byte')")
	}
	if strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 }) {
		return nil, memoryError("The path %q holds control characters; a memory path is printable text", p)
	}
	rel := strings.TrimLeft(p[len(MemoryRoot):], "/")
	decoded := rel
	for range 3 { // %252e%252e is %2e%2e once decoded
		d, err := url.PathUnescape(decoded)
		if err != nil || d == decoded {
			break
		}
		decoded = d
	}
	for _, form := range []string{rel, decoded} {
		for _, seg := range strings.FieldsFunc(form, func(r rune) bool { return r == '/' || r == '\\' }) {
			if seg == ".." {
				return nil, memoryError("Path %s would escape /memories directory", p)
			}
		}
	}
	var segs []string
	for _, seg := range strings.Split(rel, "/") {
		if len(seg) > maxNameBytes || len(p) > maxPathBytes {
			return nil, memoryError("File name too long: %s", p)
		}
		if seg != "" && seg != "." {
			segs = append(segs, seg)
		}
	}
	return segs, nil
}

// layoutError says a path is not in memreview's layout.
func layoutError(p string) error {
	return memoryError("The path %s is not in memreview's layout: /memories/ENV/CATEGORY/NAME (ENV an environment or %s for any, CATEGORY one of %s), or /memories/NAME and /memories/ENV/NAME for a %s",
		p, AnyEnvDir, categoryNames(), defaultMemoryCategory)
}

func categoryNames() string {
	names := make([]string, len(review.Categories))
	for i, c := range review.Categories {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// resolve reads p against the tree: the directory or file it names (a
// file that is not there yet when it names none). Shorthand paths name a
// directory when there is one, else a file of the default category.
func (t *memTree) resolve(p string) (memPath, error) {
	segs, err := pathSegments(p)
	if err != nil {
		return memPath{}, err
	}
	envOf := func(s string) string {
		if s == AnyEnvDir {
			return ""
		}
		return s
	}
	switch len(segs) {
	case 0:
		return memPath{}, nil
	case 1:
		if d := (memPath{env: envOf(segs[0]), depth: 1}); t.isDir(d) {
			return d, nil
		}
		return memPath{category: defaultMemoryCategory, name: segs[0], depth: 3}, nil
	case 2:
		if c := review.Category(segs[1]); c.Valid() {
			if d := (memPath{env: envOf(segs[0]), category: c, depth: 2}); t.isDir(d) {
				return d, nil
			}
		}
		return memPath{env: envOf(segs[0]), category: defaultMemoryCategory, name: segs[1], depth: 3}, nil
	case 3:
		if c := review.Category(segs[1]); c.Valid() {
			return memPath{env: envOf(segs[0]), category: c, name: segs[2], depth: 3}, nil
		}
	}
	return memPath{}, layoutError(p)
}

// memFile is one file of the tree: a record, or a write this session
// queued (then proposal names it).
type memFile struct {
	at   memPath
	path string // at.String(), kept

	text     string
	record   string // the record it is ("" for a file this session created)
	version  int
	proposal string // this session's open proposal that wrote it
}

// memTree is the bank as the memory tool shows it.
type memTree struct {
	files    map[string]*memFile // by canonical path
	byRecord map[string]string   // record id → its path (the session's base tree)
}

func newMemTree() *memTree {
	return &memTree{files: map[string]*memFile{}, byRecord: map[string]string{}}
}

// removeRecord takes a record out of the tree.
func (t *memTree) removeRecord(id string) {
	if p, ok := t.byRecord[id]; ok {
		delete(t.files, p)
		delete(t.byRecord, id)
	}
}

// fileName is the name a record has in the tree: the one the memory tool
// gave it, else its id plus ".md".
func fileName(r *review.Record) string {
	if src := r.Provenance.Source; src != nil && src.Format == MemoryToolSource {
		if n := path.Base(src.File); n != "" && n != "." && n != "/" {
			return n
		}
	}
	return r.ID + ".md"
}

// recordPath is where a record is in the tree; ok is false for a record
// whose environment cannot be a directory name.
func recordPath(r *review.Record) (memPath, bool) {
	if strings.ContainsAny(r.Scope.Env, `/\`) || r.Scope.Env == AnyEnvDir {
		return memPath{}, false
	}
	return memPath{env: r.Scope.Env, category: r.Category, name: fileName(r), depth: 3}, true
}

// addRecord puts a record in the tree; a name another record holds there
// already falls back to the record's id.
func (t *memTree) addRecord(r *review.Record) {
	at, ok := recordPath(r)
	if !ok {
		return
	}
	if _, taken := t.files[at.String()]; taken {
		at.name = r.ID + ".md"
		if _, taken := t.files[at.String()]; taken {
			return
		}
	}
	t.files[at.String()] = &memFile{at: at, path: at.String(), text: recordText(r), record: r.ID, version: r.Version}
	t.byRecord[r.ID] = at.String()
}

func (t *memTree) file(at memPath) *memFile {
	if at.depth != 3 {
		return nil
	}
	return t.files[at.String()]
}

// isDir reports whether a directory holds any file (the root always is).
func (t *memTree) isDir(d memPath) bool {
	if d.depth == 0 {
		return true
	}
	for _, f := range t.files {
		if under(f.at, d) {
			return true
		}
	}
	return false
}

// under reports whether file f lies in directory d.
func under(f, d memPath) bool {
	switch d.depth {
	case 0:
		return true
	case 1:
		return f.env == d.env
	case 2:
		return f.env == d.env && f.category == d.category
	}
	return false
}

// exists reports whether at names a file or a directory of the tree.
func (t *memTree) exists(at memPath) bool {
	if at.depth == 3 {
		return t.file(at) != nil
	}
	return t.isDir(at)
}

// filesUnder lists the files in directory d, in no order.
func (t *memTree) filesUnder(d memPath) []*memFile {
	var out []*memFile
	for _, f := range t.files {
		if under(f.at, d) {
			out = append(out, f)
		}
	}
	return out
}

// byPath sorts files by path.
func byPath(fs []*memFile) []*memFile {
	sort.Slice(fs, func(i, j int) bool { return fs[i].path < fs[j].path })
	return fs
}
