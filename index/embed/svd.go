package embed

import (
	"math"
	"math/rand/v2"
	"sort"
)

// csr is a sparse matrix in compressed rows.
type csr struct {
	rows, cols int
	start      []int // rows+1
	col        []int32
	val        []float64
}

// mul returns m·x for dense x (cols × l, row-major): rows × l.
func (m *csr) mul(x []float64, l int) []float64 {
	out := make([]float64, m.rows*l)
	for r := range m.rows {
		o := out[r*l : (r+1)*l]
		for k := m.start[r]; k < m.start[r+1]; k++ {
			v, xr := m.val[k], x[int(m.col[k])*l:int(m.col[k]+1)*l]
			for j := range o {
				o[j] += v * xr[j]
			}
		}
	}
	return out
}

// mulT returns mᵀ·x for dense x (rows × l): cols × l.
func (m *csr) mulT(x []float64, l int) []float64 {
	out := make([]float64, m.cols*l)
	for r := range m.rows {
		xr := x[r*l : (r+1)*l]
		for k := m.start[r]; k < m.start[r+1]; k++ {
			v, o := m.val[k], out[int(m.col[k])*l:int(m.col[k]+1)*l]
			for j := range o {
				o[j] += v * xr[j]
			}
		}
	}
	return out
}

// orthonormalise makes the l columns of y (n × l, row-major) orthonormal
// in place (modified Gram-Schmidt, twice for accuracy); a column that
// vanishes is left zero.
func orthonormalise(y []float64, n, l int) {
	for pass := 0; pass < 2; pass++ {
		for j := range l {
			for i := range j {
				var d float64
				for r := range n {
					d += y[r*l+i] * y[r*l+j]
				}
				for r := range n {
					y[r*l+j] -= d * y[r*l+i]
				}
			}
			var ss float64
			for r := range n {
				ss += y[r*l+j] * y[r*l+j]
			}
			inv := 0.0
			if ss > 1e-20 {
				inv = 1 / math.Sqrt(ss)
			}
			for r := range n {
				y[r*l+j] *= inv
			}
		}
	}
}

// leftSingular returns the top d left singular vectors of m scaled by
// the square roots of their singular values (rows × d), by randomised
// SVD (Halko, Martinsson and Tropp 2011) with power iterations, seeded
// so the result depends only on m.
func leftSingular(m *csr, d int, seed uint64) []float64 {
	l := min(d+10, m.rows, m.cols)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	omega := make([]float64, m.cols*l)
	for i := range omega {
		omega[i] = rng.NormFloat64()
	}
	y := m.mul(omega, l)
	for range 3 {
		orthonormalise(y, m.rows, l)
		z := m.mulT(y, l)
		orthonormalise(z, m.cols, l)
		y = m.mul(z, l)
	}
	orthonormalise(y, m.rows, l) // Q: rows × l
	bt := m.mulT(y, l)           // Bᵀ = mᵀQ: cols × l
	// B Bᵀ = (Bᵀ)ᵀ Bᵀ: l × l, symmetric.
	g := make([]float64, l*l)
	for r := range m.cols {
		row := bt[r*l : (r+1)*l]
		for i, a := range row {
			if a == 0 {
				continue
			}
			gi := g[i*l : (i+1)*l]
			for j, b := range row {
				gi[j] += a * b
			}
		}
	}
	vals, vecs := jacobiEigen(g, l)
	order := make([]int, l)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return vals[order[a]] > vals[order[b]] })
	d = min(d, l)
	out := make([]float64, m.rows*d)
	for c := range d {
		e := order[c]
		sigma := math.Sqrt(max(vals[e], 0))
		w := math.Sqrt(sigma) // eigenvalue weighting p = 0.5 (Levy et al. 2015)
		// Column c of U = Q · (eigenvector e), with a sign fixed by its
		// largest entry so the result does not depend on the solver's.
		col := make([]float64, m.rows)
		big, bigAbs := 0.0, -1.0
		for r := range m.rows {
			var s float64
			for k := range l {
				s += y[r*l+k] * vecs[k*l+e]
			}
			col[r] = s
			if math.Abs(s) > bigAbs {
				big, bigAbs = s, math.Abs(s)
			}
		}
		sign := 1.0
		if big < 0 {
			sign = -1
		}
		for r := range m.rows {
			out[r*d+c] = sign * w * col[r]
		}
	}
	return out
}

// jacobiEigen diagonalises the symmetric n × n matrix a (row-major,
// destroyed) by cyclic Jacobi rotations: eigenvalues, and eigenvectors
// as the columns of the second result.
func jacobiEigen(a []float64, n int) ([]float64, []float64) {
	v := make([]float64, n*n)
	for i := range n {
		v[i*n+i] = 1
	}
	for sweep := 0; sweep < 100; sweep++ {
		var off, diag float64
		for i := range n {
			diag += a[i*n+i] * a[i*n+i]
			for j := i + 1; j < n; j++ {
				off += a[i*n+j] * a[i*n+j]
			}
		}
		if off <= 1e-22*max(diag, 1e-300) {
			break
		}
		for p := range n {
			for q := p + 1; q < n; q++ {
				apq := a[p*n+q]
				if math.Abs(apq) < 1e-300 {
					continue
				}
				theta := (a[q*n+q] - a[p*n+p]) / (2 * apq)
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := range n {
					akp, akq := a[k*n+p], a[k*n+q]
					a[k*n+p], a[k*n+q] = c*akp-s*akq, s*akp+c*akq
				}
				for k := range n {
					apk, aqk := a[p*n+k], a[q*n+k]
					a[p*n+k], a[q*n+k] = c*apk-s*aqk, s*apk+c*aqk
				}
				for k := range n {
					vkp, vkq := v[k*n+p], v[k*n+q]
					v[k*n+p], v[k*n+q] = c*vkp-s*vkq, s*vkp+c*vkq
				}
			}
		}
	}
	vals := make([]float64, n)
	for i := range n {
		vals[i] = a[i*n+i]
	}
	return vals, v
}
