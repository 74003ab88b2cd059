package vector

import (
	"github.com/RoaringBitmap/roaring/v2"
)

// labels interns one field's values (env, category or tag) and keeps, for
// each, the slots that carry it.
type labels struct {
	names []string
	ids   map[string]uint32
	post  []*roaring.Bitmap
}

func newLabels() *labels { return &labels{ids: map[string]uint32{}} }

// add files slot s under name and returns name's id.
func (l *labels) add(name string, s uint32) uint32 {
	id, ok := l.ids[name]
	if !ok {
		id = uint32(len(l.names))
		l.names = append(l.names, name)
		l.ids[name] = id
		l.post = append(l.post, roaring.New())
	}
	l.post[id].Add(s)
	return id
}

func (l *labels) remove(id, s uint32) { l.post[id].Remove(s) }

// union is the slots carrying any of names; nil when none does.
func (l *labels) union(names []string) *roaring.Bitmap {
	var bs []*roaring.Bitmap
	for _, n := range names {
		if id, ok := l.ids[n]; ok {
			bs = append(bs, l.post[id])
		}
	}
	switch len(bs) {
	case 0:
		return roaring.New()
	case 1:
		return bs[0].Clone()
	}
	return roaring.FastOr(bs...)
}

func (l *labels) size() uint64 {
	var n uint64
	for i, b := range l.post {
		n += b.GetSizeInBytes() + uint64(len(l.names[i])) + 40
	}
	return n
}

// candidates is the slots f allows, in slot order, or nil when f does not
// restrict (every live slot).
func (ix *Index) candidates(f Filter) []uint32 {
	if !f.restricts() {
		return nil
	}
	var acc *roaring.Bitmap
	for _, part := range []struct {
		l     *labels
		names []string
	}{{ix.env, f.Envs}, {ix.cat, f.Categories}, {ix.tags, f.Tags}} {
		if len(part.names) == 0 {
			continue
		}
		u := part.l.union(part.names)
		if acc == nil {
			acc = u
		} else {
			acc.And(u)
		}
		if acc.IsEmpty() {
			return []uint32{}
		}
	}
	return acc.ToArray()
}
