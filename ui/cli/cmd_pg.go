package cli

import (
	"fmt"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/review/store/pg"
)

// isPGBank reports whether --bank (or $MEMREVIEW_BANK) names a PostgreSQL
// bank rather than a directory.
func isPGBank(bank string) bool { return pg.IsURL(bank) }

// initPG makes an empty database a bank (schema and bank id) and builds
// this machine's index of it.
func (a *cmdline) initPG() error {
	svc, st, err := app.OpenPG(a.ctx, a.bank, app.Options{Operator: a.operator})
	if err != nil {
		return err
	}
	defer svc.Close()
	if _, err := svc.Reindex(); err != nil {
		return err
	}
	dir, _ := st.IndexDir()
	fmt.Fprintf(a.stdout, "bank %s ready on %s (this machine's index: %s; your environments: %s)\n",
		st.BankID(), st.Where(), dir, filepath.Join(st.Dir(), store.ConfigFile))
	return nil
}

// openTUIBankPG is openTUIBank for a PostgreSQL bank: the log goes beside
// the local index.
func (a *cmdline) openTUIBankPG() (*store.Store, *app.Service, *log.Logger, func(), error) {
	var lg *log.Logger
	logw := &lazyLog{}
	lg = log.New(logw, "", log.LstdFlags)
	svc, st, err := app.OpenPG(a.ctx, a.bank, app.Options{Operator: a.operator, Logf: lg.Printf, IndexProgress: a.indexProgress()})
	if err != nil {
		return nil, nil, nil, nil, err
	}
	dir, _ := st.IndexDir()
	f, err := os.OpenFile(filepath.Join(dir, "memreview.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		svc.Close()
		return nil, nil, nil, nil, err
	}
	logw.f = f
	return st.Store, svc, lg, func() { f.Close() }, nil
}

// lazyLog writes to its file once it has one (the file's folder is known
// only after the bank is open).
type lazyLog struct{ f *os.File }

func (l *lazyLog) Write(p []byte) (int, error) {
	if l.f == nil {
		return len(p), nil
	}
	return l.f.Write(p)
}

// bankName is what the TUI calls the bank: the directory's name, or the
// PostgreSQL database's.
func bankName(bank string, st *store.Store) string {
	if isPGBank(bank) {
		if u, err := url.Parse(bank); err == nil {
			return "postgres:" + strings.TrimPrefix(u.Path, "/")
		}
		return "postgres"
	}
	return filepath.Base(st.Dir())
}
