package screen

import (
	_ "embed"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// The secret rules are gitleaks' default configuration, embedded as it
// ships: rules/gitleaks.toml from gitleaks v8.30.1 (MIT, rules/gitleaks.LICENSE).
// See the package documentation for why this rule file and how it is run.
//
//go:embed rules/gitleaks.toml
var gitleaksTOML string

// GitleaksVersion is the gitleaks release the embedded rule file comes from.
const GitleaksVersion = "v8.30.1"

// RulesVersion names this package's rules and the gitleaks file together.
// A bank stores it with each screening and screens open proposals again
// when it changes: bump the first part whenever a rule changes.
const RulesVersion = "1/gitleaks-" + GitleaksVersion

// The TOML shapes of a gitleaks configuration (the fields this package
// reads; commits and paths only matter to scans of files and commits).
type glConfig struct {
	Title      string        `toml:"title"`
	MinVersion string        `toml:"minVersion"`
	Allowlist  *glAllowlist  `toml:"allowlist"`
	Allowlists []glAllowlist `toml:"allowlists"`
	Rules      []glRule      `toml:"rules"`
}

type glRule struct {
	ID          string        `toml:"id"`
	Description string        `toml:"description"`
	Regex       string        `toml:"regex"`
	Path        string        `toml:"path"`
	SecretGroup int           `toml:"secretGroup"`
	Entropy     float64       `toml:"entropy"`
	Keywords    []string      `toml:"keywords"`
	Tags        []string      `toml:"tags"`
	SkipReport  bool          `toml:"skipReport"`
	Allowlist   *glAllowlist  `toml:"allowlist"`
	Allowlists  []glAllowlist `toml:"allowlists"`
}

type glAllowlist struct {
	Description string   `toml:"description"`
	Condition   string   `toml:"condition"`
	Commits     []string `toml:"commits"`
	Paths       []string `toml:"paths"`
	RegexTarget string   `toml:"regexTarget"`
	Regexes     []string `toml:"regexes"`
	StopWords   []string `toml:"stopwords"`
	TargetRules []string `toml:"targetRules"`
}

// secretRule is one compiled gitleaks rule.
type secretRule struct {
	id, reason  string
	re          *regexp.Regexp
	secretGroup int
	entropy     float64
	keywords    []int // indexes into the secret set's keywords
	allow       []*allowlist
	generic     bool
	// lineMust, when set, must match the line of a match (this
	// package's own rules only).
	lineMust *regexp.Regexp
	// valueOK, when set, vets the secret itself (own rules only).
	valueOK func(string) bool
	// multiline: the pattern can run across many lines.
	multiline bool
	// anchor, when set, runs the rule from the literals its matches
	// start with (anchor.go); nil: over each window. It is made on the
	// rule's first use (most rules never run in a process).
	anchorOnce sync.Once
	anchor     *anchor
	// before and after, when set, bound the window around a keyword
	// (this package's own rules, whose matches start at or just before
	// their keyword and end within a few hundred bytes).
	before, after int
	// semiGeneric: the pattern is gitleaks' "keyword, then an
	// assignment, then the value" template: at most 50 identifier bytes
	// before the keyword, the operator within 23 bytes after it, a value
	// of at most 150 bytes.
	semiGeneric bool
}

// allowlist is a compiled gitleaks allowlist, as gitleaks applies it to
// a finding in text that has no file path or commit: with condition OR a
// finding is allowed when a regex matches its target or its secret holds
// a stop word; with AND, every check it has must hold, so one that names
// paths or commits never allows anything here.
type allowlist struct {
	and       bool
	needsPath bool
	target    string // "secret" (default), "match" or "line"
	re        *regexp.Regexp
	stop      *keywordSet
}

func (a *allowlist) allows(secret, match, line string) bool {
	var t string
	switch a.target {
	case "match":
		t = match
	case "line":
		t = line
	default:
		t = secret
	}
	reOK := a.re != nil && t != "" && a.re.MatchString(t)
	stopOK := a.stop != nil && secret != "" && anyTrue(a.stop.find(strings.ToLower(secret)))
	if !a.and {
		return reOK || stopOK
	}
	if a.needsPath {
		return false
	}
	return (a.re == nil || reOK) && (a.stop == nil || stopOK) && (a.re != nil || a.stop != nil)
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

// secretSet is the compiled rule file plus this package's own secret
// rules (passwords in connection strings, which gitleaks' defaults do not
// cover).
type secretSet struct {
	title    string
	rules    []*secretRule
	always   []*secretRule // rules without keywords
	keywords *keywordSet
	byKW     [][]*secretRule // keyword index → rules it gates
	global   []*allowlist
	skipped  []string // ids of rules that need a file path
}

func compileAllowlist(a glAllowlist) (*allowlist, error) {
	c := &allowlist{and: strings.EqualFold(a.Condition, "AND"), target: a.RegexTarget,
		needsPath: len(a.Paths) > 0 || len(a.Commits) > 0}
	if len(a.Regexes) > 0 {
		re, err := regexp.Compile("(?:" + strings.Join(a.Regexes, ")|(?:") + ")")
		if err != nil {
			return nil, err
		}
		c.re = re
	}
	if len(a.StopWords) > 0 {
		ws := make([]string, len(a.StopWords))
		for i, w := range a.StopWords {
			ws[i] = strings.ToLower(w)
		}
		c.stop = newKeywordSet(ws)
	}
	return c, nil
}

// loadSecretSet compiles a gitleaks configuration. A rule that only a
// file path can trigger, or that gitleaks limits to certain paths, is
// skipped, as gitleaks itself skips it on text read from standard input.
func loadSecretSet(src string) (*secretSet, error) {
	var cfg glConfig
	if _, err := toml.Decode(src, &cfg); err != nil {
		return nil, fmt.Errorf("gitleaks rules: %w", err)
	}
	set := &secretSet{title: cfg.Title}
	globals := cfg.Allowlists
	if cfg.Allowlist != nil {
		globals = append(globals, *cfg.Allowlist)
	}
	for _, g := range globals {
		if len(g.TargetRules) > 0 {
			continue // applied per rule below
		}
		a, err := compileAllowlist(g)
		if err != nil {
			return nil, fmt.Errorf("gitleaks global allowlist: %w", err)
		}
		set.global = append(set.global, a)
	}
	var kws []string
	kwIndex := map[string]int{}
	for _, r := range cfg.Rules {
		if r.Path != "" || r.Regex == "" || r.SkipReport {
			set.skipped = append(set.skipped, r.ID)
			continue
		}
		re, err := regexp.Compile(r.Regex)
		if err != nil {
			return nil, fmt.Errorf("gitleaks rule %s: %w", r.ID, err)
		}
		sr := &secretRule{id: r.ID, reason: oneLine(r.Description), re: re, secretGroup: r.SecretGroup,
			entropy: r.Entropy, generic: strings.Contains(r.ID, "generic"), multiline: multiline(r.Regex),
			semiGeneric: strings.Contains(r.Regex, semiGenericTemplate)}
		als := r.Allowlists
		if r.Allowlist != nil {
			als = append(als, *r.Allowlist)
		}
		for _, g := range globals {
			for _, t := range g.TargetRules {
				if t == r.ID {
					als = append(als, g)
				}
			}
		}
		for _, g := range als {
			a, err := compileAllowlist(g)
			if err != nil {
				return nil, fmt.Errorf("gitleaks rule %s allowlist: %w", r.ID, err)
			}
			sr.allow = append(sr.allow, a)
		}
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			i, ok := kwIndex[k]
			if !ok {
				i = len(kws)
				kwIndex[k] = i
				kws = append(kws, k)
			}
			sr.keywords = append(sr.keywords, i)
		}
		set.rules = append(set.rules, sr)
	}
	for _, own := range ownSecretRules() {
		for _, k := range own.keys {
			i, ok := kwIndex[k]
			if !ok {
				i = len(kws)
				kwIndex[k] = i
				kws = append(kws, k)
			}
			own.rule.keywords = append(own.rule.keywords, i)
		}
		set.rules = append(set.rules, own.rule)
	}
	set.byKW = make([][]*secretRule, len(kws))
	for _, sr := range set.rules {
		if len(sr.keywords) == 0 {
			set.always = append(set.always, sr)
		}
		for _, k := range sr.keywords {
			set.byKW[k] = append(set.byKW[k], sr)
		}
	}
	set.keywords = newKeywordSet(kws)
	return set, nil
}

// semiGenericTemplate is the middle of gitleaks' generated
// keyword-assignment-value rules.
const semiGenericTemplate = `(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`

// multiline reports a pattern that can run across many lines: one that
// matches any byte ([\s\S], (?s)) or repeats line breaks.
func multiline(pattern string) bool {
	return strings.Contains(pattern, `[\s\S`) || strings.Contains(pattern, `(?s`) || strings.Contains(pattern, `[\r\n]`) ||
		strings.Contains(pattern, `\r\n`) || strings.Contains(pattern, `(?:.*?|`)
}

// oneLine cuts a rule's description to its first line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// secretHit is a secret found in text: the secret's own span (the
// rule's secret group), the rule and the whole match.
type secretHit struct {
	start, end int
	rule       *secretRule
}

// find runs the rules over text as gitleaks runs them over a fragment:
// the keyword prefilter, the regex, the secret group, the entropy floor,
// the global and the rule's allowlists, and generic rules yielding to a
// specific rule that found the same secret. gitleaks' inline
// "gitleaks:allow" marker is not honoured: in a proposal it would be the
// attacker's own switch.
func (set *secretSet) find(text string) []secretHit { return set.findWith(text, true) }

// findWith is find, with the rules' anchors or (useAnchors false: the
// test and the benchmark's peer) every rule's whole pattern over its
// windows.
func (set *secretSet) findWith(text string, useAnchors bool) []secretHit {
	pos := set.keywords.positions(text)
	windows := map[*secretRule][][2]int{}
	for i, ps := range pos {
		if len(ps) == 0 {
			continue
		}
		for _, sr := range set.byKW[i] {
			for _, p := range ps {
				ks, ke := int(p)-len(set.keywords.keywords[i]), int(p)
				if sr.semiGeneric && !strings.ContainsAny(text[ke:min(ke+32, len(text))], "=>:|,?") {
					continue // no assignment follows the keyword: no match through it
				}
				windows[sr] = append(windows[sr], sr.window(text, ks, ke))
			}
		}
	}
	var hits []secretHit
	for _, sr := range set.rules { // in file order, so results are stable
		var ws [][2]int
		switch {
		case len(sr.keywords) == 0:
			ws = [][2]int{{0, len(text)}}
		case windows[sr] != nil:
			ws = mergeWindows(windows[sr])
		default:
			continue
		}
		for _, w := range ws {
			if a := sr.anchored(); a != nil && useAnchors {
				a.find(text, w[0], w[1], func(m []int) {
					if h, ok := sr.hit(text, m, set.global); ok {
						hits = append(hits, h)
					}
				})
				continue
			}
			for _, m := range sr.re.FindAllStringSubmatchIndex(text[w[0]:w[1]], -1) {
				for j := range m {
					if m[j] >= 0 {
						m[j] += w[0]
					}
				}
				if h, ok := sr.hit(text, m, set.global); ok {
					hits = append(hits, h)
				}
			}
		}
	}
	return dropGenericInside(hits)
}

// anchored is the rule's anchor, made on first use (nil: none).
func (sr *secretRule) anchored() *anchor {
	sr.anchorOnce.Do(func() { sr.anchor = newAnchor(sr.re.String()) })
	return sr.anchor
}

// window is the stretch of text around a keyword at [ks, ke) that a
// match of sr through that keyword can lie in. gitleaks' rules put the
// keyword near the start of a match (at most 50 identifier bytes before
// it) and end within a few hundred bytes, except rules that run across
// lines (private keys, curl headers), which get 16 KiB.
func (sr *secretRule) window(text string, ks, ke int) [2]int {
	before, after := 512, 4096
	switch {
	case sr.after > 0:
		before, after = sr.before, sr.after
	case sr.multiline:
		after = 16 << 10
	case sr.semiGeneric:
		before, after = 64, 256
	}
	s, e := max(ks-before, 0), min(ke+after, len(text))
	// start and end on line breaks when one is near, so that ^ and $
	// keep their meaning
	if i := strings.LastIndexByte(text[s:ks], '\n'); i >= 0 {
		s += i + 1
	} else if s > 0 {
		s = ks - min(ks-s, 64) // no line break: a little context
		for s > 0 && !utf8.RuneStart(text[s]) {
			s--
		}
	}
	// (an own rule uses no $: its window ends where its longest match
	// through the keyword can)
	if i := strings.IndexByte(text[e:], '\n'); sr.after == 0 && i >= 0 && i < 4096 {
		e += i
	} else {
		for e < len(text) && !utf8.RuneStart(text[e]) {
			e++
		}
	}
	return [2]int{s, e}
}

// mergeWindows sorts windows and joins those that overlap or touch.
func mergeWindows(ws [][2]int) [][2]int {
	if len(ws) == 0 {
		return nil
	}
	slices.SortFunc(ws, func(a, b [2]int) int { return a[0] - b[0] })
	out := ws[:1]
	for _, w := range ws[1:] {
		last := &out[len(out)-1]
		if w[0] <= last[1] {
			last[1] = max(last[1], w[1])
			continue
		}
		out = append(out, w)
	}
	return out
}

// hit checks one regex match m of rule sr.
func (sr *secretRule) hit(text string, m []int, global []*allowlist) (secretHit, bool) {
	ms, me := m[0], m[1]
	for ms < me && text[ms] == '\n' {
		ms++
	}
	for me > ms && text[me-1] == '\n' {
		me--
	}
	ss, se := ms, me
	if n := len(m) / 2; n > 1 {
		if sr.secretGroup > 0 {
			if sr.secretGroup >= n || m[2*sr.secretGroup] < 0 {
				return secretHit{}, false
			}
			ss, se = m[2*sr.secretGroup], m[2*sr.secretGroup+1]
		} else {
			for g := 1; g < n; g++ {
				if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
					ss, se = m[2*g], m[2*g+1]
					break
				}
			}
		}
	}
	if ss < ms {
		ss = ms
	}
	if se > me {
		se = me
	}
	if se <= ss {
		return secretHit{}, false
	}
	secret, match := text[ss:se], text[ms:me]
	if sr.entropy != 0 && shannonEntropy(secret) <= sr.entropy {
		return secretHit{}, false
	}
	if sr.generic && fileName(secret) {
		return secretHit{}, false // "the keys differ: pnl_fy2024.md" names a file
	}
	line := lineAround(text, ms, me)
	if sr.lineMust != nil && !sr.lineMust.MatchString(line) || sr.valueOK != nil && !sr.valueOK(secret) {
		return secretHit{}, false
	}
	for _, a := range global {
		if a.allows(secret, match, line) {
			return secretHit{}, false
		}
	}
	for _, a := range sr.allow {
		if a.allows(secret, match, line) {
			return secretHit{}, false
		}
	}
	return secretHit{start: ss, end: se, rule: sr}, true
}

// lineAround is the whole of the lines that text[s:e] touches.
func lineAround(text string, s, e int) string {
	ls := strings.LastIndexByte(text[:s], '\n') + 1
	le := strings.IndexByte(text[e:], '\n')
	if le < 0 {
		return text[ls:]
	}
	return text[ls : e+le]
}

// dropGenericInside drops a generic rule's hit whose secret lies within a
// specific rule's hit.
func dropGenericInside(hits []secretHit) []secretHit {
	out := hits[:0]
	for _, h := range hits {
		keep := true
		if h.rule.generic {
			for _, o := range hits {
				if !o.rule.generic && o.start <= h.start && h.end <= o.end {
					keep = false
					break
				}
			}
		}
		if keep {
			out = append(out, h)
		}
	}
	return out
}

// shannonEntropy is gitleaks' entropy measure: bits per character over
// the runes of s, divided by its length in bytes.
func shannonEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, r := range s {
		counts[r]++
	}
	inv := 1 / float64(len(s))
	e := 0.0
	for _, c := range counts {
		f := float64(c) * inv
		e -= f * math.Log2(f)
	}
	return e
}

// fileExt is the extensions of the files memories name in prose (a
// document, a table, a script, a log): a generic rule's "secret" ending in
// one is a file name — "the keys differ: pnl_fy2024.md" — not a key, which
// never ends in a dot and a known extension.
var fileExt = lazyRE(`(?i)^[\w-]+(?:\.[\w-]+)*\.(?:md|markdown|txt|csv|tsv|json|jsonl|ndjson|ya?ml|toml|ini|xml|html?|pdf|docx?|xlsx?|pptx?|odt|ods|sql|db|sqlite3?|parquet|log|py|go|js|ts|tsx|jsx|rb|rs|java|kt|c|h|cpp|hpp|cs|sh|ipynb|png|jpe?g|gif|svg|zip|gz|tar)$`)

// fileName reports whether a generic rule's secret is a file name.
func fileName(secret string) bool { return fileExt().MatchString(secret) }
