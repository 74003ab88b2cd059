package screen

import (
	"runtime"
	"strings"
	"sync"
)

// A Screener screens text. Its rules are compiled once per process and
// shared; a Screener only adds the caller's settings. It is safe for
// concurrent use.
type Screener struct {
	known []string // nil: hosts are not checked
}

// An Option sets up a Screener.
type Option func(*Screener)

// WithKnownHosts turns on the unknown-host rule: a URL whose host is not
// one of hosts (nor a subdomain of one) is an exfiltration finding.
// Hosts may be given as bare names or as URLs. The loopback host is
// always known. With no hosts at all every outside URL is flagged.
func WithKnownHosts(hosts ...string) Option {
	return func(s *Screener) { s.known = normalHosts(hosts) }
}

// New returns a Screener with the given options.
func New(opts ...Option) *Screener {
	s := &Screener{}
	for _, o := range opts {
		o(s)
	}
	return s
}

// A Field is one named text of a proposal: "lemma", "trigger",
// "steps[0]", "checks[1].input", "rationale".
type Field struct {
	Name string
	Text string
}

// compiled holds what every Screener shares.
type compiled struct {
	text    *ruleSet
	secrets *secretSet
}

var shared = sync.OnceValue(func() *compiled {
	set, err := loadSecretSet(gitleaksTOML)
	if err != nil {
		// The embedded rule file is part of the build; a test loads it.
		panic("screen: the embedded secret rules do not load: " + err.Error())
	}
	return &compiled{text: newRuleSet(textRules()), secrets: set}
})

var defaultScreener = New()

// Screen screens text with the default settings (hosts not checked).
func Screen(text string) []Finding { return defaultScreener.Screen(text) }

// ScreenFields screens each field with the default settings.
func ScreenFields(fields ...Field) []Finding { return defaultScreener.ScreenFields(fields...) }

// Screen returns the findings in text, ordered by position. Spans are
// byte offsets into text (see Finding).
func (s *Screener) Screen(text string) []Finding {
	return sortFindings(s.screen(text, ""), nil)
}

// ScreenFields screens each field on its own; every finding names its
// field and its span is an offset into that field's text. Findings come
// in field order, then by position.
//
// Large records (over parallelBytes in all) are screened a field per
// goroutine, up to GOMAXPROCS at once.
func (s *Screener) ScreenFields(fields ...Field) []Finding {
	order := map[string]int{}
	total := 0
	for i, f := range fields {
		if _, ok := order[f.Name]; !ok {
			order[f.Name] = i
		}
		total += len(f.Text)
	}
	per := make([][]Finding, len(fields))
	if total <= parallelBytes || len(fields) < 2 {
		for i, f := range fields {
			per[i] = s.screen(f.Text, f.Name)
		}
	} else {
		var wg sync.WaitGroup
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		for i, f := range fields {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				per[i] = s.screen(f.Text, f.Name)
			}()
		}
		wg.Wait()
	}
	var out []Finding
	for _, fs := range per {
		out = append(out, fs...)
	}
	return sortFindings(out, order)
}

// parallelBytes is the record size above which fields are screened in
// parallel.
const parallelBytes = 64 << 10

func (s *Screener) screen(text, field string) []Finding {
	if text == "" {
		return nil
	}
	c := shared()
	var out []Finding
	add := func(kind Kind, start, end int, rule, reason string) {
		start, end = clampSpan(text, start, end)
		out = append(out, Finding{Kind: kind, Field: field, Start: start, End: end, Rule: rule, Reason: reason, Source: SourceRules})
	}
	for _, h := range scanRunes(text) {
		add(h.kind, h.start, h.end, h.rule, h.reason)
	}
	for _, h := range scanMarkup(text) {
		add(h.kind, h.start, h.end, h.rule, h.reason)
	}
	for _, u := range scanURLs(text, s.known) {
		add(u.kind, u.start, u.end, u.rule, u.reason)
	}
	for _, m := range c.text.match(text) {
		add(m.rule.kind, m.start, m.end, m.rule.id, m.rule.reason)
	}
	for _, h := range c.secrets.find(text) {
		add(Secret, h.start, h.end, h.rule.id, h.rule.reason)
	}
	hits, blobs := scanBlobs(text)
	for _, h := range hits {
		add(h.kind, h.start, h.end, h.rule, h.reason)
	}
	// Decoded blobs are screened once more, for what they spell.
	for _, b := range blobs {
		if b.decoded == "" {
			continue
		}
		seen := map[Kind]bool{}
		for _, m := range c.text.match(b.decoded) {
			if !seen[m.rule.kind] {
				seen[m.rule.kind] = true
				add(m.rule.kind, b.start, b.end, m.rule.id+"+"+b.rule, "encoded: "+m.rule.reason)
			}
		}
		for _, h := range c.secrets.find(b.decoded) {
			if !seen[Secret] {
				seen[Secret] = true
				add(Secret, b.start, b.end, h.rule.id+"+"+b.rule, "encoded: "+h.rule.reason)
			}
		}
	}
	return out
}

// textMatch is one text rule's match, as a span of the original text.
type textMatch struct {
	rule       *textRule
	start, end int
}

// match runs the text rules over text: the folded view for most, the
// raw text for raw rules; a rule runs on the lines that hold its
// keywords, or on the whole text when it vets its matches together.
func (rs *ruleSet) match(text string) []textMatch {
	f := fold(text)
	var out []textMatch
	for _, ar := range rs.active(f.s, text) {
		r := ar.rule
		subject := f.s
		if r.raw {
			subject = text
		}
		var ms [][]int
		if r.vetAll != nil || len(ar.lines) == 0 {
			ms = r.re.FindAllStringIndex(subject, -1)
			if r.vetAll != nil && len(ms) > 0 {
				ms = r.vetAll(subject, ms)
			}
		} else {
			for _, ls := range ar.lines {
				le := strings.IndexByte(subject[ls:], '\n')
				if le < 0 {
					le = len(subject)
				} else {
					le += int(ls)
				}
				for _, m := range r.re.FindAllStringIndex(subject[ls:le], -1) {
					ms = append(ms, []int{m[0] + int(ls), m[1] + int(ls)})
				}
			}
		}
		for _, m := range ms {
			if m[1] <= m[0] || r.accept != nil && !r.accept(subject, m) {
				continue
			}
			s, e := m[0], m[1]
			if !r.raw {
				s, e = f.span(s, e)
			}
			out = append(out, textMatch{rule: r, start: s, end: e})
		}
	}
	return out
}
