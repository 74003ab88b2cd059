package vector

import (
	"math"
	"math/bits"
)

// signBits sets bit i of out when v[i] > 0.
func signBits(v []float32, out []uint64) {
	clear(out)
	for i, x := range v {
		if x > 0 {
			out[i/64] |= 1 << (i % 64)
		}
	}
}

// quantise writes v as int8 codes with one scale (v[i] ≈ codes[i]*scale)
// and returns the scale.
func quantise(v []float32, codes []int8) float32 {
	var m float32
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	if m == 0 {
		clear(codes)
		return 0
	}
	inv := 127 / m
	for i, x := range v {
		codes[i] = int8(math.Round(float64(x * inv)))
	}
	return m / 127
}

// hamming is the number of differing bits of a and b (equal lengths).
func hamming(a, b []uint64) int {
	n := 0
	i := 0
	for ; i+4 <= len(a); i += 4 {
		n += bits.OnesCount64(a[i]^b[i]) + bits.OnesCount64(a[i+1]^b[i+1]) +
			bits.OnesCount64(a[i+2]^b[i+2]) + bits.OnesCount64(a[i+3]^b[i+3])
	}
	for ; i < len(a); i++ {
		n += bits.OnesCount64(a[i] ^ b[i])
	}
	return n
}

// dotInt8 is q·c for float32 q and int8 c of equal length.
func dotInt8(q []float32, c []int8) float32 {
	c = c[:len(q)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		s0 += q[i] * float32(c[i])
		s1 += q[i+1] * float32(c[i+1])
		s2 += q[i+2] * float32(c[i+2])
		s3 += q[i+3] * float32(c[i+3])
	}
	for ; i < len(q); i++ {
		s0 += q[i] * float32(c[i])
	}
	return s0 + s1 + s2 + s3
}

// dotFloat is a·b for equal lengths.
func dotFloat(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}
