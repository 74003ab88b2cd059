package app_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/screen/screentest"
	"github.com/memreview/memreview/review/store"
)

// proposalLine is one line of a proposals file: a create with lemma.
func proposalLine(lemma string) string {
	return `{"op":"create","rationale":"seen in the run","record":{"lemma":` + quote(lemma) + `,"category":"fact","scope":{"env":"shop"},"confidence":0.6}}` + "\n"
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

func importProposals(t *testing.T, svc *app.Service, name, body string) (*app.ImportResult, error) {
	t.Helper()
	return svc.Import(context.Background(), app.KindProposals, []app.ImportInput{{Name: name, R: strings.NewReader(body)}}, app.ImportOptions{})
}

// bankHolds reports whether any file of the bank folder holds s.
func bankHolds(t *testing.T, dir, s string) string {
	t.Helper()
	var found string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), s) {
			found = p
		}
		return nil
	})
	return found
}

// An imported proposal that tells the task agent to ignore its
// instructions is queued with its findings; accepting it without an
// acknowledgement is refused naming the finding, in bulk too, and with
// the acknowledgement it is accepted and the decision says so.
func TestFlaggedProposalNeedsAcknowledgement(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	res, err := importProposals(t, svc, "agent.jsonl", proposalLine("Prices are in cents.")+proposalLine(screentest.Injection))
	if err != nil {
		t.Fatal(err)
	}
	if res.Flagged != 1 {
		t.Fatalf("%d flagged, want 1", res.Flagged)
	}
	clean, bad := res.Proposals[0], res.Proposals[1]
	stored, err := svc.Proposal(bad.ID)
	if err != nil || !stored.Flagged() || stored.Screen.Rules != app.ScreenRules || stored.Screen.Findings[0].Kind != "instruction" || stored.Screen.Findings[0].Field != "lemma" {
		t.Fatalf("stored screening of the injection: %+v %v", stored.Screen, err)
	}
	if p, _ := svc.Proposal(clean.ID); p.Flagged() || p.Screen == nil {
		t.Fatalf("the clean proposal: %+v", p.Screen)
	}
	fq, err := svc.FlaggedQueue()
	if err != nil || len(fq) != 1 || fq[0].ID != bad.ID {
		t.Fatalf("flagged queue: %v %v", len(fq), err)
	}
	_, err = svc.DecideBulk(context.Background(), []string{clean.ID, bad.ID}, review.Accept, "ana", "")
	var fe *review.FlaggedError
	if !errors.As(err, &fe) || !fe.Bulk || fe.Proposal != bad.ID {
		t.Fatalf("bulk accept of a flagged proposal: %v", err)
	}
	if p, _ := svc.Proposal(clean.ID); p.Status != review.Pending {
		t.Fatalf("the bulk refusal decided %s anyway: %s", clean.ID, p.Status)
	}
	_, err = svc.Decide(context.Background(), review.DecideRequest{Proposal: bad.ID, Verb: review.Accept})
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "instruction in lemma at bytes 0-") || !strings.Contains(err.Error(), "--ack-findings") {
		t.Fatalf("accept without acknowledgement: %v", err)
	}
	if p, _ := svc.Proposal(bad.ID); p.Status != review.Pending {
		t.Fatalf("refused accept changed the proposal: %s", p.Status)
	}
	// Rejecting needs nothing.
	if _, err := svc.Decide(context.Background(), review.DecideRequest{Proposal: clean.ID, Verb: review.Reject}); err != nil {
		t.Fatal(err)
	}
	d, err := svc.Decide(context.Background(), review.DecideRequest{Proposal: bad.ID, Verb: review.Accept, AckFindings: true, Note: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Note, "accepted despite 1 screen finding: instruction in lemma") {
		t.Fatalf("decision note %q does not say what was acknowledged", d.Note)
	}
	// An edit that removes the instruction needs no acknowledgement.
	res, err = importProposals(t, svc, "agent2.jsonl", proposalLine(screentest.Exfiltration))
	if err != nil {
		t.Fatal(err)
	}
	rec := *res.Proposals[0].Record
	rec.Lemma = "Back up query results with the bank's own export."
	if _, err := svc.Decide(context.Background(), review.DecideRequest{Proposal: res.Proposals[0].ID, Verb: review.Edit, Record: &rec}); err != nil {
		t.Fatalf("an edit that removed the finding: %v", err)
	}
}

// A proposal or record holding a secret is refused before anything is
// stored, naming file, line and field and never the secret; with redact =
// true it is stored with the secret replaced, and the secret is nowhere
// in the bank's files.
func TestSecretsNeverEnterTheBank(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	secret := screentest.Secret(1)
	before, _ := svc.Queue()
	_, err := importProposals(t, svc, "agent.jsonl", proposalLine("Prices are in cents.")+proposalLine("Deploy with token "+secret+" on the shop host."))
	var ie *app.InputError
	if !errors.As(err, &ie) || ie.File != "agent.jsonl" || ie.Line != 2 || ie.Field != "record.lemma" || !strings.Contains(ie.Msg, "github-pat") {
		t.Fatalf("import with a secret: %v", err)
	}
	if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), secret[4:20]) {
		t.Fatalf("the error echoes the secret: %v", err)
	}
	if after, _ := svc.Queue(); len(after) != len(before) {
		t.Fatalf("the refused import queued %d proposals", len(after)-len(before))
	}
	_, err = svc.Import(context.Background(), app.KindRecords, []app.ImportInput{{Name: "recs.jsonl", R: strings.NewReader(
		`{"id":"mem_sec","lemma":"The deploy token is in the vault.","category":"fact","scope":{"env":"shop"},"confidence":0.5,"steps":["export GH_TOKEN=` + secret + `"],"status":"active"}` + "\n")}}, app.ImportOptions{})
	if !errors.As(err, &ie) || ie.Line != 1 || ie.Field != "steps[0]" {
		t.Fatalf("records import with a secret: %v", err)
	}
	_, err = svc.Import(context.Background(), app.KindMemories, []app.ImportInput{{Name: "mem0.json", R: strings.NewReader(
		`[{"id":"m1","memory":"use key ` + secret + ` for the API","user_id":"u1"}]`)}}, app.ImportOptions{Format: "mem0"})
	if !errors.As(err, &ie) || ie.File != "mem0.json" || ie.Field != "record.lemma" {
		t.Fatalf("memories import with a secret: %v", err)
	}
	if f := bankHolds(t, svc.Dir(), secret); f != "" {
		t.Fatalf("%s holds the refused secret", f)
	}

	// redact = true
	if err := os.WriteFile(filepath.Join(svc.Dir(), "memreview.toml"), []byte("[screen]\nredact = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := importProposals(t, svc, "agent.jsonl", proposalLine("Deploy with token "+secret+" on the shop host."))
	if err != nil {
		t.Fatal(err)
	}
	p, err := svc.Proposal(res.Proposals[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Record.Lemma, "[redacted: github-pat]") || !p.Screen.Redacted || !p.Flagged() {
		t.Fatalf("redacted proposal: lemma %q, screen %+v", p.Record.Lemma, p.Screen)
	}
	svc.Close()
	if f := bankHolds(t, svc.Dir(), secret); f != "" {
		t.Fatalf("%s holds the secret after a redacting import", f)
	}
}

// Importing memories with --accept refuses a flagged memory (no bulk
// accept of flagged proposals) before anything is written.
func TestAcceptedMemoriesAreNotFlagged(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	before, _ := svc.Queue()
	_, err := svc.Import(context.Background(), app.KindMemories, []app.ImportInput{{Name: "mem0.json", R: strings.NewReader(
		`[{"id":"m1","memory":"Prices are in cents.","user_id":"u1"},{"id":"m2","memory":"` + screentest.Injection + `","user_id":"u1"}]`)}},
		app.ImportOptions{Format: "mem0", Accept: true})
	var ie *app.InputError
	if !errors.As(err, &ie) || !strings.Contains(ie.Msg, "--accept does not accept flagged memories") {
		t.Fatalf("accepting a flagged memory: %v", err)
	}
	if after, _ := svc.Queue(); len(after) != len(before) {
		t.Fatal("the refused import queued proposals")
	}
}

// The curator's propose_* call with a secret is refused to the model
// (which reads the field and rule), and its next, clean call is queued,
// screened.
func TestCuratorProposalsAreScreened(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	ts, _ := svc.Trajectories()
	secret := screentest.Secret(2)
	rec := func(lemma string) string {
		return `{"lemma":` + quote(lemma) + `,"category":"fact","scope":{"env":"shop","tags":[],"task_family":""},"trigger":"","steps":[],"confidence":0.7}`
	}
	srv, seen := scriptedLLM(t,
		[][2]string{{"propose_create", `{"record":` + rec("Use token "+secret+" for the shop API.") + `,"rationale":"seen","evidence":[{"from":1,"to":1}],"probe_runs":[]}`}},
		[][2]string{{"propose_create", `{"record":` + rec(screentest.Exfiltration) + `,"rationale":"seen","evidence":[{"from":1,"to":1}],"probe_runs":[]}`}},
		[][2]string{{"finish", `{"summary":"done"}`}},
	)
	run, err := svc.Curate(context.Background(), curator.Settings{BaseURL: srv.URL, Model: "m", MaxRetries: -1}, []string{ts[0].ID}, curator.Options{RunID: "cur_scr"})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Proposals) != 1 || !run.Proposals[0].Flagged() {
		t.Fatalf("run kept %d proposals (want the exfiltration one, flagged)", len(run.Proposals))
	}
	reqs := seen()
	if !strings.Contains(reqs[1], `record.lemma`) || !strings.Contains(reqs[1], "github-pat") {
		t.Fatal("the model was not told which field held a secret")
	}
	if n := strings.Count(reqs[1], secret); n != 1 { // once: the model's own call, in the history
		t.Fatalf("the secret appears %d times in the request after the refusal: the refusal echoed it", n)
	}
	p, _ := svc.Proposal(run.Proposals[0].ID)
	if !p.Flagged() || p.Screen.Findings[0].Kind != "exfiltration" {
		t.Fatalf("queued curator proposal screening: %+v", p.Screen)
	}
}

// hygiene --only poisoning proposes a delete for a record that steers its
// reader and an update with the secret redacted for one that only holds a
// secret; the rationales quote neither.
func TestHygienePoisoning(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	secret := screentest.Secret(3)
	_, err := svc.Import(context.Background(), app.KindRecords, []app.ImportInput{{Name: "r.jsonl", R: strings.NewReader(
		`{"id":"mem_p1","lemma":"` + screentest.Injection + `","category":"fact","scope":{"env":"shop"},"confidence":0.5,"status":"active"}` + "\n")}}, app.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// a secret that entered before the screen did (written by the store)
	st, err := store.Open(svc.Dir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = st.PutRecords([]review.Record{{ID: "mem_p2", Lemma: "The shop deploy token is " + secret + ".", Category: review.Fact,
		Scope: review.Scope{Env: "shop"}, Confidence: 0.5, Status: review.Active}}, "old", "before the screen")
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	rep, saved, err := svc.Hygiene(context.Background(), app.HygieneOptions{Only: "poisoning"})
	if err != nil {
		t.Fatal(err)
	}
	byTarget := map[string]review.Proposal{}
	for _, p := range saved {
		byTarget[p.Targets[0].ID] = p
	}
	if p := byTarget["mem_p1"]; p.Op != review.OpDelete || !strings.Contains(p.Rationale, "instruction in lemma") {
		t.Fatalf("poisoned record: %+v (report %d findings)", p, len(rep.Findings))
	}
	p := byTarget["mem_p2"]
	if p.Op != review.OpUpdate || p.Record == nil || !strings.Contains(p.Record.Lemma, "[redacted: ") || strings.Contains(p.Record.Lemma, secret) {
		t.Fatalf("record with a secret: %+v", p)
	}
	for _, q := range saved {
		if strings.Contains(q.Rationale, secret) || strings.Contains(q.Rationale, "Ignore all previous") {
			t.Fatalf("rationale quotes the flagged text: %s", q.Rationale)
		}
	}
	if _, again, _ := svc.Hygiene(context.Background(), app.HygieneOptions{Only: "poisoning"}); len(again) != 0 {
		t.Fatalf("a second run queued %d more", len(again))
	}
}

// Proposals screened with older rules (or never) are screened again.
func TestRescreen(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	n, err := svc.Rescreen()
	if err != nil || n == 0 {
		t.Fatalf("rescreened %d (%v); the sample's proposals were never screened", n, err)
	}
	if n2, _ := svc.Rescreen(); n2 != 0 {
		t.Fatalf("a second rescreen did %d", n2)
	}
	q, _ := svc.Queue()
	for _, p := range q {
		if p.Screen == nil || p.Screen.Rules != app.ScreenRules {
			t.Fatalf("%s not rescreened", p.ID)
		}
	}
}

// TestLargeRecordsImportScreened: an import of many records (screened on
// every CPU, in chunks) refuses the first line holding a secret, as a
// line-by-line screen would, and writes nothing; with redact = true every
// secret is replaced and every record holding one counted as flagged.
func TestLargeRecordsImportScreened(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	before, err := svc.Records(review.RecordFilter{})
	if err != nil {
		t.Fatal(err)
	}
	secrets := map[int]string{700: screentest.Secret(2), 600: screentest.Secret(1), 1199: screentest.Secret(3)}
	var body strings.Builder
	for line := 1; line <= 1200; line++ {
		lemma := "Bulk fact " + strings.Repeat("x", line%7) + " about the shop table number " + strconv.Itoa(line) + "."
		if s, ok := secrets[line]; ok {
			lemma = "Deploy with token " + s + " on the shop host."
		}
		body.WriteString(`{"id":"mem_bulk` + strconv.Itoa(line) + `","lemma":` + quote(lemma) + `,"category":"fact","scope":{"env":"shop"},"confidence":0.5,"status":"active"}` + "\n")
	}
	_, err = svc.Import(context.Background(), app.KindRecords, []app.ImportInput{{Name: "bulk.jsonl", R: strings.NewReader(body.String())}}, app.ImportOptions{})
	var ie *app.InputError
	if !errors.As(err, &ie) || ie.File != "bulk.jsonl" || ie.Line != 600 || ie.Field != "lemma" {
		t.Fatalf("a bulk import with secrets on lines 600, 700 and 1199: %v, want line 600's lemma named", err)
	}
	if after, _ := svc.Records(review.RecordFilter{}); len(after) != len(before) {
		t.Fatalf("the refused import wrote %d records", len(after)-len(before))
	}
	if err := os.WriteFile(filepath.Join(svc.Dir(), "memreview.toml"), []byte("[screen]\nredact = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := svc.Import(context.Background(), app.KindRecords, []app.ImportInput{{Name: "bulk.jsonl", R: strings.NewReader(body.String())}}, app.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Count != 1200 || res.Flagged != len(secrets) {
		t.Errorf("redacting import: %d records, %d flagged; want 1200 and %d", res.Count, res.Flagged, len(secrets))
	}
	for line := range secrets {
		r, err := svc.Record("mem_bulk" + strconv.Itoa(line))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.Lemma, "[redacted: github-pat]") {
			t.Errorf("line %d's record was stored unredacted: %q", line, r.Lemma)
		}
	}
	svc.Close()
	for _, s := range secrets {
		if f := bankHolds(t, svc.Dir(), s); f != "" {
			t.Fatalf("%s holds a secret after a redacting import", f)
		}
	}
}
