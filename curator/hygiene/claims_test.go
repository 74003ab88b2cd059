package hygiene

import (
	"slices"
	"testing"
)

// identifiers: names with '_' or '.' (lower-cased, with their dotted
// parts that hold '_'), codes in capitals as written, numbers as
// numbers, each once, in order of first appearance; commuting names in
// one order.
func TestIdentifiers(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"Items_G2.Price_Cents is stored in cents", []string{"items_g2.price_cents", "items_g2", "price_cents"}},
		{"EDI and X12 feed the EDI queue", []string{"EDI", "X12"}},
		{"Ab_C and AB_C", []string{"AB_C", "ab_c"}}, // commuted: "AB_C" < "Ab_C"
		{"read headcount.csv from ./data/ then x.y.", []string{"headcount.csv", "x.y"}},
		{"100.0 rows, then 100 and 2.50 and 1e3", []string{"100", "2.5", "1000"}},
		{"b_t and a_t", []string{"a_t", "b_t"}},
		{"(zz_1, aa_1) lag", []string{"aa_1", "zz_1"}},
		{"A a I OK ok Ok", []string{"OK"}},
		{"plain words only", nil},
		{"", nil},
	} {
		if got := identifiers(c.in); !slices.Equal(got, c.want) {
			t.Errorf("identifiers(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// sameShared: the names each list shares with the other, in its order
// and with every occurrence, are the same list; on every pair of lists
// of up to five of four names.
func TestSameShared(t *testing.T) {
	shared := func(xs, of []string) []string {
		var out []string
		for _, x := range xs {
			if slices.Contains(of, x) {
				out = append(out, x)
			}
		}
		return out
	}
	names := []string{"a", "b", "c", "d"}
	var lists [][]string
	var grow func(l []string)
	grow = func(l []string) {
		lists = append(lists, l)
		if len(l) < 5 {
			for _, x := range names {
				grow(append(slices.Clip(l), x))
			}
		}
	}
	grow(nil)
	same, differ := 0, 0
	for k, a := range lists {
		for _, b := range lists[k%7 : min(len(lists), k%7+400)] {
			want := slices.Equal(shared(a, b), shared(b, a))
			if got := sameShared(a, b); got != want {
				t.Fatalf("sameShared(%q, %q) = %v, want %v", a, b, got, want)
			}
			if want {
				same++
			} else {
				differ++
			}
		}
	}
	if same == 0 || differ == 0 {
		t.Errorf("%d the same, %d not: the lists try only one answer", same, differ)
	}
	for _, c := range []struct {
		a, b []string
		want bool
	}{
		{[]string{"x", "a", "b"}, []string{"a", "y", "b"}, true},
		{[]string{"a", "b"}, []string{"b", "a"}, false},
		{[]string{"a", "a", "b"}, []string{"a", "b"}, false}, // every occurrence counts
		{nil, []string{"a"}, true},
	} {
		if got := sameShared(c.a, c.b); got != c.want {
			t.Errorf("sameShared(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
