package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/curator/llmtest"
	"github.com/memreview/memreview/index/embed/embedtest"
)

// vecRecords share topics (embedtest.Topics) but not words with the tasks
// below: mem_conn is about connectivity, which the scripted endpoint
// puts beside "bluetooth" and "wireless".
const vecRecords = `{"id":"mem_conn","lemma":"attrs_g2 holds connectivity for every items_g2 row","trigger":"counting items by attribute","steps":["join attrs_g2 on item_id"],"category":"fact","scope":{"env":"shop"},"confidence":0.9,"provenance":{},"status":"active","version":1,"created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}
{"id":"mem_cents","lemma":"a price is stored in cents","category":"convention","scope":{"env":"shop"},"confidence":0.9,"provenance":{},"status":"active","version":1,"created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}
{"id":"mem_gadgets","lemma":"reviewed gadgets are counted once per item","category":"procedure","scope":{"env":"shop"},"confidence":0.9,"provenance":{},"status":"active","version":1,"created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}
`

var cliTopics = map[string]int{"bluetooth": 0, "wireless": 0, "connectivity": 0, "cents": 1, "price": 1}

// vecCLIBank is a bank of vecRecords whose memreview.toml names srv's
// endpoint in [embeddings].
func vecCLIBank(t *testing.T, srv *embedtest.Server) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bank")
	must(t, mr(t, "", "--bank", dir, "init"))
	f, err := os.OpenFile(filepath.Join(dir, "memreview.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\n[embeddings]\nbase_url = \"" + srv.BaseURL() + "\"\nmodel = \"topic-embed\"\napi_key_env = \"TOPIC_KEY\"\ntimeout = \"2s\"\nquery_timeout = \"2s\"\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	must(t, mr(t, vecRecords, "--bank", dir, "import", "records", "-"))
	return dir
}

// embeddings wait embeds every record through the configured endpoint;
// status then says so, in text and JSON; retrieve --explain shows that the
// record sharing no word with the task came from the vector list alone.
func TestEmbeddingsStatusWaitAndExplain(t *testing.T) {
	t.Parallel()
	srv := embedtest.New(t, embedtest.Topics(8, cliTopics))
	bank := vecCLIBank(t, srv)
	env := []string{"TOPIC_KEY=k"}
	w := must(t, mrWith(t, "", env, "--bank", bank, "embeddings", "wait", "--timeout", "30s"))
	if !strings.Contains(w.stdout, "3 of 3") || !strings.Contains(w.stdout, "topic-embed") {
		t.Fatalf("embeddings wait: %q, want 3 of 3 with topic-embed", w.stdout)
	}
	var st struct {
		Model          string
		Fallback       bool
		Active, Done   int
		ServingVectors int `json:"serving_vectors"`
	}
	out := must(t, mrWith(t, "", env, "--bank", bank, "embeddings", "status", "--json")).stdout
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Model != "topic-embed" || st.Fallback || st.Active != 3 || st.Done != 3 {
		t.Fatalf("embeddings status --json: %s (%v)", out, err)
	}
	before := len(srv.Embedded())

	raw := must(t, mrWith(t, "", env, "--bank", bank, "retrieve", "--json", "--explain", "--env", "shop", "wireless bluetooth gadgets")).stdout
	var res struct {
		Model   string
		Records []struct {
			Score      float64
			BM25Rank   *int `json:"bm25_rank"`
			VectorRank *int `json:"vector_rank"`
			Record     struct{ ID string }
		}
	}
	if err := json.Unmarshal([]byte(raw), &res); err != nil {
		t.Fatal(err, raw)
	}
	byID := map[string]int{}
	for i, r := range res.Records {
		byID[r.Record.ID] = i
	}
	ci, okC := byID["mem_conn"]
	gi, okG := byID["mem_gadgets"]
	if !okC || !okG || res.Model != "topic-embed" {
		t.Fatalf("retrieve --explain: %s; want mem_conn (vectors) and mem_gadgets (BM25)", raw)
	}
	if c := res.Records[ci]; c.BM25Rank != nil || c.VectorRank == nil || *c.VectorRank != 1 {
		t.Errorf("mem_conn ranks: bm25 %v vector %v; want null and 1", c.BM25Rank, c.VectorRank)
	}
	if g := res.Records[gi]; g.BM25Rank == nil || *g.BM25Rank != 1 {
		t.Errorf("mem_gadgets bm25 rank %v, want 1", g.BM25Rank)
	}
	if !strings.Contains(raw, `"bm25_rank": null`) {
		t.Errorf("a rank the list did not give is not null in JSON: %s", raw)
	}
	// The records' vectors are stored with the bank: the second process
	// embedded only the task.
	if got := srv.Embedded()[before:]; len(got) != 1 || got[0] != "wireless bluetooth gadgets" {
		t.Errorf("retrieve embedded %q, want only the task", got)
	}
	txt := must(t, mrWith(t, "", env, "--bank", bank, "retrieve", "--explain", "--env", "shop", "wireless bluetooth gadgets")).stdout
	if l := lineWith(txt, "mem_conn"); !strings.Contains(l, "   -     1  ") {
		t.Errorf("text --explain line for mem_conn %q, want bm25 - and vector 1", l)
	}

	// The endpoint goes away: retrieve answers from BM25 and says why.
	srv.SetFault(embedtest.Down)
	r := must(t, mrWith(t, "", env, "--bank", bank, "retrieve", "--env", "shop", "wireless bluetooth gadgets"))
	if !strings.Contains(r.stdout, "mem_gadgets") || strings.Contains(r.stdout, "mem_conn") || !strings.Contains(r.stderr, "BM25 only") {
		t.Fatalf("retrieve with the endpoint down: %s / %s; want BM25's mem_gadgets and the note", r.stdout, r.stderr)
	}
}

// Without an endpoint the offline embedder is named as the fallback, and
// MEMREVIEW_EMBEDDINGS_URL/MODEL name an endpoint without memreview.toml.
func TestEmbeddingsOfflineAndEnv(t *testing.T) {
	t.Parallel()
	bank := newCLIBank(t)
	w := must(t, mr(t, "", "--bank", bank, "embeddings", "wait", "--timeout", "30s"))
	if !strings.Contains(w.stdout, "offline") || !strings.Contains(w.stdout, "2 of 2") {
		t.Fatalf("offline wait: %q, want the offline fallback named, 2 of 2", w.stdout)
	}
	srv := embedtest.New(t, embedtest.Topics(8, cliTopics))
	env := []string{"MEMREVIEW_EMBEDDINGS_URL=" + srv.BaseURL(), "MEMREVIEW_EMBEDDINGS_MODEL=env-embed"}
	must(t, mrWith(t, "", env, "--bank", bank, "embeddings", "wait", "--timeout", "30s"))
	out := must(t, mrWith(t, "", env, "--bank", bank, "embeddings", "status")).stdout
	if !strings.Contains(out, "env-embed") || !strings.Contains(out, "2 of 2") || len(srv.Embedded()) < 2 {
		t.Fatalf("status with the endpoint named by the environment: %q (%d embedded)", out, len(srv.Embedded()))
	}
	if r := mr(t, "", "--bank", bank, "embeddings", "status", "extra"); r.code != 2 {
		t.Errorf("embeddings status extra: exit %d, want 2", r.code)
	}
}

// --format guidelines prints the prompt section; --select lets the chat
// model choose the query and drops an env the bank does not have.
func TestRetrieveGuidelinesAndSelect(t *testing.T) {
	t.Parallel()
	srv := embedtest.New(t, embedtest.Topics(8, cliTopics))
	bank := vecCLIBank(t, srv)
	env := []string{"TOPIC_KEY=k"}
	g := must(t, mrWith(t, "", env, "--bank", bank, "retrieve", "--format", "guidelines", "--env", "shop", "how are gadgets counted")).stdout
	for _, want := range []string{"## Guidelines from memory", "mem_gadgets", "- Content: reviewed gadgets are counted once per item", "- Purpose: "} {
		if !strings.Contains(g, want) {
			t.Fatalf("guidelines section lacks %q:\n%s", want, g)
		}
	}
	if r := mr(t, "", "--bank", bank, "retrieve", "--format", "yaml", "x"); r.code != 2 || !strings.Contains(r.stderr, "records or guidelines") {
		t.Errorf("--format yaml: exit %d %s", r.code, r.stderr)
	}

	llm := llmtest.New(t, llmtest.Calls(llmtest.Call{Name: "select_memories", Args: `{"query":"price cents","env":"warehouse","categories":["convention"]}`}))
	senv := append(env, "OPENAI_BASE_URL="+llm.BaseURL(), "OPENAI_API_KEY=none", "OPENAI_MODEL=picker")
	r := must(t, mrWith(t, "", senv, "--bank", bank, "retrieve", "--select", "what does an order cost"))
	if !strings.Contains(r.stdout, `selection: query "price cents"`) || !strings.Contains(lineWith(r.stdout, "mem_"), "mem_cents") ||
		strings.Contains(r.stdout, "mem_gadgets") || !strings.Contains(r.stderr, `dropped env "warehouse"`) {
		t.Fatalf("retrieve --select: %s / %s", r.stdout, r.stderr)
	}
	// Prose instead of a tool call: plain hybrid, said.
	prose := llmtest.New(t, llmtest.Text("I think you want prices."))
	penv := append(env, "OPENAI_BASE_URL="+prose.BaseURL(), "OPENAI_API_KEY=none", "OPENAI_MODEL=picker")
	r = must(t, mrWith(t, "", penv, "--bank", bank, "retrieve", "--select", "--env", "shop", "reviewed gadgets"))
	if !strings.Contains(r.stdout, "mem_gadgets") || !strings.Contains(r.stderr, "plain hybrid retrieval") {
		t.Fatalf("retrieve --select with prose: %s / %s", r.stdout, r.stderr)
	}
}
