package bleveext

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrCorrupt is returned (wrapped) when an index file is damaged so badly
// that reading it panics inside bleve, or would: the index package
// rebuilds such an index on open.
var ErrCorrupt = errors.New("index is corrupt (memreview reindex rebuilds it)")

// checkedFile lists, in the index directory, the segment files whose
// checksums have been verified, so that each is read once, not at every
// Open. Segments are never rewritten in place: a name and size seen
// before are the same bytes.
const checkedFile = "memreview_checked.json"

// CheckedSeg is one verified segment.
type CheckedSeg struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// CheckSegments verifies the CRC-32 that ends every zap segment of the
// index in dir against its contents, for the segments not verified
// before. A damaged segment can make bleve allocate without bound (a
// length read from random bytes), which is a fatal error no recover
// catches, so the damage must be found before bleve reads the file. It
// returns the segments now known good, to be recorded with MarkChecked
// once the index opened, or an error wrapping ErrCorrupt.
//
// The caller holds the index's lock, so no other process is writing a
// segment while it is read.
func CheckSegments(dir string) ([]CheckedSeg, error) {
	store := filepath.Join(dir, "store")
	ents, err := os.ReadDir(store)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("index: list %s: %w", store, err)
	}
	refs, err := checkBolt(filepath.Join(store, "root.bolt"))
	if err != nil && !os.IsNotExist(errors.Unwrap(err)) {
		return nil, err
	}
	known := map[CheckedSeg]bool{}
	if b, err := os.ReadFile(filepath.Join(dir, checkedFile)); err == nil {
		var segs []CheckedSeg
		if json.Unmarshal(b, &segs) == nil {
			for _, s := range segs {
				known[s] = true
			}
		}
	}
	var good []CheckedSeg
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".zap") || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return nil, fmt.Errorf("index: %s: %w", e.Name(), err)
		}
		if refs != nil && !refs[e.Name()] {
			continue // no snapshot names it: a cut-short write scorch removes
		}
		seg := CheckedSeg{Name: e.Name(), Size: info.Size()}
		if !known[seg] {
			if err := checkCRC(filepath.Join(store, e.Name()), info.Size()); err != nil {
				return nil, err
			}
		}
		good = append(good, seg)
	}
	return good, nil
}

// checkCRC compares a segment's trailing big-endian CRC-32 (IEEE) with the
// checksum of the bytes before it.
func checkCRC(path string, size int64) error {
	if size < 4 {
		return fmt.Errorf("index: segment %s: %w: %d bytes", path, ErrCorrupt, size)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	defer f.Close()
	h := crc32.NewIEEE()
	if _, err := io.CopyN(h, f, size-4); err != nil {
		return fmt.Errorf("index: read segment %s: %w", path, err)
	}
	var tail [4]byte
	if _, err := io.ReadFull(f, tail[:]); err != nil {
		return fmt.Errorf("index: read segment %s: %w", path, err)
	}
	if h.Sum32() != binary.BigEndian.Uint32(tail[:]) {
		return fmt.Errorf("index: segment %s: %w: checksum mismatch", path, ErrCorrupt)
	}
	return nil
}

// MarkChecked records segs as verified; a failure only means they are
// verified again at the next Open.
func MarkChecked(dir string, segs []CheckedSeg) {
	slices.SortFunc(segs, func(a, b CheckedSeg) int { return strings.Compare(a.Name, b.Name) })
	b, err := json.Marshal(segs)
	if err != nil {
		return
	}
	tmp := filepath.Join(dir, checkedFile+".tmp")
	if os.WriteFile(tmp, b, 0o600) != nil {
		return
	}
	_ = os.Rename(tmp, filepath.Join(dir, checkedFile))
}
