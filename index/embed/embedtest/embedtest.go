// Package embedtest is a local OpenAI-compatible /v1/embeddings server
// for tests (no network): it answers with vectors the test decides
// (Topics: texts that name the same topic are near, others apart), and
// can be made to fail the ways a real endpoint does — down, slow, the
// wrong dimension, NaN or infinite values, fewer vectors than inputs,
// HTTP 429 with Retry-After — and recover.
package embedtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Fault is how the server misbehaves.
type Fault int

const (
	None        Fault = iota
	Down              // every request's connection is dropped
	Slow              // answers after the server's delay (SetDelay)
	WrongDims         // vectors one value longer than asked
	NaN               // a NaN in the body (not JSON)
	Inf               // an out-of-range number in the body
	Fewer             // one vector fewer than inputs
	RateLimited       // HTTP 429 with Retry-After (SetRetryAfter)
)

// Server is the scripted endpoint.
type Server struct {
	*httptest.Server

	mu         sync.Mutex
	vec        func(string) []float32
	fault      Fault
	delay      time.Duration
	retryAfter string
	inputs     [][]string
	models     []string
}

// New starts a server answering with vec's vectors; it closes with t.
func New(t testing.TB, vec func(text string) []float32) *Server {
	s := &Server{vec: vec}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// BaseURL is the endpoint's base URL (…/v1), as [embeddings] base_url.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// SetFault makes every later request fail as f (None: answer again).
func (s *Server) SetFault(f Fault) {
	s.mu.Lock()
	s.fault = f
	s.mu.Unlock()
}

// SetDelay is how long Slow waits.
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	s.delay = d
	s.mu.Unlock()
}

// SetRetryAfter is RateLimited's Retry-After header (default "1").
func (s *Server) SetRetryAfter(v string) {
	s.mu.Lock()
	s.retryAfter = v
	s.mu.Unlock()
}

// Inputs returns every request's inputs, in order.
func (s *Server) Inputs() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]string(nil), s.inputs...)
}

// Embedded returns every text embedded (all requests' inputs, flat).
func (s *Server) Embedded() []string {
	var out []string
	for _, in := range s.Inputs() {
		out = append(out, in...)
	}
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var req struct {
		Input []string `json:"input"`
		Model string   `json:"model"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	fault, delay, ra := s.fault, s.delay, s.retryAfter
	s.inputs = append(s.inputs, req.Input)
	s.models = append(s.models, req.Model)
	s.mu.Unlock()
	switch fault {
	case Down:
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
				return
			}
		}
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	case Slow:
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	case RateLimited:
		if ra == "" {
			ra = "1"
		}
		w.Header().Set("Retry-After", ra)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"message":"slow down","type":"rate_limit"}}`)
		return
	}
	var data []string
	for i, text := range req.Input {
		v := s.vec(text)
		if fault == WrongDims {
			v = append(v, 0.5)
		}
		vals := make([]string, len(v))
		for j, x := range v {
			vals[j] = fmt.Sprint(x)
		}
		switch {
		case fault == NaN && i == 0:
			vals[0] = "NaN"
		case fault == Inf && i == 0:
			vals[0] = "1e999"
		}
		data = append(data, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":[%s]}`, i, strings.Join(vals, ",")))
	}
	if fault == Fewer && len(data) > 0 {
		data = data[:len(data)-1]
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"object":"list","model":%q,"data":[%s],"usage":{"prompt_tokens":1,"total_tokens":1}}`, req.Model, strings.Join(data, ","))
}

// Topics returns a vector function of dims dimensions: a text's vector is
// the sum of the directions of the topics whose words it contains (topic
// i is dimension i), plus a small direction of its own hashed from the
// text, so texts that share a topic are near (cosine about 0.99) and texts
// that share none are far apart (near 0), whatever words they use.
func Topics(dims int, topics map[string]int) func(string) []float32 {
	return func(text string) []float32 {
		v := make([]float32, dims)
		low := strings.ToLower(text)
		for w, i := range topics {
			if strings.Contains(low, w) {
				v[i%dims] = 1
			}
		}
		h := fnv.New64a()
		h.Write([]byte(text))
		x := h.Sum64()
		for j := range v {
			x = x*6364136223846793005 + 1442695040888963407
			v[j] += 0.05 * float32(int64(x>>33)%1000) / 1000
		}
		var ss float64
		for _, f := range v {
			ss += float64(f) * float64(f)
		}
		if ss == 0 {
			v[0] = 1
			return v
		}
		inv := float32(1 / math.Sqrt(ss))
		for j := range v {
			v[j] *= inv
		}
		return v
	}
}
