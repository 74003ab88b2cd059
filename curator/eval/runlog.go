package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// A run lives in a folder of its own beside the bank (BANK/evals/RUN):
//
//	plan.json      the Plan, written once, atomically, before any task runs
//	results.jsonl  one TaskRun a line, appended and fsynced as each ends
//	lock           flocked by the process running it
//
// A task run is done once its line is on disk: kill -9 loses at most the
// task runs in flight (and a torn last line, which Resume cuts), and
// Resume runs exactly the units that have no line. Two processes cannot
// run one run at once: the second finds the lock held.
const (
	PlanFile    = "plan.json"
	ResultsFile = "results.jsonl"
	lockFile    = "lock"
)

// ErrRunning says another process is running the run.
var ErrRunning = errors.New("another memreview process is running it")

// Log is a run's results log, held for writing by this process.
type Log struct {
	dir  string
	mu   sync.Mutex
	f    *os.File
	lock *os.File
	done map[UnitKey]bool
}

// Create makes the run's folder dir (it must not exist), writes the plan
// and takes the run.
func Create(dir string, p *Plan) (*Log, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	if _, err := os.Lstat(dir); err == nil {
		return nil, fmt.Errorf("eval: run %s: %w", p.ID, os.ErrExist)
	}
	b, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		return nil, fmt.Errorf("eval: encode the plan: %w", err)
	}
	// The run's folder appears with its plan in it: a listing never reads
	// a run whose plan is not written yet. It is made beside its place
	// under a dot name (List skips those) and renamed into place.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+"-")
	if err != nil {
		return nil, fmt.Errorf("eval: run %s: %w", p.ID, err)
	}
	defer os.RemoveAll(tmp) // gone once renamed
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("eval: run %s: %w", p.ID, err)
	}
	if err := writeAtomic(filepath.Join(tmp, PlanFile), b); err != nil {
		return nil, fmt.Errorf("eval: write the plan of %s: %w", p.ID, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, fmt.Errorf("eval: run %s: %w", p.ID, err)
	}
	syncDir(filepath.Dir(dir))
	l, _, err := open(dir)
	return l, err
}

// Resume takes the run in dir to finish it: the plan, the task runs done
// (each unit once), and the log to append the rest to. A torn last line
// (a process killed while writing it) is cut off. ErrRunning (wrapped)
// when another process holds the run.
func Resume(dir string) (*Log, *Plan, []TaskRun, error) {
	p, err := ReadPlan(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	l, runs, err := open(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	return l, p, runs, nil
}

// open takes the lock, cuts a torn tail and opens the results for
// appending.
func open(dir string) (*Log, []TaskRun, error) {
	lock, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("eval: %w", err)
	}
	held, err := tryLock(lock)
	if err == nil && held {
		err = fmt.Errorf("eval: run %s: %w", filepath.Base(dir), ErrRunning)
	}
	if err != nil {
		lock.Close()
		return nil, nil, err
	}
	fail := func(err error) (*Log, []TaskRun, error) {
		unlock(lock)
		lock.Close()
		return nil, nil, err
	}
	path := filepath.Join(dir, ResultsFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fail(fmt.Errorf("eval: %w", err))
	}
	runs, whole, err := readResults(f, path)
	if err == nil {
		err = f.Truncate(whole) // a torn last line goes
	}
	if err == nil {
		_, err = f.Seek(whole, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return fail(err)
	}
	l := &Log{dir: dir, f: f, lock: lock, done: map[UnitKey]bool{}}
	for i := range runs {
		l.done[runs[i].Key()] = true
	}
	return l, runs, nil
}

// Dir is the run's folder.
func (l *Log) Dir() string { return l.dir }

// Append writes one task run and syncs it to disk. A unit already in the
// log is refused: no task runs twice.
func (l *Log) Append(r *TaskRun) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("eval: encode task run %s/%s/%d: %w", r.Task, r.Condition, r.Rep, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return errors.New("eval: the run's log is closed")
	}
	if l.done[r.Key()] {
		return fmt.Errorf("eval: task %s under %s (run %d) is already in the log", r.Task, r.Condition, r.Rep)
	}
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("eval: write the results of %s: %w", filepath.Base(l.dir), err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("eval: sync the results of %s: %w", filepath.Base(l.dir), err)
	}
	l.done[r.Key()] = true
	return nil
}

// Close releases the run.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	unlock(l.lock)
	l.lock.Close()
	return err
}

// ReadPlan reads a run's plan.
func ReadPlan(dir string) (*Plan, error) {
	b, err := os.ReadFile(filepath.Join(dir, PlanFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("eval: there is no run %s (no %s in %s)", filepath.Base(dir), PlanFile, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("eval: %s: %w", filepath.Join(dir, PlanFile), err)
	}
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("eval: %s: %w", filepath.Join(dir, PlanFile), err)
	}
	return &p, nil
}

// Read reads a run without taking it: its plan, the task runs done, and
// whether a process is running it now.
func Read(dir string) (*Plan, []TaskRun, bool, error) {
	p, err := ReadPlan(dir)
	if err != nil {
		return nil, nil, false, err
	}
	path := filepath.Join(dir, ResultsFile)
	f, err := os.Open(path)
	var runs []TaskRun
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, nil, false, fmt.Errorf("eval: %w", err)
	default:
		runs, _, err = readResults(f, path)
		f.Close()
		if err != nil {
			return nil, nil, false, err
		}
	}
	return p, runs, Running(dir), nil
}

// Running reports whether a process holds the run in dir.
func Running(dir string) bool {
	f, err := os.Open(filepath.Join(dir, lockFile))
	if err != nil {
		return false
	}
	defer f.Close()
	held, err := tryLock(f)
	if err == nil && !held {
		unlock(f)
	}
	return held
}

// readResults reads the task runs of a results file and the length of its
// whole lines: a last line without its newline is a write a kill cut
// short, left out. Any other line that does not decode is an error naming
// the file and line. A unit that appears twice keeps its first line.
func readResults(r io.Reader, path string) ([]TaskRun, int64, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var out []TaskRun
	seen := map[UnitKey]bool{}
	var whole int64
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			return out, whole, nil // a torn last line, if any, is not counted
		}
		if err != nil {
			return nil, 0, fmt.Errorf("eval: read %s: %w", path, err)
		}
		whole += int64(len(line))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var tr TaskRun
		if err := json.Unmarshal(line, &tr); err != nil {
			return nil, 0, fmt.Errorf("eval: %s:%d: %v", path, n, err)
		}
		if !seen[tr.Key()] {
			seen[tr.Key()] = true
			out = append(out, tr)
		}
	}
}

// RunInfo is one run as a listing shows it.
type RunInfo struct {
	Plan    *Plan
	Done    int  // task runs in the log
	Total   int  // task runs the plan holds
	Running bool // a process holds it now
	Err     error
}

// List reads every run under root (BANK/evals), newest first: its plan
// and how many task runs its log holds (counted, not decoded). A folder
// that is not a readable run is listed with its error.
func List(root string) ([]RunInfo, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	var out []RunInfo
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue // a dot folder is a run being created
		}
		dir := filepath.Join(root, e.Name())
		p, err := ReadPlan(dir)
		var done int
		if err == nil {
			done, err = countLines(filepath.Join(dir, ResultsFile))
		}
		if err != nil {
			out = append(out, RunInfo{Plan: &Plan{ID: e.Name()}, Err: err})
			continue
		}
		out = append(out, RunInfo{Plan: p, Done: done, Total: len(p.Units()), Running: Running(dir)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Plan.Started.Equal(out[j].Plan.Started) {
			return out[i].Plan.Started.After(out[j].Plan.Started)
		}
		return out[i].Plan.ID > out[j].Plan.ID
	})
	return out, nil
}

// countLines counts a results file's whole lines (its task runs, as
// Append writes them) without decoding them: a listing reads every run.
func countLines(path string) (int, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("eval: %w", err)
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	n := 0
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return 0, fmt.Errorf("eval: read %s: %w", path, err)
		}
	}
}

// writeAtomic writes data to path through a synced temporary file and a
// rename, then syncs the folder.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// syncDir makes a folder's new entries durable, where the system can.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
