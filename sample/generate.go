package sample

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
)

// Paths of the environments inside a sample bank, relative to it.
const (
	ShopPath = "envs/shop.db"
	DocsPath = "envs/docs"
)

// envPre names the pre-migration copy of the shop database, which exists
// only while the world is being generated.
const envPre = "shop@pre"

// world is the state of one generation.
type world struct {
	ctx     context.Context
	dir     string
	clk     *clock
	pre     *sql.DB // shop database before the migration
	cur     *sql.DB // shop database after it
	docs    *docsData
	envs    map[string]probe.Env
	results map[string]probe.Result
	trajs   map[string]*review.Trajectory
	err     error
}

// Generate writes a complete sample bank into dir (created if missing; it
// must not already hold a bank): bank.db with trajectories, records and a
// queue of proposals, the environments under dir/envs, memreview.toml
// naming them, and the task set memreview eval replays (TasksPath). The
// same seed gives the same world, byte for byte in the
// environments and the exported bank.
func Generate(dir string, seed int64) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(abs, store.DBFile)); err == nil {
		return fmt.Errorf("sample: %s already holds a bank; generate into a new directory", abs)
	}
	tmp, err := os.MkdirTemp("", "memreview-sample-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	w := &world{ctx: context.Background(), dir: abs, clk: &clock{t: Epoch},
		results: map[string]probe.Result{}, trajs: map[string]*review.Trajectory{}}
	if err := w.buildEnvs(tmp, seed); err != nil {
		return err
	}
	defer w.pre.Close()
	defer w.cur.Close()
	if err := w.writeTasks(); err != nil {
		return err
	}
	return w.buildBank()
}

// buildEnvs writes envs/docs and envs/shop.db, keeping a pre-migration copy
// of the shop database in tmp for the story's first half.
func (w *world) buildEnvs(tmp string, seed int64) error {
	envs := filepath.Join(w.dir, "envs")
	if err := os.MkdirAll(envs, 0o755); err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	w.docs = buildDocs(seed)
	if err := writeDocs(filepath.Join(w.dir, DocsPath), w.docs); err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	build := filepath.Join(tmp, "shop_build.db")
	prePath := filepath.Join(tmp, "shop_pre.db")
	shop := filepath.Join(w.dir, ShopPath)
	db, err := openShop(build)
	if err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	err = fillShop(db, seed)
	if err == nil {
		_, err = db.Exec(`VACUUM INTO ?`, prePath)
	}
	if err == nil {
		err = migrateShop(db)
	}
	if err == nil {
		_, err = db.Exec(`VACUUM INTO ?`, shop)
	}
	if err != nil {
		db.Close()
		return fmt.Errorf("sample: shop database: %w", err)
	}
	w.cur = db
	if w.pre, err = sql.Open("sqlite", fileURI(prePath)+"?mode=ro"); err != nil {
		db.Close()
		return fmt.Errorf("sample: %w", err)
	}
	w.envs = map[string]probe.Env{
		envPre:  {Name: EnvShop, Kind: probe.KindSQL, Path: prePath},
		EnvShop: {Name: EnvShop, Kind: probe.KindSQL, Path: shop},
		EnvDocs: {Name: EnvDocs, Kind: probe.KindFiles, Path: filepath.Join(w.dir, DocsPath)},
	}
	return nil
}

// buildBank creates the bank and fills it: trajectories, records, queue.
func (w *world) buildBank() error {
	s, err := store.Create(w.dir, store.Options{Now: w.clk.now})
	if err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	defer s.Close()
	cfg := review.Config{Envs: []probe.Env{
		{Name: EnvShop, Kind: probe.KindSQL, Path: ShopPath},
		{Name: EnvDocs, Kind: probe.KindFiles, Path: DocsPath},
	}}
	if err := s.SaveConfig(cfg); err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	trajs := w.trajectories()
	recs := w.records()
	props := w.proposals()
	if w.err != nil {
		return fmt.Errorf("sample: %w", w.err)
	}
	if err := s.PutTrajectories(trajs); err != nil {
		return fmt.Errorf("sample: trajectories: %w", err)
	}
	for _, r := range recs {
		w.clk.set(r.Created)
		if err := s.PutRecords([]review.Record{r}, "curator", "accepted from "+r.Provenance.Trajectory); err != nil {
			return fmt.Errorf("sample: record %s: %w", r.ID, err)
		}
	}
	for _, p := range props {
		w.clk.set(p.prop.Created)
		if err := s.AddProposals([]review.Proposal{p.prop}, p.runs); err != nil {
			return fmt.Errorf("sample: proposal %s: %w", p.prop.ID, err)
		}
	}
	// Verify once, as an operator would after the migration, so the stale
	// records open already flagged suspect. Check results are not part of
	// the exported bank, so generations stay byte-identical.
	if _, err := s.Verify(context.Background(), ""); err != nil {
		return fmt.Errorf("sample: verify: %w", err)
	}
	return s.Close()
}

// probe runs input against the named environment ("shop", "docs", or
// envPre for the pre-migration database) once per generation, with a fixed
// duration so the stored result is deterministic.
func (w *world) probe(env, input string) probe.Result {
	k := env + "\x00" + input
	if r, ok := w.results[k]; ok {
		return r
	}
	e, ok := w.envs[env]
	if !ok {
		w.fail(fmt.Errorf("probe on unknown environment %q", env))
		return probe.Result{}
	}
	r := probe.Run(w.ctx, e, input, probe.Limits{Timeout: 30 * time.Second})
	r.DurationMS = fixedDuration(input)
	w.results[k] = r
	return r
}

// fixedDuration is a plausible, deterministic probe duration in ms.
func fixedDuration(input string) float64 {
	return math.Round((0.4+float64(len(input)%29)*0.15)*10) / 10
}

func (w *world) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// MaterialiseDefault returns the default demo bank's directory,
// $XDG_DATA_HOME/memreview/sample (else ~/.local/share/memreview/sample),
// generating it with Seed when it is missing, or afresh when reset is set.
// The world is written into a temporary sibling and renamed into place, so
// a crash never leaves half a world behind.
func MaterialiseDefault(reset bool) (string, error) {
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("sample: no data directory: set XDG_DATA_HOME or HOME: %w", err)
		}
		base = filepath.Join(home, ".local", "share")
	}
	return materialise(filepath.Join(base, "memreview", "sample"), reset)
}

func materialise(dir string, reset bool) (string, error) {
	_, err := os.Stat(filepath.Join(dir, store.DBFile))
	if err == nil && !reset {
		return dir, nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("sample: %w", err)
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("sample: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, ".sample-new-*")
	if err != nil {
		return "", fmt.Errorf("sample: %w", err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := Generate(tmp, Seed); err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, store.DBFile)); err == nil && !reset {
		return dir, nil // another process materialised it meanwhile
	}
	if _, err := os.Stat(dir); err == nil {
		old := tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return "", fmt.Errorf("sample: replace %s: %w", dir, err)
		}
		defer os.RemoveAll(old)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("sample: %w", err)
	}
	return dir, nil
}
