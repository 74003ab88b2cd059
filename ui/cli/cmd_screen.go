package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/printable"
)

// screenCommand runs the poisoning screen on any text.
func screenCommand() *command {
	var llm bool
	var model string
	return &command{name: "screen", args: "FILE|-",
		summary: "Screen text for instructions aimed at a model, exfiltration, secrets and hidden text, one input line at a time.",
		help: "Each line is plain text, or a JSON object whose \"text\" field is screened (JSON Lines). With --json each\n" +
			"input line prints {\"line\": N, \"findings\": [...]}; spans are byte offsets into the text, and a\n" +
			"secret's span is shown as its marker, never as itself. With a bank, URLs to hosts in none of its\n" +
			"environments are flagged too. --llm asks the curator's model for a second opinion ([curator] settings,\n" +
			"OPENAI_* variables); its findings say source \"llm\".",
		json: true,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&llm, "llm", false, "also ask the curator's model (an LLM judge) for what the rules miss")
			fs.StringVar(&model, "model", "", "with --llm: the model (default [curator] model, $OPENAI_MODEL)")
		},
		run: func(c *call, args []string) error {
			if len(args) != 1 {
				return usagef("screen: give a FILE, or - for standard input")
			}
			in, name, err := c.openInput(args[0])
			if err != nil {
				return err
			}
			defer in.Close()
			texts, err := screenLines(bufio.NewReader(in), name)
			if err != nil {
				return err
			}
			opt := app.ScreenOptions{LLM: llm, Model: model}
			var found [][]review.Finding
			if c.hasBank() {
				svc, err := c.service()
				if err != nil {
					return err
				}
				found, err = svc.ScreenTexts(c.ctx, texts, opt)
				if err != nil {
					return err
				}
			} else if found, err = app.ScreenTexts(c.ctx, texts, opt); err != nil {
				return err
			}
			return printScreen(c, texts, found)
		}}
}

// hasBank reports whether a bank is there to open: one named by flag or
// environment, or ./.memreview.
func (c *call) hasBank() bool {
	if c.explicit {
		return true
	}
	_, err := os.Stat(c.bank)
	return err == nil
}

// maxScreenLine caps one input line: a record's limit, with room for
// JSON escapes.
const maxScreenLine = 4 * review.MaxRecordBytes

// screenLines reads the input's lines: a line that is a JSON object gives
// its "text" field, any other line is the text.
func screenLines(r *bufio.Reader, name string) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxScreenLine)
	var texts []string
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "{") {
			var obj map[string]json.RawMessage
			if json.Unmarshal([]byte(t), &obj) == nil {
				var text string
				raw, ok := obj["text"]
				if !ok || json.Unmarshal(raw, &text) != nil {
					return nil, &app.InputError{File: name, Line: n, Field: "text", Msg: "a JSON line needs a \"text\" string to screen"}
				}
				line = text
			}
		}
		texts = append(texts, line)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &app.InputError{File: name, Line: len(texts) + 1, Msg: fmt.Sprintf("line is longer than %d MiB", maxScreenLine>>20)}
		}
		return nil, fmt.Errorf("screen: read %s: %w", name, err)
	}
	return texts, nil
}

// screenFinding is a finding as 'screen' prints it: the span's text, or a
// secret's marker.
type screenFinding struct {
	review.Finding
	Span string `json:"span"`
}

func printScreen(c *call, texts []string, found [][]review.Finding) error {
	total := 0
	for i, fs := range found {
		out := make([]screenFinding, len(fs))
		for j, f := range fs {
			out[j] = screenFinding{Finding: f, Span: spanText(texts[i], f, fs)}
		}
		total += len(fs)
		if c.json {
			b, err := json.Marshal(map[string]any{"line": i + 1, "findings": out})
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "%s\n", b)
			continue
		}
		for _, f := range out {
			src := ""
			if f.Source == "llm" {
				src = " [LLM judge]"
			}
			fmt.Fprintf(c.stdout, "%d: %s at %d-%d (%s): %s%s\n    %s\n", i+1, f.Kind, f.Start, f.End, f.Rule, f.Reason, src, printable.Line(f.Span))
		}
	}
	if !c.json {
		fmt.Fprintf(c.stdout, "%d findings in %d lines\n", total, len(texts))
	}
	return nil
}

// spanText is the text a finding covers, cut to 200 bytes: a secret's
// is its marker, and the secrets inside another finding's span are
// replaced by theirs.
func spanText(text string, f review.Finding, all []review.Finding) string {
	if f.Start < 0 || f.End > len(text) || f.Start > f.End {
		return ""
	}
	if f.Kind == review.FindingSecret {
		return app.RedactMarker(f.Rule)
	}
	secrets := slices.DeleteFunc(slices.Clone(all), func(o review.Finding) bool { return o.Kind != review.FindingSecret })
	slices.SortFunc(secrets, func(a, b review.Finding) int { return a.Start - b.Start })
	var b strings.Builder
	pos := f.Start
	for _, o := range secrets {
		if o.End <= pos || o.Start >= f.End {
			continue
		}
		if o.Start > pos {
			b.WriteString(text[pos:o.Start])
		}
		b.WriteString(app.RedactMarker(o.Rule))
		pos = max(pos, o.End)
	}
	if pos < f.End {
		b.WriteString(text[pos:f.End])
	}
	out := app.RedactText(b.String())
	if len(out) > 200 {
		out = out[:200] + "…"
	}
	return strings.ToValidUTF8(out, "")
}
