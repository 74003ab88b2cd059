package formats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// gen builds a file of about size bytes in format name, and says how many
// runs it holds.
func gen(name string, size int) ([]byte, int) {
	var b bytes.Buffer
	runs := 0
	switch name {
	case "openai":
		b.WriteString("[")
		for b.Len() < size {
			if runs > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, `{"task_id":%d,"trial":0,"reward":1,"traj":[{"role":"system","content":"policy %d"},{"role":"user","content":"change my flight"},{"role":"assistant","content":null,"tool_calls":[{"id":"c%d","type":"function","function":{"name":"get_reservation","arguments":"{\"id\":\"R%d\"}"}}]},{"role":"tool","tool_call_id":"c%d","name":"get_reservation","content":"{\"flights\":[\"HAT001\",\"HAT002\"],\"cabin\":\"economy\"}"},{"role":"assistant","content":"Your reservation has two flights."}]}`, runs, runs, runs, runs, runs)
			runs++
		}
		b.WriteString("]")
	case "otel":
		for b.Len() < size {
			fmt.Fprintf(&b, `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t%d","spanId":"a","name":"chat","startTimeUnixNano":"1718000001000000000","attributes":[{"key":"gen_ai.request.model","value":{"stringValue":"gpt-4o"}},{"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"Weather in Paris?\"}]}]"}},{"key":"gen_ai.output.messages","value":{"stringValue":"[{\"role\":\"assistant\",\"parts\":[{\"type\":\"tool_call\",\"id\":\"c1\",\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}]}]"}}]},{"traceId":"t%d","spanId":"b","name":"execute_tool get_weather","startTimeUnixNano":"1718000002000000000","attributes":[{"key":"gen_ai.tool.name","value":{"stringValue":"get_weather"}},{"key":"gen_ai.tool.call.id","value":{"stringValue":"c1"}},{"key":"gen_ai.tool.call.result","value":{"stringValue":"rainy"}}]}]}]}]}`+"\n", runs, runs)
			runs++
		}
	case "mem0":
		b.WriteString("[")
		for b.Len() < size {
			if runs > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, `{"id":"m%d","memory":"User %d prefers window seats on long flights","user_id":"u%d","categories":["travel"],"created_at":"2024-07-20T10:00:00-07:00","updated_at":1721500000}`, runs, runs, runs)
			runs++
		}
		b.WriteString("]")
	}
	return b.Bytes(), runs
}

// BenchmarkImport measures each adapter on a generated file next to plain
// reading and JSON-decoding the same bytes into interface{} (the floor).
// MEMREVIEW_BENCH_MB sets the size (default 50).
func BenchmarkImport(b *testing.B) {
	size := benchMB() << 20
	for _, name := range []string{"openai", "otel", "mem0"} {
		data, runs := gen(name, size)
		b.Run(name+"/json-decode", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				if name == "otel" {
					for _, l := range jsonLines(data) {
						var v any
						json.Unmarshal(l.data, &v)
					}
					continue
				}
				var v any
				if err := json.Unmarshal(data, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/import", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			f, _ := Lookup(name)
			for i := 0; i < b.N; i++ {
				in := NewInput("bench", data)
				var n int
				if f.Kind == Memories {
					ms, _, err := ReadMemories(in, f, "")
					if err != nil {
						b.Fatal(err)
					}
					n = len(ms)
				} else {
					ts, _, err := ReadTrajectories(in, f)
					if err != nil {
						b.Fatal(err)
					}
					n = len(ts)
				}
				if n != runs {
					b.Fatalf("%d runs, want %d", n, runs)
				}
			}
			b.ReportMetric(float64(runs)*float64(b.N)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}

func benchMB() int {
	var n int
	if _, err := fmt.Sscan(getenv("MEMREVIEW_BENCH_MB"), &n); err != nil || n <= 0 {
		return 50
	}
	return n
}
func getenv(k string) string { return os.Getenv(k) }
