package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/sample"
)

// Claims from the command line: alice claims, bob is told who has it and
// the queue shows it; once alice releases, bob can take it.
func TestClaimCommand(t *testing.T) {
	world := filepath.Join(t.TempDir(), "world")
	sampleWorld(t, world)
	p := sample.ProposalIDs[0]
	must(t, mr(t, "", "--bank", world, "--operator", "alice", "claim", p))
	if r := mr(t, "", "--bank", world, "--operator", "bob", "claim", p); r.code != 1 || !strings.Contains(r.stderr, "is being reviewed by alice") {
		t.Fatalf("bob's claim: exit %d %s; want refused naming alice", r.code, r.stderr)
	}
	q := must(t, mr(t, "", "--bank", world, "queue")).stdout
	if line := lineWith(q, p); !strings.Contains(line, "(being reviewed by alice)") {
		t.Fatalf("queue line %q does not show alice's claim", line)
	}
	must(t, mr(t, "", "--bank", world, "--operator", "alice", "claim", "--release", p))
	if q := must(t, mr(t, "", "--bank", world, "queue")).stdout; strings.Contains(q, "being reviewed") {
		t.Fatalf("queue still shows a released claim:\n%s", q)
	}
	must(t, mr(t, "", "--bank", world, "--operator", "bob", "claim", p))
}

func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
