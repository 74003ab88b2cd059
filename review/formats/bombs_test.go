package formats

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
)

// Issue 23 item 17: expansion bombs. Each is built here, small, and
// refused with a clear error naming the file (and the member, and the
// field) before it can grow.

// An Inspect log of about 1 MB whose messages cite one 512 KiB attachment
// 200 times would expand to 100 MiB: refused at the reference that
// crosses the cap, naming its line and field.
func TestInspectAttachmentBomb(t *testing.T) {
	var msgs []string
	for i := 0; i < 200; i++ {
		msgs = append(msgs, `{"role": "user", "content": "attachment://big"}`)
	}
	data := fmt.Sprintf("{\"eval\": {\"model\": \"m\"},\n \"samples\": [{\"id\": 1, \"epoch\": 1,\n  \"messages\": [\n%s],\n  \"attachments\": {\"big\": %q}}]}",
		strings.Join(msgs, ",\n"), strings.Repeat("a", 512<<10))
	if len(data) > 1<<20 {
		t.Fatalf("the bomb is %d bytes", len(data))
	}
	_, _, err := ReadTrajectories(NewInput("bomb.json", []byte(data)), nil)
	// 128 references of 512 KiB fill the 64 MiB; the 129th (messages[128],
	// on line 132) crosses it.
	want := `bomb.json:132: field "samples[0].messages[128].content": attachment://big expands the sample past 67108864 bytes of attachments, the most a trajectory may hold`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
}

// zipMember is one member of a built archive: its name, its content, and
// (when declared is not 0) the uncompressed size its header claims.
type zipMember struct {
	name     string
	data     []byte
	declared uint64
}

// buildZip writes an archive of members, deflated; a member with a
// declared size gets a header that claims it (a bomb, or a lie).
func buildZip(t *testing.T, members ...zipMember) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, m := range members {
		var comp bytes.Buffer
		fw, _ := flate.NewWriter(&comp, flate.BestCompression)
		fw.Write(m.data)
		fw.Close()
		h := &zip.FileHeader{Name: m.name, Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(m.data),
			CompressedSize64: uint64(comp.Len()), UncompressedSize64: uint64(len(m.data))}
		if m.declared != 0 {
			h.UncompressedSize64 = m.declared
		}
		w, err := zw.CreateRaw(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(comp.Bytes())
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func sampleJSON(id int, text string) []byte {
	b, _ := json.Marshal(map[string]any{"id": id, "epoch": 1, "messages": []map[string]string{{"role": "user", "content": text}}})
	return b
}

// A small .eval whose member declares a terabyte is refused before
// anything is inflated, naming the member.
func TestEvalZipDeclaredBomb(t *testing.T) {
	data := buildZip(t,
		zipMember{name: "header.json", data: []byte(`{"eval": {"model": "m"}}`)},
		zipMember{name: "samples/1_epoch_1.json", data: sampleJSON(1, "q")},
		zipMember{name: "samples/2_epoch_1.json", data: sampleJSON(2, "q"), declared: 1 << 40})
	if len(data) > 2<<10 {
		t.Fatalf("the archive is %d bytes", len(data))
	}
	_, _, err := ReadTrajectories(NewInput("bomb.eval", data), nil)
	want := fmt.Sprintf("bomb.eval[samples/2_epoch_1.json]: the member declares 1099511627776 bytes uncompressed, over the %d one member may hold; nothing was read", review.MaxTrajectoryLineBytes)
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
	// Members that each fit but together declare more than an archive may hold.
	var ms []zipMember
	for i := 0; i < 5; i++ {
		ms = append(ms, zipMember{name: fmt.Sprintf("samples/%d_epoch_1.json", i), data: sampleJSON(i, "q"), declared: 255 << 20})
	}
	_, _, err = ReadTrajectories(NewInput("many.eval", buildZip(t, ms...)), nil)
	if want := fmt.Sprintf("many.eval: the archive's header and sample members declare %d bytes or more uncompressed, over the %d an archive may hold; nothing was read", 5*255<<20, 4*review.MaxTrajectoryLineBytes); err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
}

// Sizes are also held as members are read (a header can lie; the zip
// reader refuses a member that inflates past what it declares), and the
// caps hold for members that each fit. Caps are lowered here to keep the
// archives small.
func TestEvalZipInflateCaps(t *testing.T) {
	defer func(m, n int64) { maxZipMember, maxZipTotal = m, n }(maxZipMember, maxZipTotal)
	maxZipMember, maxZipTotal = 64<<10, 150<<10
	big := sampleJSON(1, strings.Repeat("z", 100<<10))
	_, _, err := ReadTrajectories(NewInput("lie.eval", buildZip(t, zipMember{name: "samples/1_epoch_1.json", data: big, declared: 10})), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "lie.eval[samples/1_epoch_1.json]: unreadable zip member") {
		t.Fatalf("a member that inflates past what it declares: %v", err)
	}
	_, _, err = ReadTrajectories(NewInput("big.eval", buildZip(t, zipMember{name: "samples/1_epoch_1.json", data: big})), nil)
	if want := fmt.Sprintf("big.eval[samples/1_epoch_1.json]: the member declares %d bytes uncompressed, over the 65536 one member may hold; nothing was read", len(big)); err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
	mid := sampleJSON(1, strings.Repeat("z", 60<<10))
	three := buildZip(t, zipMember{name: "samples/1_epoch_1.json", data: mid}, zipMember{name: "samples/2_epoch_1.json", data: sampleJSON(2, strings.Repeat("z", 60<<10))}, zipMember{name: "samples/3_epoch_1.json", data: sampleJSON(3, strings.Repeat("z", 60<<10))})
	_, _, err = ReadTrajectories(NewInput("sum.eval", three), nil)
	if want := fmt.Sprintf("sum.eval: the archive's header and sample members declare %d bytes or more uncompressed, over the %d an archive may hold; nothing was read", 3*len(mid), 150<<10); err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
	// Within the caps the same archive reads, member by member.
	maxZipTotal = 1 << 20
	ts, _, err := ReadTrajectories(NewInput("sum.eval", three), nil)
	if err != nil || len(ts) != 3 || ts[2].ID != "sum-3-epoch1" || len(ts[2].Steps[0].Content) != 60<<10 {
		t.Fatalf("%d runs, %v", len(ts), err)
	}
}

// A sample id in an .eval member that the bank could not store is named
// with its member.
func TestEvalZipSampleID(t *testing.T) {
	data := buildZip(t, zipMember{name: "samples/x.json", data: []byte(`{"id": "a b", "epoch": 1, "messages": [{"role": "user", "content": "q"}]}`)})
	_, _, err := ReadTrajectories(NewInput("ids.eval", data), nil)
	if want := `ids.eval[samples/x.json]:1: field "id": the id ids-a b-epoch1 holds white space or control characters`; err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
}

// Two members of an .eval with the same sample id and epoch would import as
// one run: refused, naming both members.
func TestEvalZipDuplicateSample(t *testing.T) {
	data := buildZip(t, zipMember{name: "samples/1_epoch_1.json", data: sampleJSON(1, "q")}, zipMember{name: "samples/1_epoch_1_copy.json", data: sampleJSON(1, "r")})
	ts, _, err := ReadTrajectories(NewInput("dup.eval", data), nil)
	want := `dup.eval[samples/1_epoch_1_copy.json]:1: field "id": duplicate run id dup-1-epoch1: samples/1_epoch_1.json has the same sample id and epoch`
	if err == nil || err.Error() != want || ts != nil {
		t.Fatalf("%d runs, err = %v\nwant  %s", len(ts), err, want)
	}
}
