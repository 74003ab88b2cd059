package embed

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"unicode/utf8"
)

// The offline model's bytes, little-endian: "MROFFEM1", dims u32, docs
// u64, words u32, unseen f32; each word in id order (uvarint length,
// bytes, weight f32, dims f32); CRC-32 (IEEE) of everything before.
// The app keeps them beside the bank so a second process need not train.
const offlineMagic = "MROFFEM1"

// MarshalBinary encodes the trained model.
func (o *Offline) MarshalBinary() ([]byte, error) {
	words := make([]string, len(o.words))
	for w, i := range o.words {
		words[i] = w
	}
	b := []byte(offlineMagic)
	b = binary.LittleEndian.AppendUint32(b, uint32(o.dims))
	b = binary.LittleEndian.AppendUint64(b, uint64(o.docs))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(words)))
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(o.unseen))
	for i, w := range words {
		b = binary.AppendUvarint(b, uint64(len(w)))
		b = append(b, w...)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(o.weight[i]))
		for _, x := range o.vecs[i*o.dims : (i+1)*o.dims] {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b)), nil
}

// UnmarshalOffline decodes a model MarshalBinary wrote; damaged bytes are
// an error (retrain), never a model with other vectors.
func UnmarshalOffline(b []byte) (*Offline, error) {
	const head = len(offlineMagic) + 4 + 8 + 4 + 4
	if len(b) < head+4 || string(b[:len(offlineMagic)]) != offlineMagic {
		return nil, errors.New("offline embedder: not a memreview offline model")
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, errors.New("offline embedder: checksum does not match: the model is damaged")
	}
	p := len(offlineMagic)
	o := &Offline{dims: int(binary.LittleEndian.Uint32(b[p:]))}
	o.docs = int(binary.LittleEndian.Uint64(b[p+4:]))
	n := int(binary.LittleEndian.Uint32(b[p+12:]))
	o.unseen = math.Float32frombits(binary.LittleEndian.Uint32(b[p+16:]))
	if o.dims <= 0 || o.dims > 1<<14 || n <= 0 || n > len(body)/(4+4*o.dims) {
		return nil, fmt.Errorf("offline embedder: header: %d dims, %d words", o.dims, n)
	}
	o.words = make(map[string]int32, n)
	o.weight = make([]float32, n)
	o.vecs = make([]float32, n*o.dims)
	rest := body[head:]
	for i := range n {
		l, k := binary.Uvarint(rest)
		if k <= 0 || l > uint64(len(rest)-k) {
			return nil, fmt.Errorf("offline embedder: word %d: bad length", i)
		}
		w := string(rest[k : k+int(l)])
		rest = rest[k+int(l):]
		if _, dup := o.words[w]; dup || !utf8.ValidString(w) || len(rest) < 4+4*o.dims {
			return nil, fmt.Errorf("offline embedder: word %d (%q): repeated, not UTF-8 or cut short", i, w)
		}
		o.words[w] = int32(i)
		o.weight[i] = math.Float32frombits(binary.LittleEndian.Uint32(rest))
		for j := range o.dims {
			o.vecs[i*o.dims+j] = math.Float32frombits(binary.LittleEndian.Uint32(rest[4+4*j:]))
		}
		rest = rest[4+4*o.dims:]
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("offline embedder: %d bytes after the last word", len(rest))
	}
	o.model = o.name()
	return o, nil
}
