package bleveext

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bolterrors "go.etcd.io/bbolt/errors"
)

// AwaitPersisted waits for persisted (a batch's persisted callback), or
// fails once scorch reports a failed persist: it retries those for ever,
// so a full disk would never answer.
func AwaitPersisted(idx bleve.Index, persisted <-chan error) error {
	failures := func() uint64 { return 0 }
	if adv, err := idx.Advanced(); err == nil {
		if sc, ok := adv.(*scorch.Scorch); ok {
			if st, ok := sc.Stats().(*scorch.Stats); ok {
				failures = func() uint64 { return atomic.LoadUint64(&st.TotPersistLoopErr) }
			}
		}
	}
	before := failures()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-persisted:
			if err != nil {
				return fmt.Errorf("index: persist build: %w", err)
			}
			return nil
		case <-tick.C:
			if failures() > before {
				return errors.New("index: persist build: scorch failed to write the index to disk")
			}
		}
	}
}

// LockTimeout reports whether err says that bbolt gave up waiting for the
// lock of a scorch index's root.bolt (its "bolt_timeout").
func LockTimeout(err error) bool { return errors.Is(err, bolterrors.ErrTimeout) }
