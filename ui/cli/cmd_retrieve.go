package cli

import (
	"flag"
	"fmt"
	"strings"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// retrieved is one record of 'retrieve --json --explain': how hybrid
// ranking placed it (a rank is null where that list did not find it).
type retrieved struct {
	Score      float64       `json:"score"`
	BM25Rank   *int          `json:"bm25_rank"`
	VectorRank *int          `json:"vector_rank"`
	RRF        float64       `json:"rrf"`
	Similarity float32       `json:"similarity"`
	Record     review.Record `json:"record"`
}

// retrieveExplained is 'retrieve --json --explain': the records and what
// the retrieval did (the notes of what fell back, the selection).
type retrieveExplained struct {
	Query     string         `json:"query"`
	Model     string         `json:"model,omitempty"`
	Notes     []string       `json:"notes"`
	Selection *app.Selection `json:"selection,omitempty"`
	Records   []retrieved    `json:"records"`
}

func retrieveCommand() *command {
	var env, tags, taskID, format string
	var k, tokens int
	var explain, sel bool
	return &command{name: "retrieve", args: "TASK_TEXT",
		summary: "Show the records a task agent would be given for a task, as the MCP server's memory_search gives them.",
		help: "Records are ranked by BM25 and by vector similarity, fused by reciprocal rank (memreview.toml [embeddings]).\n" +
			"--explain shows each record's BM25 rank, vector rank and fused score (\"-\" where a list did not find it);\n" +
			"--select lets the curator's chat model choose filters and the query first ([retrieval] select = true does it always);\n" +
			"--format guidelines prints the records as the prompt section a task agent is given.",
		json: true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&env, "env", "", "the task's environment (scope filter)")
			fs.StringVar(&tags, "tags", "", "the task's tags, comma-separated (scope filter)")
			fs.IntVar(&k, "k", 5, "number of records")
			fs.StringVar(&taskID, "task-id", "", "the task's id (a trajectory id links the retrieval to how it ended), for the retrieval log")
			fs.BoolVar(&explain, "explain", false, "show each record's BM25 rank, vector rank and fused score")
			fs.BoolVar(&sel, "select", false, "LLM-guided selection: the chat model chooses filters, categories and the query")
			fs.StringVar(&format, "format", "records", "records or guidelines (the prompt section for a task agent)")
			fs.IntVar(&tokens, "tokens", 0, "the guidelines section's token budget (0: [retrieval] guideline_tokens, else 1200)")
		},
		run: func(c *call, args []string) error {
			if err := needArgs("retrieve", args, 1, "TASK_TEXT"); err != nil {
				return err
			}
			if format != "records" && format != "guidelines" {
				return usagef("retrieve: --format %q is not records or guidelines", format)
			}
			svc, err := c.service()
			if err != nil {
				return err
			}
			req := app.RetrieveRequest{Task: strings.Join(args, " "), Scope: review.Scope{Env: env, Tags: splitList(tags)},
				K: k, Client: "cli", TaskID: taskID, Select: sel}
			if format == "guidelines" {
				req.Guidelines = &app.GuidelineOptions{MaxTokens: tokens}
			}
			res, err := svc.RetrieveWith(c.ctx, req)
			if err != nil {
				return err
			}
			if !c.json || !explain || res.Guidelines != nil {
				for _, n := range res.Notes {
					fmt.Fprintf(c.stderr, "memreview: %s\n", n)
				}
			}
			switch {
			case res.Guidelines != nil && c.json:
				return printJSON(c.stdout, res.Guidelines)
			case res.Guidelines != nil:
				fmt.Fprint(c.stdout, res.Guidelines.Text)
				return nil
			case c.json && explain:
				out := retrieveExplained{Query: res.Query, Model: res.Model, Notes: nonNil(res.Notes), Selection: res.Selection, Records: []retrieved{}}
				for _, it := range res.Records {
					out.Records = append(out.Records, retrieved{Score: it.Score, BM25Rank: it.BM25Rank, VectorRank: it.VectorRank, RRF: it.RRF, Similarity: it.Similarity, Record: it.Record})
				}
				return printJSON(c.stdout, out)
			case c.json:
				return printJSON(c.stdout, nonNil(res.Records))
			}
			if sel := res.Selection; sel != nil {
				fmt.Fprintf(c.stdout, "selection: query %q", sel.Query)
				if sel.Env != "" {
					fmt.Fprintf(c.stdout, ", env %s", sel.Env)
				}
				if len(sel.Tags) > 0 {
					fmt.Fprintf(c.stdout, ", tags %s", strings.Join(sel.Tags, ","))
				}
				if len(sel.Categories) > 0 {
					fmt.Fprintf(c.stdout, ", categories %s", strings.Join(sel.Categories, ","))
				}
				fmt.Fprintln(c.stdout)
			}
			if explain && len(res.Records) > 0 {
				fmt.Fprintf(c.stdout, "%-6s  %-4s  %-4s  %-7s  %s\n", "score", "bm25", "vec", "rrf", "record")
			}
			for _, it := range res.Records {
				if explain {
					fmt.Fprintf(c.stdout, "%.3f  %4s  %4s  %.5f  %s  [%s · %s]  %s\n", it.Score, rank(it.BM25Rank), rank(it.VectorRank), it.RRF,
						it.Record.ID, it.Record.Category, it.Record.Scope.Env, it.Record.Lemma)
					continue
				}
				fmt.Fprintf(c.stdout, "%.3f  %s  [%s · %s]  %s\n", it.Score, it.Record.ID, it.Record.Category, it.Record.Scope.Env, it.Record.Lemma)
			}
			return nil
		}}
}

// rank prints a list's rank, "-" where the list did not find the record.
func rank(r *int) string {
	if r == nil {
		return "-"
	}
	return fmt.Sprint(*r)
}
