package app

import (
	"path/filepath"
	"time"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
)

// The sample world and synthetic banks, for trying memreview: front ends
// make them through the service like any other bank.

// SampleSeed is the seed the sample world and synthetic banks use by
// default.
const SampleSeed = sample.Seed

// WriteSample writes the sample world (a bank with its environments) to
// dir.
func WriteSample(dir string, seed int64) error { return sample.Generate(dir, seed) }

// DefaultSample is the sample world in the user's data folder, written on
// first use (reset writes it again) and returned as a bank folder.
func DefaultSample(reset bool) (string, error) { return sample.MaterialiseDefault(reset) }

// SynthOptions shape a synthetic bank.
type SynthOptions = sample.SynthOptions

// GenerateBank writes a synthetic bank of opt.Records records into dir and
// builds its index at the same time (the index reads each transaction of
// records as it commits), and returns how long the writing took. On an
// error from either side the other stops too, and no index is left that
// an open trusts; opening the bank then catches the index up with the
// generator's edits after the last insert.
func GenerateBank(dir string, opt SynthOptions) (time.Duration, error) {
	start := time.Now()
	st, err := sample.NewSynthStore(dir, opt)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	filling := index.NewFilling(opt.Records)
	opt.Committed, opt.Inserted = filling.Committed, filling.Inserted
	built := make(chan error, 1)
	go func() { built <- index.BuildFilling(filepath.Join(dir, store.IndexDir), st, filling) }()
	err = sample.SynthInto(st, opt)
	if err != nil {
		filling.Fail(err)
	}
	stored := time.Since(start)
	if berr := <-built; err == nil {
		err = berr
	}
	if err == nil {
		err = st.Close()
	}
	return stored, err
}
