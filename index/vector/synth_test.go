package vector

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// clustered makes synthetic embeddings for tests and benchmarks: unit
// vectors near a low-dimensional Gaussian mixture (latent dimensions
// mapped to dims by a fixed random basis) plus isotropic noise, so that,
// as with text embeddings, near neighbours are much nearer than random
// pairs and the vectors do not fill the space. Labels are drawn
// independently of the vector: env (six, skewed, 5% none), category
// (eight), zero to three tags of 200 (Zipf-like).
type clustered struct {
	dims, clusters int
	seed           uint64
	latent         int
	spread, noise  float64
	basis          [][]float32 // latent × dims
	centres        [][]float64 // clusters × latent
}

// Profiles of synthetic data: latent dimensions, spread within a
// cluster (per latent dimension, centres at unit spread) and isotropic
// noise's norm over the signal's. "easy" has a steep neighbour profile
// (exact cosine at rank 1, 10, 100, 1,000 of 100,000 at 384 dims: 0.88,
// 0.86, 0.74, 0.53); "hard" a flat one, nearer text embeddings' (see
// BENCHMARKS.md for its figures).
var profiles = map[string]struct {
	latent        int
	spread, noise float64
}{
	"easy": {16, 0.35, 0.3},
	"hard": {48, 0.6, 0.8},
}

var synthEnvs = []struct {
	name string
	p    float64
}{{"shop", 0.45}, {"docs", 0.2}, {"crm", 0.15}, {"logs", 0.1}, {"ops", 0.04}, {"rare", 0.01}, {"", 0.05}}

var synthCategories = []string{"fact", "procedure", "relation", "convention", "warning", "strategy", "recovery", "optimisation"}

func newClustered(dims, clusters int, seed uint64) *clustered {
	return newProfile("easy", dims, clusters, seed)
}

func newProfile(profile string, dims, clusters int, seed uint64) *clustered {
	p := profiles[profile]
	rng := rand.New(rand.NewPCG(seed, 0))
	c := &clustered{dims: dims, clusters: clusters, seed: seed, latent: p.latent, spread: p.spread, noise: p.noise}
	for range c.latent {
		b := make([]float32, dims)
		for j := range b {
			b[j] = float32(rng.NormFloat64() / math.Sqrt(float64(dims)))
		}
		c.basis = append(c.basis, b)
	}
	for range clusters {
		z := make([]float64, c.latent)
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		c.centres = append(c.centres, z)
	}
	return c
}

// vector writes point i (any uint64; queries use another range than
// records) into out and returns its labels.
func (c *clustered) entry(i uint64, out []float32) Entry {
	rng := rand.New(rand.NewPCG(c.seed, i+1))
	cl := c.centres[rng.IntN(c.clusters)]
	clear(out)
	var signal float64
	for j := range c.latent {
		z := cl[j] + c.spread*rng.NormFloat64()
		signal += z * z
		zf := float32(z)
		for d, b := range c.basis[j] {
			out[d] += zf * b
		}
	}
	sigma := float32(c.noise * math.Sqrt(signal/float64(c.dims)))
	for d := range out {
		out[d] += sigma * float32(rng.NormFloat64())
	}
	e := Entry{ID: fmt.Sprintf("mem_%08d", i), Vector: out}
	u := rng.Float64()
	for _, env := range synthEnvs {
		if u < env.p {
			e.Env = env.name
			break
		}
		u -= env.p
	}
	e.Category = synthCategories[rng.IntN(len(synthCategories))]
	for range rng.IntN(4) {
		// Zipf-like: tag t with weight 1/(t+1).
		t := int(math.Exp(rng.Float64()*math.Log(201))) - 1
		e.Tags = append(e.Tags, fmt.Sprintf("t%03d", t))
	}
	return e
}

// recallAt is |got ∩ want| / |want| by id.
func recallAt(got, want []Hit) float64 {
	if len(want) == 0 {
		return 1
	}
	in := map[string]bool{}
	for _, h := range want {
		in[h.ID] = true
	}
	n := 0
	for _, h := range got {
		if in[h.ID] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}
