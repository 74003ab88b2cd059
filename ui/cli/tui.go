package cli

import (
	"log"
	"os"
	"sync"
	"time"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui"
	"github.com/memreview/memreview/ui/common"
)

// runTUI opens the TUI on c.bank, or on the sample world when no bank was
// named and ./.memreview holds none.
func runTUI(c *call, isSample bool) error {
	if !isSample && !c.explicit && !app.HasBank(c.bank) {
		dir, err := app.DefaultSample(false)
		if err != nil {
			return err
		}
		c.bank, isSample = dir, true
	}
	// The log goes to a file beside the bank (a team bank's beside this
	// machine's index), known once the bank is open: until then it waits.
	logw := &lazyLog{}
	lg := log.New(logw, "", log.LstdFlags)
	// The TUI takes the index before its screen opens: a first build of a
	// large bank shows its progress on the terminal meanwhile.
	svc, err := app.Open(c.ctx, c.bank, app.Options{Operator: c.operator, Logf: lg.Printf, IndexProgress: c.indexProgress(),
		BackgroundEmbedding: true})
	if err != nil {
		return err
	}
	info := svc.Info()
	f, err := os.OpenFile(info.LogFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		svc.Close()
		return err
	}
	defer f.Close()
	logw.set(f)
	// Libraries that log through the standard logger (bleve's scorch does,
	// on a damaged or vanished segment) must not write over the screen.
	log.SetOutput(lg.Writer())
	defer log.SetOutput(os.Stderr)
	set, err := svc.CuratorSettings("")
	if err != nil {
		svc.Close()
		return err
	}
	// The TUI owns the shared index and serves other processes' searches;
	// when a long-running process owns it already, the screens' searches
	// go through that one (the service asks it). Opening it may build or
	// catch it up (minutes on a large bank after an import), so it opens
	// in the background: the first frame does not wait, the footer shows
	// the progress, and searches wait in their Cmds.
	progress, held := c.holdIndexInBackground(svc, lg)
	c.muteProgress.Store(true) // from here on the screen is the TUI's
	err = ui.Run(common.Deps{
		Service: svc, BankName: info.Name, IsSample: isSample,
		Operator: c.operator, Log: lg, Curator: common.NewCurator(set), IndexProgress: progress,
	})
	select {
	case <-held:
		svc.Close()
	default:
		// Quit while the index is still being built: Close would wait for
		// the build. The bank's writes are committed; the unfinished build
		// is never swapped in, and the next process builds it again.
		lg.Printf("quit while the search index was still being opened; it opens again next time")
	}
	return err
}

// holdIndexInBackground makes this process the index's owner in a
// goroutine. progress carries how far a build or catch-up has come, then
// and later (the owner catches up other processes' writes), the latest
// report only (older ones unread are dropped); held closes once the index
// is open.
func (c *call) holdIndexInBackground(svc *app.Service, lg *log.Logger) (<-chan common.IndexProgress, <-chan struct{}) {
	progress := make(chan common.IndexProgress, 1)
	held := make(chan struct{})
	var mu sync.Mutex
	send := func(p common.IndexProgress) {
		mu.Lock()
		defer mu.Unlock()
		select { // keep only the latest report
		case <-progress:
		default:
		}
		progress <- p
	}
	report := func(done, total int) { send(common.IndexProgress{Done: done, Total: total}) }
	c.tuiProgress.Store(&report)
	go func() {
		defer close(held)
		if err := svc.HoldIndex(3 * time.Second); err != nil {
			lg.Printf("the index is held by another process: %v", err)
		}
		send(common.IndexProgress{}) // open: whatever the last report said, the footer line goes
	}()
	return progress, held
}

// lazyLog writes to its file once it has one, and drops what comes before.
type lazyLog struct {
	mu sync.Mutex
	f  *os.File
}

func (l *lazyLog) set(f *os.File) {
	l.mu.Lock()
	l.f = f
	l.mu.Unlock()
}

func (l *lazyLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return len(p), nil
	}
	return l.f.Write(p)
}
