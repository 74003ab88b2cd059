package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/pgstore"
)

// isPGBank reports whether --bank (or $MEMREVIEW_BANK) names a PostgreSQL
// bank rather than a directory.
func isPGBank(bank string) bool { return pgstore.IsURL(bank) }

// openPG opens a team bank on PostgreSQL. Its environments come from the
// operator's own $XDG_CONFIG_HOME/memreview/memreview.toml; its Bleve index
// is local to this machine, under $XDG_CACHE_HOME/memreview/<bank id>/,
// built on first open and caught up from the bank's change sequence after.
func (a *app) openPG(withIndex bool) (*bank, error) {
	s, err := pgstore.Open(a.ctx, a.bank, pgstore.Options{})
	if err != nil {
		return nil, err
	}
	dir, err := s.IndexDir()
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	b := &bank{store: s.Store, indexDir: dir}
	if withIndex {
		ix, err := index.Open(dir, s.Store)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("open the local index of bank %s at %s: %w", s.BankID(), dir, err)
		}
		b.index = ix
	}
	return b, nil
}

// openStore opens just the store of the bank, a directory or PostgreSQL.
func (a *app) openStore() (*review.Store, error) {
	if isPGBank(a.bank) {
		s, err := pgstore.Open(a.ctx, a.bank, pgstore.Options{})
		if err != nil {
			return nil, err
		}
		return s.Store, nil
	}
	return review.Open(a.bank, review.Options{})
}

// initPG makes an empty database a bank (schema and bank id) and builds
// this machine's index of it.
func (a *app) initPG() error {
	b, err := a.openPG(true)
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Fprintf(a.stdout, "bank ready at %s (index in %s; environments in %s)\n", a.bank, b.indexDir, filepath.Join(b.store.Dir(), review.ConfigFile))
	return nil
}
