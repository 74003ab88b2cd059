package vector

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// The index file, little-endian throughout:
//
//	header   "MRVECIX1", version u16 (1), rerank u8, 0 u8, dims u32,
//	         count u64, seq u64, model (u16 length, bytes)
//	entries  count times: id, env, category (uvarint length, bytes),
//	         tags (uvarint count, each a string as above),
//	         sign bits (ceil(dims/64) u64), then for int8 the scale f32 and
//	         dims bytes, for float32 dims f32 (unit length)
//	trailer  CRC-32 (IEEE) of every byte before it (u32), "MRVECEND"
//
// A file is written whole to a temporary name and renamed, so a reader
// sees the old file or the new one.
const (
	fileMagic   = "MRVECIX1"
	fileEnd     = "MRVECEND"
	fileVersion = 1
	maxString   = 1 << 16
)

// Save writes the index to path atomically.
func (ix *Index) Save(path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("vector index %s: %w", path, err)
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("vector index %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(tmp, 1<<20)
	if err := ix.Write(bw); err != nil {
		return fail(err)
	}
	if err := bw.Flush(); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("vector index %s: %w", path, err)
	}
	return nil
}

// Write writes the index in the file format above.
func (ix *Index) Write(w io.Writer) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	crc := crc32.NewIEEE()
	mw := io.MultiWriter(w, crc)
	b := []byte(fileMagic)
	b = binary.LittleEndian.AppendUint16(b, fileVersion)
	b = append(b, byte(ix.opt.Rerank), 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(ix.opt.Dims))
	b = binary.LittleEndian.AppendUint64(b, uint64(ix.live))
	b = binary.LittleEndian.AppendUint64(b, ix.seq)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(ix.opt.Model)))
	b = append(b, ix.opt.Model...)
	if _, err := mw.Write(b); err != nil {
		return err
	}
	for s, id := range ix.ids {
		if !ix.isAlive(uint32(s)) {
			continue
		}
		env, cat, tags := ix.entryLabels(uint32(s))
		b = appendString(b[:0], id)
		b = appendString(b, env)
		b = appendString(b, cat)
		b = binary.AppendUvarint(b, uint64(len(tags)))
		for _, t := range tags {
			b = appendString(b, t)
		}
		for _, x := range ix.bits(uint32(s)) {
			b = binary.LittleEndian.AppendUint64(b, x)
		}
		if ix.opt.Rerank == Int8 {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(ix.scales[s]))
			for _, c := range ix.codes.at(uint32(s)) {
				b = append(b, byte(c))
			}
		} else {
			for _, x := range ix.floats.at(uint32(s)) {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
			}
		}
		if _, err := mw.Write(b); err != nil {
			return err
		}
	}
	b = binary.LittleEndian.AppendUint32(b[:0], crc.Sum32())
	b = append(b, fileEnd...)
	_, err := w.Write(b)
	return err
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// Load reads the index file at path. opt.Model and opt.Dims, when set,
// must match the file's (a file of another model is an error, so the
// caller rebuilds); the file's rerank is kept; opt's other fields apply.
func Load(path string, opt Options) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("vector index %s: %w", path, err)
	}
	defer f.Close()
	ix, err := Read(bufio.NewReaderSize(f, 1<<20), opt)
	if err != nil {
		return nil, fmt.Errorf("vector index %s: %w", path, err)
	}
	return ix, nil
}

// ErrModel is wrapped by Read's error when the file holds another model's
// vectors than the one asked for.
var ErrModel = errors.New("index holds another model's vectors")

// Read reads an index in the file format (see Load).
func Read(r io.Reader, opt Options) (*Index, error) {
	crc := crc32.NewIEEE()
	br := &fileReader{r: &hashReader{r: bufio.NewReader(r), h: crc}}
	head := br.bytes(len(fileMagic) + 2 + 2 + 4 + 8 + 8 + 2)
	if br.err != nil {
		return nil, fmt.Errorf("header: %w", br.err)
	}
	if string(head[:8]) != fileMagic {
		return nil, fmt.Errorf("header: not a memreview vector index (magic %q)", head[:8])
	}
	if v := binary.LittleEndian.Uint16(head[8:]); v != fileVersion {
		return nil, fmt.Errorf("header: version %d, this memreview reads %d", v, fileVersion)
	}
	rerank := Rerank(head[10])
	dims := int(binary.LittleEndian.Uint32(head[12:]))
	count := binary.LittleEndian.Uint64(head[16:])
	seq := binary.LittleEndian.Uint64(head[24:])
	model := string(br.bytes(int(binary.LittleEndian.Uint16(head[32:]))))
	if br.err != nil {
		return nil, fmt.Errorf("header: model: %w", br.err)
	}
	if !utf8.ValidString(model) {
		return nil, fmt.Errorf("header: model name is not UTF-8")
	}
	if opt.Model != "" && opt.Model != model {
		return nil, fmt.Errorf("header: model %q, want %q: %w", model, opt.Model, ErrModel)
	}
	if opt.Dims != 0 && opt.Dims != dims {
		return nil, fmt.Errorf("header: %d dimensions, want %d: %w", dims, opt.Dims, ErrModel)
	}
	opt.Model, opt.Dims, opt.Rerank = model, dims, rerank
	ix, err := New(opt)
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	ix.seq = seq
	v := make([]float32, dims)
	words := make([]uint64, ix.words)
	codes := make([]int8, dims)
	for i := uint64(0); i < count; i++ {
		e, err := br.entry(ix, v, words, codes)
		if err != nil {
			return nil, fmt.Errorf("entry %d of %d: %w", i+1, count, err)
		}
		if _, dup := ix.slot[e.ID]; dup {
			return nil, fmt.Errorf("entry %d of %d: id %q appears twice", i+1, count, e.ID)
		}
		s := ix.takeSlot()
		ix.ids[s] = e.ID
		ix.slot[e.ID] = s
		ix.alive[s/64] |= 1 << (s % 64)
		ix.live++
		ix.setBits(s, words)
		if rerank == Int8 {
			copy(ix.codes.at(s), codes)
			ix.scales[s] = v[0]
		} else {
			copy(ix.floats.at(s), v)
		}
		ix.label(s, e.Env, e.Category, e.Tags)
	}
	sum := crc.Sum32()
	tail := br.bytes(4 + len(fileEnd))
	if br.err != nil {
		return nil, fmt.Errorf("trailer: %w", br.err)
	}
	if string(tail[4:]) != fileEnd {
		return nil, fmt.Errorf("trailer: missing end mark (more entries than the header's %d?)", count)
	}
	if got := binary.LittleEndian.Uint32(tail); got != sum {
		return nil, fmt.Errorf("checksum %08x, contents give %08x: the file is damaged", got, sum)
	}
	if _, err := br.r.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("bytes after the end mark")
	}
	return ix, nil
}

// hashReader hashes the bytes read through it (not those buffered ahead).
type hashReader struct {
	r   *bufio.Reader
	h   hash.Hash32
	one [1]byte
}

func (h *hashReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.h.Write(p[:n])
	return n, err
}

func (h *hashReader) ReadByte() (byte, error) {
	c, err := h.r.ReadByte()
	if err == nil {
		h.one[0] = c
		h.h.Write(h.one[:])
	}
	return c, err
}

// fileReader reads the file's parts, keeping the first error.
type fileReader struct {
	r   *hashReader
	err error
	buf []byte
}

func (f *fileReader) bytes(n int) []byte {
	if f.err != nil {
		return nil
	}
	if cap(f.buf) < n {
		f.buf = make([]byte, n)
	}
	b := f.buf[:n]
	if _, err := io.ReadFull(f.r, b); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		f.err = err
		return nil
	}
	return b
}

func (f *fileReader) string(field string) string {
	if f.err != nil {
		return ""
	}
	n, err := binary.ReadUvarint(f.r)
	if err != nil {
		f.err = fmt.Errorf("%s: %w", field, err)
		return ""
	}
	if n > maxString {
		f.err = fmt.Errorf("%s: length %d over %d", field, n, maxString)
		return ""
	}
	s := string(f.bytes(int(n)))
	if f.err == nil && !utf8.ValidString(s) {
		f.err = fmt.Errorf("%s: not UTF-8", field)
	}
	return s
}

// entry reads one entry: labels into the Entry, bits into words, and the
// vector into v (float32) or codes with the scale in v[0] (int8).
func (f *fileReader) entry(ix *Index, v []float32, words []uint64, codes []int8) (Entry, error) {
	e := Entry{ID: f.string("id")}
	e.Env = f.string("env")
	e.Category = f.string("category")
	if f.err == nil {
		n, err := binary.ReadUvarint(f.r)
		if err != nil || n > maxString {
			return e, fmt.Errorf("tags: bad count")
		}
		for range n {
			e.Tags = append(e.Tags, f.string("tag"))
		}
	}
	if f.err == nil && e.ID == "" {
		return e, errors.New("id: empty")
	}
	d := ix.opt.Dims
	b := f.bytes(8 * len(words))
	for i := range words {
		if b != nil {
			words[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
	}
	if ix.opt.Rerank == Int8 {
		b = f.bytes(4 + d)
		if b != nil {
			v[0] = math.Float32frombits(binary.LittleEndian.Uint32(b))
			for i := range codes {
				codes[i] = int8(b[4+i])
			}
			if sc := float64(v[0]); math.IsNaN(sc) || math.IsInf(sc, 0) || sc <= 0 {
				return e, fmt.Errorf("%s: scale %v", e.ID, v[0])
			}
		}
	} else {
		b = f.bytes(4 * d)
		for i := range v {
			if b != nil {
				v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
				if x := float64(v[i]); math.IsNaN(x) || math.IsInf(x, 0) {
					return e, fmt.Errorf("%s: value %d is %v", e.ID, i, v[i])
				}
			}
		}
	}
	if f.err != nil {
		return e, f.err
	}
	return e, nil
}
