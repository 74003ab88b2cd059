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
	sendKey(t, m, uitest.Key("x"))
	if m.search.Value() != "" || m.list.total != all {
		t.Errorf("x left query %q and %d of %d records", m.search.Value(), m.list.total, all)
	}
}
