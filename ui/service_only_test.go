package ui

import (
	"reflect"
	"testing"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/ui/common"
)

// TestDepsHoldOnlyTheService checks that the screens cannot reach the
// store or the index except through the service: common.Deps has no field
// that is (or holds) a store, a backend or an index.
func TestDepsHoldOnlyTheService(t *testing.T) {
	t.Parallel()
	banned := map[reflect.Type]bool{
		reflect.TypeOf((*store.Store)(nil)):        true,
		reflect.TypeOf((*index.Index)(nil)):        true,
		reflect.TypeOf((*app.Store)(nil)).Elem():   true,
		reflect.TypeOf((*app.Index)(nil)).Elem():   true,
		reflect.TypeOf((*store.Store)(nil)).Elem(): true,
		reflect.TypeOf((*index.Index)(nil)).Elem(): true,
		reflect.TypeOf((*app.Service)(nil)).Elem(): true, // by value would copy it
	}
	d := reflect.TypeOf(common.Deps{})
	var svc int
	for i := range d.NumField() {
		f := d.Field(i)
		if banned[f.Type] {
			t.Errorf("common.Deps.%s is a %s: screens must go through Deps.Service", f.Name, f.Type)
		}
		if f.Type == reflect.TypeOf((*app.Service)(nil)) {
			svc++
		}
	}
	if svc != 1 {
		t.Errorf("common.Deps has %d *app.Service fields, want 1", svc)
	}
}
