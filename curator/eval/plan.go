package eval

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/memreview/memreview/review"
)

// DefaultBudget is the tool calls a task may make (as CLBench).
const DefaultBudget = 15

// DefaultK is how many records a bank condition gives per task.
const DefaultK = 5

// Plan is everything a run needs, frozen when it starts and written
// beside its results: the tasks, the conditions, and for each condition
// and task the records the task agent is given. A resumed run reads the
// plan, so it replays exactly what the first process would have, however
// the bank changed meanwhile.
type Plan struct {
	ID         string        `json:"id"`
	TasksFile  string        `json:"tasks_file"`
	Tasks      []review.Task `json:"tasks"` // in sequence order
	Conditions []string      `json:"conditions"`
	Runs       int           `json:"runs"`
	Budget     int           `json:"budget"`
	Seed       int64         `json:"seed"`
	K          int           `json:"k"`
	Model      string        `json:"model"`
	BaseURL    string        `json:"base_url"`
	Operator   string        `json:"operator,omitempty"`
	Started    time.Time     `json:"started"`
	// Price is the model's price from memreview.toml [eval.prices], nil
	// when the table has none for it (cost is then unknown).
	Price *review.Price `json:"price,omitempty"`
	// Memory maps a condition and a task id to the records the task agent
	// is given, best first, as keys of Records ("id@version").
	Memory  map[string]map[string][]string `json:"memory"`
	Records map[string]review.Record       `json:"records"`
	// Decisions maps each decision a bank@ condition names to the records
	// it changed, for attribution.
	Decisions map[string][]string `json:"decisions,omitempty"`
}

// RecordKey is a record version's key in Plan.Records.
func RecordKey(r *review.Record) string { return r.ID + "@" + strconv.Itoa(r.Version) }

// SetMemory records what condition gives task.
func (p *Plan) SetMemory(condition, task string, recs []review.Record) {
	if p.Memory == nil {
		p.Memory = map[string]map[string][]string{}
	}
	if p.Records == nil {
		p.Records = map[string]review.Record{}
	}
	if p.Memory[condition] == nil {
		p.Memory[condition] = map[string][]string{}
	}
	keys := make([]string, 0, len(recs))
	for i := range recs {
		k := RecordKey(&recs[i])
		p.Records[k] = recs[i]
		keys = append(keys, k)
	}
	p.Memory[condition][task] = keys
}

// Guidelines is the records condition gives task, best first.
func (p *Plan) Guidelines(condition, task string) []review.Record {
	keys := p.Memory[condition][task]
	out := make([]review.Record, 0, len(keys))
	for _, k := range keys {
		if r, ok := p.Records[k]; ok {
			out = append(out, r)
		}
	}
	return out
}

// Units is every task run of the plan in the order they are run:
// repetition by repetition, task by task in sequence order, each task's
// conditions side by side (the pairs a comparison reads).
func (p *Plan) Units() []UnitKey {
	out := make([]UnitKey, 0, p.Runs*len(p.Tasks)*len(p.Conditions))
	for rep := 1; rep <= p.Runs; rep++ {
		for _, t := range p.Tasks {
			for _, c := range p.Conditions {
				out = append(out, UnitKey{t.ID, c, rep})
			}
		}
	}
	return out
}

// TaskSeed is the seed of task in repetition rep: the same under every
// condition, so that the conditions' runs of one task are paired.
func (p *Plan) TaskSeed(task string, rep int) int {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%d", p.Seed, task, rep)
	return int(h.Sum64() & 0x7fffffff)
}

// Check says what is wrong with a plan read back, or nil.
func (p *Plan) Check() error {
	switch {
	case p.ID == "":
		return fmt.Errorf("the plan has no id")
	case len(p.Tasks) == 0:
		return fmt.Errorf("the plan has no tasks")
	case len(p.Conditions) == 0:
		return fmt.Errorf("the plan has no conditions")
	case p.Runs < 1 || p.Budget < 1:
		return fmt.Errorf("the plan has %d runs and a budget of %d; both must be 1 or more", p.Runs, p.Budget)
	}
	for _, c := range p.Conditions {
		if _, err := ParseCondition(c); err != nil {
			return err
		}
	}
	return nil
}

// Index is the 1-based place of task in the sequence, 0 when absent.
func (p *Plan) Index(task string) int {
	for i, t := range p.Tasks {
		if t.ID == task {
			return i + 1
		}
	}
	return 0
}
