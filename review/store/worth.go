package store

import "github.com/memreview/memreview/review"

// Worth returns what one record is worth (see [Worth]); a record no task
// retrieved has Retrieved 0.
func (s *Store) Worth(recordID string) (review.Worth, error) {
	if _, err := s.Record(recordID); err != nil {
		return review.Worth{}, err
	}
	trs, err := s.Trajectories()
	if err != nil {
		return review.Worth{}, err
	}
	w, ok := review.WorthOf(trs)[recordID]
	if !ok {
		w.Record = recordID
	}
	return w, nil
}
