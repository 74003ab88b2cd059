package app

import (
	"slices"
	"testing"

	"github.com/memreview/memreview/index"
)

func TestHideRetiredUnlessAsked(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		req  index.Request
		want []string // the status filter after
	}{
		{index.Request{Type: "record", Query: "+prices"}, []string{"active"}},
		{index.Request{Type: "record"}, []string{"active"}},
		{index.Request{Type: "record", Filters: map[string][]string{"status": {"retired"}}}, []string{"retired"}},
		{index.Request{Type: "record", Query: "+status:retired"}, nil},
		{index.Request{Type: "proposal", Query: "prices"}, nil},
		{index.Request{Type: "", Query: "prices"}, nil},
	} {
		req := c.req
		hideRetired(&req)
		if got := req.Filters["status"]; !slices.Equal(got, c.want) {
			t.Errorf("hideRetired(%+v): status filter %v, want %v", c.req, got, c.want)
		}
	}
}
