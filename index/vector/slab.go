package vector

// Slots are stored in blocks of blockSlots, so growing the index never
// copies (or doubles, for a moment) what it holds.
const (
	blockShift = 12
	blockSlots = 1 << blockShift
	blockMask  = blockSlots - 1
)

// slab holds width values per slot, in blocks.
type slab[T any] struct {
	width  int
	blocks [][]T
}

// ensure makes room for slot s.
func (b *slab[T]) ensure(s uint32) {
	for int(s>>blockShift) >= len(b.blocks) {
		b.blocks = append(b.blocks, make([]T, blockSlots*b.width))
	}
}

// at is slot s's values.
func (b *slab[T]) at(s uint32) []T {
	o := int(s&blockMask) * b.width
	return b.blocks[s>>blockShift][o : o+b.width : o+b.width]
}

// values is how many values the slab holds room for.
func (b *slab[T]) values() uint64 { return uint64(len(b.blocks)) * blockSlots * uint64(b.width) }
