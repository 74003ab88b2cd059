package index

import (
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
)

// fakeSource is an in-memory bank: items in maps plus a change log.
type fakeSource struct {
	mu      sync.Mutex
	recs    map[string]review.Record
	props   map[string]review.Proposal
	trajs   map[string]review.Trajectory
	log     []review.Change
	since   map[int64]int // ChangesSince calls by argument
	reads   int           // single-item reads (Record, Proposal, Trajectory)
	failAll error         // returned by every call when set
}

func newFake() *fakeSource {
	return &fakeSource{
		recs:  map[string]review.Record{},
		props: map[string]review.Proposal{},
		trajs: map[string]review.Trajectory{},
		since: map[int64]int{},
	}
}

func (f *fakeSource) change(kind, id string) {
	f.log = append(f.log, review.Change{Seq: int64(len(f.log) + 1), Kind: kind, ID: id})
}

func (f *fakeSource) putRecord(rs ...review.Record) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range rs {
		if r.Status == "" {
			r.Status = review.Active
		}
		f.recs[r.ID] = r
		f.change("record", r.ID)
	}
}

func (f *fakeSource) deleteRecord(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.recs, id)
	f.change("record", id)
}

func (f *fakeSource) putProposal(ps ...review.Proposal) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range ps {
		f.props[p.ID] = p
		f.change("proposal", p.ID)
	}
}

func (f *fakeSource) putTrajectory(ts ...review.Trajectory) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, t := range ts {
		f.trajs[t.ID] = t
		f.change("trajectory", t.ID)
	}
}

func (f *fakeSource) calls(seq int64) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.since[seq]
}

func (f *fakeSource) LastSeq() (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return int64(len(f.log)), f.failAll
}

func (f *fakeSource) ChangesSince(seq int64) ([]review.Change, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.since[seq]++
	if f.failAll != nil {
		return nil, f.failAll
	}
	var out []review.Change
	for _, c := range f.log {
		if c.Seq > seq {
			out = append(out, c)
		}
	}
	return out, nil
}

func (f *fakeSource) Record(id string) (*review.Record, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	r, ok := f.recs[id]
	if !ok {
		return nil, fmt.Errorf("record %s: %w", id, review.ErrNotFound)
	}
	return &r, nil
}

func (f *fakeSource) Proposal(id string) (*review.Proposal, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	p, ok := f.props[id]
	if !ok {
		return nil, fmt.Errorf("proposal %s: %w", id, review.ErrNotFound)
	}
	return &p, nil
}

func (f *fakeSource) Trajectory(id string) (*review.Trajectory, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	t, ok := f.trajs[id]
	if !ok {
		return nil, fmt.Errorf("trajectory %s: %w", id, review.ErrNotFound)
	}
	return &t, nil
}

func (f *fakeSource) Records(flt review.RecordFilter) ([]review.Record, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []review.Record
	for _, r := range f.recs {
		if (flt.Status == "" || r.Status == flt.Status) && (flt.Env == "" || r.Scope.Env == flt.Env) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, f.failAll
}

func (f *fakeSource) Proposals() ([]review.Proposal, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []review.Proposal
	for _, p := range f.props {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, f.failAll
}

func (f *fakeSource) Trajectories() ([]review.Trajectory, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []review.Trajectory
	for _, t := range f.trajs {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, f.failAll
}

var t0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// sampleBank is a small bank the tests search.
func sampleBank() *fakeSource {
	f := newFake()
	f.putRecord(
		review.Record{ID: "mem_1", Lemma: "In shop.db, reviews join items on fdbk_g1.ref_id = items_g1.item_id.",
			Category: review.Relation, Scope: review.Scope{Env: "shop", Tags: []string{"g1"}},
			Trigger: "counting reviewed items", Confidence: 0.9, Priority: 1, Created: t0, Updated: t0},
		review.Record{ID: "mem_2", Lemma: "The orders table stores totals in cents, not dollars.",
			Category: review.Fact, Scope: review.Scope{Env: "shop"}, Confidence: 0.8, Created: t0, Updated: t0},
		review.Record{ID: "mem_3", Lemma: "Flight prices are quoted per passenger; multiply before comparing budgets.",
			Category: review.Fact, Scope: review.Scope{Env: "airline"}, Confidence: 0.6, Created: t0, Updated: t0},
		review.Record{ID: "mem_4", Lemma: "When joining customers to orders, deduplicate customers first.",
			Category: review.Warning, Scope: review.Scope{Env: "shop", Tags: []string{"g2"}},
			Steps: []string{"SELECT DISTINCT customer_id", "then join orders"}, Confidence: 0.75, Created: t0, Updated: t0},
		review.Record{ID: "mem_5", Lemma: "Retired: reviews used to join on review_id.", Category: review.Relation,
			Scope: review.Scope{Env: "shop"}, Status: review.Retired, Confidence: 0.3, Created: t0, Updated: t0},
		review.Record{ID: "mem_6", Lemma: "Always list tables before writing SQL against an unknown schema.",
			Category: review.Strategy, Confidence: 0.95, Priority: 3, Created: t0, Updated: t0},
	)
	f.putProposal(review.Proposal{ID: "prop_1", Op: review.OpCreate, Status: review.Pending,
		Rationale: "The agent joined reviews correctly after probing the schema.",
		Record: &review.Record{Lemma: "Reviews link to items through ref_id.", Category: review.Relation,
			Scope: review.Scope{Env: "shop"}, Confidence: 0.7}, Created: t0})
	f.putTrajectory(
		review.Trajectory{ID: "traj_1", Env: "airline", Task: "Book the cheapest flight to Oslo",
			Steps: []review.Step{
				{Role: "user", Content: "Book the cheapest flight to Oslo"},
				{Role: "assistant", ToolCalls: []review.ToolCall{{Name: "search_flights", Arguments: `{"to":"OSL"}`}}},
				{Role: "tool", Name: "search_flights", Content: "3 flights"},
				{Role: "assistant", ToolCalls: []review.ToolCall{{Name: "book_reservation", Arguments: `{"flight":"SK1"}`}}},
				{Role: "tool", Name: "book_reservation", Content: "booked"},
				{Role: "assistant", Content: "Booked SK1 for 120 EUR."},
			},
			Outcome: review.Outcome{Passed: true, Reward: 1}, Started: t0},
		review.Trajectory{ID: "traj_2", Env: "shop", Task: "Count reviewed items",
			Steps: []review.Step{
				{Role: "assistant", ToolCalls: []review.ToolCall{{Name: "sql_query", Arguments: "SELECT count(*) FROM fdbk_g1"}}},
				{Role: "assistant", Content: "267"},
			},
			Outcome: review.Outcome{Passed: false, Reward: 0}, Started: t0},
	)
	return f
}

// openOn opens a new index built from src in a test folder, closed when
// the test ends.
func openOn(t testing.TB, src *fakeSource) *Index {
	t.Helper()
	ix, err := Open(filepath.Join(t.TempDir(), "index"), src)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}
