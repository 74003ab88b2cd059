package review

import (
	"fmt"
	"strings"
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

// SecretError refuses text holding a secret: it names where (the input,
// the field, the byte offset) and the rule, never the secret.
type SecretError struct {
	Where    string // "memories.json:3" or a proposal id; "" when unknown
	Findings []Finding
}

func (e *SecretError) Error() string {
	var parts []string
	for _, f := range e.Findings {
		if f.Kind == FindingSecret {
			parts = append(parts, fmt.Sprintf("field %q at byte %d (%s)", f.Field, f.Start, f.Rule))
		}
	}
	where := ""
	if e.Where != "" {
		where = e.Where + ": "
	}
	return where + "holds a secret — " + strings.Join(parts, ", ") + "; a secret never enters the bank (remove it, or set redact = true under [screen] in memreview.toml to store it redacted)"
}
