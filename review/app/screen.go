package app

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/screen"
)

// ScreenRules is the screen's rules version, stored with every
// screening: a proposal screened with other rules is screened again by
// Rescreen.
const ScreenRules = screen.RulesVersion

// The poisoning screen as a use case: every way into the bank (Import of
// proposals, memories and records, the MCP server's memory_propose
// through Import, the curator's propose_* tools, hygiene) screens what it
// writes. A text holding a secret is refused before anything is stored —
// or, with [screen] redact = true, stored with each secret replaced by
// "[redacted: RULE]" — and every other finding is kept with the proposal
// (review.Proposal.Screen) for the operator, who must acknowledge it to
// accept the proposal (Decide with AckFindings).

// ProposalFields are the texts of a proposal the screen reads, named as
// its findings name them: lemma, trigger, steps[i], checks[i].input of the
// proposed record, and the rationale.
func ProposalFields(p *review.Proposal) []screen.Field { return fields(p.Texts()) }

// RecordFields are a record's texts the screen reads.
func RecordFields(r *review.Record) []screen.Field { return fields(r.Texts()) }

func fields(ts []review.Text) []screen.Field {
	out := make([]screen.Field, len(ts))
	for i, t := range ts {
		out[i] = screen.Field{Name: t.Name, Text: t.Text}
	}
	return out
}

// Findings converts the screen's findings to the domain's.
func Findings(fs []screen.Finding) []review.Finding {
	if len(fs) == 0 {
		return nil
	}
	out := make([]review.Finding, len(fs))
	for i, f := range fs {
		out[i] = review.Finding{Kind: string(f.Kind), Field: f.Field, Start: f.Start, End: f.End, Rule: f.Rule, Reason: f.Reason, Source: f.Source}
	}
	return out
}

// HasSecret reports whether any finding is a secret.
func HasSecret(fs []review.Finding) bool {
	for _, f := range fs {
		if f.Kind == review.FindingSecret {
			return true
		}
	}
	return false
}

// KnownHosts are the hosts of the bank's postgres and mcp environments:
// a URL to any other host in a proposal is an exfiltration finding.
func (s *Service) KnownHosts() []string {
	cfg, err := s.b.Config()
	if err != nil {
		return nil
	}
	return envHosts(cfg.Envs)
}

func envHosts(envs []probe.Env) []string {
	var hosts []string
	for _, e := range envs {
		if e.URL == "" || e.Kind != probe.KindPostgres && e.Kind != probe.KindMCP {
			continue
		}
		if u, err := url.Parse(e.URL); err == nil && u.Hostname() != "" {
			hosts = append(hosts, u.Hostname())
		} else if h, _, err := net.SplitHostPort(e.URL); err == nil {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// screener is the bank's screen (its environments' hosts known) and
// whether secrets are redacted rather than refused.
func (s *Service) screener() (*screen.Screener, bool, error) {
	cfg, err := s.b.Config()
	if err != nil {
		return nil, false, err
	}
	return screen.New(screen.WithKnownHosts(envHosts(cfg.Envs)...)), cfg.Screen.Redact, nil
}

// screenOne screens p in place and sets p.Screen. A secret is redacted
// when redact is set; otherwise the secret findings come back (and the
// caller refuses p).
func screenOne(sc *screen.Screener, p *review.Proposal, redact bool) []review.Finding {
	fields := ProposalFields(p)
	fs := sc.ScreenFields(fields...)
	found := Findings(fs)
	if !HasSecret(found) {
		p.Screen = &review.Screening{Rules: ScreenRules, Findings: found}
		return nil
	}
	if !redact {
		return found
	}
	red, _ := sc.RedactFields(fields...)
	for _, f := range red {
		p.SetText(f.Name, f.Text)
	}
	// What remains after redaction, plus each redacted secret, named by
	// where its marker now stands.
	after := Findings(sc.ScreenFields(ProposalFields(p)...))
	for _, f := range found {
		if f.Kind != review.FindingSecret {
			continue
		}
		for _, r := range red {
			if r.Name != f.Field {
				continue
			}
			m := screen.RedactMarker(strings.SplitN(f.Rule, "+", 2)[0])
			if i := strings.Index(r.Text, m); i >= 0 {
				f.Start, f.End = i, i+len(m)
			}
		}
		f.Reason += "; redacted before it was stored"
		after = append(after, f)
	}
	p.Screen = &review.Screening{Rules: ScreenRules, Findings: after, Redacted: true}
	return nil
}

// screenProposals screens each proposal before it is stored; place(i)
// names where proposal i came from (file and line) for the error that
// refuses a secret.
func (s *Service) screenProposals(ps []review.Proposal, place func(i int) (string, int)) error {
	return s.screenProposalsWith(ps, place, false)
}

func (s *Service) screenProposalsWith(ps []review.Proposal, place func(i int) (string, int), skipRationale bool) error {
	sc, redact, err := s.screener()
	if err != nil {
		return err
	}
	for i := range ps {
		rationale := ps[i].Rationale
		if skipRationale {
			ps[i].Rationale = ""
		}
		secrets := screenOne(sc, &ps[i], redact)
		if skipRationale {
			ps[i].Rationale = rationale
		}
		if secrets != nil {
			file, line := place(i)
			return secretInputError(file, line, secrets, "record.")
		}
	}
	return nil
}

// screenMemories is screenProposals for imported memories: their
// records are screened, not the rationale memreview wrote about their
// source.
func (s *Service) screenMemories(ps []review.Proposal, place func(i int) (string, int)) error {
	return s.screenProposalsWith(ps, place, true)
}

// curatorScreen is the curator's screen hook: each propose_* call's
// proposal is screened as it is made, so the model reads a refused secret
// as its tool call's error (field and rule, never the text) and can
// propose again without it.
func (s *Service) curatorScreen() func(p *review.Proposal) error {
	sc, redact, err := s.screener()
	return func(p *review.Proposal) error {
		if err != nil {
			return err
		}
		if secrets := screenOne(sc, p, redact); secrets != nil {
			field, msg := secretMessage(secrets, "record.")
			return fmt.Errorf("field %q %s", field, msg)
		}
		return nil
	}
}

// hygieneAdder queues hygiene's proposals screened: their text comes
// from records already in the bank, so a secret found in one is redacted
// in the proposal (never refused: the finding is the operator's to act
// on) and kept as a finding.
type hygieneAdder struct{ s *Service }

func (h hygieneAdder) AddProposals(ps []review.Proposal, runs []review.ProbeRun) error {
	sc, _, err := h.s.screener()
	if err != nil {
		return err
	}
	for i := range ps {
		screenOne(sc, &ps[i], true)
	}
	return h.s.b.AddProposals(ps, runs)
}

// secretInputError refuses a secret at file:line, naming the field (as
// the input spells it: prefix + the record's field, or rationale), the
// rule and the byte offset — never the secret.
func secretInputError(file string, line int, fs []review.Finding, prefix string) error {
	field, msg := secretMessage(fs, prefix)
	return &InputError{File: file, Line: line, Field: field, Msg: msg}
}

func secretMessage(fs []review.Finding, prefix string) (field, msg string) {
	for _, f := range fs {
		if f.Kind != review.FindingSecret {
			continue
		}
		field = f.Field
		if field != "rationale" {
			field = prefix + field
		}
		return field, fmt.Sprintf("holds a secret (%s) at byte %d; a secret never enters the bank (remove it, or set redact = true under [screen] in memreview.toml to store it redacted)", f.Rule, f.Start)
	}
	return "", ""
}

// screenRecords screens imported records: a secret is refused (or
// redacted), other findings are counted. A large import is screened on
// every CPU, in chunks taken in file order; the answer is the one line by
// line gives: the first line holding a secret is the one refused.
func (s *Service) screenRecords(recs []review.Record, file string, lines []int) (flagged int, err error) {
	sc, redact, err := s.screener()
	if err != nil {
		return 0, err
	}
	found := make([][]review.Finding, len(recs))
	first := screenInChunks(len(recs), runtime.GOMAXPROCS(0), func(i int) bool {
		fields := RecordFields(&recs[i])
		fs := Findings(sc.ScreenFields(fields...))
		found[i] = fs
		if !HasSecret(fs) {
			return false
		}
		if redact {
			red, _ := sc.RedactFields(fields...)
			for _, f := range red {
				recs[i].SetText(f.Name, f.Text)
			}
			return false
		}
		return true
	})
	if first >= 0 {
		return 0, secretInputError(file, lineOf(lines, first), found[first], "")
	}
	for _, fs := range found {
		if len(fs) > 0 {
			flagged++
		}
	}
	return flagged, nil
}

// screenChunk is how many records a goroutine of screenInChunks takes at
// a time; an import of at most one chunk is screened on the caller's
// goroutine.
const screenChunk = 256

// screenInChunks calls stop(i) for every i in [0, n) — on up to workers
// goroutines, each taking the next chunk in order — and returns
// the least i for which stop returned true (-1: none). Once some i has
// stopped, chunks beyond it are not begun; every index below it is still
// visited, so the least one is found.
func screenInChunks(n, workers int, stop func(i int) bool) int {
	workers = min(workers, (n+screenChunk-1)/screenChunk)
	if workers <= 1 {
		for i := range n {
			if stop(i) {
				return i
			}
		}
		return -1
	}
	var next atomic.Int64
	var least atomic.Int64
	least.Store(int64(n))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				from := int(next.Add(screenChunk)) - screenChunk
				if from >= n || int64(from) > least.Load() {
					return
				}
				for i := from; i < min(from+screenChunk, n); i++ {
					if int64(i) > least.Load() {
						break
					}
					if stop(i) {
						for {
							cur := least.Load()
							if int64(i) >= cur || least.CompareAndSwap(cur, int64(i)) {
								break
							}
						}
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	if l := int(least.Load()); l < n {
		return l
	}
	return -1
}

// ScreenOptions tune ScreenTexts.
type ScreenOptions struct {
	// LLM asks the curator's model for a second opinion after the rules
	// (settings as Curate's); its findings are marked Source "llm".
	LLM   bool
	Model string
}

// ScreenTexts screens each text as the bank screens a proposal (its
// environments' hosts known), for 'memreview screen'.
func (s *Service) ScreenTexts(ctx context.Context, texts []string, opt ScreenOptions) ([][]review.Finding, error) {
	var judge screen.Judge
	if opt.LLM {
		set, err := s.CuratorSettings(opt.Model)
		if err != nil {
			return nil, err
		}
		judge = curator.NewJudge(set)
	}
	return screenTexts(ctx, screen.New(screen.WithKnownHosts(s.KnownHosts()...)), judge, texts)
}

// ScreenTexts screens texts outside any bank: hosts are not checked.
// With opt.LLM the judge's endpoint comes from the environment
// (OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL).
func ScreenTexts(ctx context.Context, texts []string, opt ScreenOptions) ([][]review.Finding, error) {
	var judge screen.Judge
	if opt.LLM {
		judge = curator.NewJudge(curator.SettingsFromEnv(review.CuratorConfig{}, opt.Model))
	}
	return screenTexts(ctx, screen.New(), judge, texts)
}

func screenTexts(ctx context.Context, sc *screen.Screener, judge screen.Judge, texts []string) ([][]review.Finding, error) {
	out := make([][]review.Finding, len(texts))
	for i, t := range texts {
		if judge == nil {
			out[i] = Findings(sc.Screen(t))
			continue
		}
		fs, err := sc.JudgeFields(ctx, judge, screen.Field{Text: t})
		if err != nil {
			return out, fmt.Errorf("line %d: %w", i+1, err)
		}
		out[i] = Findings(fs)
	}
	return out, nil
}

// RedactText is text with each secret replaced by its marker, for a
// front end that shows screened text (a finding's span in the original
// may hold a secret; show this instead).
func RedactText(text string) string {
	r, _ := screen.Redact(text)
	return r
}

// RedactMarker is the text that stands for a secret found by rule.
func RedactMarker(rule string) string { return screen.RedactMarker(strings.SplitN(rule, "+", 2)[0]) }

// ProposalFindings are a proposal's screen findings, screened now when it
// was queued before the screen or with other rules (the TUI's candidate
// highlights and its accept confirmation read them).
func (s *Service) ProposalFindings(id string) ([]review.Finding, error) {
	p, err := s.b.Proposal(id)
	if err != nil {
		return nil, err
	}
	if p.Screen != nil && p.Screen.Rules == ScreenRules {
		return p.Screen.Findings, nil
	}
	sc, _, err := s.screener()
	if err != nil {
		return nil, err
	}
	return Findings(sc.ScreenFields(ProposalFields(p)...)), nil
}

// Rescreen screens the open proposals that were screened with other
// rules than ScreenRules, or never, and stores their new screenings. It
// returns how many it screened. A secret found now is kept as a finding
// (the proposal is already in the bank: rejecting or editing it is the
// operator's call).
func (s *Service) Rescreen() (int, error) {
	q, err := s.b.Queue()
	if err != nil {
		return 0, err
	}
	sc, _, err := s.screener()
	if err != nil {
		return 0, err
	}
	set := map[string]*review.Screening{}
	for _, p := range q {
		if p.Screen != nil && p.Screen.Rules == ScreenRules {
			continue
		}
		set[p.ID] = &review.Screening{Rules: ScreenRules, Findings: Findings(sc.ScreenFields(ProposalFields(&p)...))}
	}
	if len(set) == 0 {
		return 0, nil
	}
	if err := s.b.SetScreenings(set); err != nil {
		return 0, err
	}
	s.afterWrite("rescreen")
	return len(set), nil
}

// FlaggedQueue is the open proposals the screen flagged. Open proposals
// screened with other rules (or queued before the screen) are screened
// first; a bank this process cannot write is listed as it stands.
func (s *Service) FlaggedQueue() ([]review.Proposal, error) {
	if _, err := s.Rescreen(); err != nil {
		s.opt.Warnf("the open proposals were not screened again with the current rules (%v); listing them as they were screened", err)
	}
	return s.b.FlaggedQueue()
}
