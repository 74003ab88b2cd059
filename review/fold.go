package review

import (
	"strconv"
	"strings"
)

// Folding a merge proposal's sources. A curator's merge proposal carries
// the record it would write, usually rewritten in its own words; what the
// sources say that the rewrite does not (a sentence, a step, a check and
// the output it expects) must not be lost because the operator pressed
// accept. FoldSources is what accepting it writes; Lacks says what the
// proposal's own record drops, for the review screen to show before the
// accept.

// FoldSources returns rec with everything of sources it does not hold
// folded in, as Combine folds them: the sentences of each lemma it does
// not say, the steps, tags, checks (by env and input, with their expected
// results) and probe runs it lacks. rec's own category, env, task family,
// trigger, confidence and priority stand: the curator wrote them for the
// merged record. The result has no id and is active, merged from the
// sources' ids. rec and the sources are not changed.
func FoldSources(rec Record, sources ...Record) Record {
	m := Combine(rec, sources...)
	if strings.TrimSpace(rec.Trigger) != "" {
		m.Trigger = rec.Trigger
	}
	m.Confidence, m.Priority = rec.Confidence, rec.Priority
	return m
}

// Lack is what a record does not hold of one source: the sentences of the
// source's lemma it does not say, and the steps and checks it does not
// have (a step compared regardless of case and spacing, a check by env
// and input).
type Lack struct {
	Source    string
	Sentences []string
	Steps     []string
	Checks    []Check
}

// Empty reports whether nothing is lacking.
func (l Lack) Empty() bool { return len(l.Sentences)+len(l.Steps)+len(l.Checks) == 0 }

// String says it in one line: "mem_0018: 1 sentence, 2 steps, 1 check".
func (l Lack) String() string {
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{len(l.Sentences), "sentence"}, {len(l.Steps), "step"}, {len(l.Checks), "check"}} {
		switch {
		case c.n == 1:
			parts = append(parts, "1 "+c.what)
		case c.n > 1:
			parts = append(parts, strconv.Itoa(c.n)+" "+c.what+"s")
		}
	}
	return l.Source + ": " + strings.Join(parts, ", ")
}

// Lacks says, for each source in order, what rec does not hold of it; a
// source rec holds whole is left out.
func Lacks(rec Record, sources ...Record) []Lack {
	said := map[string]bool{}
	for _, s := range splitSentences(rec.Lemma) {
		said[sentenceKey(s)] = true
	}
	steps := map[string]bool{}
	for _, s := range rec.Steps {
		steps[normText(s)] = true
	}
	checks := map[string]bool{}
	for _, c := range rec.Checks {
		checks[c.Env+"\x00"+c.Input] = true
	}
	var out []Lack
	for _, src := range sources {
		l := Lack{Source: src.ID}
		for _, s := range splitSentences(src.Lemma) {
			if k := sentenceKey(s); k != "" && !said[k] {
				l.Sentences = append(l.Sentences, s)
			}
		}
		for _, s := range src.Steps {
			if k := normText(s); k != "" && !steps[k] {
				l.Steps = append(l.Steps, s)
			}
		}
		for _, c := range src.Checks {
			if !checks[c.Env+"\x00"+c.Input] {
				l.Checks = append(l.Checks, c)
			}
		}
		if !l.Empty() {
			out = append(out, l)
		}
	}
	return out
}

// AcceptedRecord is the record accepting p as proposed writes, given the
// current version of each of its targets (nil for one gone): for a merge
// proposal its record with the targets' content folded in (FoldSources),
// otherwise its record as it is. nil when p carries no record.
func AcceptedRecord(p *Proposal, targets []*Record) *Record {
	if p == nil || p.Record == nil {
		return nil
	}
	if p.Op != OpMerge {
		r := p.Record.Clone()
		return &r
	}
	var srcs []Record
	for _, t := range targets {
		if t != nil {
			srcs = append(srcs, *t)
		}
	}
	r := FoldSources(*p.Record, srcs...)
	r.ID = p.Record.ID
	return &r
}
