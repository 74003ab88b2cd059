package app

import (
	"sync"

	"github.com/memreview/memreview/review"
)

// retrievalLog group-commits the retrieval log: every retrieval is durable
// before Retrieve returns, but retrievals that arrive while one commit is
// in flight share the next commit (one transaction, one fsync), so many
// agents retrieving at once do not queue on the bank's write lock one by
// one.
type retrievalLog struct {
	mu       sync.Mutex
	pending  []pendingRetrieval
	flushing bool
}

type pendingRetrieval struct {
	r    review.Retrieval
	done chan error
}

// batchLogger is a backend that logs several retrievals in one transaction.
type batchLogger interface {
	LogRetrievals(rs []review.Retrieval) error
}

// log writes r and returns once it is committed (or failed). The first
// caller to find no commit in flight becomes the flusher and writes every
// retrieval queued meanwhile, batch after batch, until none is left.
func (l *retrievalLog) log(b Store, r review.Retrieval) error {
	done := make(chan error, 1)
	l.mu.Lock()
	l.pending = append(l.pending, pendingRetrieval{r, done})
	if l.flushing {
		l.mu.Unlock()
		return <-done
	}
	l.flushing = true
	for len(l.pending) > 0 {
		batch := l.pending
		l.pending = nil
		l.mu.Unlock()
		err := writeRetrievals(b, batch)
		for _, p := range batch {
			p.done <- err
		}
		l.mu.Lock()
	}
	l.flushing = false
	l.mu.Unlock()
	return <-done
}

func writeRetrievals(b Store, batch []pendingRetrieval) error {
	rs := make([]review.Retrieval, len(batch))
	for i, p := range batch {
		rs[i] = p.r
	}
	if bl, ok := b.(batchLogger); ok {
		return bl.LogRetrievals(rs)
	}
	for _, r := range rs {
		if err := b.LogRetrieval(r); err != nil {
			return err
		}
	}
	return nil
}
