package app_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/slim/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/slim/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/slim/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// otlpReceiver is an OTLP/HTTP traces endpoint that decodes what it gets.
type otlpReceiver struct {
	mu       sync.Mutex
	spans    []*tracepb.Span
	resource map[string]string
}

func newReceiver(t *testing.T) (*otlpReceiver, string) {
	t.Helper()
	rc := &otlpReceiver{resource: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "want protobuf at /v1/traces", http.StatusBadRequest)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req coltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		for _, rs := range req.ResourceSpans {
			for k, v := range attrMap(rs.GetResource().GetAttributes()) {
				rc.resource[k] = v
			}
			for _, ss := range rs.ScopeSpans {
				rc.spans = append(rc.spans, ss.Spans...)
			}
		}
		rc.mu.Unlock()
		out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return rc, srv.URL
}

func attrMap(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		switch v := kv.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.Key] = v.StringValue
		case *commonpb.AnyValue_IntValue:
			m[kv.Key] = itoa(v.IntValue)
		case *commonpb.AnyValue_ArrayValue:
			s := ""
			for i, e := range v.ArrayValue.Values {
				if i > 0 {
					s += ","
				}
				s += e.GetStringValue()
			}
			m[kv.Key] = s
		}
	}
	return m
}

func itoa(n int64) string {
	b := []byte{}
	if n == 0 {
		return "0"
	}
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestTelemetrySpansFollowTheGenAIMemoryConventions: with an OTLP
// endpoint set, a retrieval, queued proposals and decisions reach the
// receiver as the conventions' memory spans.
func TestTelemetrySpansFollowTheGenAIMemoryConventions(t *testing.T) {
	rc, url := newReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url)
	t.Setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
	dir := sampleWorld.Copy(t)
	var warnings []string
	svc, err := app.Open(context.Background(), dir, app.Options{Operator: "ana", Warnf: func(f string, a ...any) { warnings = append(warnings, f) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, err := svc.Retrieve(app.RetrieveRequest{Task: "count the reviewed items", Scope: review.Scope{Env: "shop"}, K: 3, Client: "mcp:agent", TaskID: "task-7"})
	if err != nil || len(got) == 0 {
		t.Fatalf("retrieve: %v %d", err, len(got))
	}
	target := got[0].Record.ID
	res, err := svc.Import(ctx, app.KindProposals, []app.ImportInput{{Name: "agent", Proposals: []review.Proposal{
		{Op: review.OpCreate, Rationale: "seen in a run", Record: &review.Record{Lemma: "Ratings live in fdbk_g1.", Category: review.Fact, Confidence: 0.6, Status: review.Active}},
		{Op: review.OpDelete, Rationale: "stale", Targets: []review.Target{{ID: target}}},
	}}}, app.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	create, del := res.Proposals[0].ID, res.Proposals[1].ID
	d, err := svc.Decide(ctx, review.DecideRequest{Proposal: create, Verb: review.Accept, Operator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Decide(ctx, review.DecideRequest{Proposal: del, Verb: review.Reject, Operator: "bo"}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Close(); err != nil { // sends what is queued
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Fatalf("warnings: %v", warnings)
	}

	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.resource["service.name"] != "memreview" {
		t.Errorf("resource: %v", rc.resource)
	}
	type want struct {
		name  string
		attrs map[string]string
		event bool
	}
	wants := []want{
		{"search_memory", map[string]string{"gen_ai.operation.name": "search_memory", "gen_ai.provider.name": "memreview", "gen_ai.memory.store.id": "bank",
			"gen_ai.memory.record.count": itoa(int64(len(got))), "gen_ai.memory.query.text": "count the reviewed items", "memreview.task.id": "task-7",
			"memreview.client": "mcp:agent", "memreview.scope.env": "shop"}, false},
		{"create_memory", map[string]string{"gen_ai.operation.name": "create_memory", "memreview.proposal.id": create, "memreview.proposal.status": "pending",
			"memreview.proposal.op": "create", "gen_ai.memory.record.count": "1"}, false},
		{"delete_memory", map[string]string{"gen_ai.operation.name": "delete_memory", "memreview.proposal.id": del, "memreview.proposal.status": "pending",
			"gen_ai.memory.record.id": target}, false},
		{"create_memory", map[string]string{"gen_ai.operation.name": "create_memory", "memreview.decision.id": d.ID, "memreview.decision.verb": "accept",
			"memreview.decision.operator": "ana", "gen_ai.memory.record.id": d.Record.ID, "memreview.proposal.id": create}, true},
		{"memreview.decide", map[string]string{"memreview.decision.verb": "reject", "memreview.decision.operator": "bo", "memreview.proposal.id": del}, true},
	}
	if len(rc.spans) != len(wants) {
		for _, s := range rc.spans {
			t.Logf("span %s %v", s.Name, attrMap(s.Attributes))
		}
		t.Fatalf("%d spans, want %d", len(rc.spans), len(wants))
	}
	for i, w := range wants {
		s := rc.spans[i]
		attrs := attrMap(s.Attributes)
		if s.Name != w.name || s.Kind != tracepb.Span_SPAN_KIND_INTERNAL {
			t.Errorf("span %d: %s (kind %v), want %s", i, s.Name, s.Kind, w.name)
		}
		for k, v := range w.attrs {
			if attrs[k] != v {
				t.Errorf("span %d %s: %s = %q, want %q", i, s.Name, k, attrs[k], v)
			}
		}
		if w.event && (len(s.Events) != 1 || s.Events[0].Name != "memreview.decision") {
			t.Errorf("span %d %s: events %v", i, s.Name, s.Events)
		}
	}
	if _, ok := attrMap(rc.spans[4].Attributes)["gen_ai.operation.name"]; ok {
		t.Error("a decision that wrote nothing claims a memory operation")
	}
}

// TestImportedMemorySearchSpansAreRetrievals: search_memory spans in an
// imported OTel trace become retrieval-log entries of the run, and the
// records they returned count the run's outcome in their worth.
func TestImportedMemorySearchSpansAreRetrievals(t *testing.T) {
	t.Parallel()
	svc, _ := memoryBank(t)
	trace := `{"resourceSpans":[{"scopeSpans":[{"spans":[
 {"traceId":"t1","spanId":"a","name":"chat gpt-5","startTimeUnixNano":"1767225600000000000","attributes":[
   {"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},
   {"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"count reviewed items\"}]}]"}},
   {"key":"gen_ai.output.messages","value":{"stringValue":"[{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"content\":\"267\"}]}]"}}]},
 {"traceId":"t1","spanId":"b","name":"search_memory","startTimeUnixNano":"1767225601000000000","attributes":[
   {"key":"gen_ai.operation.name","value":{"stringValue":"search_memory"}},
   {"key":"gen_ai.provider.name","value":{"stringValue":"mem0"}},
   {"key":"gen_ai.memory.store.id","value":{"stringValue":"shop-memory"}},
   {"key":"gen_ai.memory.query.text","value":{"stringValue":"reviews join"}},
   {"key":"gen_ai.memory.records","value":{"stringValue":"[{\"id\":\"mem_0001\",\"content\":\"…\",\"score\":0.9},{\"id\":\"mem_0002\",\"content\":\"…\"}]"}}]}
]}]}]}`
	res, err := svc.Import(context.Background(), app.KindTrajectories, []app.ImportInput{{Name: "trace.json", R: strings.NewReader(trace)}}, app.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trajectories[0]
	if tr.ID != "t1" || strings.Join(tr.Retrieved, ",") != "mem_0001,mem_0002" {
		t.Fatalf("run %s retrieved %v", tr.ID, tr.Retrieved)
	}
	log, err := svc.Retrievals(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 1 || log[0].TaskID != "t1" || log[0].Client != "otel:mem0" || log[0].Task != "reviews join" || strings.Join(log[0].Records, ",") != "mem_0001,mem_0002" {
		t.Fatalf("retrieval log: %+v", log)
	}
	uses, err := svc.RetrievedBy("mem_0002")
	if err != nil || len(uses) != 1 || uses[0].Trajectory != "t1" {
		t.Fatalf("retrieved by: %+v %v", uses, err)
	}
	if rep := res.Reports[0]; len(rep.Notes) == 0 || !strings.Contains(strings.Join(rep.Notes, ";"), "1 search_memory spans") {
		t.Fatalf("report notes: %v", rep.Notes)
	}
}
