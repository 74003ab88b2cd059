package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/curator/eval"
	"github.com/memreview/memreview/curator/llmtest"
	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/formats"
	"github.com/memreview/memreview/sample"
)

// BenchmarkEvalThroughput runs the sample world's first 20 tasks under
// none and bank (40 task runs an op) with the scripted drift agent: two
// model turns, one probe and the grading probe per task run, each
// appended and fsynced to the run's log. tasks/s counts task runs.
func BenchmarkEvalThroughput(b *testing.B) {
	for _, jobs := range []int{1, 4} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			svc := sampleService(b, app.Options{})
			tasks := sample.Tasks()[:20]
			srv := llmtest.NewFunc(b, driftRespond(b, tasks))
			var set bytes.Buffer
			if err := formats.WriteTasks(&set, tasks); err != nil {
				b.Fatal(err)
			}
			data := set.Bytes()
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				rep, err := svc.Eval(context.Background(), app.EvalRequest{TasksFile: "bench.jsonl", Tasks: bytes.NewReader(data),
					Settings: evalSettings(srv.BaseURL()), EvalRun: app.EvalRun{Jobs: jobs}})
				if err != nil || rep.Done != 40 {
					b.Fatalf("%v, %d task runs", err, rep.Done)
				}
			}
			b.ReportMetric(float64(40*b.N)/time.Since(start).Seconds(), "tasks/s")
		})
	}
}

// BenchmarkToolCallOverhead sets one tool call of the task agent beside
// the probe it runs: "probe" is the service's Probe alone; "agent/calls=N"
// is a whole task run whose scripted model makes N sql_query calls and
// then answers (each call: a model turn over local HTTP, the probe, the
// result back as JSON), so (calls=10 − calls=0) / 10 is one tool call.
func BenchmarkToolCallOverhead(b *testing.B) {
	svc := sampleService(b, app.Options{})
	const sql = "SELECT COUNT(*) FROM items_g1"
	b.Run("probe", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if res := svc.Probe(context.Background(), sample.EnvShop, sql, probe.Limits{}); !res.OK() {
				b.Fatal(res.Error)
			}
		}
	})
	task := review.Task{ID: "t", Env: sample.EnvShop, Text: "count", Grading: review.Grading{Probe: sql}}
	for _, calls := range []int{0, 10} {
		b.Run(fmt.Sprintf("agent/calls=%d", calls), func(b *testing.B) {
			srv := llmtest.NewFunc(b, func(req llmtest.Request) llmtest.Reply {
				made := 0
				for _, m := range req.Messages {
					if m.Role == "tool" {
						made++
					}
				}
				if made < calls {
					args, _ := json.Marshal(map[string]string{"sql": sql})
					return llmtest.Calls(llmtest.Call{Name: eval.ToolSQL, Args: string(args)})
				}
				return llmtest.Calls(llmtest.Call{Name: eval.ToolAnswer, Args: `{"answer":"120"}`})
			})
			agent := eval.Agent{LLM: curator.NewLLM(evalSettings(srv.BaseURL())), Budget: 15,
				Probe: func(ctx context.Context, env, input string) probe.Result {
					return svc.Probe(ctx, env, input, probe.Limits{})
				}}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				tr, err := agent.Run(context.Background(), &task, probe.KindSQL, nil, 1)
				if err != nil || tr.ToolCalls != calls || !tr.Answered {
					b.Fatalf("%v: %d calls, answered %v", err, tr.ToolCalls, tr.Answered)
				}
			}
		})
	}
}
