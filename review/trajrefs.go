package review

// RecordRef names a record that came from a trajectory, without the rest
// of the record: its id and the steps its provenance cites (the zero
// range when it cites none).
type RecordRef struct {
	ID    string
	Steps StepRange
}

// TrajectoryRefs are the records that came from one trajectory, in id
// order, kept compact: their ids end to end in one string and each one's
// steps as two int32s, about 20 bytes a record, so the refs of a million
// records fit in tens of MB (a RecordRef each would be three times that).
type TrajectoryRefs struct {
	ids   []byte  // the ids end to end while adding (Seal moves them to idStr)
	idStr string  // the ids end to end once sealed
	ends  []int32 // where each id ends
	steps []int32 // from, to of each
}

// Add appends a record.
func (t *TrajectoryRefs) Add(id string, steps StepRange) {
	t.AddBytes([]byte(id), steps)
}

func (t *TrajectoryRefs) AddBytes(id []byte, steps StepRange) {
	if t.idStr != "" { // sealed: unseal
		t.ids, t.idStr = []byte(t.idStr), ""
	}
	t.ids = append(t.ids, id...)
	t.ends = append(t.ends, int32(len(t.ids)))
	t.steps = append(t.steps, int32(steps.From), int32(steps.To))
}

// Seal moves the ids into one string (At then allocates nothing) and
// trims the spare room; Add after it still works.
func (t *TrajectoryRefs) Seal() {
	if len(t.ids) > 0 {
		t.idStr, t.ids = string(t.ids), nil
	}
	t.ends = t.ends[:len(t.ends):len(t.ends)]
	t.steps = t.steps[:len(t.steps):len(t.steps)]
}

// Len is how many records came from the trajectory (0 for nil: none).
func (t *TrajectoryRefs) Len() int {
	if t == nil {
		return 0
	}
	return len(t.ends)
}

// At returns the i-th record (0 ≤ i < Len). Safe for concurrent use once
// no Add runs.
func (t *TrajectoryRefs) At(i int) RecordRef {
	start := int32(0)
	if i > 0 {
		start = t.ends[i-1]
	}
	st := StepRange{From: int(t.steps[2*i]), To: int(t.steps[2*i+1])}
	if t.ids != nil {
		return RecordRef{ID: string(t.ids[start:t.ends[i]]), Steps: st}
	}
	return RecordRef{ID: t.idStr[start:t.ends[i]], Steps: st}
}
