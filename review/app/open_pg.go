package app

import (
	"context"
	"fmt"
	"os"

	"github.com/memreview/memreview/index/share"
	"github.com/memreview/memreview/review/store/pg"
)

// OpenPG opens a team bank on PostgreSQL (postgres://USER@HOST/DB). Its
// environments come from the operator's own memreview.toml
// ($XDG_CONFIG_HOME/memreview/, where relative paths resolve); its Bleve
// index is local to this machine, under $XDG_CACHE_HOME/memreview/<bank
// id>/, shared by this machine's processes like a SQLite bank's, built on
// first use and caught up from the bank's change sequence after.
func OpenPG(ctx context.Context, url string, opt Options) (*Service, *pg.Store, error) {
	st, err := pg.Open(ctx, url, pg.Options{})
	if err != nil {
		return nil, nil, err
	}
	dir, err := st.IndexDir()
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		st.Close()
		return nil, nil, fmt.Errorf("the local index of bank %s: %w", st.BankID(), err)
	}
	if opt.EnvDir == "" {
		opt.EnvDir = st.Dir()
	}
	if opt.OpenIndex == nil {
		logf, progress, finish := opt.Logf, opt.IndexProgress, opt.FinishIndex
		opt.OpenIndex = func() (Index, error) {
			return share.Open(dir, st, share.Options{Logf: logf, Progress: progress, Finish: finish})
		}
	}
	return New(st, opt), st, nil
}
