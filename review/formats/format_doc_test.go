package formats

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docBlock matches a fenced block in docs/FORMATS.md: its info string and body.
var docBlock = regexp.MustCompile("(?ms)^```([^\n]*)\n(.*?)^```[ \t]*$")

// TestFormatsDocExamples parses every JSON example in docs/FORMATS.md with
// the reader for its kind (the word after json/jsonl in the fence), so the
// documentation cannot drift from the code.
func TestFormatsDocExamples(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "FORMATS.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := docBlock.FindAllStringSubmatch(string(doc), -1)
	seen := map[string]int{}
	recordIDs := map[string]bool{}
	var proposals []string
	for _, b := range blocks {
		info := strings.Fields(b[1])
		if len(info) == 0 || info[0] != "json" && info[0] != "jsonl" {
			continue
		}
		if len(info) != 2 {
			t.Errorf("fenced %s block without a kind (records, proposals, decisions, trajectories):\n%.200s", info[0], b[2])
			continue
		}
		kind, body := info[1], b[2]
		seen[kind]++
		name := "FORMATS.md " + kind
		switch kind {
		case "records":
			recs, err := ReadRecords(strings.NewReader(body), name)
			if err != nil {
				t.Error(err)
			}
			for _, r := range recs {
				recordIDs[r.ID] = true
			}
		case "proposals":
			proposals = append(proposals, body) // checked once every record is known
		case "decisions":
			if _, err := ReadDecisions(strings.NewReader(body), name); err != nil {
				t.Error(err)
			}
		case "trajectories":
			ts, err := ReadChatTrajectories(strings.NewReader(body), name)
			if err != nil {
				t.Error(err)
			}
			if want := strings.Count(body, "\n"); info[0] == "jsonl" && len(ts) != want {
				t.Errorf("%s: %d trajectories from %d lines", name, len(ts), want)
			}
		case "tasks":
			ts, err := ReadTasks(strings.NewReader(body), name, nil)
			if err != nil {
				t.Error(err)
			}
			if want := strings.Count(body, "\n"); len(ts) != want {
				t.Errorf("%s: %d tasks from %d lines", name, len(ts), want)
			}
		default:
			t.Errorf("fenced block of unknown kind %q", kind)
		}
	}
	for _, body := range proposals {
		ps, lines, err := ReadProposals(strings.NewReader(body), "FORMATS.md proposals")
		if err == nil {
			err = CheckProposalTargets("FORMATS.md proposals", ps, lines, func(id string) bool { return recordIDs[id] })
		}
		if err != nil {
			t.Error(err)
		}
	}
	for _, k := range []string{"records", "proposals", "decisions", "trajectories"} {
		if seen[k] == 0 {
			t.Errorf("docs/FORMATS.md has no %s example", k)
		}
	}
	if seen["trajectories"] < 3 {
		t.Errorf("docs/FORMATS.md has %d trajectory examples, want the memreview form, OpenAI runs and a pretty-printed array", seen["trajectories"])
	}
}
