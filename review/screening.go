package review

import (
	"fmt"
)

// Finding is one span of a proposal's text that the poisoning screen
// (review/screen) flagged: its kind (instruction, exfiltration, secret,
// hidden-text), the field it is in ("lemma", "trigger", "steps[0]",
// "checks[1].input", "rationale"), the byte span in that field's text,
// the rule and a one-line reason that never quotes the span. Source is
// "rules" or "llm" (the optional LLM judge).
type Finding struct {
	Kind   string `json:"kind"`
	Field  string `json:"field,omitempty"`
	Start  int    `json:"start"`
	End    int    `json:"end"`
	Rule   string `json:"rule"`
	Reason string `json:"reason"`
	Source string `json:"source"`
}

// FindingSecret is the kind of finding a bank never stores.
const FindingSecret = "secret"

// String says where a finding is and what it is, without its text:
// "instruction in lemma at bytes 0-31 (override-instructions: …)".
func (f Finding) String() string {
	at := "text"
	if f.Field != "" {
		at = f.Field
	}
	by := ""
	if f.Source != "" && f.Source != "rules" {
		by = ", by the " + f.Source + " judge"
	}
	return fmt.Sprintf("%s in %s at bytes %d-%d (%s: %s%s)", f.Kind, at, f.Start, f.End, f.Rule, f.Reason, by)
}

// Screening is what the screen found in a proposal when it was queued.
// Rules is the screen's rules version then: when the rules change, a
// proposal screened with older ones is screened again (the service's
// Rescreen).
type Screening struct {
	Rules    string    `json:"rules"`
	Findings []Finding `json:"findings,omitempty"`
	// Redacted is set when secrets were replaced by markers before the
	// proposal was stored (memreview.toml [screen] redact = true).
	Redacted bool `json:"redacted,omitempty"`
}

// Flagged reports whether a proposal's screening found anything.
func (p *Proposal) Flagged() bool { return p.Screen != nil && len(p.Screen.Findings) > 0 }

// RecordFindings are the findings in the text a decision would write into
// the bank (every field but the rationale, which stays with the
// proposal).
func (p *Proposal) RecordFindings() []Finding {
	if p.Screen == nil {
		return nil
	}
	var out []Finding
	for _, f := range p.Screen.Findings {
		if f.Field != "rationale" {
			out = append(out, f)
		}
	}
	return out
}

// ScreenConfig holds memreview.toml [screen].
type ScreenConfig struct {
	// Redact stores a proposal or import whose text holds a secret with
	// each secret replaced by "[redacted: RULE]", instead of refusing it.
	Redact bool `toml:"redact,omitempty"`
}

// FlaggedError refuses to apply a flagged proposal without the operator's
// acknowledgement (DecideRequest.AckFindings), or in bulk. It names the
// findings, never their text.
type FlaggedError struct {
	Proposal string
	Findings []Finding
	Bulk     bool
}

func (e *FlaggedError) Error() string {
	if len(e.Findings) == 0 {
		return fmt.Sprintf("proposal %s is flagged by the screen", e.Proposal)
	}
	more := ""
	if n := len(e.Findings) - 1; n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	how := "acknowledge the findings to accept it (decide --ack-findings)"
	if e.Bulk {
		how = "decide it on its own"
	}
	return fmt.Sprintf("proposal %s is flagged by the screen: %s%s; %s", e.Proposal, e.Findings[0], more, how)
}

// Text is one named text of a record or proposal, as the screen reads it
// and its findings name it.
type Text struct{ Name, Text string }

// Texts are the record's texts the screen reads: lemma, trigger,
// steps[i] and checks[i].input.
func (r *Record) Texts() []Text {
	ts := []Text{{"lemma", r.Lemma}}
	if r.Trigger != "" {
		ts = append(ts, Text{"trigger", r.Trigger})
	}
	for i, st := range r.Steps {
		ts = append(ts, Text{fmt.Sprintf("steps[%d]", i), st})
	}
	for i, c := range r.Checks {
		ts = append(ts, Text{fmt.Sprintf("checks[%d].input", i), c.Input})
	}
	return ts
}

// Texts are the proposal's texts the screen reads: its record's, then
// the rationale.
func (p *Proposal) Texts() []Text {
	var ts []Text
	if p.Record != nil {
		ts = p.Record.Texts()
	}
	if p.Rationale != "" {
		ts = append(ts, Text{"rationale", p.Rationale})
	}
	return ts
}

// SetText replaces the record's text named name (as Texts names it).
func (r *Record) SetText(name, text string) {
	var i int
	switch {
	case name == "lemma":
		r.Lemma = text
	case name == "trigger":
		r.Trigger = text
	case scanIndex(name, "steps[%d]", &i) && i < len(r.Steps):
		r.Steps[i] = text
	case scanIndex(name, "checks[%d].input", &i) && i < len(r.Checks):
		r.Checks[i].Input = text
	}
}

// SetText replaces the proposal's text named name.
func (p *Proposal) SetText(name, text string) {
	if name == "rationale" {
		p.Rationale = text
	} else if p.Record != nil {
		p.Record.SetText(name, text)
	}
}

func scanIndex(name, format string, i *int) bool {
	n, err := fmt.Sscanf(name, format, i)
	return err == nil && n == 1 && fmt.Sprintf(format, *i) == name
}
