package formats

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Issue 23 item 12: a Letta block of 20 KB is not one unreadable lemma but
// its paragraphs and list items, each a memory citing the block and its
// part.
func TestLettaLongBlockIsSplit(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Policies\n\nThese are the policies of the shop.\n\n## Refunds\n**Rules:**\n")
	for i := 1; i <= 120; i++ {
		fmt.Fprintf(&b, "- Rule %d: refunds over %d dollars need a manager's approval and a receipt.\n", i, i*10)
	}
	b.WriteString("\n## Code\n```\nrefund(order, amount)\n\nnever partial\n```\n\nA closing paragraph. ")
	b.WriteString(strings.Repeat("It is a long sentence that goes on and on. ", 80))
	value := b.String()
	if len(value) < 10<<10 {
		t.Fatalf("the block is %d bytes", len(value))
	}
	af, _ := json.Marshal(map[string]any{
		"agents": []map[string]any{{"name": "shopbot", "block_ids": []string{"block-7"}}},
		"blocks": []map[string]any{{"id": "block-7", "label": "policies", "value": value, "limit": 30000}, {"id": "block-8", "label": "human", "value": "Sam is a nurse.\n\nSam likes tea."}},
	})
	ms, _, err := ReadMemories(NewInput("shop.af", af), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	// 1 paragraph, 120 rules, the code block, the closing paragraph in 2
	// pieces (it is longer than a part may be), and the short block whole.
	if len(ms) != 125 {
		t.Fatalf("%d memories", len(ms))
	}
	first, rule, code, last := ms[0].Proposal, ms[1].Proposal, ms[121].Proposal, ms[124].Proposal
	if first.Record.Lemma != "# Policies\nThese are the policies of the shop." {
		t.Errorf("first part %q", first.Record.Lemma)
	}
	if want := "# Policies\n## Refunds\n**Rules:**\n- Rule 1: refunds over 10 dollars need a manager's approval and a receipt."; rule.Record.Lemma != want {
		t.Errorf("a rule: %q", rule.Record.Lemma)
	}
	if !strings.HasSuffix(code.Record.Lemma, "```\nrefund(order, amount)\n\nnever partial\n```") {
		t.Errorf("code block %q", code.Record.Lemma)
	}
	src := rule.Record.Provenance.Source
	if src.ID != "block-7#2" || src.Label != "policies" || src.Agent != "shopbot" || !strings.Contains(rule.Rationale, "Part 2 of 124 of the block (a list item") {
		t.Errorf("the part cites %+v, rationale %q", *src, rule.Rationale)
	}
	if last.Record.Lemma != "Sam is a nurse.\n\nSam likes tea." || last.Record.Provenance.Source.ID != "block-8" {
		t.Errorf("a short block is one memory: %q %+v", last.Record.Lemma, *last.Record.Provenance.Source)
	}
	for _, m := range ms[:124] {
		if n := len(m.Proposal.Record.Lemma); n > splitAbove+200 {
			t.Errorf("a part of %d bytes", n)
		}
		if m.Proposal.Fingerprint == rule.Fingerprint && m.Proposal.Record != rule.Record {
			t.Errorf("two parts share the fingerprint %s", rule.Fingerprint)
		}
	}
}

func TestCutKeepsEveryByte(t *testing.T) {
	for _, s := range []string{strings.Repeat("word ", 1000), strings.Repeat("é", 3000), strings.Repeat("line\n", 900) + strings.Repeat("x", 5000)} {
		parts := cut(s, splitAbove)
		joined := strings.Join(parts, "")
		if strings.ReplaceAll(strings.ReplaceAll(joined, " ", ""), "\n", "") != strings.ReplaceAll(strings.ReplaceAll(s, " ", ""), "\n", "") {
			t.Errorf("cut lost text of a %d-byte string", len(s))
		}
		for _, p := range parts {
			if len(p) > splitAbove || !utf8Valid(p) {
				t.Errorf("a piece of %d bytes", len(p))
			}
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
