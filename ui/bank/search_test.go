package bank

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/uitest"
)

// TestSearchAllTermsAndClear: the search box ANDs its terms (env:shop
// stars finds the shop records about stars, not all of shop), a query
// that finds nothing clears the detail, and x clears query and filters.
func TestSearchAllTermsAndClear(t *testing.T) {
	t.Parallel()
	m, deps := openBank(t)
	all := m.list.total
	count := func(q string) int {
		res, err := deps.Service.Search(app.SearchRequest{Query: q, Type: "record", Filters: map[string][]string{"status": {"active"}}})
		if err != nil {
			t.Fatal(err)
		}
		return int(res.Total)
	}
	typeQuery := func(q string) {
		t.Helper()
		sendKey(t, m, uitest.Key("/"))
		for _, r := range q {
			sendKey(t, m, uitest.Key(string(r)))
		}
		sendKey(t, m, uitest.Key("enter"))
	}
	both, shop := count("+env:shop +stars"), count("env:shop")
	if both == 0 || both >= shop {
		t.Fatalf("the sample world does not tell AND from OR: %d vs %d", both, shop)
	}
	typeQuery("env:shop stars")
	if m.list.total != both {
		t.Errorf("env:shop stars found %d records, want the %d that match both", m.list.total, both)
	}
	sendKey(t, m, uitest.Key("x"))
	typeQuery("zzznothingmatches")
	if m.list.total != 0 || m.detail != nil || strings.Contains(ansi.Strip(m.pane.View()), "mem_") {
		t.Errorf("an empty result kept a detail: total %d, detail %v", m.list.total, m.detail != nil)
	}
	// A query that cannot be read says so, as typed, with no count, time
	// or detail of the query before it.
	sendKey(t, m, uitest.Key("x"))
	typeQuery("stars")
	if m.detail == nil {
		t.Fatal("stars opened no detail")
	}
	typeQuery(` "unterminated`)
	status, list := ansi.Strip(m.statusLine()), ansi.Strip(m.View())
	if !strings.Contains(status, "not searched") || strings.Contains(status, "records") || strings.Contains(status, " in ") || strings.Contains(m.Title(), "0 records") {
		t.Errorf("a query that cannot be read: status line %q, title %q", status, m.Title())
	}
	if !strings.Contains(list, `cannot parse query "stars \"unterminated"`) || m.detail != nil || strings.Contains(list, "mem_") {
		t.Errorf("a query that cannot be read left a detail (%v) or does not name the query as typed:\n%s", m.detail != nil, list)
	}
	sendKey(t, m, uitest.Key("x"))
	if m.search.Value() != "" || m.list.total != all {
		t.Errorf("x left query %q and %d of %d records", m.search.Value(), m.list.total, all)
	}
}
