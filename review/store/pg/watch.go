package pg

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Watch wakes the caller after every commit to the bank by any process on
// any machine: the returned channel receives (at most one pending wake-up,
// so a burst of commits coalesces) when a NOTIFY on Channel arrives. It
// holds one connection of its own LISTENing, and sends a wake-up each time
// it starts listening — first, and after a broken connection, reconnected
// with backoff — since commits before that were not notified to it: the
// caller then reads ChangesSince as usual. The channel closes when ctx ends.
func (s *Store) Watch(ctx context.Context) <-chan struct{} {
	wake := make(chan struct{}, 1)
	signal := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	go func() {
		defer close(wake)
		backoff := 100 * time.Millisecond
		for ctx.Err() == nil {
			conn, err := pgx.ConnectConfig(ctx, s.cfg.Copy())
			if err == nil {
				_, err = conn.Exec(ctx, "LISTEN "+Channel)
			}
			if err != nil {
				if conn != nil {
					conn.Close(context.Background())
				}
				select {
				case <-ctx.Done():
				case <-time.After(backoff):
				}
				backoff = min(2*backoff, 2*time.Second)
				continue
			}
			backoff = 100 * time.Millisecond
			signal() // listening now: catch up on what came before
			for {
				if _, err := conn.WaitForNotification(ctx); err != nil {
					break
				}
				signal()
			}
			conn.Close(context.Background())
		}
	}()
	return wake
}
