package app_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/review/app"
)

// TestSearchErrorNamesTheQueryAsTyped: a query the index cannot read is
// named as the operator typed it, not as the service read it (every term
// required: RequireAll put a + before each); a query read as typed keeps
// its own text.
func TestSearchErrorNamesTheQueryAsTyped(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "bank")
	sampleWorld.CopyTo(t, dir)
	svc := openAt(t, dir)
	for _, c := range []struct {
		req       app.SearchRequest
		want, not string
	}{
		{app.SearchRequest{Query: `join "unterminated`}, `cannot parse query "join \"unterminated": parse error: unterminated quote`, "+join"},
		{app.SearchRequest{Query: "nosuch:x stars"}, `query "nosuch:x stars" names unknown field "nosuch"`, "+nosuch"},
		{app.SearchRequest{Query: `"unterminated`, AnyTerm: true}, `cannot parse query "\"unterminated"`, `"+\"`},
	} {
		_, err := svc.Search(c.req)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.not) {
			t.Errorf("Search(%q) = %v, want an error with %s and without %q", c.req.Query, err, c.want, c.not)
		}
	}
}
