package vector

import (
	"fmt"
	"testing"
)

// The head scan's unrolled loops (heads of 2, 4 and 6 words: 128, 256
// and 384 dimensions) and the generic one (3 words: 192) give every
// live slot its Hamming distance to the query and every free slot none,
// as hamming does slot by slot, over whole blocks and parts of them.
func TestScanHeadWidths(t *testing.T) {
	for _, dims := range []int{128, 192, 256, 384} {
		t.Run(fmt.Sprintf("dims=%d", dims), func(t *testing.T) {
			w := newWorld(blockSlots+900, dims)
			ix := w.build(t, Options{Dims: dims})
			for i := 0; i < len(w.entries); i += 7 {
				ix.Delete(w.entries[i].ID)
			}
			q := make([]uint64, ix.words)
			signBits(newClustered(dims, 40, 7).entry(1<<40, make([]float32, dims)).Vector, q)
			hw := ix.head.width
			none := uint16(hw*64 + 1)
			c := ix.scope(Filter{})
			n := len(ix.ids)
			for _, r := range [][2]int{{0, n}, {5, n - 3}, {blockSlots - 1, blockSlots + 1}} {
				lo, hi := r[0], min(r[1], n)
				dist := make([]uint16, n)
				h := ix.scanHead(q[:hw], c, dist, lo, hi, none)
				want := make([]int32, none+1)
				for s := lo; s < hi; s++ {
					d := none
					if ix.isAlive(uint32(s)) {
						o := (s & blockMask) * hw
						d = uint16(hamming(q[:hw], ix.head.blocks[s>>blockShift][o:o+hw]))
						want[d]++
					}
					if dist[s] != d {
						t.Fatalf("slots [%d,%d): slot %d distance %d, want %d", lo, hi, s, dist[s], d)
					}
				}
				for d := range want {
					if h[d] != want[d] {
						t.Fatalf("slots [%d,%d): %d slots at distance %d, want %d", lo, hi, h[d], d, want[d])
					}
				}
			}
		})
	}
}
