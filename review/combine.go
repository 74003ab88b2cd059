package review

import (
	"slices"
	"strings"
	"unicode"
)

// Combine folds base and every source into one record without losing or
// inventing anything, the default of every merge: base's category, env,
// task family, trajectory and steps lead; each distinct lemma is kept in order as
// its own sentences, a sentence already said is not said twice; the
// distinct triggers are joined in order; steps, tags, checks (by env and
// input) and probe runs are the union in order; confidence and priority
// are the highest. The result has no id and is active, merged from the
// sources' ids: committing the merge creates it. Base and the sources are
// not changed.
func Combine(base Record, sources ...Record) Record {
	m := Record{Category: base.Category, Scope: Scope{Env: base.Scope.Env, TaskFamily: base.Scope.TaskFamily},
		Confidence: base.Confidence, Priority: base.Priority, Status: Active,
		Provenance: Provenance{Trajectory: base.Provenance.Trajectory}}
	if base.Provenance.Steps != nil {
		steps := *base.Provenance.Steps
		m.Provenance.Steps = &steps
	}
	var lemma sentences
	var triggers []string
	seenStep, seenTag, seenCheck, seenRun := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for i, r := range append([]Record{base}, sources...) {
		lemma.add(r.Lemma)
		triggers = appendDistinct(triggers, r.Trigger)
		for _, s := range r.Steps {
			if k := normText(s); k != "" && !seenStep[k] {
				seenStep[k] = true
				m.Steps = append(m.Steps, s)
			}
		}
		for _, t := range r.Scope.Tags {
			if !seenTag[t] {
				seenTag[t] = true
				m.Scope.Tags = append(m.Scope.Tags, t)
			}
		}
		for _, c := range r.Checks {
			if k := c.Env + "\x00" + c.Input; !seenCheck[k] {
				seenCheck[k] = true
				m.Checks = append(m.Checks, c)
			}
		}
		for _, id := range r.Provenance.ProbeRuns {
			if !seenRun[id] {
				seenRun[id] = true
				m.Provenance.ProbeRuns = append(m.Provenance.ProbeRuns, id)
			}
		}
		m.Confidence = max(m.Confidence, r.Confidence)
		m.Priority = max(m.Priority, r.Priority)
		if i > 0 && r.ID != "" && !slices.Contains(m.Provenance.MergedFrom, r.ID) {
			m.Provenance.MergedFrom = append(m.Provenance.MergedFrom, r.ID)
		}
	}
	m.Lemma = lemma.String()
	m.Trigger = strings.Join(triggers, " Or: ")
	return m
}

// sentences builds a combined lemma: a lemma is added whole when it says
// something new, less the sentences already said.
type sentences struct {
	parts []string
	seen  map[string]bool
}

func (s *sentences) add(lemma string) {
	lemma = strings.TrimSpace(lemma)
	if lemma == "" {
		return
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	all := splitSentences(lemma)
	var fresh []string
	for _, x := range all {
		if k := sentenceKey(x); k != "" && !s.seen[k] {
			s.seen[k] = true
			fresh = append(fresh, x)
		}
	}
	switch {
	case len(fresh) == 0:
		return
	case len(fresh) == len(all):
		s.parts = append(s.parts, lemma) // nothing repeated: kept as written
	default:
		s.parts = append(s.parts, strings.Join(fresh, " "))
	}
}

// String joins the parts as separate sentences: a part that does not end
// a sentence gets a full stop before the next.
func (s *sentences) String() string {
	var b strings.Builder
	for i, p := range s.parts {
		if i > 0 {
			if !endsSentence(s.parts[i-1]) {
				b.WriteByte('.')
			}
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	return b.String()
}

// splitSentences cuts text after each '.', '!' or '?' that whitespace
// follows; each piece is trimmed.
func splitSentences(text string) []string {
	var out []string
	rs := []rune(text)
	start := 0
	for i, r := range rs {
		if (r == '.' || r == '!' || r == '?') && i+1 < len(rs) && unicode.IsSpace(rs[i+1]) {
			if p := strings.TrimSpace(string(rs[start : i+1])); p != "" {
				out = append(out, p)
			}
			start = i + 1
		}
	}
	if p := strings.TrimSpace(string(rs[start:])); p != "" {
		out = append(out, p)
	}
	return out
}

func endsSentence(s string) bool {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	return strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?")
}

// sentenceKey compares sentences regardless of case, spacing and the
// closing punctuation.
func sentenceKey(s string) string { return strings.TrimRight(normText(s), ".!? ") }

func normText(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

func appendDistinct(xs []string, s string) []string {
	if strings.TrimSpace(s) == "" {
		return xs
	}
	for _, x := range xs {
		if normText(x) == normText(s) {
			return xs
		}
	}
	return append(xs, strings.TrimSpace(s))
}

// KeepsLemma reports whether merged says every sentence of lemma (case,
// spacing and closing punctuation aside): what the merge editor checks
// before an operator's edit drops a source's content.
func KeepsLemma(merged, lemma string) bool {
	said := map[string]bool{}
	for _, s := range splitSentences(merged) {
		said[sentenceKey(s)] = true
	}
	for _, s := range splitSentences(lemma) {
		if k := sentenceKey(s); k != "" && !said[k] {
			return false
		}
	}
	return true
}
