package formats

// Instruction files, the import side: AGENTS.md, CLAUDE.md, a Claude Code
// memory folder's files and .cursor/rules (.mdc) files, one memory per
// bullet or paragraph, cited with its file and line. A bullet's nested
// bullets are its steps; a fenced block belongs to the item before it;
// headings name the section (a tag, and the category when they say
// which); front matter, HTML comments, "@file" imports and memreview's
// own exported section are not memories.

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memreview/memreview/review"
)

// MaxMemoryFileBytes caps one line of an instruction file.
const MaxMemoryFileBytes = 16 << 20

func init() {
	register(&Format{Name: "agents-md", Kind: Memories,
		About: "instruction files (AGENTS.md, CLAUDE.md, a Claude Code memory folder, .cursor/rules .mdc): one memory per bullet or paragraph, cited by file and line",
		fits:  fitsAgentsMD, memories: readAgentsMD})
}

var (
	bulletRe  = regexp.MustCompile(`^( *)(?:[-*+]|\d{1,9}[.)])(?: +(.*))?$`)
	headingRe = regexp.MustCompile(`^ {0,3}(#{1,6})(?: +(.*?))?(?: +#+)? *$`)
	ruleRe    = regexp.MustCompile(`^ {0,3}(?:(?:- *){3,}|(?:\* *){3,}|(?:_ *){3,})$`)
)

func fitsAgentsMD(in *Input) error {
	sh := in.getShape()
	if sh.kind != "" {
		return errors.New("JSON, not Markdown")
	}
	if !utf8.Valid(in.Data) || len(strings.TrimSpace(string(in.Data))) == 0 {
		return errors.New(sh.why)
	}
	lower := strings.ToLower(in.File)
	for _, ext := range []string{".md", ".mdc", ".markdown"} {
		if strings.HasSuffix(lower, ext) {
			return nil
		}
	}
	for _, line := range strings.SplitN(string(in.Data), "\n", 200) {
		if headingRe.MatchString(line) || bulletRe.MatchString(line) && strings.TrimSpace(line) != "-" {
			return nil
		}
	}
	return errors.New("no Markdown heading or bullet in its first 200 lines, and not named .md or .mdc")
}

// mdItem is one bullet or paragraph being read.
type mdItem struct {
	line    int
	text    []string
	steps   []string
	section string
}

func readAgentsMD(in *Input, rep *Report) ([]Memory, error) {
	// A line ends at LF, CRLF, or a CR that ends the file (which splicing
	// a section after it turns into CRLF: the line reads the same).
	lines := strings.Split(string(in.Data), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	var items []*mdItem
	var cur *mdItem
	section := ""
	inList := false
	end := func() { cur = nil }
	skip := func(reason string) { rep.Skip(reason, 1) }
	for i := 0; i < len(lines); i++ {
		raw := lines[i]
		t := strings.TrimSpace(raw)
		n := i + 1
		switch {
		case i == 0 && t == "---": // front matter (.mdc description, globs)
			j := i + 1
			for j < len(lines) && strings.TrimSpace(lines[j]) != "---" {
				j++
			}
			if j < len(lines) {
				rep.Skip("front matter lines", j-i+1)
				i = j
				continue
			}
		case strings.HasPrefix(t, SectionBegin):
			j := i
			for j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), strings.TrimSuffix(SectionEnd, " -->")) {
				j++
			}
			rep.Note("lines %d-%d are memreview's own exported section (its records are in the bank already): not read", n, min(j+1, len(lines)))
			i = j
			end()
			continue
		case strings.HasPrefix(t, "<!--"):
			j := i
			for j < len(lines) && !strings.Contains(lines[j], "-->") {
				j++
			}
			skip("HTML comments")
			i = j
			continue
		}
		if f := fenceOf(t); f != "" { // a fenced block joins the item before it
			j := i + 1
			for j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), f) {
				j++
			}
			block := lines[i:min(j+1, len(lines))]
			if cur == nil && len(items) > 0 && items[len(items)-1].section == section {
				cur = items[len(items)-1]
			}
			if cur == nil {
				cur = &mdItem{line: n, section: section}
				items = append(items, cur)
			}
			cur.text = append(cur.text, block...)
			i = j
			end()
			continue
		}
		switch {
		case t == "":
			if !inList {
				end()
			}
			continue
		case headingRe.MatchString(raw):
			section = strings.TrimSpace(headingRe.FindStringSubmatch(raw)[2])
			inList = false
			end()
			continue
		case ruleRe.MatchString(raw):
			inList = false
			end()
			continue
		case strings.HasPrefix(t, "@") && !strings.ContainsAny(t, " \t"):
			rep.Note("line %d imports %s: imported files are not followed (import them too)", n, t)
			continue
		}
		if m := bulletRe.FindStringSubmatch(raw); m != nil {
			indent, text := len(m[1]), strings.TrimSpace(m[2])
			if indent >= 2 && cur != nil && inList {
				cur.steps = append(cur.steps, text)
				continue
			}
			if text == "" {
				continue
			}
			cur = &mdItem{line: n, text: []string{text}, section: section}
			items = append(items, cur)
			inList = true
			continue
		}
		indented := strings.HasPrefix(raw, "  ") || strings.HasPrefix(raw, "\t")
		switch {
		case cur != nil && inList && indented && len(cur.steps) > 0:
			cur.steps[len(cur.steps)-1] += " " + t
		case cur != nil && (indented || !inList):
			cur.text = append(cur.text, t)
		default:
			inList = false
			cur = &mdItem{line: n, text: []string{t}, section: section}
			items = append(items, cur)
		}
	}
	var out []Memory
	for _, it := range items {
		m, err := it.memory(in)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, &InputError{File: in.File, Msg: "no bullet or paragraph to import (only headings, comments or front matter)"}
	}
	return out, nil
}

// memory turns an item into its create proposal: the bullet or paragraph
// is the lemma, nested bullets the steps, the section a tag.
func (it *mdItem) memory(in *Input) (Memory, error) {
	text := strings.Join(it.text, "\n")
	at := func(field, format string, args ...any) error {
		return &InputError{File: in.File, Line: it.line, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if msg := review.CheckText(text); msg != "" {
		return Memory{}, at("text", "the memory's text is %s", msg)
	}
	m := memory{text: text, category: mdCategory(it.section, text), line: it.line,
		src: review.Source{Format: "agents-md", File: in.File, Label: it.section}}
	m.where = fmt.Sprintf("line %d", it.line)
	if it.section != "" {
		m.where += ", under \u201c" + clip(it.section, 120) + "\u201d"
	}
	if tag := slug(it.section); tag != "" {
		m.tags = []string{tag}
	}
	mem := m.proposal()
	mem.Proposal.Record.Steps = it.steps
	if field, msg := review.CheckRecordLimits(mem.Proposal.Record); msg != "" {
		return Memory{}, at(field, "%s", msg)
	}
	return mem, nil
}

// mdCategory reads the category a heading or the text says: what not to
// do is a warning; commands and workflows procedures; style and rules
// conventions; the rest of an instruction file is convention too.
func mdCategory(section, text string) review.Category {
	h := strings.ToLower(section)
	has := func(s string, words ...string) bool {
		for _, w := range words {
			if strings.Contains(s, w) {
				return true
			}
		}
		return false
	}
	lt := strings.ToLower(strings.TrimLeft(text, "*_ "))
	switch {
	case has(h, "warn", "pitfall", "gotcha", "caveat", "avoid", "never", "don't", "do not"),
		strings.HasPrefix(lt, "never ") || strings.HasPrefix(lt, "don't ") || strings.HasPrefix(lt, "do not ") || strings.HasPrefix(lt, "avoid "):
		return review.Warning
	case has(h, "debug", "troubleshoot", "recover", "when things"):
		return review.Recovery
	case has(h, "perf", "optimi", "speed"):
		return review.Optimisation
	case has(h, "strateg", "approach"):
		return review.Strategy
	case has(h, "command", "build", "test", "workflow", "procedure", "how to", "setup", "set-up", "set up", "deploy", "release", "run"):
		return review.Procedure
	case has(h, "architecture", "overview", "structure", "layout", "context", "fact", "glossary"):
		return review.Fact
	}
	return review.Convention
}

// slug makes a heading a tag: lower case, words joined by "-".
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
		if b.Len() >= 48 {
			break
		}
	}
	return b.String()
}
