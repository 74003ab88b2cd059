package embed

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
)

// Offline is the embedder a bank without an endpoint gets: word vectors
// learnt from the bank's own text by PPMI and a truncated SVD (Levy,
// Goldberg and Dagan 2015: window co-occurrence, context distribution
// smoothing 0.75, eigenvalue weighting 0.5), and a text's vector the
// SIF-weighted mean of its words' (Arora, Liang and Ma 2017, without the
// common-component removal). Training is deterministic: the same texts
// give the same model, name included. A word the model never saw gets a
// fixed pseudo-random direction of its own, so a new identifier still
// matches itself and a query in an unseen script finds nothing in
// particular rather than failing.
type Offline struct {
	dims   int
	words  map[string]int32
	vecs   []float32 // len(words) × dims
	weight []float32 // SIF weight by word
	unseen float32   // length of a never-seen word's contribution
	model  string
	docs   int
}

// OfflineOptions tune training; the zero value is the default.
type OfflineOptions struct {
	Dims     int // vector length (default 128); padded with zeros when the vocabulary is smaller
	Window   int // co-occurrence window either side (default 5)
	MaxVocab int // most frequent terms kept (default 30,000)
	MaxDocs  int // texts trained on, an even sample beyond (default 200,000)
	MinCount int // least occurrences to enter the vocabulary (default 1 under 1,000 texts, else 2)
}

// DefaultGrowth is the fraction by which the bank grows before the offline
// model is retrained (see NeedsRetrain).
const DefaultGrowth = 0.2

// NeedsRetrain reports whether an offline model trained on trainedDocs
// texts should be rebuilt now the bank has docsNow: when it has none yet,
// or the bank has grown by more than growth (a fraction; 0 means
// DefaultGrowth) since.
func NeedsRetrain(trainedDocs, docsNow int, growth float64) bool {
	if growth <= 0 {
		growth = DefaultGrowth
	}
	if trainedDocs <= 0 {
		return docsNow > 0
	}
	return float64(docsNow) > float64(trainedDocs)*(1+growth)
}

// ErrNothingToLearn is returned when the texts hold no words at all.
var ErrNothingToLearn = errors.New("offline embedder: the texts hold no words to learn from")

// TrainOffline learns an offline embedder from texts (the bank's records'
// RecordText, in any order).
func TrainOffline(texts []string, opt OfflineOptions) (*Offline, error) {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&opt.Dims, 128)
	def(&opt.Window, 5)
	def(&opt.MaxVocab, 30000)
	def(&opt.MaxDocs, 200000)
	if len(texts) > opt.MaxDocs {
		sample := make([]string, opt.MaxDocs)
		for i := range sample {
			sample[i] = texts[i*len(texts)/opt.MaxDocs]
		}
		texts = sample
	}
	if opt.MinCount <= 0 {
		opt.MinCount = 1
		if len(texts) >= 1000 {
			opt.MinCount = 2
		}
	}
	docs := make([][]string, len(texts))
	count := map[string]int{}
	for i, t := range texts {
		docs[i] = Tokens(t)
		for _, w := range docs[i] {
			count[w]++
		}
	}
	var vocab []string
	for w, n := range count {
		if n >= opt.MinCount {
			vocab = append(vocab, w)
		}
	}
	if len(vocab) == 0 {
		return nil, ErrNothingToLearn
	}
	sort.Slice(vocab, func(i, j int) bool {
		if count[vocab[i]] != count[vocab[j]] {
			return count[vocab[i]] > count[vocab[j]]
		}
		return vocab[i] < vocab[j]
	})
	vocab = vocab[:min(len(vocab), opt.MaxVocab)]
	o := &Offline{dims: opt.Dims, words: make(map[string]int32, len(vocab)), docs: len(texts)}
	for i, w := range vocab {
		o.words[w] = int32(i)
	}
	m := o.ppmi(docs, opt.Window)
	vecs := leftSingular(m, opt.Dims, 1)
	d := min(opt.Dims, len(vecs)/max(len(vocab), 1))
	o.vecs = make([]float32, len(vocab)*opt.Dims)
	for w := range vocab {
		for c := range d {
			o.vecs[w*opt.Dims+c] = float32(vecs[w*d+c])
		}
	}
	var total float64
	for _, w := range vocab {
		total += float64(count[w])
	}
	const a = 1e-3
	o.weight = make([]float32, len(vocab))
	for i, w := range vocab {
		o.weight[i] = float32(a / (a + float64(count[w])/total))
	}
	// A third of a once-seen word's weight: enough to match the same new
	// word in a record added since training, not enough to drown the
	// words the model knows.
	o.unseen = float32(a/(a+1/total)) * o.meanNorm() / 3
	o.model = o.name()
	return o, nil
}

// ppmi counts co-occurrences within window and returns the PPMI matrix.
func (o *Offline) ppmi(docs [][]string, window int) *csr {
	v := len(o.words)
	pairs := map[uint64]float64{}
	ids := []int32{}
	for _, doc := range docs {
		ids = ids[:0]
		for _, w := range doc {
			if id, ok := o.words[w]; ok {
				ids = append(ids, id)
			}
		}
		for i, a := range ids {
			for j := i + 1; j < len(ids) && j <= i+window; j++ {
				b := ids[j]
				if a == b {
					continue
				}
				pairs[uint64(a)<<32|uint64(b)]++
				pairs[uint64(b)<<32|uint64(a)]++
			}
		}
	}
	keys := make([]uint64, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	row := make([]float64, v)
	ctx := make([]float64, v)
	var total float64
	for _, k := range keys {
		n := pairs[k]
		row[k>>32] += n
		ctx[uint32(k)] += n
		total += n
	}
	var ctxTotal float64
	for i := range ctx {
		ctx[i] = math.Pow(ctx[i], 0.75)
		ctxTotal += ctx[i]
	}
	m := &csr{rows: v, cols: v, start: make([]int, v+1)}
	for _, k := range keys {
		r, c := int(k>>32), int(uint32(k))
		pmi := math.Log(pairs[k] / total / (row[r] / total * ctx[c] / ctxTotal))
		if pmi > 0 {
			m.col = append(m.col, int32(c))
			m.val = append(m.val, pmi)
			m.start[r+1]++
		}
	}
	for r := range v {
		m.start[r+1] += m.start[r]
	}
	return m
}

// name is the model name: the method, the dims and a hash of what was
// learnt, so vectors of an older training are never mixed with these.
func (o *Offline) name() string {
	h := fnv.New64a()
	words := make([]string, len(o.words))
	for w, i := range o.words {
		words[i] = w
	}
	for _, w := range words {
		h.Write([]byte(w))
		h.Write([]byte{0})
	}
	b := make([]byte, 4)
	for _, x := range o.vecs {
		u := math.Float32bits(x)
		b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
		h.Write(b)
	}
	return fmt.Sprintf("offline-ppmi-svd-%d-%016x", o.dims, h.Sum64())
}

// Model names this training.
func (o *Offline) Model() string { return o.model }

// Dims is the vector length.
func (o *Offline) Dims() int { return o.dims }

// Docs is how many texts the model was trained on (for NeedsRetrain).
func (o *Offline) Docs() int { return o.docs }

// Embed returns each text's unit vector, or a zero vector for a text with
// no words at all (the vector index finds nothing for it). It fails only
// when ctx ends.
func (o *Offline) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%256 == 0 && ctx.Err() != nil {
			return out[:i], ctx.Err()
		}
		out[i] = o.embed(t)
	}
	return out, nil
}

func (o *Offline) embed(text string) []float32 {
	v := make([]float32, o.dims)
	for _, w := range Tokens(text) {
		if id, ok := o.words[w]; ok {
			wv, wt := o.vecs[int(id)*o.dims:int(id+1)*o.dims], o.weight[id]
			for j, x := range wv {
				v[j] += wt * x
			}
			continue
		}
		o.addUnseen(v, w)
	}
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(ss))
	for j := range v {
		v[j] *= inv
	}
	return v
}

// addUnseen adds a word the model never saw: a fixed pseudo-random
// direction from the word's hash (see unseen for its length).
func (o *Offline) addUnseen(v []float32, w string) {
	h := fnv.New64a()
	h.Write([]byte(w))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x0077))
	scale := o.unseen / float32(math.Sqrt(float64(o.dims)))
	for j := range v {
		v[j] += scale * float32(rng.NormFloat64())
	}
}

// meanNorm is the mean length of the word vectors.
func (o *Offline) meanNorm() float32 {
	n := len(o.vecs) / o.dims
	if n == 0 {
		return 1
	}
	var s float64
	for i := range n {
		var ss float64
		for _, x := range o.vecs[i*o.dims : (i+1)*o.dims] {
			ss += float64(x) * float64(x)
		}
		s += math.Sqrt(ss)
	}
	return float32(s / float64(n))
}
