package review

import (
	"reflect"
	"slices"
	"testing"

	"github.com/memreview/memreview/probe"
)

// referencePaths lists the fields of t (walking structs, and the elements
// of slices) whose values share memory when copied: slices, maps,
// pointers, interfaces, channels, functions.
func referencePaths(t reflect.Type, at string, out *[]string) {
	switch t.Kind() {
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			referencePaths(f.Type, at+"."+f.Name, out)
		}
	case reflect.Slice:
		*out = append(*out, at)
		referencePaths(t.Elem(), at+"[]", out)
	case reflect.Map, reflect.Pointer, reflect.Interface, reflect.Chan, reflect.Func:
		*out = append(*out, at)
	}
}

func TestConfigCloneCoversEveryReference(t *testing.T) {
	var got []string
	referencePaths(reflect.TypeOf(Config{}), "Config", &got)
	want := []string{"Config.Envs", "Config.Envs[].Command", "Config.Envs[].Allow", "Config.Envs[].PassEnv",
		"Config.Eval.Prices", "Config.OAuth.Envs"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("Config's shared fields are %v; Clone copies %v: copy the new ones in Clone and list them here", got, want)
	}
	c := Config{Envs: []probe.Env{{Name: "a", Command: []string{"x"}, Allow: []string{"t"}, PassEnv: []string{"P"}}},
		Eval: EvalConfig{Prices: map[string]Price{"m": {InputPerMTok: 1}}}, OAuth: OAuthConfig{Envs: []string{"a"}}}
	d := c.Clone()
	d.Envs[0].Name, d.Envs[0].Command[0], d.Envs[0].Allow[0], d.Envs[0].PassEnv[0] = "b", "y", "u", "Q"
	d.Eval.Prices["m"] = Price{InputPerMTok: 2}
	d.OAuth.Envs[0] = "b"
	if c.Envs[0].Name != "a" || c.Envs[0].Command[0] != "x" || c.Envs[0].Allow[0] != "t" || c.Envs[0].PassEnv[0] != "P" ||
		c.Eval.Prices["m"].InputPerMTok != 1 || c.OAuth.Envs[0] != "a" {
		t.Fatalf("changing the clone changed the original: %+v", c)
	}
}
