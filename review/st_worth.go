package review

// Worth returns what one record is worth (see [Worth]); a record no task
// retrieved has Retrieved 0.
func (s *Store) Worth(recordID string) (Worth, error) {
	if _, err := s.Record(recordID); err != nil {
		return Worth{}, err
	}
	trs, err := s.Trajectories()
	if err != nil {
		return Worth{}, err
	}
	w, ok := WorthOf(trs)[recordID]
	if !ok {
		w.Record = recordID
	}
	return w, nil
}
