package cli

import (
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/memreview/memreview/review/app"
)

func searchCommand() *command {
	var typ, env, category, status string
	var k int
	var exact bool
	return &command{name: "search", args: "QUERY",
		summary:   "Search the bank by words, fields and phrases; every term must match unless the query says OR.",
		help:      "QUERY uses Bleve's query-string syntax: terms, field:value, +/-, \"phrases\", confidence:>0.7.",
		json:      true,
		smallHeap: true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&typ, "type", "record", "record, trajectory or proposal")
			fs.StringVar(&env, "env", "", "only this environment")
			fs.StringVar(&category, "category", "", "only this category")
			fs.StringVar(&status, "status", "", "only this status (records: active unless this or a status: term asks for retired)")
			fs.IntVar(&k, "k", 10, "number of hits")
			fs.BoolVar(&exact, "exact", false, "count and rank every hit (a huge result set is otherwise estimated, and ranked on its first 100,000)")
		},
		run: func(c *call, args []string) error {
			if err := needArgs("search", args, 1, "QUERY"); err != nil {
				return err
			}
			svc, err := c.service()
			if err != nil {
				return err
			}
			// The table prints no fragments: only --json asks for them.
			req := app.SearchRequest{Query: strings.Join(args, " "), Type: typ, Size: k,
				Filters: map[string][]string{}, Highlight: c.json, Exact: exact}
			for f, v := range map[string]string{"env": env, "category": category, "status": status} {
				if v != "" {
					req.Filters[f] = []string{v}
				}
			}
			res, err := svc.Search(req)
			if err != nil {
				return err
			}
			if c.json {
				return printJSON(c.stdout, res)
			}
			tw := tabwriter.NewWriter(c.stdout, 2, 4, 2, ' ', 0)
			about := ""
			if res.Estimated { // a huge result set: its total is estimated
				about = "≈ "
			}
			fmt.Fprintf(tw, "%s%d hits%s (%s)\n", about, res.Total, rankedNote(res.Ranked), res.Took.Round(1000))
			if res.Behind > 0 {
				fmt.Fprintf(c.stderr, "memreview: %s\n", behindNote(res))
			}
			for _, h := range res.Hits {
				fmt.Fprintf(tw, "%.3f\t%s\t%s\n", h.Score, h.ID, describe(svc, h.Type, h.ID))
			}
			return tw.Flush()
		}}
}

// rankedNote says, after the hit count, that only the first ranked hits
// were ranked (SearchResults.Ranked), or nothing when all were.
func rankedNote(ranked uint64) string {
	if ranked == 0 {
		return ""
	}
	return fmt.Sprintf("; best of the first %d ranked (--exact ranks all)", ranked)
}

// behindNote says how far behind the bank the index was for a search, and
// what was searched directly meanwhile: "index 80,000 changes behind: the
// newest 20,000 changed items searched directly, 60,000 not yet
// searchable".
func behindNote(res *app.SearchResults) string {
	s := fmt.Sprintf("index %s changes behind: ", thousands(int(res.Behind)))
	if res.Unsearched == 0 {
		return s + fmt.Sprintf("the %s changed items searched directly", thousands(res.Direct))
	}
	return s + fmt.Sprintf("the newest %s changed items searched directly, %s not yet searchable", thousands(res.Direct), thousands(res.Unsearched))
}

// describe is the one-line summary of a search hit.
func describe(s *app.Service, typ, id string) string {
	switch typ {
	case "trajectory":
		if t, err := s.Trajectory(id); err == nil {
			return fmt.Sprintf("%s  %s", oneLine(t.Outcome.Words(), 40), oneLine(t.Task, 90))
		}
	case "proposal":
		if p, err := s.Proposal(id); err == nil {
			return fmt.Sprintf("%s %s  %s", p.Op, p.Status, oneLine(p.Rationale, 90))
		}
	default:
		if r, err := s.Record(id); err == nil {
			flag := ""
			if r.Suspect {
				flag = " [suspect]"
			}
			return fmt.Sprintf("%s %s%s  %s", r.Category, r.Status, flag, oneLine(r.Lemma, 90))
		}
	}
	return typ
}
