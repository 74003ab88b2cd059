package probe

import (
	"fmt"
	"testing"

	"github.com/memreview/memreview/sample/testenv"
)

// needRealData stops a test whose real data at path cannot be read (err):
// it skips with how to run it, or fails under MEMREVIEW_CI=1, where a
// missing ../shared/realdata would otherwise pass unnoticed.
func needRealData(t *testing.T, what, path string, err error) {
	t.Helper()
	testenv.Missing(t, fmt.Sprintf("%s not available at %s (%v); to run this test put the shared real data at ../shared/realdata beside the repository", what, path, err))
}
