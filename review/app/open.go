package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/index/share"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/review/store/pg"
)

// IsTeamBank reports whether bank names a PostgreSQL bank
// (postgres://USER@HOST/DB) rather than a folder.
func IsTeamBank(bank string) bool { return pg.IsURL(bank) }

// Open opens the bank named by bank — a folder holding bank.db, or a
// postgres:// URL (a team bank) — with its shared search index, opened on
// first use (a process that finds another holding it becomes that owner's
// client). A folder that is not a bank is an error that says so; use
// Create to make one.
//
// A team bank's environments come from the operator's own memreview.toml
// ($XDG_CONFIG_HOME/memreview/, where relative paths resolve); its Bleve
// index is local to this machine, under $XDG_CACHE_HOME/memreview/<bank
// id>/, shared by this machine's processes like a folder bank's, built on
// first use and caught up from the bank's change sequence after.
func Open(ctx context.Context, bank string, opt Options) (*Service, error) {
	if err := CheckBankName(bank); err != nil {
		return nil, err
	}
	if IsTeamBank(bank) {
		return openTeam(ctx, bank, opt)
	}
	st, err := store.Open(bank, store.Options{Now: opt.Now, ReadOnly: opt.ReadOnly})
	if err != nil {
		return nil, err
	}
	return newFolder(st, opt), nil
}

// Create makes a new bank — a folder, or an empty PostgreSQL database made
// a bank (schema and bank id) — and builds its empty index.
func Create(ctx context.Context, bank string, opt Options) (*Service, error) {
	if err := CheckBankName(bank); err != nil {
		return nil, err
	}
	var s *Service
	if IsTeamBank(bank) {
		var err error
		if s, err = openTeam(ctx, bank, opt); err != nil {
			return nil, err
		}
	} else {
		st, err := store.Create(bank, store.Options{Now: opt.Now})
		if err != nil {
			return nil, err
		}
		s = newFolder(st, opt)
	}
	if _, err := s.Reindex(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// New returns a service over an already open store: the sample
// generator's and tests' way in. Front ends use Open. A folder bank's
// index lives in BANK/index, a team bank's under this machine's cache
// folder, unless opt.OpenIndex says otherwise.
func New(st Store, opt Options) *Service {
	if opt.Logf == nil {
		opt.Logf = func(string, ...any) {}
	}
	if opt.Warnf == nil {
		opt.Warnf = opt.Logf
	}
	var info BankInfo
	var ixDir string
	switch st := st.(type) {
	case *store.Store:
		dir := st.Dir()
		info = BankInfo{Name: filepath.Base(dir), Where: dir, Dir: dir, ConfigFile: filepath.Join(dir, store.ConfigFile),
			IndexDir: filepath.Join(dir, store.IndexDir), LogFile: filepath.Join(dir, "memreview.log")}
		ixDir = info.IndexDir
	case *pg.Store:
		info = BankInfo{Team: true, ID: st.BankID(), Where: st.Where(), Dir: st.Dir(), ConfigFile: filepath.Join(st.Dir(), store.ConfigFile)}
		if dir, err := st.IndexDir(); err == nil {
			info.IndexDir, info.LogFile, ixDir = dir, filepath.Join(dir, "memreview.log"), dir
		}
	}
	if opt.EnvDir == "" {
		opt.EnvDir = info.Dir
	}
	s := &Service{b: st, opt: opt, info: info}
	s.startTelemetry()
	if s.opt.OpenIndex == nil && ixDir != "" {
		src := st.(index.Store)
		logf, progress, handOff := opt.Logf, opt.IndexProgress, opt.HandOffIndex
		after := opt.HandOffAfter
		switch {
		case after == 0:
			after = handOffAfter
		case after < 0:
			after = 0
		}
		// The index owner catches up when the service's change follower
		// says the bank moved: one follower a process.
		vectors, tune := s.vectorOptions(ixDir), opt.IndexTuning
		s.opt.OpenIndex = func() (Index, error) {
			return share.Open(ixDir, src, share.Options{Changed: s.Changed, Logf: logf, Progress: progress, HandOff: handOff, HandOffAfter: after, Vectors: vectors, Tuning: tune})
		}
	}
	return s
}

// BankInfo says what a bank is and where its parts live.
type BankInfo struct {
	// Name is what the TUI's header calls the bank: the folder's name, or
	// "postgres:DB".
	Name string
	// Team is set for a PostgreSQL bank; ID is its bank id then.
	Team bool
	ID   string
	// Where is the folder, or the server and database, for messages.
	Where string
	// Dir is the folder relative environment paths resolve against (the
	// bank's own, or the operator's config folder for a team bank).
	Dir string
	// ConfigFile is the memreview.toml that holds the environments.
	ConfigFile string
	// IndexDir is this machine's index of the bank; LogFile the TUI's log.
	IndexDir, LogFile string
}

// Info says what the bank is and where its parts live.
func (s *Service) Info() BankInfo { return s.info }

func newFolder(st *store.Store, opt Options) *Service { return New(st, opt) }

func openTeam(ctx context.Context, bank string, opt Options) (*Service, error) {
	if opt.ReadOnly {
		return nil, errors.New("a team bank opens for reading and writing: give its role read-only rights in PostgreSQL instead")
	}
	st, err := pg.Open(ctx, bank, pg.Options{Options: store.Options{Now: opt.Now}})
	if err != nil {
		return nil, err
	}
	dir, err := st.IndexDir()
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("the local index of bank %s: %w", st.BankID(), err)
	}
	s := New(st, opt)
	s.info.Name = teamBankName(bank)
	return s, nil
}

// teamBankName is "postgres:DB" for a bank URL.
func teamBankName(bank string) string {
	if u, err := url.Parse(bank); err == nil {
		return "postgres:" + strings.TrimPrefix(u.Path, "/")
	}
	return "postgres"
}

// HasBank reports whether bank names a folder bank that exists, or a team
// bank (which Open reaches or explains).
func HasBank(bank string) bool {
	if IsTeamBank(bank) {
		return true
	}
	_, err := os.Stat(filepath.Join(bank, store.DBFile))
	return err == nil
}

// OperatorName picks who is deciding: the --operator flag, else
// $MEMREVIEW_OPERATOR, else the OS user.
func OperatorName(flag string) string {
	if flag != "" {
		return flag
	}
	if v := os.Getenv("MEMREVIEW_OPERATOR"); v != "" {
		return v
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if v := os.Getenv("USER"); v != "" {
		return v
	}
	return "operator"
}
