package embed

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/memreview/memreview/sample"
)

func TestTokens(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"fdbk_g2.ref_id", []string{"fdbk", "g2", "fdbk_g2", "ref", "id", "ref_id", "fdbk_g2.ref_id"}},
		{"Reviews were reviewed.", []string{"review", "review"}},
		{"itemId", []string{"item", "id", "itemid"}},
		{"divide by 100.0", []string{"divid", "100", "100.0"}},
		{"日本語", []string{"日", "日本", "本", "本語", "語"}},
		{"Привет, мир", []string{"привет", "мир"}},
		{"the of and", nil},
		{"\x1b[31mred\x1b[0m", []string{"31mred", "0m"}},
	} {
		if got := Tokens(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Tokens(string([]byte{0xff, 0xfe, 'o', 'k'})); !slices.Contains(got, "ok") {
		t.Errorf("invalid UTF-8: %q", got)
	}
}

var (
	corpusOnce sync.Once
	corpus     []string
	trained    *Offline
)

// sampleModel is the offline embedder trained on 1,500 records of the
// synthetic bank in the sample world's vocabulary (sample.SynthRecords).
func sampleModel(t *testing.T) (*Offline, []string) {
	t.Helper()
	corpusOnce.Do(func() {
		for _, r := range sample.SynthRecords(1500, 1) {
			corpus = append(corpus, RecordText(r.Lemma, r.Trigger, r.Steps))
		}
		var err error
		trained, err = TrainOffline(corpus, OfflineOptions{})
		if err != nil {
			panic(err)
		}
	})
	return trained, corpus
}

func cos(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

func embedOne(t *testing.T, e Embedder, s string) []float32 {
	t.Helper()
	vs, err := e.Embed(context.Background(), []string{s})
	if err != nil || len(vs) != 1 || len(vs[0]) != e.Dims() {
		t.Fatalf("Embed(%q): %d vectors, %v", s, len(vs), err)
	}
	return vs[0]
}

// Each pair says one thing two ways with few words in common; each must
// come out nearer to its own paraphrase than to any other pair's.
func TestOfflineParaphrasesNearer(t *testing.T) {
	o, _ := sampleModel(t)
	pairs := [][2]string{
		{"average price of electronics in dollars", "divide price_cents by 100 for dollar amounts of g2 items"},
		{"reviews join items on ref_id", "a task combines fdbk_g1 with items_g1"},
		{"flight delays in minutes", "delay_min stores how late flights were"},
		{"headcount per site in the finance workbooks", "fte by site_code in headcount.csv"},
		{"patients' lab results", "labs_gN result_value for each patient_id"},
	}
	vecs := make([][2][]float32, len(pairs))
	for i, p := range pairs {
		vecs[i] = [2][]float32{embedOne(t, o, p[0]), embedOne(t, o, p[1])}
	}
	for i := range pairs {
		own := cos(vecs[i][0], vecs[i][1])
		t.Logf("%.3f %q ~ %q", own, pairs[i][0], pairs[i][1])
		for j := range pairs {
			if j == i {
				continue
			}
			if other := cos(vecs[i][0], vecs[j][1]); other >= own {
				t.Errorf("%q: its paraphrase at %.3f, %q nearer at %.3f", pairs[i][0], own, pairs[j][1], other)
			}
		}
	}
}

// Training is deterministic: the same texts in another order give the
// same model name and the same vectors.
func TestOfflineDeterministic(t *testing.T) {
	o, texts := sampleModel(t)
	shuffled := slices.Clone(texts[:300])
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	a, err := TrainOffline(texts[:300], OfflineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := TrainOffline(shuffled, OfflineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Model() != b.Model() || !slices.Equal(embedOne(t, a, texts[3]), embedOne(t, b, texts[3])) {
		t.Errorf("same texts, other order: models %s and %s", a.Model(), b.Model())
	}
	if a.Model() == o.Model() {
		t.Error("a model trained on other texts has the same name")
	}
	if !strings.HasPrefix(o.Model(), "offline-ppmi-svd-128-") || o.Dims() != 128 || o.Docs() != 1500 {
		t.Errorf("model %s, dims %d, docs %d", o.Model(), o.Dims(), o.Docs())
	}
}

// Tiny banks, empty triggers, unseen scripts, long and empty queries:
// vectors of the model's length, unit or zero, and no panic.
func TestOfflineOddInput(t *testing.T) {
	one, err := TrainOffline([]string{RecordText("In shop.db, reviews join items on fdbk_g1.ref_id = items_g1.item_id.", "", nil)}, OfflineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if one.Dims() != 128 {
		t.Errorf("a one-record model has %d dims, want 128 (padded)", one.Dims())
	}
	near, far := embedOne(t, one, "reviews join items"), embedOne(t, one, "warranty months of pallets")
	rec := embedOne(t, one, "In shop.db, reviews join items on fdbk_g1.ref_id = items_g1.item_id.")
	if cos(near, rec) <= cos(far, rec) {
		t.Errorf("one record: related query %.3f, unrelated %.3f", cos(near, rec), cos(far, rec))
	}

	o, texts := sampleModel(t)
	ten, err := TrainOffline(append(texts[:9], RecordText("Prices are integer cents.", "", nil)), OfflineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("how many reviewed items with a warranty ", 700) // about 5,000 words
	for _, e := range []*Offline{o, ten} {
		for _, q := range []string{"価格はセント単位で保存されている", "Как посчитать отзывы?", "ราคา", long, "🙂 \x00 \x1b[2J"} {
			v := embedOne(t, e, q)
			n := math.Sqrt(cos(v, v))
			for _, x := range v {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					t.Fatalf("%q: non-finite value", q[:min(len(q), 20)])
				}
			}
			if n != 0 && math.Abs(n-1) > 1e-3 {
				t.Errorf("%q: length %v", q[:min(len(q), 20)], n)
			}
		}
		// A query in a script the bank never saw is near no record.
		q := embedOne(t, e, "価格はセント単位で保存されている")
		for _, r := range texts[:9] {
			if c := cos(q, embedOne(t, e, r)); c > 0.5 {
				t.Errorf("unseen script query at %.3f to %q", c, r)
			}
		}
	}
	if v := embedOne(t, o, "  "); slices.ContainsFunc(v, func(x float32) bool { return x != 0 }) {
		t.Error("an empty text should give the zero vector")
	}
	if _, err := TrainOffline([]string{"", "the of"}, OfflineOptions{}); !errors.Is(err, ErrNothingToLearn) {
		t.Errorf("no words: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := o.Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if !utf8.ValidString(o.Model()) {
		t.Error("model name")
	}
}

func TestNeedsRetrain(t *testing.T) {
	for _, tc := range []struct {
		trained, now int
		growth       float64
		want         bool
	}{
		{0, 0, 0, false}, {0, 1, 0, true}, {1000, 1200, 0, false}, {1000, 1201, 0, true},
		{1000, 1500, 0.5, false}, {1000, 1501, 0.5, true}, {1000, 900, 0, false},
	} {
		if got := NeedsRetrain(tc.trained, tc.now, tc.growth); got != tc.want {
			t.Errorf("NeedsRetrain(%d, %d, %v) = %v", tc.trained, tc.now, tc.growth, got)
		}
	}
}

func TestOfflineMarshalRoundTrip(t *testing.T) {
	o, texts := sampleModel(t)
	b, err := o.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalOffline(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Model() != o.Model() || got.Docs() != o.Docs() || !slices.Equal(embedOne(t, got, texts[7]), embedOne(t, o, texts[7])) {
		t.Errorf("round trip: model %s docs %d, was %s %d", got.Model(), got.Docs(), o.Model(), o.Docs())
	}
	if !slices.Equal(embedOne(t, got, "zzqx unseen"), embedOne(t, o, "zzqx unseen")) {
		t.Error("an unseen word embeds differently after a round trip")
	}
	for _, i := range []int{0, 9, len(b) / 2, len(b) - 1} {
		bad := slices.Clone(b)
		bad[i] ^= 0x10
		if _, err := UnmarshalOffline(bad); err == nil {
			t.Errorf("byte %d flipped: no error", i)
		}
	}
	for _, n := range []int{0, 10, len(b) - 1} {
		if _, err := UnmarshalOffline(b[:n]); err == nil {
			t.Errorf("cut to %d bytes: no error", n)
		}
	}
}

func TestJacobiEigen(t *testing.T) {
	a := []float64{4, 1, 2, 1, 3, 0, 2, 0, 5}
	orig := slices.Clone(a)
	vals, vecs := jacobiEigen(a, 3)
	for e := range 3 {
		for r := range 3 {
			var av float64
			for k := range 3 {
				av += orig[r*3+k] * vecs[k*3+e]
			}
			if math.Abs(av-vals[e]*vecs[r*3+e]) > 1e-9 {
				t.Fatalf("A v != λ v for eigenpair %d (λ %v)", e, vals[e])
			}
		}
	}
	if s := vals[0] + vals[1] + vals[2]; math.Abs(s-12) > 1e-9 {
		t.Errorf("eigenvalues sum to %v, the trace is 12", s)
	}
}
