package docs

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// pkg is an opened OOXML package (a zip) with the read budget of one
// operation.
type pkg struct {
	src   Source
	lim   Limits
	zr    *zip.Reader
	files map[string]*zip.File
	left  int64 // bytes the parts may still expand to
}

// openPackage opens src as a zip after checking its size and its entry
// count (from the end-of-central-directory record, before archive/zip
// reads the directory).
func openPackage(src Source, lim Limits) (*pkg, error) {
	lim = lim.withDefaults()
	if src.Size > lim.MaxFileSize {
		return nil, src.errorf(ErrTooLarge, "the file is %d MiB, over the %d MiB cap for documents", src.Size>>20, lim.MaxFileSize>>20)
	}
	if n, err := zipEntryCount(src.R, src.Size); err == nil && n > lim.MaxEntries {
		return nil, src.errorf(ErrTooLarge, "the archive holds %d entries, over the cap of %d (a zip bomb?); not read", n, lim.MaxEntries)
	}
	var magic [8]byte
	src.R.ReadAt(magic[:], 0)
	if string(magic[:]) == "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" {
		return nil, src.errorf(ErrEncrypted, "an OLE compound file: a password-protected (encrypted) Office document, or the old binary format; memreview cannot read it")
	}
	zr, err := zip.NewReader(src.R, src.Size)
	if err != nil {
		return nil, src.errorf(ErrDamaged, "not a readable document archive (%v); the file is damaged or truncated", err)
	}
	if len(zr.File) > lim.MaxEntries {
		return nil, src.errorf(ErrTooLarge, "the archive holds %d entries, over the cap of %d (a zip bomb?); not read", len(zr.File), lim.MaxEntries)
	}
	p := &pkg{src: src, lim: lim, zr: zr, files: map[string]*zip.File{}, left: lim.MaxUnzipped}
	for _, f := range zr.File {
		p.files[strings.TrimPrefix(f.Name, "/")] = f
	}
	if _, ok := p.files["[Content_Types].xml"]; !ok {
		if _, enc := p.files["EncryptionInfo"]; enc {
			return nil, src.errorf(ErrEncrypted, "the document is encrypted; memreview cannot read it")
		}
		return nil, src.errorf(ErrDamaged, "not an Office Open XML document (no [Content_Types].xml)")
	}
	return p, nil
}

// zipEntryCount reads the entry count of the end-of-central-directory
// record (zip64 too).
func zipEntryCount(r io.ReaderAt, size int64) (int, error) {
	const eocdLen, maxComment = 22, 65535
	n := min(size, eocdLen+maxComment)
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, size-n); err != nil && err != io.EOF {
		return 0, err
	}
	i := bytes.LastIndex(buf, []byte("PK\x05\x06"))
	if i < 0 || i+eocdLen > len(buf) {
		return 0, errors.New("no end of central directory")
	}
	count := int(binary.LittleEndian.Uint16(buf[i+10:]))
	if count != 0xFFFF || i < 20 {
		return count, nil
	}
	// zip64: the locator just before gives the zip64 record's offset.
	loc := buf[i-20 : i]
	if !bytes.Equal(loc[:4], []byte("PK\x06\x07")) {
		return count, nil
	}
	off := int64(binary.LittleEndian.Uint64(loc[8:]))
	var rec [56]byte
	if off < 0 || off+56 > size {
		return 0, errors.New("bad zip64 record")
	}
	if _, err := r.ReadAt(rec[:], off); err != nil {
		return 0, err
	}
	total := binary.LittleEndian.Uint64(rec[32:])
	if total > 1<<31 {
		return 1 << 31, nil
	}
	return int(total), nil
}

// has reports whether the package holds the part name.
func (p *pkg) has(name string) bool { _, ok := p.files[name]; return ok }

// open opens a part for reading, bounded by the part cap and what is left
// of the operation's budget: reading past either is an ErrTooLarge error.
func (p *pkg) open(name string) (io.ReadCloser, error) {
	f, ok := p.files[name]
	if !ok {
		return nil, p.src.errorf(ErrDamaged, "the part %s is missing", name)
	}
	limit := min(p.lim.MaxPart, p.left)
	if f.UncompressedSize64 > uint64(limit) {
		return nil, p.partTooLarge(name, f.UncompressedSize64)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, p.src.errorf(ErrDamaged, "the part %s cannot be read (%v)", name, err)
	}
	return &boundedPart{p: p, name: name, rc: rc, left: limit}, nil
}

func (p *pkg) partTooLarge(name string, n uint64) error {
	return p.src.errorf(ErrTooLarge, "the part %s expands past %d MiB (declared %d MiB), over the cap (a zip bomb?); not read", name, min(p.lim.MaxPart, p.lim.MaxUnzipped)>>20, n>>20)
}

type boundedPart struct {
	p    *pkg
	name string
	rc   io.ReadCloser
	left int64
	n    int64 // bytes read
}

func (b *boundedPart) Read(buf []byte) (int, error) {
	if b.left <= 0 {
		return 0, b.p.src.errorf(ErrTooLarge, "the part %s expands past %d MiB, over the cap (a zip bomb?); reading stopped", b.name, min(b.p.lim.MaxPart, b.p.lim.MaxUnzipped)>>20)
	}
	if int64(len(buf)) > b.left {
		buf = buf[:b.left]
	}
	n, err := b.rc.Read(buf)
	b.left -= int64(n)
	b.p.left -= int64(n)
	b.n += int64(n)
	if err != nil && err != io.EOF {
		return n, b.p.src.errorf(ErrDamaged, "the part %s is damaged (%v)", b.name, err)
	}
	return n, err
}

func (b *boundedPart) Close() error { return b.rc.Close() }

// decoder is an XML decoder over a part. encoding/xml never expands
// entities beyond the five predefined ones, so no entity bomb can grow.
func decoder(r io.Reader) *xml.Decoder {
	d := xml.NewDecoder(r)
	d.Strict = true
	return d
}

// xmlErr turns a decoding error into the document's error: a cap error
// as it is, anything else as damage in the part.
func (p *pkg) xmlErr(name string, err error) error {
	var de *docError
	if errors.As(err, &de) {
		return err
	}
	return p.src.errorf(ErrDamaged, "the part %s is not valid XML (%v)", name, err)
}

// rels reads the relationships of part (its _rels/NAME.rels) as id →
// target part name.
func (p *pkg) rels(part string) (map[string]rel, error) {
	dir, file := path.Split(part)
	name := dir + "_rels/" + file + ".rels"
	out := map[string]rel{}
	if !p.has(name) {
		return out, nil
	}
	rc, err := p.open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	d := decoder(rc)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, p.xmlErr(name, err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "Relationship" {
			continue
		}
		id, target, typ, mode := attr(se, "Id"), attr(se, "Target"), attr(se, "Type"), attr(se, "TargetMode")
		if mode == "External" {
			continue
		}
		if strings.HasPrefix(target, "/") {
			target = strings.TrimPrefix(target, "/")
		} else {
			target = path.Clean(dir + target)
		}
		out[id] = rel{target: target, typ: typ}
	}
}

type rel struct{ target, typ string }

// relID is an element's r:id (in the relationships namespace), which a
// plain attr("id") would confuse with its own id.
func relID(se xml.StartElement) string {
	for _, a := range se.Attr {
		if a.Name.Local == "id" && strings.Contains(a.Name.Space, "relationships") {
			return a.Value
		}
	}
	return ""
}

func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// textOf collects the character data of the element d is inside (after
// its StartElement), until its end.
func textOf(d *xml.Decoder) (string, error) {
	var b strings.Builder
	depth := 1
	for depth > 0 {
		tok, err := d.Token()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			b.Write(t)
		}
	}
	return b.String(), nil
}

// appWord reads one count (Pages, Slides, Words) from docProps/app.xml.
func (p *pkg) appCount(field string) int {
	const name = "docProps/app.xml"
	if !p.has(name) {
		return 0
	}
	rc, err := p.open(name)
	if err != nil {
		return 0
	}
	defer rc.Close()
	d := decoder(rc)
	for {
		tok, err := d.Token()
		if err != nil {
			return 0
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == field {
			s, err := textOf(d)
			if err != nil {
				return 0
			}
			var n int
			fmt.Sscan(strings.TrimSpace(s), &n)
			return n
		}
	}
}
