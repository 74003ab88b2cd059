package probe

import (
	"os"
	"testing"
)

// ciRun is set by .ci/run: there the real-data tests must run, not skip.
var ciRun = os.Getenv("MEMREVIEW_CI") == "1"

// needRealData stops a test whose real data at path cannot be read (err):
// it skips with how to run it, or fails under MEMREVIEW_CI=1, where a
// missing ../shared/realdata would otherwise pass unnoticed.
func needRealData(t *testing.T, what, path string, err error) {
	t.Helper()
	msg := "%s not available at %s (%v); to run this test put the shared real data at ../shared/realdata beside the repository"
	if ciRun {
		t.Fatalf(msg+" (MEMREVIEW_CI=1: real data is required)", what, path, err)
	}
	t.Skipf(msg, what, path, err)
}
