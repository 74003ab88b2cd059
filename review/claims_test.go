package review_test

import (
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/storetest"
)

func TestSQLiteClaims(t *testing.T) {
	storetest.RunClaims(t, func(t *testing.T) review.Backend {
		s, err := review.Create(t.TempDir(), review.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
