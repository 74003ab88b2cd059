package bleveext

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"os"
	"strings"
)

// checkBolt walks the pages of the bbolt file at path that its newest
// valid meta page reaches (the bucket tree, inline buckets and the
// freelist) and checks each one's header and bounds, without bbolt: a
// damaged page can make bbolt read past its memory map, a fault that no
// recover catches, from a goroutine scorch starts. It reads the whole file,
// which for scorch's root.bolt is a few pages. It returns an error
// wrapping ErrCorrupt.
//
// It also returns the segment files the current snapshot names (scorch
// keeps each segment's file name under the key "p"): a segment file that
// no snapshot names is left over from a write that was cut short (a
// process killed while persisting) and is removed by scorch at open, so it
// is not evidence of damage.
func checkBolt(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("index: read %s: %w", path, err)
	}
	c := boltChecker{data: data, seen: map[uint64]bool{}, zaps: map[string]bool{}}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("index: %s: %w: %v", path, ErrCorrupt, err)
	}
	return c.zaps, nil
}

// bbolt's on-disk layout (go.etcd.io/bbolt/internal/common), little
// endian on the platforms memreview builds for.
const (
	boltHeader     = 16 // page: id u64, flags u16, count u16, overflow u32
	boltElement    = 16 // branch: pos, ksize u32, pgid u64; leaf: flags, pos, ksize, vsize u32
	boltBranch     = 0x01
	boltLeaf       = 0x02
	boltMeta       = 0x04
	boltFreelist   = 0x10
	boltBucketLeaf = 0x01
	boltMagic      = 0xED0CDAED
	boltNoFreelist = ^uint64(0)
)

type boltChecker struct {
	data     []byte
	pageSize uint64
	hwm      uint64 // pages in use: the meta's high-water mark
	seen     map[uint64]bool
	zaps     map[string]bool // segment file names the tree holds
}

func (c *boltChecker) check() error {
	var root, freelist, best uint64
	found := false
	// The first meta page is at 0; it names the page size, which places the
	// second. Either may be the torn one.
	for i := range 2 {
		off := uint64(0)
		if i == 1 {
			if c.pageSize == 0 {
				break
			}
			off = c.pageSize
		}
		m, ok := c.meta(off)
		if !ok {
			continue
		}
		if c.pageSize == 0 {
			c.pageSize = uint64(binary.LittleEndian.Uint32(m[8:]))
		}
		if txid := binary.LittleEndian.Uint64(m[48:]); !found || txid > best {
			found, best = true, txid
			root = binary.LittleEndian.Uint64(m[16:])
			freelist = binary.LittleEndian.Uint64(m[32:])
			c.hwm = binary.LittleEndian.Uint64(m[40:])
		}
	}
	if !found {
		return fmt.Errorf("no valid meta page")
	}
	if c.pageSize < 512 || c.pageSize > 1<<20 || c.hwm < 2 || c.hwm > uint64(len(c.data))/c.pageSize {
		return fmt.Errorf("meta page: page size %d, %d pages in a file of %d bytes", c.pageSize, c.hwm, len(c.data))
	}
	if freelist != boltNoFreelist {
		p, err := c.page(freelist)
		if err != nil {
			return fmt.Errorf("freelist: %v", err)
		}
		if flags := binary.LittleEndian.Uint16(p[8:]); flags != boltFreelist {
			return fmt.Errorf("freelist page %d has flags %#x", freelist, flags)
		}
	}
	return c.walk(root, 0)
}

// meta returns the meta fields at the page at off when its magic and
// checksum hold.
func (c *boltChecker) meta(off uint64) ([]byte, bool) {
	if off+boltHeader+64 > uint64(len(c.data)) {
		return nil, false
	}
	if binary.LittleEndian.Uint16(c.data[off+8:]) != boltMeta {
		return nil, false
	}
	m := c.data[off+boltHeader : off+boltHeader+64]
	if binary.LittleEndian.Uint32(m) != boltMagic {
		return nil, false
	}
	h := fnv.New64a()
	h.Write(m[:56])
	return m, h.Sum64() == binary.LittleEndian.Uint64(m[56:])
}

// page returns the bytes of page id, overflow pages included.
func (c *boltChecker) page(id uint64) ([]byte, error) {
	if id < 2 || id >= c.hwm {
		return nil, fmt.Errorf("page %d outside 2..%d", id, c.hwm-1)
	}
	off := id * c.pageSize
	p := c.data[off:]
	if got := binary.LittleEndian.Uint64(p); got != id {
		return nil, fmt.Errorf("page %d says it is page %d", id, got)
	}
	overflow := uint64(binary.LittleEndian.Uint32(p[12:]))
	if id+1+overflow > c.hwm {
		return nil, fmt.Errorf("page %d runs %d pages past the end", id, overflow)
	}
	return c.data[off : off+(1+overflow)*c.pageSize], nil
}

// walk checks the tree page id heads, depth levels down.
func (c *boltChecker) walk(id uint64, depth int) error {
	if c.seen[id] {
		return fmt.Errorf("page %d reached twice", id)
	}
	c.seen[id] = true
	p, err := c.page(id)
	if err != nil {
		return err
	}
	return c.node(p, depth)
}

// node checks one branch or leaf page's elements and what they point at.
func (c *boltChecker) node(p []byte, depth int) error {
	if depth > 64 {
		return fmt.Errorf("tree deeper than 64")
	}
	if len(p) < boltHeader {
		return fmt.Errorf("page of %d bytes", len(p))
	}
	flags := binary.LittleEndian.Uint16(p[8:])
	count := uint64(binary.LittleEndian.Uint16(p[10:]))
	if boltHeader+count*boltElement > uint64(len(p)) {
		return fmt.Errorf("%d elements overrun a page of %d bytes", count, len(p))
	}
	for i := range count {
		e := boltHeader + i*boltElement
		el := p[e : e+boltElement]
		switch flags {
		case boltBranch:
			pos, ksize := uint64(binary.LittleEndian.Uint32(el)), uint64(binary.LittleEndian.Uint32(el[4:]))
			if e+pos+ksize > uint64(len(p)) {
				return fmt.Errorf("branch key overruns its page")
			}
			if err := c.walk(binary.LittleEndian.Uint64(el[8:]), depth+1); err != nil {
				return err
			}
		case boltLeaf:
			fl := binary.LittleEndian.Uint32(el)
			pos, ksize, vsize := uint64(binary.LittleEndian.Uint32(el[4:])), uint64(binary.LittleEndian.Uint32(el[8:])), uint64(binary.LittleEndian.Uint32(el[12:]))
			end := e + pos + ksize + vsize
			if end > uint64(len(p)) || end < e {
				return fmt.Errorf("leaf value overruns its page")
			}
			v := p[e+pos+ksize : end]
			if fl&boltBucketLeaf == 0 {
				if k := p[e+pos : e+pos+ksize]; string(k) == "p" && strings.HasSuffix(string(v), ".zap") {
					c.zaps[string(v)] = true
				}
				continue
			}
			if len(v) < 16 {
				return fmt.Errorf("bucket header of %d bytes", len(v))
			}
			if root := binary.LittleEndian.Uint64(v); root != 0 {
				if err := c.walk(root, depth+1); err != nil {
					return err
				}
			} else if err := c.node(v[16:], depth+1); err != nil { // an inline bucket
				return err
			}
		default:
			return fmt.Errorf("tree page with flags %#x", flags)
		}
	}
	return nil
}
