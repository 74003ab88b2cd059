package cli

import (
	"flag"
	"fmt"
	"strings"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

func retrieveCommand() *command {
	var env, tags, taskID string
	var k int
	return &command{name: "retrieve", args: "TASK_TEXT",
		summary: "Show the records a task agent would be given for a task, as the MCP server's memory_search gives them.",
		json:    true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&env, "env", "", "the task's environment (scope filter)")
			fs.StringVar(&tags, "tags", "", "the task's tags, comma-separated (scope filter)")
			fs.IntVar(&k, "k", 5, "number of records")
			fs.StringVar(&taskID, "task-id", "", "the task's id (a trajectory id links the retrieval to how it ended), for the retrieval log")
		},
		run: func(c *call, args []string) error {
			if err := needArgs("retrieve", args, 1, "TASK_TEXT"); err != nil {
				return err
			}
			svc, err := c.open()
			if err != nil {
				return err
			}
			defer svc.Close()
			scope := review.Scope{Env: env, Tags: splitList(tags)}
			out, err := svc.Retrieve(app.RetrieveRequest{Task: strings.Join(args, " "), Scope: scope, K: k, Client: "cli", TaskID: taskID})
			if err != nil {
				return err
			}
			if c.json {
				return printJSON(c.stdout, nonNil(out))
			}
			for _, it := range out {
				fmt.Fprintf(c.stdout, "%.3f  %s  [%s · %s]  %s\n", it.Score, it.Record.ID, it.Record.Category, it.Record.Scope.Env, it.Record.Lemma)
			}
			return nil
		}}
}
